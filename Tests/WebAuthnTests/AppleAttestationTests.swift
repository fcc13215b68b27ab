import Foundation
import Testing
@testable import WebAuthn

@Suite("apple attestation")
struct AppleAttestationTests {
    let format = AppleAttestation()

    @Test(arguments: ["w3c-apple-es256-reg", "yubico-apple-ios-reg"])
    func statementVerifiesAsAnonymizationCA(_ name: String) throws {
        let fixture = try AttestationFixture(name)
        let result = try format.verify(fixture.input())
        #expect(result.type == .anonCA)
        #expect(result.trustPath == fixture.x5c)
    }

    @Test func otherClientDataHashDoesNotMatchTheNonce() throws {
        let fixture = try AttestationFixture("w3c-apple-es256-reg")
        let error = webAuthnError { _ = try format.verify(fixture.input(clientDataHash: flippingBit(fixture.clientDataHash, at: 5))) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("nonce") == true)
    }

    @Test func credentialKeyMustBeTheCertificateKey() throws {
        let fixture = try AttestationFixture("w3c-apple-es256-reg")
        let otherKey = try AttestationFixture("yubico-apple-ios-reg").credentialKey
        let error = webAuthnError { _ = try format.verify(fixture.input(credentialKey: otherKey)) }
        // The same code as android-key and tpm use when the statement's key is not the credential's.
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("differs from the credential public key") == true)
    }

    @Test func certificateWithoutNonceExtensionIsRefused() throws {
        let fixture = try AttestationFixture("w3c-apple-es256-reg")
        let packedLeaf = try #require(try AttestationFixture("w3c-packed-es256-reg").x5c.first)
        let statement = fixture.statement.setting("x5c", to: .array([.bytes(packedLeaf)]))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("no nonce extension") == true)
    }

    @Test func missingOrEmptyX5cIsRefused() throws {
        let fixture = try AttestationFixture("w3c-apple-es256-reg")
        for statement in [fixture.statement.setting("x5c", to: nil), fixture.statement.setting("x5c", to: .array([]))] {
            let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
            #expect(error?.code == .invalidAttestationStatement)
        }
    }

    @Test func nonceExtensionParsing() throws {
        let nonce = [UInt8](repeating: 0xAB, count: 32)
        // SEQUENCE { [1] { OCTET STRING nonce } }
        #expect(try AppleAttestation.nonce(fromExtension: [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce) == nonce)
        let malformed: [[UInt8]] = [
            [0x30, 0x24, 0xA2, 0x22, 0x04, 0x20] + nonce,  // [2] instead of [1]
            [0x30, 0x24, 0xA1, 0x22, 0x0C, 0x20] + nonce,  // UTF8String instead of OCTET STRING
            [0x30, 0x23, 0xA1, 0x21, 0x04, 0x1F] + nonce.dropLast(),  // 31-byte nonce
            [0x31, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce,  // SET instead of SEQUENCE
            [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + nonce + [0x00],  // trailing byte
            [0x30, 0x30, 0xA1, 0x22, 0x04, 0x20] + nonce,  // length past the end
        ]
        for value in malformed {
            let error = webAuthnError { _ = try AppleAttestation.nonce(fromExtension: value) }
            #expect(error?.code == .invalidCertificate)
        }
    }
}
