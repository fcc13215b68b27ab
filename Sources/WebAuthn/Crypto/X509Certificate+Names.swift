import COpenSSL

extension X509Certificate {
    /// id-ce-subjectAltName (RFC 5280 §4.2.1.6).
    static let subjectAlternativeNameOID = "2.5.29.17"

    /// The GeneralName elements of the subject alternative name extension, in order; nil when the
    /// extension is absent. Throws when it is present but is not one well-formed DER SEQUENCE.
    func subjectAlternativeNames() throws -> [DERReader.Element]? {
        guard let (value, _) = extensionValue(oid: Self.subjectAlternativeNameOID) else { return nil }
        var reader = DERReader(value)
        let generalNames = try reader.read()
        guard generalNames.tag == 0x30, reader.isAtEnd else {
            throw WebAuthnError(.invalidCertificate, "certificate subjectAltName is not one DER SEQUENCE")
        }
        return try generalNames.children()
    }

    /// The dNSName entries of the subject alternative name extension, in order; empty when the
    /// extension is absent. Throws when the extension is present but is not well-formed DER.
    public func subjectAlternativeDNSNames() throws -> [String] {
        // GeneralName dNSName is [2] IMPLICIT IA5String: context-specific, primitive, tag 2.
        try (subjectAlternativeNames() ?? [])
            .filter { $0.tag == 0x82 }
            .map { String(decoding: $0.content, as: UTF8.self) }
    }

    /// Whether the certificate is issued to `hostname`: a subjectAltName dNSName equal to it, or,
    /// for certificates without dNSNames, a subject CN equal to it (ASCII case-insensitive, no wildcards).
    public func isIssued(toHostname hostname: String) throws -> Bool {
        let wanted = hostname.lowercased()
        let dnsNames = try subjectAlternativeDNSNames()
        if !dnsNames.isEmpty {
            return dnsNames.contains { $0.lowercased() == wanted }
        }
        return subjectAttribute(NID_commonName).contains { $0.lowercased() == wanted }
    }
}
