import Foundation
import HTTPTypes
import LatchkeyJSON
import NIOCore
import Testing
import WebAuthn

@testable import LatchkeyServer
@testable import LatchkeyService

/// Bodies that cannot be read get a 4xx whose message names the member and what was wrong.
@Suite("Request decoding")
struct RequestDecodingRouteTests {
    static let cases: [(path: String, body: String, status: HTTPResponse.Status, message: String)] = [
        ("/attestation/options", #"{}"#, .badRequest, "username is missing"),
        ("/attestation/options", #"{"username": 5}"#, .badRequest, "username must be a string"),
        ("/attestation/options", #"{"username": null}"#, .badRequest, "username is missing"),
        ("/attestation/result", #"{"id": "AAAA", "type": "public-key", "response": {"clientDataJSON": "e30", "attestationObject": "AA", "transports": ["usb", null]}}"#,
         .badRequest, "response.transports[1] must not be null"),
        ("/attestation/options", #"{"username": "u", "attestation": "loud"}"#, .badRequest,
         #"attestation "loud" is not none, indirect, direct or enterprise"#),
        ("/attestation/options", #"{"username": "u", "authenticatorSelection": {"userVerification": "maybe"}}"#, .badRequest,
         #"authenticatorSelection.userVerification "maybe" is not required, preferred or discouraged"#),
        ("/attestation/options", #"{"username": "u", "extensions": [1]}"#, .badRequest, "extensions must be an object"),
        ("/attestation/options", #"{"username": "u\u0007"}"#, .badRequest, "control character U+0007"),
        ("/attestation/options", #"["username"]"#, .badRequest, "request body is not a JSON object"),
        ("/assertion/options", "null", .badRequest, "request body is not a JSON object"),
        ("/attestation/options", #"{"username": "#, .badRequest, "request body is not valid JSON"),
        ("/assertion/options", #"{"userVerification": true}"#, .badRequest, "userVerification must be a string"),
        ("/assertion/result", #"{"id": "AAAA", "type": "public-key", "response": {}}"#, .badRequest, "response.clientDataJSON is missing"),
        ("/assertion/result", #"{"id": "AAAA", "type": "password", "response": {}}"#, .badRequest, #"type "password" is not public-key"#),
        ("/assertion/result", #"{"id": "A*A", "type": "public-key", "response": {}}"#, .badRequest, "id is not base64url"),
        // What `Data.base64EncodedString()` writes, as an iOS app might send it.
        ("/assertion/result", #"{"id": "AAAA", "type": "public-key", "response": {"clientDataJSON": "ab+/cd==", "authenticatorData": "AA", "signature": "AA"}}"#,
         .badRequest, "response.clientDataJSON is not base64url: it has + or /, so it is standard base64; write - for + and _ for /"),
        ("/assertion/result", #"{"id": "AAAA", "rawId": "AAAB", "type": "public-key", "response": {"clientDataJSON": "e30", "authenticatorData": "AA", "signature": "AA"}}"#,
         .badRequest, "rawId does not match id"),
        ("/attestation/result", #"{"id": "AAAA", "type": "public-key", "response": {"clientDataJSON": "e30", "attestationObject": "AA", "transports": [1]}}"#,
         .badRequest, "response.transports[0] must be a string"),
        ("/attestation/result", #"{"id": "", "type": "public-key", "response": {"clientDataJSON": "e30", "attestationObject": "AA"}}"#,
         .badRequest, "id is empty"),
        // Extensions come back as sent, or not at all.
        ("/attestation/options", #"{"username": "u", "extensions": {"a": {"b": [1, 9007199254740993]}}}"#, .badRequest,
         "extensions.a.b[1] is a number of 2^53 or more in size, which cannot be echoed exactly"),
        ("/assertion/options", #"{"extensions": {"x": -1e300}}"#, .badRequest, "extensions.x is a number of 2^53 or more in size"),
        // A member twice: this decoder would take one copy and a proxy in front may take the other.
        ("/assertion/options", #"{"username": "alice", "username": "mallory"}"#, .badRequest,
         #"request body has the member "username" more than once in one object"#),
        ("/assertion/options", #"{"username": "alice", "userna\u006de": "mallory"}"#, .badRequest, #"the member "username" more than once"#),
        ("/assertion/result", #"{"id": "AAAA", "type": "public-key", "response": {"signature": "AA", "signature": "AB"}}"#, .badRequest,
         #"the member "signature" more than once"#),
        ("/attestation/options", #"{"username": "u", "extensions": {"credProps": true, "credProps": false}}"#, .badRequest,
         #"the member "credProps" more than once"#),
        // What a lenient decoder takes and reads as its first copy is not JSON here.
        ("/assertion/options", #"{"x": "\q", "username": "alice", "username": "mallory"}"#, .badRequest, "request body is not valid JSON"),
        ("/assertion/options", #"{"x": [1,], "username": "alice", "username": "mallory"}"#, .badRequest, "request body is not valid JSON"),
        ("/assertion/options", "\u{FEFF}" + #"{"username": "alice"}"#, .badRequest, "request body is not valid JSON"),
        ("/attestation/options", #"{"username": "u", "extensions": {"x": "# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}}",
         .badRequest, "request body nests arrays and objects more than 32 deep"),
    ]

    @Test(arguments: cases.indices)
    func malformedBodyNamesTheProblem(index: Int) async throws {
        let testCase = Self.cases[index]
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.post, testCase.path, raw: testCase.body)
            #expect(reply.status == testCase.status, "\(testCase.body): \(reply.text)")
            #expect(reply.isFailure)
            #expect(reply.errorMessage.contains(testCase.message), "\(testCase.body): \(reply.errorMessage)")
        }
    }

    @Test func extensionsAreEchoedExactly() async throws {
        let sent = #"{"credProps":true,"big":9007199254740991,"small":-0.5,"list":[null,"x",{"n":1e15}]}"#
        let harness = try RouteHarness()
        try await harness.run { client in
            for (path, username) in [("/assertion/options", ""), ("/attestation/options", #""username": "echo", "#)] {
                let reply = try await client.send(.post, path, raw: #"{\#(username)"extensions": \#(sent)}"#)
                #expect(reply.isOK, "\(path): \(reply.text)")
                let echoed = try JSONDecoder().decode([String: JSONValue].self, from: Data(reply.text.utf8))["extensions"]
                #expect(echoed == (try JSONDecoder().decode(JSONValue.self, from: Data(sent.utf8))), "\(path)")
                #expect(reply.text.contains("9007199254740991") && reply.text.contains("1000000000000000"), "\(reply.text)")
            }
        }
    }

    /// A number its member cannot hold is named with the member (Foundation called it "not valid JSON").
    @Test(arguments: [
        (#"{"expiresIn": 30.5}"#, "expiresIn must be a whole number"),
        (#"{"expiresIn": 9223372036854775808}"#, "expiresIn must be a whole number from -9223372036854775808 to 9223372036854775807"),
    ])
    func aNumberThatDoesNotFitIsNamedAsSuch(body: String, message: String) throws {
        struct Ticket: Decodable { var expiresIn: Int? }
        let error = #expect(throws: APIError.self) { try WireDecoder.decode(Ticket.self, from: ByteBuffer(string: body)) }
        #expect(error?.message == message)
        let whole = try WireDecoder.decode(Ticket.self, from: ByteBuffer(string: #"{"expiresIn": 3e1}"#))
        #expect(whole.expiresIn == 30)
        let broken = #expect(throws: APIError.self) { try WireDecoder.decode(Ticket.self, from: ByteBuffer(string: #"{"expiresIn": 30"#)) }
        #expect(broken?.message == "request body is not valid JSON")
    }

    @Test func aBodyThatIsNotJSONIs415() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let reply = try await client.send(.post, "/assertion/options", raw: "username=u", headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(reply.status == .unsupportedMediaType && reply.errorMessage.contains("application/json"))
        }
    }

    @Test func aBodyOver64KiBIs413AndEndsTheConnection() async throws {
        let harness = try RouteHarness()
        try await harness.run { client in
            let padding = String(repeating: "a", count: 65 * 1024)
            let reply = try await client.send(.post, "/assertion/options", raw: #"{"username": "\#(padding)"}"#)
            #expect(reply.status == .contentTooLarge && reply.isFailure && reply.errorMessage.contains("64 KiB"))
            #expect(reply.headers[.connection] == "close")
            // Just under the limit, the body is read and the name refused for its length.
            let fits = String(repeating: "a", count: 63 * 1024)
            let read = try await client.send(.post, "/assertion/options", raw: #"{"username": "\#(fits)"}"#)
            #expect(read.status == .badRequest && read.errorMessage.contains("username"))
        }
    }
}
