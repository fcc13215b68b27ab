import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), `header.payload.signature` in base64url, whose
/// signing key is the first certificate of its `x5c` header.
struct CompactJWS {
    /// The protected header members Latchkey reads.
    struct Header: Decodable {
        let alg: String
        let typ: String?
        /// Standard base64 DER certificates, signer first.
        let x5c: [String]?
        let crit: [String]?
    }

    let header: Header
    let algorithm: COSEAlgorithm
    /// The `x5c` certificates, signer first.
    let certificates: [X509Certificate]
    let payload: [UInt8]
    /// The bytes the signature covers: the first two parts, as ASCII.
    let signingInput: [UInt8]
    let signature: [UInt8]

    /// Splits and decodes `text`; checks the header's form, not the signature.
    init(_ text: String) throws {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw WebAuthnError(.malformedInput, "JWS has \(parts.count) dot-separated parts, expected 3")
        }
        guard let headerBytes = Base64URL.decode(String(parts[0])) else {
            throw WebAuthnError(.malformedInput, "JWS header is not base64url")
        }
        guard let payload = Base64URL.decode(String(parts[1])) else {
            throw WebAuthnError(.malformedInput, "JWS payload is not base64url")
        }
        guard let signature = Base64URL.decode(String(parts[2])) else {
            throw WebAuthnError(.malformedInput, "JWS signature is not base64url")
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw WebAuthnError(.malformedInput, "JWS header is not a JSON object with a string alg: \(error)")
        }
        if let critical = header.crit, !critical.isEmpty {
            throw WebAuthnError(.malformedInput, "JWS header marks extensions critical that are not understood: \(critical.joined(separator: ", "))")
        }
        guard let algorithm = Self.algorithms[header.alg] else {
            throw WebAuthnError(.unsupportedAlgorithm, "JWS algorithm \"\(header.alg)\" is not supported")
        }
        guard let chain = header.x5c, !chain.isEmpty else {
            throw WebAuthnError(.malformedInput, "JWS header has no x5c certificate chain")
        }
        var certificates: [X509Certificate] = []
        for (index, text) in chain.enumerated() {
            guard let der = StandardBase64.decode(text) else {
                throw WebAuthnError(.invalidCertificate, "JWS x5c certificate \(index) is not standard base64")
            }
            do {
                certificates.append(try X509Certificate(der: der))
            } catch let error as WebAuthnError {
                throw WebAuthnError(error.code, "JWS x5c certificate \(index): \(error.message)")
            }
        }
        self.header = header
        self.algorithm = algorithm
        self.certificates = certificates
        self.payload = payload
        self.signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        self.signature = signature
    }

    /// The JWS `alg` names Latchkey verifies (RFC 7518 §3.1, RFC 8037), as COSE algorithms.
    static let algorithms: [String: COSEAlgorithm] = [
        "RS256": .rs256, "RS384": .rs384, "RS512": .rs512,
        "PS256": .ps256, "PS384": .ps384, "PS512": .ps512,
        "ES256": .es256, "ES384": .es384, "ES512": .es512,
        "EdDSA": .edDSA,
    ]

    /// Checks the signature with the `x5c` signer's key. ECDSA signatures arrive as raw `r ‖ s` and
    /// are converted to DER first. Throws ``WebAuthnError/Code/invalidSignature`` when it does not verify.
    func verifySignature() throws {
        guard let signer = certificates.first else {
            throw WebAuthnError(.malformedInput, "JWS header has no x5c certificate chain")
        }
        var signature = self.signature
        if case .ecdsa(let curve, _) = algorithm.signatureScheme {
            signature = try ECDSASignature.der(fromRaw: signature, coordinateLength: curve.coordinateLength)
        }
        do {
            try signer.publicKey().verify(signature: signature, over: signingInput, algorithm: algorithm)
        } catch let error as WebAuthnError {
            throw WebAuthnError(error.code, "JWS \(header.alg) signature: \(error.message)")
        }
    }
}
