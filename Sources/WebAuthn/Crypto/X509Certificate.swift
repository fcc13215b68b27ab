import COpenSSL

/// An X.509 certificate parsed by OpenSSL (`X509`), freed when this value goes away.
public final class X509Certificate: @unchecked Sendable {
    // Immutable after init; only read-only OpenSSL calls are made on it.
    let certificate: OpaquePointer
    /// The DER bytes as received.
    public let der: [UInt8]

    /// Parses one DER certificate; every byte must belong to it.
    public init(der: [UInt8]) throws {
        self.der = der
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let start = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = start
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard let end = cursor, end - start == buffer.count else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        guard let parsed else {
            throw WebAuthnError(.invalidCertificate, "certificate is not one well-formed DER X.509 certificate")
        }
        certificate = parsed
    }

    deinit {
        X509_free(certificate)
    }

    /// The certificate's version as written (3 for v3).
    public var version: Int { Int(X509_get_version(certificate)) + 1 }

    /// Whether basic constraints mark this certificate as a certificate authority.
    public var isCertificateAuthority: Bool { X509_get_extension_flags(certificate) & UInt32(EXFLAG_CA) != 0 }

    /// The subject public key.
    public func publicKey() throws -> PublicKey {
        guard let key = X509_get_pubkey(certificate) else {
            throw WebAuthnError(.invalidCertificate, "certificate public key is not supported by OpenSSL")
        }
        return PublicKey(owning: key)
    }

    /// The values of one attribute of the subject name (for example `NID_organizationalUnitName`).
    public func subjectAttribute(_ nid: Int32) -> [String] {
        guard let name = X509_get_subject_name(certificate) else { return [] }
        var values: [String] = []
        var index: Int32 = -1
        while true {
            index = X509_NAME_get_index_by_NID(name, nid, index)
            guard index >= 0, let entry = X509_NAME_get_entry(name, index),
                  let data = X509_NAME_ENTRY_get_data(entry), let bytes = ASN1_STRING_get0_data(data) else { break }
            let length = Int(ASN1_STRING_length(data))
            values.append(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
        }
        return values
    }

    /// The raw value (the content of the extnValue OCTET STRING) of the extension with this
    /// dotted OID, and whether it is marked critical; nil when absent.
    public func extensionValue(oid: String) -> (value: [UInt8], critical: Bool)? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(certificate, object, -1)
        guard index >= 0, let ext = X509_get_ext(certificate, index),
              let data = X509_EXTENSION_get_data(ext), let bytes = ASN1_STRING_get0_data(data) else { return nil }
        let value = Array(UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(data))))
        return (value, X509_EXTENSION_get_critical(ext) != 0)
    }
}
