import Foundation
import Testing
@testable import WebAuthn

@Suite("compound attestation")
struct CompoundAttestationTests {
    let format = CompoundAttestation(members: AttestationFormats(AttestationFormats.single))
    /// A packed basic (x5c) registration; its statement is reused as compound members.
    static let packedVector = "w3c-packed-es256-reg"

    static func member(_ format: String, _ statement: CBORValue) -> CBORValue {
        .map([CBORMapEntry(key: .text("fmt"), value: .text(format)), CBORMapEntry(key: .text("attStmt"), value: statement)])
    }

    static var emptyMap: CBORValue { .map([]) }

    @Test func everyMemberVerifiesAndTheStrongestIsReturned() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let packed = Self.member("packed", fixture.statement)
        let none = Self.member("none", Self.emptyMap)
        for members in [[packed, packed], [packed, none], [none, packed]] {
            let result = try format.verify(fixture.input(statement: .array(members)))
            #expect(result.type == .basic)
            #expect(result.trustPath == fixture.x5c)
        }
        let weakest = try format.verify(fixture.input(statement: .array([none, none])))
        #expect(weakest.type == .none)
    }

    @Test func aFailingMemberFailsTheWhole() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let signature = try #require(fixture.statement[textKey: "sig"]?.byteString)
        let broken = fixture.statement.setting("sig", to: .bytes(flippingBit(signature, at: -2)))
        let statement = CBORValue.array([Self.member("packed", fixture.statement), Self.member("packed", broken)])
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .invalidSignature)
        #expect(error?.message.hasPrefix("compound attStmt[1] (packed): ") == true)
    }

    @Test func aMemberThatIsNotEmptyNoneFails() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let statement = CBORValue.array([Self.member("packed", fixture.statement), Self.member("none", fixture.statement)])
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("attStmt[1] (none)") == true)
    }

    @Test func nestedCompoundIsRefused() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let packed = Self.member("packed", fixture.statement)
        let nested = Self.member("compound", .array([packed, packed]))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: .array([packed, nested]))) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("nesting is not allowed") == true)
    }

    @Test func unknownMemberFormatIsRefused() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let statement = CBORValue.array([Self.member("packed", fixture.statement), Self.member("future-format", Self.emptyMap)])
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .unsupportedAttestationFormat)
    }

    @Test func malformedCompoundStatementsAreRefused() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let packed = Self.member("packed", fixture.statement)
        let statements: [CBORValue] = [
            fixture.statement,  // a map, not an array
            .array([]),
            .array([packed]),  // fewer than two
            .array([packed, .text("packed")]),
            .array([packed, .map([CBORMapEntry(key: .text("attStmt"), value: fixture.statement)])]),  // no fmt
            .array([packed, .map([CBORMapEntry(key: .text("fmt"), value: .text("packed"))])]),  // no attStmt
            .array([packed, Self.member("packed", .array([]))]),
        ]
        for statement in statements {
            let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
            #expect(error?.code == .invalidAttestationStatement, "\(error?.message ?? "no error")")
        }
    }

    /// The vector's attestation object rebuilt with `fmt` and `attStmt` replaced.
    static func attestationObject(_ fixture: AttestationFixture, format: String, statement: CBORValue) -> [UInt8] {
        CBOREncoder.encode(.map([
            CBORMapEntry(key: .text("fmt"), value: .text(format)),
            CBORMapEntry(key: .text("attStmt"), value: statement),
            CBORMapEntry(key: .text("authData"), value: .bytes(fixture.object.authenticatorData.bytes)),
        ]))
    }

    @Test func registrationWithACompoundStatementVerifiesAndIsTrusted() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let vector = fixture.vector
        let statement = CBORValue.array([Self.member("packed", fixture.statement), Self.member("none", Self.emptyMap)])
        let response = RegistrationResponse(
            credentialID: vector.credentialID, clientDataJSON: vector.clientDataJSON,
            attestationObject: Self.attestationObject(fixture, format: "compound", statement: statement))
        let verified = try RegistrationVerifier(relyingParty: vector.relyingParty(), trust: vector.trust())
            .verify(response, expecting: RegistrationExpectation(challenge: vector.challenge, userVerification: vector.userVerification))
        #expect(verified.attestationFormat == .compound)
        #expect(verified.attestation.type == .basic)
        #expect(verified.attestationTrusted)
    }

    @Test func onlyCompoundMayCarryAnArrayStatement() throws {
        let fixture = try AttestationFixture(Self.packedVector)
        let statement = CBORValue.array([Self.member("packed", fixture.statement), Self.member("packed", fixture.statement)])
        let object = try AttestationObject(Self.attestationObject(fixture, format: "compound", statement: statement))
        #expect(object.statement.arrayItems?.count == 2)
        let error = webAuthnError { _ = try AttestationObject(Self.attestationObject(fixture, format: "packed", statement: statement)) }
        #expect(error?.code == .malformedInput)
    }
}
