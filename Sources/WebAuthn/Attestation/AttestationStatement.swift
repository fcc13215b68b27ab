/// Typed access to the members attestation statements share (`alg`, `sig`, `x5c`, `ver`, and other
/// byte strings), with one wording for every format's errors: "packed attStmt has no sig",
/// "tpm attStmt.x5c[1] is an integer, not a byte string".
struct AttestationStatement {
    let format: String
    let value: CBORValue

    /// §8 step 1 of every format: attStmt is a CBOR map.
    init(_ value: CBORValue, format: String) throws {
        guard value.mapEntries != nil else {
            throw WebAuthnError(.invalidAttestationStatement, "\(format) attStmt is \(value.kindName), not a map")
        }
        self.format = format
        self.value = value
    }

    private func invalid(_ message: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestationStatement, "\(format) attStmt\(message)")
    }

    func contains(_ key: String) -> Bool { value[textKey: key] != nil }

    private func member(_ key: String) throws -> CBORValue {
        guard let member = value[textKey: key] else { throw invalid(" has no \(key)") }
        return member
    }

    /// `alg`, a COSE algorithm identifier.
    func algorithm() throws -> COSEAlgorithm {
        let member = try member("alg")
        guard let raw = member.int64 else { throw invalid(".alg is \(member.kindName), not an integer") }
        return COSEAlgorithm(rawValue: raw)
    }

    /// A required, non-empty byte string such as `sig`, `certInfo` or `pubArea`.
    func bytes(_ key: String) throws -> [UInt8] {
        let member = try member(key)
        guard let bytes = member.byteString else { throw invalid(".\(key) is \(member.kindName), not a byte string") }
        guard !bytes.isEmpty else { throw invalid(".\(key) is empty") }
        return bytes
    }

    /// A required, non-empty text string such as `ver`.
    func text(_ key: String) throws -> String {
        let member = try member(key)
        guard let text = member.textString else { throw invalid(".\(key) is \(member.kindName), not a text string") }
        guard !text.isEmpty else { throw invalid(".\(key) is empty") }
        return text
    }

    /// `x5c`: a non-empty array of DER certificates, leaf first, parsed once for the format's checks
    /// and the trust decision.
    func certificateChain() throws -> [X509Certificate] {
        let member = try member("x5c")
        guard let items = member.arrayItems else { throw invalid(".x5c is \(member.kindName), not an array") }
        guard !items.isEmpty else { throw invalid(".x5c is empty") }
        return try items.enumerated().map { index, item in
            guard let der = item.byteString, !der.isEmpty else {
                throw invalid(".x5c[\(index)] is \(item.kindName == "a byte string" ? "empty" : item.kindName), not a certificate")
            }
            do {
                return try X509Certificate(der: der)
            } catch let error as WebAuthnError {
                throw WebAuthnError(error.code, "\(format) attStmt.x5c[\(index)]: \(error.message)")
            }
        }
    }
}
