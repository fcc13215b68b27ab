import CLatchkeyShims
import COpenSSL
import Foundation

/// Checks attestation certificate paths with OpenSSL's X509 store.
public enum CertificateChain {
    /// Verifies that `chain[0]` chains through `chain[1...]` (untrusted) to one of `anchors`, at
    /// `time` (now when nil). Certificates taken from the chain itself are never trusted, so a
    /// self-signed root inside `x5c` does not help. Throws ``WebAuthnError/Code/untrustedAttestation``
    /// when the path does not verify or no anchors are given, and
    /// ``WebAuthnError/Code/invalidAttestationStatement`` for an empty chain.
    public static func verify(_ chain: [X509Certificate], anchors: [X509Certificate], at time: Date?) throws {
        guard let leaf = chain.first else {
            throw WebAuthnError(.invalidAttestationStatement, "the attestation certificate chain is empty")
        }
        guard !anchors.isEmpty else {
            throw WebAuthnError(.untrustedAttestation, "no trust anchors are configured for this attestation")
        }
        let intermediates: [OpaquePointer?] = chain.dropFirst().map { $0.certificate }
        let roots: [OpaquePointer?] = anchors.map { $0.certificate }
        var reason = [CChar](repeating: 0, count: 256)
        let verified = latchkey_verify_chain(
            leaf.certificate, intermediates, Int32(intermediates.count), roots, Int32(roots.count),
            time == nil ? 0 : 1, Int64(time?.timeIntervalSince1970 ?? 0), &reason, reason.count)
        guard verified == 1 else {
            throw WebAuthnError(.untrustedAttestation, "attestation certificate chain does not verify to a trust anchor: \(String(cStringBuffer: reason))")
        }
    }
}
