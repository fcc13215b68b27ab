import Foundation
import COpenSSL

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
        let statement = input.statement
        // §8.5 step 1: attStmt is valid CBOR with ver and response.
        guard statement.mapEntries != nil else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt is a CBOR \(statement.kindName), not a map")
        }
        guard let verValue = statement[textKey: "ver"] else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt has no ver")
        }
        guard let version = verValue.textString else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt.ver is a \(verValue.kindName), not a text string")
        }
        guard !version.isEmpty else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt.ver is empty")
        }
        guard let responseValue = statement[textKey: "response"] else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt has no response")
        }
        guard let response = responseValue.byteString else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt.response is a \(responseValue.kindName), not a byte string")
        }

        // §8.5 step 2: response is a valid SafetyNet response: a compact JWS signed by the x5c leaf.
        let jws = try CompactJWS(response)
        let leaf = try X509Certificate(der: jws.certificateChain[0])
        // §8.5 step 4 (first half): the attestation certificate is issued to attest.android.com.
        guard try leaf.isIssued(toHostname: Self.attestationHostname) else {
            let names = (try? leaf.subjectAlternativeDNSNames()) ?? []
            let shown = names.isEmpty ? "CN \(leaf.subjectAttribute(NID_commonName))" : "dNSNames \(names)"
            throw WebAuthnError(.invalidCertificate, "android-safetynet JWS certificate is issued to \(shown), not \(Self.attestationHostname)")
        }
        do {
            try leaf.publicKey().verify(signature: jws.signature, over: jws.signingInput, algorithm: jws.algorithm)
        } catch let error as WebAuthnError where error.code == .invalidSignature {
            throw WebAuthnError(.invalidSignature, "android-safetynet JWS \(jws.algorithm.name) signature does not verify with the attest.android.com certificate key")
        }

        // §8.5 step 3: payload nonce = base64(SHA-256(authenticatorData ‖ clientDataHash)).
        let payload = jws.payload
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
        guard case .number(let timestampMs)? = payload["timestampMs"], timestampMs.isFinite, timestampMs >= 0 else {
            throw WebAuthnError(.invalidAttestationStatement, "android-safetynet JWS payload has no non-negative number timestampMs")
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
        return AttestationResult(type: .basic, trustPath: jws.certificateChain)
    }
}

/// A JWS in compact serialization (RFC 7515 §7.1) whose header carries the signer's `x5c` chain,
/// as SafetyNet responses are.
struct CompactJWS {
    let algorithm: COSEAlgorithm
    /// DER certificates from the header's x5c, leaf first; never empty.
    let certificateChain: [[UInt8]]
    let payload: JSONValue
    /// ASCII(BASE64URL(header) ‖ "." ‖ BASE64URL(payload)), the bytes the signature covers.
    let signingInput: [UInt8]
    /// The signature, DER-encoded for ECDSA algorithms (JWS carries R ‖ S).
    let signature: [UInt8]

    /// The JWS `alg` names accepted, as COSE algorithms; "none" and HMAC are never accepted.
    static let algorithms: [String: COSEAlgorithm] = [
        "RS256": .rs256, "RS384": .rs384, "RS512": .rs512,
        "PS256": .ps256, "PS384": .ps384, "PS512": .ps512,
        "ES256": .es256, "ES384": .es384, "ES512": .es512,
    ]

    init(_ bytes: [UInt8]) throws {
        func invalid(_ what: String) -> WebAuthnError {
            WebAuthnError(.invalidAttestationStatement, "android-safetynet attStmt.response is not a valid JWS: \(what)")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw invalid("\(parts.count) dot-separated parts instead of 3") }
        let names = ["header", "payload", "signature"]
        var decoded: [[UInt8]] = []
        for (part, name) in zip(parts, names) {
            guard !part.isEmpty, let value = Base64URL.decode(String(decoding: part, as: UTF8.self)) else {
                throw invalid("the \(name) is not base64url")
            }
            decoded.append(value)
        }
        func json(_ bytes: [UInt8], _ name: String) throws -> JSONValue {
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)), case .object = value else {
                throw invalid("the \(name) is not a JSON object")
            }
            return value
        }
        let header = try json(decoded[0], "header")
        payload = try json(decoded[1], "payload")
        signingInput = Array(bytes[..<(parts[0].count + 1 + parts[1].count)])

        guard let algorithmName = header["alg"]?.stringValue else { throw invalid("the header has no alg") }
        guard let algorithm = Self.algorithms[algorithmName] else {
            throw WebAuthnError(.algorithmNotAllowed, "android-safetynet JWS alg \"\(algorithmName)\" is not accepted; expected one of \(Self.algorithms.keys.sorted())")
        }
        self.algorithm = algorithm
        guard case .array(let x5c)? = header["x5c"], !x5c.isEmpty else {
            throw invalid("the header has no non-empty x5c array")
        }
        // x5c entries are standard base64 (RFC 7515 §4.1.6), not base64url.
        certificateChain = try x5c.enumerated().map { index, item in
            guard let text = item.stringValue, let der = Data(base64Encoded: text), !der.isEmpty else {
                throw invalid("header x5c[\(index)] is not a base64 DER certificate")
            }
            return Array(der)
        }
        signature = try Self.signatureForOpenSSL(decoded[2], algorithm: algorithm)
    }

    /// JWS ECDSA signatures are R ‖ S, each as long as the curve's coordinates (RFC 7518 §3.4);
    /// OpenSSL verifies the DER form, `SEQUENCE { INTEGER r, INTEGER s }`.
    static func signatureForOpenSSL(_ signature: [UInt8], algorithm: COSEAlgorithm) throws -> [UInt8] {
        let coordinateLength: Int
        switch algorithm {
        case .es256: coordinateLength = 32
        case .es384: coordinateLength = 48
        case .es512: coordinateLength = 66
        default: return signature
        }
        guard signature.count == 2 * coordinateLength else {
            throw WebAuthnError(.invalidSignature, "android-safetynet JWS \(algorithm.name) signature is \(signature.count) bytes, not \(2 * coordinateLength)")
        }
        func integer(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
            var content = Array(magnitude.drop(while: { $0 == 0 }))
            if content.first.map({ $0 & 0x80 != 0 }) ?? true { content.insert(0, at: 0) }
            return [0x02] + derLength(content.count) + content
        }
        let body = integer(signature.prefix(coordinateLength)) + integer(signature.suffix(coordinateLength))
        return [0x30] + derLength(body.count) + body
    }

    private static func derLength(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        if length <= 0xFF { return [0x81, UInt8(length)] }
        return [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
    }
}
