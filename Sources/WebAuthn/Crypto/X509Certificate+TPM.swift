import COpenSSL

/// Certificate accessors the TPM attestation certificate requirements (WebAuthn §8.3.1) need.
extension X509Certificate {
    /// id-ce-extKeyUsage (RFC 5280 §4.2.1.12).
    static let extendedKeyUsageOID = "2.5.29.37"

    /// Whether the subject name has no attributes at all (an empty RDNSequence).
    public var hasEmptySubject: Bool {
        guard let name = X509_get_subject_name(certificate) else { return true }
        return X509_NAME_entry_count(name) == 0
    }

    /// The attributes of every directoryName in the subject alternative name extension, as
    /// (dotted OID, text value) pairs in the order they are encoded; nil when the certificate has
    /// no such extension. Attributes are collected across all RDNs, so one multi-valued RDN and one
    /// RDN per attribute give the same list.
    public func subjectAlternativeDirectoryAttributes() throws -> [(oid: String, value: String)]? {
        guard let generalNames = try subjectAlternativeNames() else { return nil }
        var attributes: [(oid: String, value: String)] = []
        for generalName in generalNames {
            // directoryName [4] EXPLICIT Name; other name forms are not attributes.
            guard generalName.tag == 0xA4 else { continue }
            let names = try generalName.children()
            guard names.count == 1, let rdnSequence = names.first, rdnSequence.tag == 0x30 else {
                throw WebAuthnError(.invalidCertificate, "subject alternative name directoryName is not one Name")
            }
            for rdn in try rdnSequence.children() {
                guard rdn.tag == 0x31 else {
                    throw WebAuthnError(.invalidCertificate, "subject alternative name directoryName holds a non-SET RDN")
                }
                for attribute in try rdn.children() {
                    let parts = try attribute.children()
                    guard attribute.tag == 0x30, parts.count == 2, parts[0].tag == 0x06 else {
                        throw WebAuthnError(.invalidCertificate, "subject alternative name directoryName holds a malformed attribute")
                    }
                    let oid = try Self.dottedObjectIdentifier(parts[0].content)
                    attributes.append((oid, String(decoding: parts[1].content, as: UTF8.self)))
                }
            }
        }
        return attributes
    }

    /// The key purposes of the extended key usage extension, as dotted OIDs; nil when absent.
    public func extendedKeyUsages() throws -> [String]? {
        guard let (value, _) = extensionValue(oid: Self.extendedKeyUsageOID) else { return nil }
        var reader = DERReader(value)
        let sequence = try reader.read()
        guard sequence.tag == 0x30, reader.isAtEnd else {
            throw WebAuthnError(.invalidCertificate, "extended key usage extension is not one DER SEQUENCE")
        }
        return try sequence.children().map { purpose in
            guard purpose.tag == 0x06 else {
                throw WebAuthnError(.invalidCertificate, "extended key usage holds a non-OID entry")
            }
            return try Self.dottedObjectIdentifier(purpose.content)
        }
    }

    /// The dotted form of DER OBJECT IDENTIFIER content octets.
    static func dottedObjectIdentifier(_ content: [UInt8]) throws -> String {
        guard !content.isEmpty, let last = content.last, last & 0x80 == 0 else {
            throw WebAuthnError(.invalidCertificate, "malformed DER: truncated OBJECT IDENTIFIER")
        }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var started = false
        for byte in content {
            guard started || byte != 0x80 else {
                throw WebAuthnError(.invalidCertificate, "malformed DER: OBJECT IDENTIFIER arc with a leading 0x80")
            }
            guard value <= UInt64.max >> 7 else {
                throw WebAuthnError(.invalidCertificate, "malformed DER: OBJECT IDENTIFIER arc too large")
            }
            value = value << 7 | UInt64(byte & 0x7F)
            started = byte & 0x80 != 0
            if !started {
                arcs.append(value)
                value = 0
            }
        }
        // The first subidentifier packs the first two arcs: 40 * first + second.
        let first = arcs[0]
        let head: [UInt64] = first < 40 ? [0, first] : first < 80 ? [1, first - 40] : [2, first - 80]
        return (head + arcs.dropFirst()).map(String.init).joined(separator: ".")
    }
}
