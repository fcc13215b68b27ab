import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import Logging
import WebAuthn

/// Everything one relying party's use cases share: its configuration and policy, the store, attestation trust,
/// challenges, sessions, enrollment tickets, sign-in tokens and events. Each feature is a small value over it
/// (``registration``, ``signIn``, ``deviceKeys``, ...), whose every use case is one call with typed inputs and
/// outcomes. Logging goes through each caller's own logger, so a request's lines carry its ID.
package final class RelyingPartyService: Sendable {
    package let configuration: LatchkeyConfiguration
    package let policy: ServerPolicy
    package let store: any LatchkeyStore
    package let relyingParty: RelyingParty
    /// Attestation policy, trust anchors and metadata, as the registration verifier uses them.
    package let attestationTrust: AttestationTrust
    package let challenges: Challenges
    package let sessions: Sessions
    /// Enrollment tickets the admin API issues and registrations spend.
    package let tickets: EnrollmentTickets
    /// The signed token every successful ceremony returns, and the key set that verifies it.
    package let tokens: SignInTokens
    /// Whether the store takes writes, for readiness.
    package let health: StoreHealth
    /// The §7.1 verifier, made once.
    package let registrationVerifier: RegistrationVerifier
    /// The §7.2 verifier, with parsed credential keys kept between sign-ins (bounded, never stale:
    /// an entry is used only while the stored COSE key is byte for byte the one it was parsed from).
    package let authenticationVerifier: SignInVerifier
    /// App Attest keys and the assertions that vouch for app requests.
    package let appAttest: AppAttestKeys
    package let metrics: LatchkeyMetrics
    /// Whether requests get IDs and metrics and store calls are timed.
    package let operations: OperationsFeatures
    /// The security events each change is stored with.
    package let events: SecurityEventRecorder
    /// Names passkeys' authenticators (AAGUID to provider).
    package let names: AuthenticatorNames
    /// Sign-in options for usernames nobody registered, under `hideUnknownUsers`.
    package let decoys: UnknownUserDecoys
    /// The rate limits and challenge caps of this service's tenant, among every tenant's.
    package let limits: ClientLimits

    /// The service over `store`, which it calls under ``storeCalls(_:metrics:operations:)``; App
    /// Attest chains end in `appAttestRoots`.
    package init(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust, appAttestRoots: [X509Certificate],
        metrics: LatchkeyMetrics, operations: OperationsFeatures = .on, authenticatorNames: AuthenticatorNames = AuthenticatorNames(),
        limits: ClientLimits = ClientLimits()
    ) {
        self.configuration = configuration
        names = authenticatorNames
        events = SecurityEventRecorder(names: authenticatorNames)
        policy = configuration.serverPolicy
        self.metrics = metrics
        self.operations = operations
        let store = store.applying(Self.storeCalls(configuration, metrics: metrics, operations: operations))
        self.store = store
        relyingParty = configuration.relyingParty
        self.attestationTrust = attestationTrust
        self.limits = limits
        let caps = limits.caps(
            for: store.tenant, perClient: policy.clientAddressLimits == .enforced ? configuration.pendingChallengesPerClient : 0,
            total: configuration.pendingChallengesTotal)
        challenges = Challenges(store: store, lifetime: TimeInterval(configuration.challengeTimeout), caps: caps)
        sessions = Sessions(store: store, lifetime: TimeInterval(configuration.sessionTimeout))
        tickets = EnrollmentTickets(store: store)
        health = StoreHealth(store: store, timeout: Self.storeDeadline(configuration), metrics: metrics)
        tokens = SignInTokens(
            store: store, issuer: configuration.tokenIssuer, audience: configuration.tokenAudience,
            lifetime: TimeInterval(configuration.tokenLifetime))
        appAttest = AppAttestKeys(configuration: configuration, roots: appAttestRoots, store: store, challenges: challenges)
        registrationVerifier = RegistrationVerifier(relyingParty: relyingParty, trust: attestationTrust)
        authenticationVerifier = SignInVerifier(relyingParty: relyingParty, keyCache: CredentialKeyCache(capacity: 10_000))
        decoys = UnknownUserDecoys(store: store)
    }

    /// How long one store call may wait (for a PostgreSQL connection, for the readiness write):
    /// `storeTimeout` less a margin for the reply's round trip, so that the refusal reaches a load balancer
    /// within `storeTimeout`.
    package static func storeDeadline(_ configuration: LatchkeyConfiguration) -> Duration {
        .milliseconds(max(configuration.storeTimeout * 1000 - 500, 500))
    }

    /// How the service calls its store: a call another process's lock keeps busy (or a deadlock
    /// rolled back) is made again until the ``storeDeadline(_:)``, and every call is timed in
    /// `metrics` unless `operations` is ``OperationsFeatures/off``.
    package static func storeCalls(
        _ configuration: LatchkeyConfiguration, metrics: LatchkeyMetrics, operations: OperationsFeatures
    ) -> StoreCallPolicy {
        var calls = StoreCallPolicy(busyRetry: storeDeadline(configuration))
        if operations == .on {
            calls.timing = { function, started in metrics.recordStoreCall(function, since: started) }
        }
        return calls
    }

    /// The options `timeout` member, in milliseconds.
    package var timeoutMilliseconds: Int { configuration.challengeTimeout * 1000 }

    /// A credential ID shortened for logs: enough to correlate, never the whole identifier.
    package static func logID(_ id: [UInt8]) -> String { String(Base64URL.encode(id).prefix(8)) }

    package var registration: RegistrationService { RegistrationService(service: self) }
    package var signIn: SignInService { SignInService(service: self) }
    package var deviceKeys: DeviceKeyService { DeviceKeyService(service: self) }
    package var passkeys: PasskeyService { PasskeyService(service: self) }
    package var account: AccountService { AccountService(service: self) }
    package var appAttestation: AppAttestService { AppAttestService(service: self) }
    package var users: UserAdministration { UserAdministration(service: self) }
    package var eventLog: EventLog { EventLog(service: self) }
    package var statistics: StatisticsReader { StatisticsReader(service: self) }
}
