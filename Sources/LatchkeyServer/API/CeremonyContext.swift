import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// What the endpoints share: configuration, store, verifiers, challenges and sessions.
struct CeremonyContext: Sendable {
    let configuration: LatchkeyConfiguration
    let store: any LatchkeyStore
    let relyingParty: RelyingParty
    /// Attestation policy, trust anchors and metadata, as the registration verifier uses them.
    let attestationTrust: AttestationTrust
    let challenges: ChallengeIssuer
    let sessions: SessionAuthority
    let logger: Logger

    init(configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.relyingParty = configuration.relyingParty
        self.attestationTrust = attestationTrust
        self.logger = logger
        let secure = configuration.usesHTTPS
        let crossSite = configuration.conformanceMode
        challenges = ChallengeIssuer(
            store: store, lifetime: TimeInterval(configuration.challengeTimeout), secureCookies: secure, crossSiteCookies: crossSite)
        sessions = SessionAuthority(
            store: store, lifetime: TimeInterval(configuration.sessionTimeout), secureCookies: secure, crossSiteCookies: crossSite)
    }

    /// The options `timeout` member, in milliseconds.
    var timeoutMilliseconds: JSONValue { .number(Double(configuration.challengeTimeout * 1000)) }

    /// A credential ID shortened for logs: enough to correlate, never the whole identifier.
    static func logID(_ id: [UInt8]) -> String { String(Base64URL.encode(id).prefix(8)) }
}
