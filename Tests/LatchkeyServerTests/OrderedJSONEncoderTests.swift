import Foundation
import LatchkeyJSON
@testable import LatchkeyServer
@testable import LatchkeyService
import Testing
import WebAuthn

/// Replies and webhook bodies keep their members in the order their types declare them, the same bytes every time.
@Suite("Ordered JSON")
struct OrderedJSONEncoderTests {
    struct Inner: Encodable {
        var zulu = 1
        var alpha: String? = "a"
        var missing: String?
    }

    struct Reply: Encodable {
        var status = "ok"
        var errorMessage = ""
        var username = JSONTextTests.awkward
        var count = 42
        var negative: Int64 = -7
        var ratio = 2.5
        var flag = true
        var inner = Inner()
        var list = [Inner(), Inner(zulu: 2, alpha: nil)]
        var strings = ["x", "y"]
        var dictionary = ["b": 2, "a": 1, "c": 3, "d": 4, "e": 5]
        var data = Data([0xFB, 0xFF])
        var url = URL(string: "https://example.com/a/b")
        var extensions: [String: JSONValue] = JSONTextTests.extensions
        var empty: [Int] = []
    }

    @Test func membersStandInDeclaredOrderAndDictionariesByKey() throws {
        let bytes = try OrderedJSONEncoder().encode(Reply())
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"status":"ok","errorMessage":"","username":"quote \" backslash \\ slash / tab \t newline \n nul \u0000"#))
        #expect(text.contains(#""count":42,"negative":-7,"ratio":2.5,"flag":true,"inner":{"zulu":1,"alpha":"a"},"list":[{"zulu":1,"alpha":"a"},{"zulu":2}],"strings":["x","y"],"dictionary":{"a":1,"b":2,"c":3,"d":4,"e":5},"data":"+/8=","url":"https://example.com/a/b","extensions":{"appid""#))
        #expect(text.hasSuffix(#","empty":[]}"#))
    }

    @Test func oneValueIsTheSameBytesEveryTime() throws {
        let first = try OrderedJSONEncoder().encode(Reply())
        for _ in 0..<200 { #expect(try OrderedJSONEncoder().encode(Reply()) == first) }
        // Replies (and so webhook bodies, which are built the same way) too.
        let reply = JSONResponse.body(Reply())
        #expect(Array(reply.readableBytesView) == first)
    }

    @Test func saysWhatJSONEncoderSays() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        #expect(try JSONTextTests.parsed(OrderedJSONEncoder().encode(Reply())) == JSONTextTests.parsed(encoder.encode(Reply())))
    }
}
