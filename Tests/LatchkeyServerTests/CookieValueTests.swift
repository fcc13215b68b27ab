import NIOCore
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// `Request.cookieValue(named:)` reads the first cookie of a name from every `Cookie` header: parts split at `;`,
/// leading whitespace dropped, each split at its first `=`.
@Suite struct CookieValueTests {
    static let cases: [(headers: [String], expected: [String: String])] = [
        ([], [:]),
        (["latchkey_signin=abc"], ["latchkey_signin": "abc"]),
        (["a=1; latchkey_signin=abc; b=2"], ["a": "1", "latchkey_signin": "abc", "b": "2"]),
        (["a=1;latchkey_signin=x=y;b"], ["a": "1", "latchkey_signin": "x=y"]),
        (["latchkey_signin=first", "latchkey_signin=second"], ["latchkey_signin": "first"]),
        (["  latchkey_signin=  spaced  ; latchkey_session=tok"], ["latchkey_signin": "  spaced  ", "latchkey_session": "tok"]),
        (["latchkey_signin", "xlatchkey_signin=no; latchkey_signin_=no"], [:]),
        (["latchkey_signin=; latchkey_signin=later"], ["latchkey_signin": ""]),
        ([";;; latchkey_session=tok;"], ["latchkey_session": "tok"]),
    ]

    @Test(arguments: cases.indices)
    func readsTheFirstCookieOfAName(index: Int) {
        let (headers, expected) = Self.cases[index]
        let request = Request(
            head: HTTPRequestHead(version: .http1_1, method: .POST, uri: "/", headers: HTTPHeaders(headers.map { ("Cookie", $0) })),
            body: ByteBuffer())
        for name in ["latchkey_signin", "latchkey_session", "a", "b", "missing"] {
            #expect(request.cookieValue(named: name) == expected[name], "\(name) in \(headers)")
        }
    }
}
