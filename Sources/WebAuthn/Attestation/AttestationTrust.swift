import Foundation

/// Decides whether a verified attestation statement is trusted enough to register (§7.1 steps 22-23):
/// the AAGUID lists, the policy mode, and the statement's certificate path checked by OpenSSL against
/// the trust anchors at the verification time.
///
/// The AAGUID in authenticator data is only a claim. It counts as attested when a certificate vouches
/// for that model: the leaf carries a matching id-fido-gen-ce-aaguid extension, or the chain verifies
/// to roots that belong to that model alone (``modelAnchors``, such as FIDO metadata). An allow-list
/// admits attested models only; the deny-list and status vetoes apply to every claim.
public struct AttestationTrust: Sendable {
    public var policy: AttestationPolicy
    /// Roots for any model of a format (the anchor folders).
    public var anchors: any TrustAnchorSource
    /// Roots that vouch for one authenticator model each (FIDO metadata), looked up by AAGUID.
    public var modelAnchors: (any TrustAnchorSource)?
    /// The time certificates are checked at; nil means now. Tests of captured data fix it.
    public var verificationTime: Date?
    /// Vetoes models by certification status (for example FIDO metadata); consulted for every
    /// attestation type and policy mode, like the deny-list.
    public var statusSource: (any AuthenticatorStatusSource)?

    public init(policy: AttestationPolicy = AttestationPolicy(), anchors: any TrustAnchorSource = TrustAnchors.empty,
                modelAnchors: (any TrustAnchorSource)? = nil, verificationTime: Date? = nil,
                statusSource: (any AuthenticatorStatusSource)? = nil) {
        self.policy = policy
        self.anchors = anchors
        self.modelAnchors = modelAnchors
        self.verificationTime = verificationTime
        self.statusSource = statusSource
    }

    /// Accepts everything; chains are still checked when anchors exist and the outcome recorded.
    public static let acceptAny = AttestationTrust()

    /// Returns whether the statement chained to a trust anchor, or throws when the policy refuses it.
    public func evaluate(_ result: AttestationResult, format: String, aaguid: [UInt8]) throws -> Bool {
        let model = AAGUID.string(aaguid)
        if policy.deniedAAGUIDs.contains(aaguid) {
            throw WebAuthnError(.untrustedAttestation, "authenticator model \(model) is on the deny-list")
        }
        if let allowed = policy.allowedAAGUIDs, !allowed.contains(aaguid) {
            throw WebAuthnError(.untrustedAttestation, "authenticator model \(model) is not on the allow-list")
        }
        if let reason = statusSource?.refusalReason(aaguid: aaguid, at: verificationTime) {
            throw WebAuthnError(.untrustedAttestation, "authenticator model \(model) is refused: \(reason)")
        }
        let (trusted, modelAttested) = try judge(result, format: format, aaguid: aaguid, model: model)
        if policy.allowedAAGUIDs != nil, !modelAttested {
            throw WebAuthnError(.untrustedAttestation, "authenticator model \(model) is on the allow-list, but no certificate vouches for it (a leaf with id-fido-gen-ce-aaguid, or a chain to that model's metadata roots)")
        }
        return trusted
    }

    /// The policy mode and chain verdict: whether the statement is trusted, and whether that trust
    /// also attests the claimed model.
    private func judge(_ result: AttestationResult, format: String, aaguid: [UInt8], model: String) throws -> (trusted: Bool, modelAttested: Bool) {
        switch result.type {
        case .none:
            guard policy.mode == .none else {
                throw WebAuthnError(.untrustedAttestation, "attestation \"none\" is refused by the \(policy.mode.rawValue) policy: the authenticator is unknown")
            }
            return (false, false)
        case .self:
            guard policy.mode != .trustedOnly else {
                throw WebAuthnError(.untrustedAttestation, "self attestation is refused by the trusted-only policy")
            }
            return (false, false)
        case .basic, .attCA, .anonCA:
            let chain = result.certificates
            if let roots = modelAnchors?.anchors(format: format, aaguid: aaguid), !roots.isEmpty,
               (try? CertificateChain.verify(chain, anchors: roots, at: verificationTime)) != nil {
                return (true, true)
            }
            let roots = anchors.anchors(format: format, aaguid: aaguid)
            guard !roots.isEmpty else {
                if policy.mode == .none { return (false, false) }
                throw WebAuthnError(.untrustedAttestation, "no trust anchors are configured for \(format) attestation from \(model)")
            }
            do {
                try CertificateChain.verify(chain, anchors: roots, at: verificationTime)
                return (true, chain.first.map { Self.certifiesModel($0, aaguid: aaguid) } ?? false)
            } catch let error as WebAuthnError where policy.mode == .none && error.code == .untrustedAttestation {
                return (false, false)
            }
        }
    }

    /// Whether `leaf` names exactly this model in id-fido-gen-ce-aaguid.
    static func certifiesModel(_ leaf: X509Certificate, aaguid: [UInt8]) -> Bool {
        (try? leaf.fidoAAGUID()) == aaguid
    }
}
