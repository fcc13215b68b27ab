import Foundation
import LatchkeyAuthenticator
import Testing
import WebAuthn

/// Options the authenticator cannot answer: a clear error naming what is wrong, and the keys file
/// left exactly as it was.
@Suite("Refusals")
struct RefusalTests {
    let folder: TemporaryFolder
    let authenticator: SoftwareAuthenticator
    /// The credential registered before each test, so that a refusal has a file to leave alone.
    let existing: [UInt8]

    init() throws {
        folder = try TemporaryFolder()
        authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.keys)
        let output = try OutputJSON(authenticator.register(options: Options.creation(challenge: try randomBytes(32), userID: try randomBytes(16))))
        existing = try output.bytes("id", in: output.object)
    }

    /// Runs `body`, which must fail with `code` and a message containing `phrase`, and checks the
    /// keys file did not change.
    func expectRefusal(_ code: AuthenticatorError.Code, _ phrase: String, _ body: () throws -> Any, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = folder.keyFileBytes()
        let error = authenticatorError(body)
        #expect(error?.code == code, "\(error?.message ?? "")", sourceLocation: sourceLocation)
        #expect(error?.message.contains(phrase) == true, "\(error?.message ?? "") lacks \(phrase.debugDescription)", sourceLocation: sourceLocation)
        #expect(folder.keyFileBytes() == before, "the keys file changed", sourceLocation: sourceLocation)
        #expect(try folder.names() == ["keys.json"], "a temporary file was left", sourceLocation: sourceLocation)
    }

    func register(_ object: [String: Any], algorithm: CredentialAlgorithm? = nil) throws -> [UInt8] {
        try authenticator.register(options: Options.json(object), algorithm: algorithm)
    }

    func creation(_ edit: (inout [String: Any]) -> Void) throws -> [String: Any] {
        var object = try JSONSerialization.jsonObject(with: Data(Options.creation(challenge: try randomBytes(32), userID: try randomBytes(16)))) as? [String: Any] ?? [:]
        edit(&object)
        return object
    }

    @Test func malformedCreationOptionsNameTheMember() throws {
        try expectRefusal(.malformedOptions, "malformed options: user is missing") { try register(creation { $0["user"] = nil }) }
        try expectRefusal(.malformedOptions, "malformed options: rp.id must be a string") { try register(creation { $0["rp"] = ["id": 7] }) }
        try expectRefusal(.malformedOptions, "malformed options: challenge is not base64url") { try register(creation { $0["challenge"] = "not+base64/url" }) }
        try expectRefusal(.malformedOptions, "malformed options: pubKeyCredParams[1].alg must be an integer") {
            try register(creation { $0["pubKeyCredParams"] = [["type": "public-key", "alg": -7], ["type": "public-key", "alg": "ES256"]] })
        }
        try expectRefusal(.malformedOptions, "malformed options: excludeCredentials[0].id is missing") {
            try register(creation { $0["excludeCredentials"] = [["type": "public-key"]] })
        }
        try expectRefusal(.malformedOptions, "malformed options: user.name must not be null") {
            try register(creation { $0["user"] = ["id": "AAAA", "name": NSNull()] })
        }
        try expectRefusal(.malformedOptions, "malformed options: not valid JSON") { try authenticator.register(options: Array("{\"rp\":".utf8)) }
        try expectRefusal(.malformedOptions, "malformed options: not a JSON object") { try authenticator.register(options: Array("[1,2]".utf8)) }
        try expectRefusal(.malformedOptions, "the input is empty") { try authenticator.register(options: Array(" \n".utf8)) }
    }

    @Test func malformedRequestOptionsNameTheMember() throws {
        try expectRefusal(.malformedOptions, "malformed options: challenge is missing") { try authenticator.signIn(options: Options.json(["rpId": "localhost"])) }
        try expectRefusal(.malformedOptions, "malformed options: allowCredentials must be an array") {
            try authenticator.signIn(options: Options.json(["challenge": "AAAA", "allowCredentials": "all"]))
        }
    }

    @Test func aFailedReplyIsReportedAsTheServersMessage() throws {
        let reply = try Options.json(["status": "failed", "errorMessage": "username must not be empty"])
        try expectRefusal(.failedReply, "username must not be empty") { try authenticator.register(options: reply) }
        try expectRefusal(.failedReply, "username must not be empty") { try authenticator.signIn(options: reply) }
    }

    @Test func anRPIDTheOriginDoesNotBelongToIsRefused() throws {
        try expectRefusal(.wrongRPID, "wrong RP ID: rp.id \"example.com\"") { try register(creation { $0["rp"] = ["id": "example.com", "name": "x"] }) }
        try expectRefusal(.wrongRPID, "wrong RP ID: rpId \"example.com\"") {
            try authenticator.signIn(options: Options.request(challenge: try randomBytes(32), rpID: "example.com"))
        }
        // A suffix that is not a whole label is not a parent domain.
        let site = SoftwareAuthenticator(origin: try WebOrigin("https://notexample.com"), keyFilePath: folder.keys)
        try expectRefusal(.wrongRPID, "wrong RP ID") {
            try site.register(options: Options.creation(challenge: try randomBytes(32), userID: try randomBytes(16), rpID: "example.com"))
        }
    }

    /// A browser takes the origin's host when the options name no RP ID.
    @Test func anAbsentRPIDIsTheOriginsHost() throws {
        let challenge = try randomBytes(32)
        let output = try OutputJSON(authenticator.register(
            options: Options.creation(challenge: challenge, userID: try randomBytes(16), username: "bob", rpID: nil)))
        let verified = try RegistrationVerifier(relyingParty: Options.relyingParty).verify(
            output.registrationResponse(), expecting: RegistrationExpectation(challenge: challenge, userVerification: .required))
        #expect(verified.rpID == "localhost")
    }

    @Test func anAlgorithmNotOfferedIsRefused() throws {
        try expectRefusal(.unsupportedAlgorithm, "unsupported algorithm: ES384 is not in pubKeyCredParams, which offers ES256, RS256") {
            try register(creation { $0["pubKeyCredParams"] = [["type": "public-key", "alg": -7], ["type": "public-key", "alg": -257]] }, algorithm: .es384)
        }
        try expectRefusal(.unsupportedAlgorithm, "unsupported algorithm: pubKeyCredParams offers ES512, PS256") {
            try register(creation { $0["pubKeyCredParams"] = [["type": "public-key", "alg": -36], ["type": "public-key", "alg": -37]] })
        }
    }

    @Test func anExcludedCredentialIsRefused() throws {
        try expectRefusal(.credentialExcluded, "is listed in excludeCredentials") {
            try register(creation { $0["excludeCredentials"] = [["type": "public-key", "id": Base64URL.encode(existing)]] })
        }
    }

    @Test func aCrossPlatformAuthenticatorIsNotThisOne() throws {
        try expectRefusal(.unsupportedRequirement, "cross-platform") {
            try register(creation { $0["authenticatorSelection"] = ["authenticatorAttachment": "cross-platform"] })
        }
    }
}
