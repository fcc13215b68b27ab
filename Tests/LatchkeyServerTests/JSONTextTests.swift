import Foundation
import LatchkeyJSON
@testable import LatchkeyServer
@testable import LatchkeyService
import LatchkeyTokens
import Testing
import WebAuthn

/// The hand-written replies say exactly what `JSONEncoder` says for the same values.
@Suite("Hand-written JSON")
struct JSONTextTests {
    static let awkward = "quote \" backslash \\ slash / tab \t newline \n nul \u{0} bell \u{7} del \u{7F} é 🔑 \u{2028}"

    static func parsed(_ bytes: some Sequence<UInt8>) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    static func same(_ value: some JSONTextEncodable) throws -> Bool {
        var json = JSONText()
        value.write(to: &json)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return try parsed(json.bytes) == parsed(try encoder.encode(value))
    }

    /// Extension inputs of every JSON kind, as a client may send them.
    static let extensions: [String: JSONValue] = [
        "appid": .string("https://example.com/\u{1}"), "largeBlob": .object(["read": .bool(true), "none": .null]),
        "numbers": .array([.number(0), .number(-3), .number(1e15), .number(2.5), .number(-0.1), .number(123_456_789_012)]),
        "nested": .array([.array([]), .object([:]), .object(["a": .array([.string(awkward)])])]),
    ]

    @Test func anEmptyReplyIsItsEnvelope() throws {
        var json = JSONText()
        Reply(OKReply()).write(to: &json)
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"status":"ok","errorMessage":""}"#)
        #expect(try Self.same(Reply(OKReply())))
    }

    @Test func extensionValuesMatchJSONEncoder() throws {
        var json = JSONText()
        json.object { json in json.member("extensions", .object(Self.extensions)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        #expect(try Self.parsed(json.bytes) == Self.parsed(try encoder.encode(["extensions": Self.extensions])))
    }

    @Test func signInRepliesMatchJSONEncoder() throws {
        let reply = SignInReply(
            username: Self.awkward, displayName: "Ünïcødé \u{1F}", credentialId: Base64URLBytes([0, 1, 254, 255]), userVerified: true,
            sessionToken: "token", idToken: "a.b.c")
        #expect(try Self.same(Reply(reply)))
    }

    @Test(arguments: [false, true])
    func requestOptionsMatchJSONEncoder(withOptionalMembers: Bool) throws {
        let reply = Reply(RequestOptions(
            challenge: Base64URLBytes(Array(repeating: 7, count: 32)), timeout: 300_000, rpId: "example.com",
            allowCredentials: withOptionalMembers
                ? [CredentialDescriptor(id: [1, 2, 3], transports: [.internal, .hybrid]), CredentialDescriptor(id: [4], transports: [])] : [],
            userVerification: .preferred, hints: withOptionalMembers ? ["client-device", Self.awkward] : nil,
            extensions: withOptionalMembers ? Self.extensions : nil))
        #expect(try Self.same(reply))
    }

    @Test(arguments: [["https://a.example"], ["svc-1", "svc-2 \u{1}"]])
    func tokenClaimsMatchJSONEncoder(audience: [String]) throws {
        for (externalId, nonce) in [(nil, nil), ("acct \"42\"", "n-0S6_WzA2Mj \u{2028}")] as [(String?, String?)] {
            let claims = IDTokenClaims(
                iss: "https://login.example/", aud: audience, sub: "c3Vi", preferredUsername: Self.awkward, externalId: externalId,
                issuedAt: Date(timeIntervalSince1970: 1_790_000_000.9), expiresAt: Date(timeIntervalSince1970: 1_790_000_300),
                authenticatedAt: Date(timeIntervalSince1970: 1_790_000_000), amr: ["pop", "user", "mfa"], credentialID: "Y3JlZA",
                jwtID: "jti-1", nonce: nonce)
            #expect(try Self.same(claims))
        }
    }

    @Test(arguments: [false, true])
    func creationOptionsMatchJSONEncoder(withOptionalMembers: Bool) throws {
        let reply = Reply(CreationOptions(
            rp: .init(id: "example.com", name: Self.awkward), user: .init(id: Base64URLBytes([9, 8, 7]), name: "ana", displayName: Self.awkward),
            challenge: Base64URLBytes(Array(repeating: 3, count: 32)), pubKeyCredParams: [.init(alg: -7), .init(alg: -257)], timeout: 60_000,
            excludeCredentials: withOptionalMembers ? [CredentialDescriptor(id: [1], transports: [.usb])] : [],
            authenticatorSelection: withOptionalMembers
                ? AuthenticatorSelectionCriteria(
                    authenticatorAttachment: .platform, residentKey: .required, requireResidentKey: true, userVerification: .required)
                : nil,
            attestation: .direct, hints: withOptionalMembers ? ["security-key"] : nil,
            attestationFormats: withOptionalMembers ? ["packed", "tpm"] : nil,
            extensions: withOptionalMembers ? ["credProps": .bool(true)] : nil))
        #expect(try Self.same(reply))
    }

    @Test(arguments: [nil, "session \u{7}"])
    func registrationRepliesMatchJSONEncoder(sessionToken: String?) throws {
        let reply = RegistrationReply(
            username: Self.awkward, credentialId: Base64URLBytes([1, 2]), attestationFormat: .androidKey, attestationType: .basic,
            attestationTrusted: false, userVerified: true, sessionToken: sessionToken, idToken: "h.p.s")
        #expect(try Self.same(Reply(reply)))
    }
}
