import Foundation
import COpenSSL
import LatchkeyJSON

/// The `android-safetynet` format (WebAuthn §8.5): a SafetyNet attestation response, a JWS signed by
/// Google's attest.android.com certificate whose payload binds the registration through its nonce.
/// Chains to trust anchors are judged separately; this checks the statement and the leaf.
public struct AndroidSafetyNetAttestation: AttestationFormat {
    public let identifier = "android-safetynet"

    /// Oldest accepted response, measured from the JWS `timestampMs` to the verification time.
    /// 60 s, as SafetyNet responses are meant to be used at once (FIDO conformance Resp-B F-7).
    public let maximumAge: TimeInterval
    /// How far in the future of the verification time `timestampMs` may lie, to absorb clock
    /// differences between Google and this server. 10 s is generous for NTP-synchronised clocks and
    /// still refuses responses minted ahead of time.
    public let maximumClockSkew: TimeInterval

    /// The host name the JWS leaf certificate must be issued to.
    static let attestationHostname = "attest.android.com"

    public init(maximumAge: TimeInterval = 60, maximumClockSkew: TimeInterval = 10) {
        self.maximumAge = maximumAge
        self.maximumClockSkew = maximumClockSkew
    }

    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        // §8.5 step 1: attStmt is valid CBOR with ver and response.
        let statement = try AttestationStatement(input.statement, format: identifier)
        _ = try statement.text("ver")
        let response = try statement.bytes("response")

        // §8.5 step 2: response is a valid SafetyNet response: a compact JWS signed by the x5c leaf.
        let jws: CompactJWS
        do {
            jws = try CompactJWS(String(decoding: response, as: UTF8.self))
        } catch let error as WebAuthnError where error.code == .malformedInput {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt.response is not a valid JWS: \(error.message)")
        }
        guard let leaf = jws.certificates.first else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS header has no x5c certificate chain")
        }
        // §8.5 step 4 (first half): the attestation certificate is issued to attest.android.com.
        guard try leaf.isIssued(toHostname: Self.attestationHostname) else {
            let names = (try? leaf.subjectAlternativeDNSNames()) ?? []
            let shown = names.isEmpty ? "CN \(leaf.subjectAttribute(NID_commonName))" : "dNSNames \(names)"
            throw WebAuthnError(.invalidCertificate, "android-safetynet JWS certificate is issued to \(shown), not \(Self.attestationHostname)")
        }
        do {
            try jws.verifySignature()
        } catch let error as WebAuthnError where error.code == .invalidSignature {
            throw WebAuthnError(.invalidSignature, "android-safetynet JWS \(jws.algorithm.name) signature does not verify with the attest.android.com certificate key")
        }
        guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(jws.payload)), case .object = payload else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload is not a JSON object")
        }

        // §8.5 step 3: payload nonce = base64(SHA-256(authenticatorData ‖ clientDataHash)).
        let expectedNonce = Data(Digest.sha256(input.signedBytes)).base64EncodedString()
        guard let nonceValue = payload["nonce"] else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload has no nonce")
        }
        guard let nonce = nonceValue.stringValue else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload nonce is \(nonceValue.kindName), not a string")
        }
        guard constantTimeEquals(Array(nonce.utf8), Array(expectedNonce.utf8)) else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload nonce \"\(nonce)\" is not base64(SHA-256(authenticatorData ‖ clientDataHash)) \"\(expectedNonce)\"")
        }

        // §8.5 step 4 (second half): ctsProfileMatch is true.
        guard let ctsValue = payload["ctsProfileMatch"] else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload has no ctsProfileMatch")
        }
        guard ctsValue.boolValue == true else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload ctsProfileMatch is \(ctsValue.boolValue.map(String.init) ?? ctsValue.kindName), not true: the device failed the compatibility check")
        }

        // SafetyNet response freshness (Google's verification steps; FIDO conformance Resp-B F-6/F-7):
        // timestampMs lies at most maximumAge before and maximumClockSkew after the verification time.
        // Bounded before any date arithmetic: 1e15 ms is far beyond any real clock (year 33658).
        guard case .number(let timestampMs)? = payload["timestampMs"], timestampMs.isFinite, timestampMs >= 0, timestampMs <= 1e15 else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload has no timestampMs between 0 and 1e15")
        }
        let issued = Date(timeIntervalSince1970: timestampMs / 1000)
        let age = input.now.timeIntervalSince(issued)
        guard age <= maximumAge else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet response timestamp \(issued) is \(Int(age)) s before the verification time \(input.now); at most \(Int(maximumAge)) s is accepted")
        }
        guard -age <= maximumClockSkew else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet response timestamp \(issued) is \(Int(-age)) s after the verification time \(input.now); at most \(Int(maximumClockSkew)) s of clock skew is accepted")
        }

        // §8.5 step 5: Basic, trust path the JWS x5c chain.
        return AttestationResult(type: .basic, certificates: jws.certificates)
    }
}
