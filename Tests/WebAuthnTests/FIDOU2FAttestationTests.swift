import Foundation
import Testing
@testable import WebAuthn

@Suite("fido-u2f attestation")
struct FIDOU2FAttestationTests {
    let format = FIDOU2FAttestation()

    @Test func yubiKeyStatementVerifiesAsBasic() throws {
        let fixture = try AttestationFixture("pywebauthn-fido-u2f-yubikey-reg")
        let result = try format.verify(fixture.input())
        #expect(result.type == .basic)
        #expect(result.trustPath == fixture.x5c)
        #expect(result.trustPath.count == 1)
    }

    @Test func alteredSignatureIsRefused() throws {
        let fixture = try AttestationFixture("pywebauthn-fido-u2f-yubikey-reg")
        let signature = try #require(fixture.statement[textKey: "sig"]?.byteString)
        // Flip a bit inside the DER INTEGER s, keeping the DER structure valid.
        let statement = fixture.statement.setting("sig", to: .bytes(flippingBit(signature, at: -2)))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func otherClientDataHashIsRefused() throws {
        let fixture = try AttestationFixture("pywebauthn-fido-u2f-yubikey-reg")
        let error = webAuthnError { _ = try format.verify(fixture.input(clientDataHash: flippingBit(fixture.clientDataHash, at: 0))) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func nonZeroAAGUIDIsRefused() throws {
        // The W3C vector signs correctly but carries a non-zero AAGUID (see FIDOU2FAttestation).
        let fixture = try AttestationFixture("w3c-fido-u2f-es256-reg")
        let error = webAuthnError { _ = try format.verify(fixture.input()) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("afb3c2ef-c054-df42-5013-d5c88e79c3c1") == true)
    }

    @Test func twoCertificatesAreRefused() throws {
        let fixture = try AttestationFixture("pywebauthn-fido-u2f-yubikey-reg")
        let certificate = try #require(fixture.x5c.first)
        let statement = fixture.statement.setting("x5c", to: .array([.bytes(certificate), .bytes(certificate)]))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("holds 2 certificates") == true)
    }

    @Test func missingSignatureOrCertificateIsRefused() throws {
        let fixture = try AttestationFixture("pywebauthn-fido-u2f-yubikey-reg")
        for key in ["sig", "x5c"] {
            let error = webAuthnError { _ = try format.verify(fixture.input(statement: fixture.statement.setting(key, to: nil))) }
            #expect(error?.code == .invalidAttestationStatement)
            #expect(error?.message.contains("has no \(key)") == true)
        }
    }

    @Test func certificateKeyMustBeP256() throws {
        let fixture = try AttestationFixture("pywebauthn-fido-u2f-yubikey-reg")
        // A TPM attestation identity key certificate: RSA.
        let rsaCertificate = try #require(try AttestationFixture("pywebauthn-tpm-dell-xps-13-reg").x5c.first)
        let statement = fixture.statement.setting("x5c", to: .array([.bytes(rsaCertificate)]))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("not EC P-256") == true)
    }

    @Test func credentialKeyMustBeEC2() throws {
        let fixture = try AttestationFixture("pywebauthn-fido-u2f-yubikey-reg")
        let rsaKey = try AttestationFixture("pywebauthn-tpm-dell-xps-13-reg").credentialKey
        let error = webAuthnError { _ = try format.verify(fixture.input(credentialKey: rsaKey)) }
        #expect(error?.code == .invalidAttestationStatement)
    }
}
