import Foundation
import LatchkeyJSON
import Testing
@testable import WebAuthn

/// clientDataJSON is read by Latchkey's own strict JSON reader; it must accept exactly the JSON
/// Foundation accepts, resolve escapes, and refuse what no browser writes (duplicate members).
@Suite("Client data JSON")
struct CollectedClientDataTests {
    static func parse(_ text: String) throws -> CollectedClientData {
        try CollectedClientData(Array(text.utf8))
    }

    static func code(_ text: String) -> WebAuthnError.Code? {
        do {
            _ = try parse(text)
            return nil
        } catch let error as WebAuthnError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func membersAreRead() throws {
        let clientData = try Self.parse(#"""
            {"type":"webauthn.get","challenge":"AAEC","origin":"https://example.com","crossOrigin":true,
             "topOrigin":"https://top.example","tokenBinding":{"status":"present","id":"x"},"other":[1,{"a":null}]}
            """#)
        #expect(clientData.type == "webauthn.get")
        #expect(clientData.challenge == "AAEC")
        #expect(clientData.origin == "https://example.com")
        #expect(clientData.crossOrigin)
        #expect(clientData.topOrigin == "https://top.example")
        #expect(clientData.tokenBindingStatus == "present")
        #expect(!clientData.tokenBindingIsMalformed)
    }

    @Test func escapesAreResolved() throws {
        let clientData = try Self.parse(#"{"type":"webauthn.get","challenge":"AAEC","origin":"https:\/\/ex\u0061mple.com\ud83d\ude00\n"}"#)
        #expect(clientData.origin == "https://example.com\u{1F600}\n")
        let escapedName = try Self.parse(#"{"typ\u0065":"webauthn.get","challenge":"AAEC","origin":"o"}"#)
        #expect(escapedName.type == "webauthn.get")
    }

    @Test func aReadMemberTwiceIsRefused() {
        #expect(Self.code(#"{"type":"webauthn.get","challenge":"AAEC","challenge":"AAED","origin":"o"}"#) == .malformedClientData)
        #expect(Self.code(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o","ch\u0061llenge":"AAED"}"#) == .malformedClientData)
        #expect(Self.code(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o","x":1,"x":2}"#) == nil)
    }

    /// Request bodies: a name repeated in any object is refused, escaped or not; the same name in two
    /// objects is not a repeat; and only one JSON text in UTF-8 passes, so no repeat hides behind text a
    /// lenient reader takes.
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, StrictJSONProblem.repeatedMember("a")),
        (#"{"a":1,"\u0061":2}"#, .repeatedMember("a")),
        (#"{"o":{"b":[{"c":1,"c":1}]}}"#, .repeatedMember("c")),
        (#"[{"a":1},{"a":1,"b":{},"b":null}]"#, .repeatedMember("b")),
        ("{" + (0..<40).map { "\"m\($0)\":\($0)," }.joined() + #""m7":0}"#, .repeatedMember("m7")),
        (#"{"a":"# + String(repeating: "[", count: 33) + String(repeating: "]", count: 33) + "}", .tooDeep(32)),
        (#"{"a":1,"b""#, .notJSON),
        (#"{"x":"\q","u":"alice","u":"mallory"}"#, .notJSON),
        (#"{"x":"\ud800","u":"alice","u":"mallory"}"#, .notJSON),
        ("{\"x\":\"\u{01}\",\"u\":\"alice\",\"u\":\"mallory\"}", .notJSON),
        (#"{"x":01,"u":"alice","u":"mallory"}"#, .notJSON),
        (#"{"x":1.,"u":"alice","u":"mallory"}"#, .notJSON),
        (#"{"x":[1,],"u":"alice","u":"mallory"}"#, .notJSON),
        ("\u{FEFF}" + #"{"u":"alice","u":"mallory"}"#, .notJSON),
        (#"{"u":"alice"} {"u":"mallory"}"#, .notJSON),
        (#"{"a":1,"b":{"a":1},"c":[{"a":1},{"a":1}],"A":1,"a ":1}"#, nil),
        ("{" + (0..<40).map { "\"m\($0)\":\($0)" }.joined(separator: ",") + "}", nil),
        (#"{"a":"# + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "}", nil),
        (" [1, -0.5e+3, true, null, \"\\u00e9\"] ", nil),
    ] as [(String, StrictJSONProblem?)])
    func onlyOneJSONTextWithoutRepeatsPasses(text: String, problem: StrictJSONProblem?) {
        #expect(Self.strictProblem(Array(text.utf8)) == problem, "\(text)")
    }

    @Test func bytesThatAreNotUTF8AreNotJSON() {
        var stray = Array(#"{"x":"?","u":"alice","u":"mallory"}"#.utf8)
        stray[6] = 0xFF
        #expect(Self.strictProblem(stray) == .notJSON)
        let utf16 = Array(#"{"u":"alice","u":"mallory"}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        #expect(Self.strictProblem(utf16) == .notJSON)
    }

    static func strictProblem(_ bytes: [UInt8]) -> StrictJSONProblem? {
        bytes.withUnsafeBytes { bytes in
            do throws(StrictJSONProblem) {
                try StrictJSON.check(bytes)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func memberKindsAreChecked() {
        #expect(Self.code(#"{"type":1,"challenge":"AAEC","origin":"o"}"#) == .malformedClientData)
        #expect(Self.code(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o","crossOrigin":"true"}"#) == .malformedClientData)
        #expect(Self.code(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o","topOrigin":{}}"#) == .malformedClientData)
        #expect(Self.code(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o","tokenBinding":{}}"#) == .invalidTokenBinding)
        #expect(Self.code(#"{"type":"webauthn.get","challenge":"","origin":"o"}"#) == .malformedClientData)
        #expect(Self.code(#"{"type":"webauthn.get","origin":"o"}"#) == .malformedClientData)
        #expect((try? Self.parse(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o","tokenBinding":"unused"}"#))?.tokenBindingIsMalformed == true)
        #expect((try? Self.parse(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o","crossOrigin":null}"#))?.crossOrigin == false)
    }

    @Test("text that is not one JSON object is refused", arguments: [
        "", " ", "[]", "\"x\"", "1", "null", "{", "}", "{\"type\"}", "{\"type\":}", "{\"a\":1,}", "{,}", "{\"a\":01}",
        "{\"a\":1.}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":tru}", "{\"a\":\"\u{01}\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}",
        "{\"a\":\"\\udc00\"}", "{\"a\":\"\\u12\"}", "{\"a\":[1,]}", "{\"a\":[1 2]}", "{} {}", "{\"a\":1}x", "{'a':1}",
        "{\"a\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
    ])
    func notOneObject(_ text: String) {
        #expect(Self.code(text) == .malformedClientData, "\(text)")
    }

    @Test func invalidUTF8IsRefused() {
        var bytes = Array(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o"}"#.utf8)
        bytes.insert(0xC3, at: bytes.count - 3)  // a lead byte without its continuation
        #expect(throws: WebAuthnError.self) { try CollectedClientData(bytes) }
        var overlong = Array(#"{"type":"webauthn.get","challenge":"AAEC","origin":"o"}"#.utf8)
        overlong.insert(contentsOf: [0xC0, 0xAF], at: overlong.count - 3)
        #expect(throws: WebAuthnError.self) { try CollectedClientData(overlong) }
    }

    /// Differential check against Foundation on every vector's client data, flipped and cut:
    /// whatever Latchkey's reader takes as JSON, Foundation's JSONDecoder must too, and the reverse.
    @Test func theReaderAgreesWithFoundation() {
        var generator = MutationTests.SeededGenerator(state: 7)
        var checked = 0
        for vector in ConformanceVector.all() {
            var inputs = [vector.clientDataJSON]
            for _ in 0..<40 { inputs.append(MutationTests.mutate(vector.clientDataJSON, using: &generator)) }
            for input in inputs {
                let foundation = (try? JSONDecoder().decode(JSONValue.self, from: Data(input))) != nil
                let latchkey: Bool
                do throws(StrictJSONReader.Failure) {
                    _ = try StrictJSONReader.members(of: input, reading: CollectedClientData.readMembers)
                    latchkey = true
                } catch {
                    latchkey = error != .notJSON
                }
                #expect(latchkey == foundation, "\(vector.name): \(String(decoding: input, as: UTF8.self))")
                checked += 1
            }
        }
        #expect(checked > 1_000)
    }
}
