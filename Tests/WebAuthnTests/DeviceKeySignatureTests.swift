import COpenSSL
import Testing
@testable import WebAuthn

@Suite("Device key signatures")
struct DeviceKeySignatureTests {
    static func point(of key: TestKey) throws -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 133)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key.pointer, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &point, point.count, &length) == 1 else {
            throw TestPKIError("no point")
        }
        return Array(point.prefix(length))
    }

    @Test func theMessageIsLaidOutAsDocumented() throws {
        let publicKey = [0x04] + [UInt8](repeating: 1, count: 64)
        let challenge = [UInt8](repeating: 2, count: 32)
        let message = DeviceKeySignature(purpose: .signIn, rpID: "example.com", challenge: challenge, publicKey: publicKey).message
        let expected = Array("LATCHKEY-DEVICE-KEY-V1".utf8) + [0x02] + [0, 11] + Array("example.com".utf8) + [0, 32] + challenge
            + [0, 32] + Digest.sha256(publicKey)
        #expect(message == expected)
    }

    @Test func aSignatureVerifiesOnlyForItsPurposeRelyingPartyChallengeAndKey() throws {
        let key = try TestKey.p256()
        let publicKey = try Self.point(of: key)
        let challenge = try SecureRandom.bytes(count: 32)
        let signed = DeviceKeySignature(purpose: .enroll, rpID: "example.com", challenge: challenge, publicKey: publicKey)
        let signature = try key.signDER(signed.message)
        try signed.verify(signature)

        let other = try Self.point(of: try TestKey.p256())
        for wrong in [
            DeviceKeySignature(purpose: .signIn, rpID: "example.com", challenge: challenge, publicKey: publicKey),
            DeviceKeySignature(purpose: .enroll, rpID: "example.org", challenge: challenge, publicKey: publicKey),
            DeviceKeySignature(purpose: .enroll, rpID: "example.com", challenge: try SecureRandom.bytes(count: 32), publicKey: publicKey),
            DeviceKeySignature(purpose: .enroll, rpID: "example.com", challenge: challenge, publicKey: other),
        ] {
            let error = #expect(throws: WebAuthnError.self) { try wrong.verify(signature) }
            // Told apart from an App Attest assertion's failure in the same request.
            #expect(error?.code == .invalidSignature && error?.message.hasPrefix("the device key's signature does not verify") == true)
        }
        let short = DeviceKeySignature(purpose: .enroll, rpID: "example.com", challenge: challenge, publicKey: Array(publicKey.dropFirst()))
        let shortError = #expect(throws: WebAuthnError.self) { try short.verify(signature) }
        #expect(shortError?.message.hasSuffix("this one is 64 bytes") == true)
        let compressedPrefix = DeviceKeySignature(purpose: .enroll, rpID: "example.com", challenge: challenge, publicKey: [0x02] + publicKey.dropFirst())
        let prefixError = #expect(throws: WebAuthnError.self) { try compressedPrefix.verify(signature) }
        #expect(prefixError?.message.hasSuffix("this one starts 0x02") == true, "\(prefixError?.message ?? "")")
        // y + 1 puts the point off the curve: told in the device key's words, not a COSE key's.
        var offCurve = publicKey
        offCurve[64] ^= 0x01
        let offCurveError = #expect(throws: WebAuthnError.self) {
            try DeviceKeySignature(purpose: .enroll, rpID: "example.com", challenge: challenge, publicKey: offCurve).verify(signature)
        }
        #expect(offCurveError?.message == "the device key is not a point on P-256" && offCurveError?.code == .malformedPublicKey)
    }

    /// CryptoKit's `rawRepresentation` of the same signature, r ‖ s, is refused saying which form to send.
    @Test func aRawSignatureIsToldToBeDER() throws {
        let key = try TestKey.p256()
        let signed = DeviceKeySignature(purpose: .signIn, rpID: "example.com", challenge: try SecureRandom.bytes(count: 32), publicKey: try Self.point(of: key))
        let der = try key.signDER(signed.message)
        // SEQUENCE { INTEGER r, INTEGER s }, each integer without its sign byte and padded to 32 bytes.
        var integers: [[UInt8]] = []
        var offset = 2
        while offset < der.count, der[offset] == 0x02 {
            let length = Int(der[offset + 1])
            let value = der[(offset + 2)..<(offset + 2 + length)].drop { $0 == 0 }
            integers.append([UInt8](repeating: 0, count: 32 - value.count) + value)
            offset += 2 + length
        }
        let raw = try #require(integers.count == 2 ? integers[0] + integers[1] : nil)
        let error = #expect(throws: WebAuthnError.self) { try signed.verify(raw) }
        #expect(error?.message.contains("64 bytes of r ‖ s; send it DER-encoded") == true, "\(error?.message ?? "")")
        try signed.verify(der)
    }
}
