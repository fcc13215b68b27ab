import Foundation
import LatchkeyJSON
import Testing
@testable import WebAuthn

@Suite("android-safetynet attestation")
struct AndroidSafetyNetAttestationTests {
    let format = AndroidSafetyNetAttestation()
    static let fresh = "swa-android-safetynet-2019-reg"
    /// timestampMs of the fresh vector's JWS payload: 2019-08-10T08:04:22.773Z.
    static let issued = Date(timeIntervalSince1970: 1_565_424_262.773)

    /// The three base64url parts of the vector's JWS.
    static func parts(_ fixture: AttestationFixture) throws -> [String] {
        let response = try #require(fixture.statement[textKey: "response"]?.byteString)
        return String(decoding: response, as: UTF8.self).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    static func statement(_ fixture: AttestationFixture, parts: [String]) -> CBORValue {
        fixture.statement.setting("response", to: .bytes(Array(parts.joined(separator: ".").utf8)))
    }

    @Test(arguments: [fresh, "pywebauthn-android-safetynet-reg"])
    func responseVerifiesAsBasic(_ name: String) throws {
        let fixture = try AttestationFixture(name)
        let result = try format.verify(fixture.input())
        #expect(result.type == .basic)
        #expect(result.trustPath.count >= 2)
        let leaf = try X509Certificate(der: try #require(result.trustPath.first))
        #expect(try leaf.isIssued(toHostname: "attest.android.com"))
    }

    @Test func responseOlderThanSixtySecondsIsRefused() throws {
        let fixture = try AttestationFixture(Self.fresh)
        _ = try format.verify(fixture.input(at: Self.issued.addingTimeInterval(59)))
        let error = webAuthnError { _ = try format.verify(fixture.input(at: Self.issued.addingTimeInterval(61))) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("at most 60 s") == true)
    }

    @Test func responseFromTheFutureIsRefusedBeyondTheSkew() throws {
        let fixture = try AttestationFixture(Self.fresh)
        _ = try format.verify(fixture.input(at: Self.issued.addingTimeInterval(-9)))
        let error = webAuthnError { _ = try format.verify(fixture.input(at: Self.issued.addingTimeInterval(-11))) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("clock skew") == true)
    }

    @Test func windowIsConfigurable() throws {
        let fixture = try AttestationFixture(Self.fresh)
        let lenient = AndroidSafetyNetAttestation(maximumAge: 3600, maximumClockSkew: 0)
        _ = try lenient.verify(fixture.input(at: Self.issued.addingTimeInterval(1800)))
        let error = webAuthnError { _ = try lenient.verify(fixture.input(at: Self.issued.addingTimeInterval(-1))) }
        #expect(error?.code == .invalidAttestationStatement)
    }

    @Test func ctsProfileMismatchIsRefused() throws {
        let fixture = try AttestationFixture("swa-safetynet-cts-false-reg")
        let error = webAuthnError { _ = try format.verify(fixture.input()) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("ctsProfileMatch is false") == true)
    }

    @Test func payloadRewrittenToPassTheCTSCheckFailsTheSignature() throws {
        let fixture = try AttestationFixture("swa-safetynet-cts-false-reg")
        var parts = try Self.parts(fixture)
        let payload = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
        #expect(payload.contains("\"ctsProfileMatch\":false"))
        parts[1] = Base64URL.encode(Array(payload.replacingOccurrences(of: "\"ctsProfileMatch\":false", with: "\"ctsProfileMatch\":true").utf8))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: Self.statement(fixture, parts: parts))) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func alteredSignatureIsRefused() throws {
        let fixture = try AttestationFixture(Self.fresh)
        var parts = try Self.parts(fixture)
        parts[2] = Base64URL.encode(flippingBit(try #require(Base64URL.decode(parts[2])), at: 10))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: Self.statement(fixture, parts: parts))) }
        #expect(error?.code == .invalidSignature)
    }

    @Test func otherClientDataHashDoesNotMatchTheNonce() throws {
        let fixture = try AttestationFixture(Self.fresh)
        let error = webAuthnError { _ = try format.verify(fixture.input(clientDataHash: flippingBit(fixture.clientDataHash, at: 0))) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("nonce") == true)
    }

    @Test func leafNotIssuedToAttestAndroidComIsRefused() throws {
        let fixture = try AttestationFixture(Self.fresh)
        var parts = try Self.parts(fixture)
        let header = try JSONDecoder().decode(JSONValue.self, from: Data(try #require(Base64URL.decode(parts[0]))))
        guard case .array(let x5c)? = header["x5c"] else {
            Issue.record("the vector's JWS header has no x5c")
            return
        }
        // Drop the leaf: the intermediate (GTS CA 1O1) becomes the signer certificate.
        let altered = JSONValue.object(["alg": .string("RS256"), "x5c": .array(Array(x5c.dropFirst()))])
        parts[0] = Base64URL.encode(Array(try JSONEncoder().encode(altered)))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: Self.statement(fixture, parts: parts))) }
        #expect(error?.code == .invalidCertificate)
        #expect(error?.message.contains("attest.android.com") == true)
    }

    @Test func unsignedJWSIsRefused() throws {
        let fixture = try AttestationFixture(Self.fresh)
        var parts = try Self.parts(fixture)
        let header = try JSONDecoder().decode(JSONValue.self, from: Data(try #require(Base64URL.decode(parts[0]))))
        let altered = JSONValue.object(["alg": .string("none"), "x5c": header["x5c"] ?? .null])
        parts[0] = Base64URL.encode(Array(try JSONEncoder().encode(altered)))
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: Self.statement(fixture, parts: parts))) }
        #expect(error?.code == .unsupportedAlgorithm)
    }

    @Test func malformedStatementsAreRefused() throws {
        let fixture = try AttestationFixture(Self.fresh)
        let parts = try Self.parts(fixture)
        let statements: [CBORValue] = [
            fixture.statement.setting("ver", to: nil),
            fixture.statement.setting("ver", to: .text("")),
            fixture.statement.setting("ver", to: .unsigned(17122037)),
            fixture.statement.setting("response", to: nil),
            fixture.statement.setting("response", to: .text(parts.joined(separator: "."))),
            Self.statement(fixture, parts: Array(parts.prefix(2))),
            Self.statement(fixture, parts: [parts[0], "not*base64", parts[2]]),
        ]
        for statement in statements {
            let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
            #expect(error?.code == .invalidAttestationStatement, "\(error?.message ?? "no error")")
        }
    }

    /// A SafetyNet response signed by a self-made attest.android.com certificate: nothing about it
    /// is trusted yet (the chain is judged later), so every field must be handled safely.
    static func selfSignedResponse(_ fixture: AttestationFixture, payload: JSONValue) throws -> CBORValue {
        let signer = try TestCertificate.root("attest.android.com")
        let header = JSONValue.object(["alg": .string("ES256"), "x5c": .array([.string(signer.base64)])])
        let parts = try [header, payload].map { Base64URL.encode(Array(try JSONEncoder().encode($0))) }
        let signature = try signer.key.sign(Array(parts.joined(separator: ".").utf8))
        let jws = parts.joined(separator: ".") + "." + Base64URL.encode(signature)
        return .map([
            CBORMapEntry(key: .text("ver"), value: .text("1")),
            CBORMapEntry(key: .text("response"), value: .bytes(Array(jws.utf8))),
        ])
    }

    @Test(arguments: [1e300, 1e16, -1.0])
    func absurdTimestampsAreRefusedWithoutTrapping(_ timestampMs: Double) throws {
        let fixture = try AttestationFixture(Self.fresh)
        let nonce = Data(Digest.sha256(fixture.input().signedBytes)).base64EncodedString()
        let payload = JSONValue.object([
            "nonce": .string(nonce), "ctsProfileMatch": .bool(true), "timestampMs": .number(timestampMs),
        ])
        let statement = try Self.selfSignedResponse(fixture, payload: payload)
        let error = webAuthnError { _ = try format.verify(fixture.input(statement: statement)) }
        #expect(error?.code == .invalidAttestationStatement)
        #expect(error?.message.contains("timestampMs") == true, "message: \(error?.message ?? "")")
        // The same response with a sane, fresh timestamp passes the format (its chain is judged later).
        let fresh = JSONValue.object([
            "nonce": .string(nonce), "ctsProfileMatch": .bool(true),
            "timestampMs": .number((Date().timeIntervalSince1970 * 1000).rounded()),
        ])
        #expect(throws: Never.self) { _ = try format.verify(fixture.input(statement: Self.selfSignedResponse(fixture, payload: fresh), at: Date())) }
    }
}
