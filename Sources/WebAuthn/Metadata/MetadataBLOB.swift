import Foundation

/// A FIDO Metadata Service (MDS3) BLOB: a JWS whose payload lists authenticator models, their
/// metadata statements and status reports. Obtain one with ``verify(jwt:roots:at:)``, which checks
/// the signature and the signer's certificate chain before anything in the payload is read.
public struct MetadataBLOB: Sendable {
    /// The payload's `legalHeader`.
    public let legalHeader: String?
    /// The payload's serial number `no`; a newer BLOB has a greater one.
    public let number: Int
    /// `YYYY-MM-DD` by which a newer BLOB will be published, as written.
    public let nextUpdate: String
    /// ``nextUpdate`` at 00:00 UTC.
    public let nextUpdateDay: Date
    public let entries: [MetadataEntry]
    /// The JWS `alg` the BLOB was signed with.
    public let signatureAlgorithm: String

    /// Verifies and parses a BLOB in JWS compact form: the signature with the key of the first `x5c`
    /// certificate, and that certificate's chain (through the other `x5c` certificates, never trusted
    /// themselves) to one of `roots`, at `time` (now when nil).
    ///
    /// Throws ``WebAuthnError`` with `.malformedInput` (not a JWS, or a payload that is not an MDS3
    /// payload), `.unsupportedAlgorithm`, `.invalidCertificate` (an `x5c` entry that is not a
    /// certificate), `.untrustedAttestation` (the chain does not lead to a root, or no root is given)
    /// or `.invalidSignature`. Does not refuse a BLOB past its ``nextUpdate``: see ``isOutdated(at:)``.
    public static func verify(jwt: String, roots: [X509Certificate], at time: Date? = nil) throws -> MetadataBLOB {
        let jws = try CompactJWS(jwt)
        guard !roots.isEmpty else {
            throw WebAuthnError(.untrustedAttestation, "no metadata service root certificate is configured")
        }
        do {
            try CertificateChain.verify(jws.certificates, anchors: roots, at: time)
        } catch let error as WebAuthnError {
            throw WebAuthnError(error.code, "metadata BLOB signing certificate does not chain to a configured metadata service root: \(error.message)")
        }
        try jws.verifySignature()
        return try parse(payload: jws.payload, signatureAlgorithm: jws.header.alg)
    }

    /// Parses a payload that has already been verified. Unknown members are ignored.
    static func parse(payload: [UInt8], signatureAlgorithm: String) throws -> MetadataBLOB {
        let decoded: Payload
        do {
            decoded = try JSONDecoder().decode(Payload.self, from: Data(payload))
        } catch let error as DecodingError {
            throw WebAuthnError(.malformedInput, "metadata BLOB payload: \(describe(error))")
        } catch {
            throw WebAuthnError(.malformedInput, "metadata BLOB payload is not JSON: \(error)")
        }
        guard let day = MetadataDate.parse(decoded.nextUpdate) else {
            throw WebAuthnError(.malformedInput, "metadata BLOB payload: nextUpdate \"\(decoded.nextUpdate)\" is not a YYYY-MM-DD date")
        }
        return MetadataBLOB(legalHeader: decoded.legalHeader, number: decoded.no, nextUpdate: decoded.nextUpdate,
                            nextUpdateDay: day, entries: decoded.entries, signatureAlgorithm: signatureAlgorithm)
    }

    /// Whether `time` is past ``nextUpdate``, so a newer BLOB should have been fetched.
    public func isOutdated(at time: Date = Date()) -> Bool {
        time >= nextUpdateDay
    }

    /// The `MetadataBLOBPayload` members read.
    private struct Payload: Decodable {
        let legalHeader: String?
        let no: Int
        let nextUpdate: String
        let entries: [MetadataEntry]
    }

    /// "entries[3].statusReports[0].status: <what>", from a decoding error.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text.isEmpty ? "top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) is not of type \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null, expected \(type)"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
