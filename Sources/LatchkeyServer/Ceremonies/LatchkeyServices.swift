import Foundation
import LatchkeyConfiguration
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// The dependencies the controllers share: configuration, policies, store, attestation trust,
/// challenges, sessions, enrollment tickets and sign-in tokens. Logging goes through each request's own logger, so a request's lines
/// carry its ID.
struct LatchkeyServices: Sendable {
    let configuration: LatchkeyConfiguration
    let policy: ServerPolicy
    let store: any LatchkeyStore
    let relyingParty: RelyingParty
    /// Attestation policy, trust anchors and metadata, as the registration verifier uses them.
    let attestationTrust: AttestationTrust
    let challenges: ChallengeIssuer
    let sessions: SessionAuthority
    /// Enrollment tickets the admin API issues and registrations spend.
    let tickets: EnrollmentTickets
    /// The signed token every successful ceremony returns, and the key set that verifies it.
    let tokens: SignInTokens
    /// Whether the store takes writes, for `/readyz`.
    let health: StoreHealth
    /// The §7.2 verifier, with parsed credential keys kept between sign-ins (bounded, never stale:
    /// an entry is used only while the stored COSE key is byte for byte the one it was parsed from).
    let authenticationVerifier: AuthenticationVerifier
    /// App Attest keys and the assertions that vouch for app requests.
    let appAttest: AppAttestKeys
    let metrics: LatchkeyMetrics
    /// Whether requests get IDs and metrics and store calls are timed.
    let operations: OperationsFeatures
    /// The security events each change is stored with.
    let events: SecurityEventRecorder

    /// Services over `store`, as a ``ServerStore``: a call another process's lock keeps busy is made
    /// again until `storeTimeout`, and every call is timed in `metrics` unless `operations` is
    /// ``OperationsFeatures/off``; App Attest chains end in `appAttestRoots`.
    init(
        configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust, appAttestRoots: [X509Certificate],
        metrics: LatchkeyMetrics, operations: OperationsFeatures = .on, authenticatorNames: AuthenticatorNames = AuthenticatorNames()
    ) {
        self.configuration = configuration
        self.events = SecurityEventRecorder(names: authenticatorNames)
        self.policy = configuration.serverPolicy
        self.metrics = metrics
        self.operations = operations
        let store = ServerStore(base: store, metrics: operations == .on ? metrics : nil, lockWait: LatchkeyServer.storeDeadline(configuration))
        self.store = store
        self.relyingParty = configuration.relyingParty
        self.attestationTrust = attestationTrust
        let secure = configuration.usesHTTPS
        let crossSite = policy.crossSiteCookies
        let caps = PendingChallengeCaps(
            perClient: policy.clientAddressLimits == .enforced ? configuration.pendingChallengesPerClient : 0,
            total: configuration.pendingChallengesTotal)
        challenges = ChallengeIssuer(
            store: store, lifetime: TimeInterval(configuration.challengeTimeout), secureCookies: secure, crossSiteCookies: crossSite,
            caps: caps)
        sessions = SessionAuthority(
            store: store, lifetime: TimeInterval(configuration.sessionTimeout), secureCookies: secure, crossSiteCookies: crossSite)
        tickets = EnrollmentTickets(store: store)
        health = StoreHealth(store: store, timeout: LatchkeyServer.storeDeadline(configuration), metrics: metrics)
        tokens = SignInTokens(
            store: store, issuer: configuration.tokenIssuer, audience: configuration.tokenAudience,
            lifetime: TimeInterval(configuration.tokenLifetime))
        appAttest = AppAttestKeys(configuration: configuration, roots: appAttestRoots, store: store, challenges: challenges)
        authenticationVerifier = AuthenticationVerifier(relyingParty: relyingParty, keyCache: CredentialKeyCache(capacity: 10_000))
    }

    /// The options `timeout` member, in milliseconds.
    var timeoutMilliseconds: Int { configuration.challengeTimeout * 1000 }

    /// A credential ID shortened for logs: enough to correlate, never the whole identifier.
    static func logID(_ id: [UInt8]) -> String { String(Base64URL.encode(id).prefix(8)) }
}
