import Foundation
import LatchkeyStore
import Logging
import WebAuthn

/// The dependencies the endpoints share: configuration, store, attestation trust, challenges and
/// sessions. Logging goes through each request's own logger, so a request's lines carry its ID.
struct LatchkeyServices: Sendable {
    let configuration: LatchkeyConfiguration
    let store: any LatchkeyStore
    let relyingParty: RelyingParty
    /// Attestation policy, trust anchors and metadata, as the registration verifier uses them.
    let attestationTrust: AttestationTrust
    let challenges: ChallengeIssuer
    let sessions: SessionAuthority

    init(configuration: LatchkeyConfiguration, store: any LatchkeyStore, attestationTrust: AttestationTrust) {
        self.configuration = configuration
        self.store = store
        self.relyingParty = configuration.relyingParty
        self.attestationTrust = attestationTrust
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
