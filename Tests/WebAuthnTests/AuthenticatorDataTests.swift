import Testing
@testable import WebAuthn

@Suite("Authenticator data")
struct AuthenticatorDataTests {
    /// 32-byte RP ID hash, flags, counter.
    func header(flags: UInt8, counter: UInt32 = 7) -> [UInt8] {
        Digest.sha256(Array("example.com".utf8)) + [flags] + [0, 0, 0, UInt8(counter)]
    }

    @Test func parsesFlagsAndCounter() throws {
        let data = try AuthenticatorData(header(flags: 0x1D, counter: 9))
        #expect(data.flags.contains([.userPresent, .userVerified, .backupEligible, .backedUp]))
        #expect(data.signCount == 9)
        #expect(data.attestedCredentialData == nil)
    }

    @Test func extensionOutputsAreReadAndUnknownOnesSkipped() throws {
        let outputs = CBORValue.map([
            CBORMapEntry(key: .text("credProtect"), value: .unsigned(2)),
            CBORMapEntry(key: .text("hmac-secret"), value: .bool(true)),
            CBORMapEntry(key: .text("example.future"), value: .array([.unsigned(1)])),
        ])
        let data = try AuthenticatorData(header(flags: 0x81) + CBOREncoder.encode(outputs))
        let parsed = AuthenticatorExtensionOutputs(data.extensions)
        #expect(parsed.credentialProtectionPolicy == 2)
        #expect(parsed.hmacSecret == true)
        #expect(parsed.unrecognized == ["example.future"])
    }

    @Test func malformedExtensionValuesDoNotFailTheCeremony() throws {
        let outputs = CBORValue.map([CBORMapEntry(key: .text("credProtect"), value: .text("high"))])
        let parsed = AuthenticatorExtensionOutputs(try AuthenticatorData(header(flags: 0x81) + CBOREncoder.encode(outputs)).extensions)
        #expect(parsed.credentialProtectionPolicy == nil)
        #expect(parsed.unrecognized == ["credProtect"])
    }

    @Test func leftoverBytesAndMissingDataAreRefused() {
        for (bytes, why) in [
            (header(flags: 0x01) + [0x00], "a byte after data whose flags announce nothing"),
            (header(flags: 0x41), "AT set without attested credential data"),
            (header(flags: 0x81), "ED set without extensions"),
            (header(flags: 0x81) + [0xA0, 0x00], "a byte after the extensions"),
            (header(flags: 0x81) + [0x80], "extensions that are not a map"),
            (Array(header(flags: 0x01).prefix(36)), "36 bytes"),
        ] {
            let error = #expect(throws: WebAuthnError.self, Comment(rawValue: why)) { try AuthenticatorData(bytes) }
            #expect(error?.code == .malformedAuthenticatorData || error?.code == .malformedCBOR, Comment(rawValue: why))
        }
    }

    @Test func credentialIDLengthIsBounded() {
        let tooLong = header(flags: 0x41) + [UInt8](repeating: 0, count: 16) + [0x04, 0x00] + [UInt8](repeating: 1, count: 1024) + [0xA0]
        let error = #expect(throws: WebAuthnError.self) { try AuthenticatorData(tooLong) }
        #expect(error?.code == .malformedAuthenticatorData)
    }
}
