import CLatchkeyShims
import CLatchkeyTestSupport
import COpenSSL
import Foundation
@testable import WebAuthn

/// A key pair made at test time by OpenSSL.
final class TestKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// "EC" or "RSA".
    let type: String

    private init(pointer: OpaquePointer, type: String) {
        self.pointer = pointer
        self.type = type
    }

    deinit { lkk_free_key(pointer) }

    static func p256() throws -> TestKey {
        guard let key = lkk_generate_ec_key("P-256") else { throw TestPKIError("P-256 key generation failed") }
        return TestKey(pointer: key, type: "EC")
    }

    static func rsa(bits: Int32 = 2048) throws -> TestKey {
        guard let key = lkk_generate_rsa_key(UInt32(bits)) else { throw TestPKIError("RSA key generation failed") }
        return TestKey(pointer: key, type: "RSA")
    }

    /// The COSE_Key of a P-256 key, as authenticator data carries it.
    func coseKey() throws -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 133)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &point, point.count, &length) == 1,
              length == 65 else { throw TestPKIError("not a P-256 key") }
        return CBOREncoder.encode(.map([
            CBORMapEntry(key: .unsigned(1), value: .unsigned(2)), CBORMapEntry(key: .unsigned(3), value: .negative(6)),
            CBORMapEntry(key: .negative(0), value: .unsigned(1)),
            CBORMapEntry(key: .negative(1), value: .bytes(Array(point[1..<33]))),
            CBORMapEntry(key: .negative(2), value: .bytes(Array(point[33..<65]))),
        ]))
    }

    /// A signature as WebAuthn carries it (DER for ECDSA).
    func signDER(_ message: [UInt8]) throws -> [UInt8] {
        try sign(message, coordinateLength: 0)
    }

    /// A signature as JWS writes it (raw r‖s for ECDSA).
    func sign(_ message: [UInt8], digest: String = "SHA256", pss: Bool = false, coordinateLength: Int = 32) throws -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 1024)
        let length = lkk_sign(pointer, digest, pss ? 1 : 0, message, message.count, &signature, signature.count)
        guard length > 0 else { throw TestPKIError("signing failed") }
        let der = Array(signature.prefix(length))
        return type == "EC" && coordinateLength > 0 ? try ECDSASignature.raw(fromDER: der, coordinateLength: coordinateLength) : der
    }
}

/// A certificate made at test time, with the key it certifies.
final class TestCertificate: @unchecked Sendable {
    let key: TestKey
    let pointer: OpaquePointer
    let der: [UInt8]

    convenience init(adopting key: TestKey, pointer: OpaquePointer) throws {
        try self.init(key: key, pointer: pointer)
    }

    private init(key: TestKey, pointer: OpaquePointer) throws {
        self.key = key
        self.pointer = pointer
        var buffer = [UInt8](repeating: 0, count: 8192)
        let length = lkt_certificate_der(pointer, &buffer, buffer.count)
        guard length > 0 else {
            lkt_free_certificate(pointer)
            throw TestPKIError("DER encoding failed")
        }
        der = Array(buffer.prefix(length))
    }

    deinit { lkt_free_certificate(pointer) }

    var certificate: X509Certificate { get throws { try X509Certificate(der: der) } }
    var base64: String { Data(der).base64EncodedString() }

    /// A self-signed CA.
    static func root(_ name: String, key: TestKey? = nil) throws -> TestCertificate {
        let key = try key ?? TestKey.p256()
        let now = Int64(Date().timeIntervalSince1970)
        guard let issued = lkt_issue_certificate(key.pointer, name, nil, key.pointer, 1, 1, now - 86_400, now + 365 * 86_400) else {
            throw TestPKIError("issuing \(name) failed")
        }
        return try TestCertificate(key: key, pointer: issued)
    }

    /// A certificate for `key` (a new P-256 key when nil) signed by this one.
    func issue(_ name: String, key: TestKey? = nil, isCA: Bool = false, serial: Int = 2) throws -> TestCertificate {
        let key = try key ?? TestKey.p256()
        let now = Int64(Date().timeIntervalSince1970)
        guard let issued = lkt_issue_certificate(key.pointer, name, pointer, self.key.pointer, isCA ? 1 : 0, serial, now - 86_400, now + 365 * 86_400) else {
            throw TestPKIError("issuing \(name) failed")
        }
        return try TestCertificate(key: key, pointer: issued)
    }
}

extension TestCertificate {
    /// A packed-style attestation certificate issued by this CA, valid in `validity` (default: a
    /// year around now), with subject OU `organizationalUnit` and the AAGUID extension when given.
    func issueAttestation(
        key: TestKey? = nil, organizationalUnit: String? = "Authenticator Attestation", aaguid: [UInt8]? = nil,
        validity: ClosedRange<Date>? = nil, serial: Int = 3
    ) throws -> TestCertificate {
        let key = try key ?? TestKey.p256()
        let now = Date()
        let window = validity ?? now.addingTimeInterval(-86_400)...now.addingTimeInterval(365 * 86_400)
        guard let issued = lkt_issue_attestation_certificate(
            key.pointer, "Latchkey Test Authenticator", organizationalUnit, aaguid, pointer, self.key.pointer, serial,
            Int64(window.lowerBound.timeIntervalSince1970), Int64(window.upperBound.timeIntervalSince1970)) else {
            throw TestPKIError("issuing the attestation certificate failed")
        }
        return try TestCertificate(adopting: key, pointer: issued)
    }
}

struct TestPKIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
