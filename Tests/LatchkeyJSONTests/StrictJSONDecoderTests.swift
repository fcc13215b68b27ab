import Foundation
@testable import LatchkeyJSON
import Testing

/// The one-pass decoder reads what Foundation's `JSONDecoder` reads, and refuses what the strict reader refuses.
@Suite("Strict JSON decoder")
struct StrictJSONDecoderTests {
    enum Colour: String, Codable, Equatable { case red, green }

    struct Inner: Codable, Equatable {
        var flag: Bool
        var ratio: Double?
        var tags: [String]?
    }

    struct Sample: Codable, Equatable {
        var name: String
        var count: Int
        var small: UInt8?
        var colour: Colour?
        var inner: Inner?
        var matrix: [[Int]]?
        var map: [String: Int]?
        var free: JSONValue?
        var optionalItems: [String?]?
    }

    static func strict<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try Array(text.utf8).withUnsafeBytes { try StrictJSONDecoder.decode(type, from: $0) }
    }

    @Test(arguments: [
        #"{"name": "a", "count": 1}"#,
        #"{"name": "é \u00e9 \ud83d\ude00", "count": -12, "small": 255, "colour": "green"}"#,
        #"{"name": "", "count": 7.0, "inner": {"flag": true, "ratio": 1e-3, "tags": ["x", "y"]}}"#,
        #"{"name": "m", "count": 1e3, "matrix": [[1, 2], [], [3]], "map": {"b": 2, "a": 1}}"#,
        #"{"name": "n", "count": 0, "inner": null, "colour": null, "optionalItems": ["a", null, "b"]}"#,
        #"{"name": "f", "count": 9223372036854775807, "free": {"n": [1, 2.5, true, null, "s", {"deep": {}}]}}"#,
        #"{"name": "extra", "count": 3, "unknown": {"skipped": [1, 2, 3]}}"#,
    ])
    func readsWhatFoundationReads(text: String) throws {
        let expected = try JSONDecoder().decode(Sample.self, from: Data(text.utf8))
        #expect(try Self.strict(Sample.self, text) == expected)
    }

    @Test(arguments: [
        (#"{"count": 1}"#, "name is missing"),
        (#"{"name": null, "count": 1}"#, "name must not be null"),
        (#"{"name": 5, "count": 1}"#, "name must be a string"),
        (#"{"name": "a", "count": "1"}"#, "count must be an integer"),
        (#"{"name": "a", "count": 1.5}"#, "count must be a whole number"),
        (#"{"name": "a", "count": 1, "small": 256}"#, "small must be a whole number from 0 to 255"),
        (#"{"name": "a", "count": 1, "colour": "blue"}"#, "colour Cannot initialize Colour from invalid String value blue"),
        (#"{"name": "a", "count": 1, "inner": {"flag": "yes"}}"#, "inner.flag must be true or false"),
        (#"{"name": "a", "count": 1, "inner": []}"#, "inner must be an object"),
        (#"{"name": "a", "count": 1, "inner": {"flag": true, "tags": ["x", 2]}}"#, "inner.tags[1] must be a string"),
        (#"{"name": "a", "count": 1, "matrix": [[1], {}]}"#, "matrix[1] must be an array"),
        (#"[1, 2]"#, "not a JSON object"),
    ])
    func namesTheMemberThatDoesNotFit(text: String, message: String) {
        #expect {
            _ = try Self.strict(Sample.self, text)
        } throws: { error in
            guard let error = error as? DecodingError else { return false }
            return JSONDecodingProblem.message(for: error) == message
        }
    }

    @Test(arguments: [
        (#"{"name": "a", "name": "b", "count": 1}"#, StrictJSONProblem.repeatedMember("name")),
        (#"{"name": "a", "count": 1, "inner": {"flag": true, "flag": false}}"#, .repeatedMember("flag")),
        (#"{"name": "a", "count": 1,}"#, .notJSON),
        ("\u{FEFF}" + #"{"name": "a", "count": 1}"#, .notJSON),
        (#"{"name": "\q", "count": 1}"#, .notJSON),
        (#"{"name": "a", "count": 01}"#, .notJSON),
        (#"{"name": "a", "count": 1} x"#, .notJSON),
        (String(repeating: "[", count: 40) + String(repeating: "]", count: 40), .tooDeep(32)),
    ])
    func refusesWhatTheStrictReaderRefuses(text: String, problem: StrictJSONProblem) {
        #expect(throws: problem) { _ = try Self.strict(Sample.self, text) }
    }

    @Test func readsAWholeNumberExactly() throws {
        struct Big: Decodable { var value: UInt64 }
        #expect(try Self.strict(Big.self, #"{"value": 18446744073709551615}"#).value == .max)
        #expect(try Self.strict(Big.self, #"{"value": 9007199254740993}"#).value == 9_007_199_254_740_993)
    }

    @Test func refusesInvalidUTF8() {
        let bytes: [UInt8] = Array(#"{"name": ""#.utf8) + [0xC0, 0xAF] + Array(#"", "count": 1}"#.utf8)
        #expect(throws: StrictJSONProblem.notJSON) { _ = try bytes.withUnsafeBytes { try StrictJSONDecoder.decode(Sample.self, from: $0) } }
    }
}
