import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Testing

@testable import LatchkeyServer
@testable import LatchkeyService

/// `Request.cookieValue(named:)` reads what Hummingbird's `cookies[name]` reads, without building
/// every cookie (an empty value it reads as empty, where `cookies` gives no cookie).
@Suite struct CookieValueTests {
    static let headerSets: [[String]] = [
        [],
        ["latchkey_signin=abc"],
        ["a=1; latchkey_signin=abc; b=2"],
        ["a=1;latchkey_signin=x=y;b"],
        ["latchkey_signin=first", "latchkey_signin=second"],
        ["  latchkey_signin=  spaced  ; latchkey_session=tok"],
        ["latchkey_signin", "xlatchkey_signin=no; latchkey_signin_=no"],
        ["latchkey_signin=; latchkey_signin=later"],
        [";;; latchkey_session=tok;"],
    ]

    @Test(arguments: headerSets)
    func readsWhatHummingbirdsCookiesRead(headers: [String]) {
        var fields = HTTPFields()
        for header in headers { fields.append(HTTPField(name: .cookie, value: header)) }
        let request = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/", headerFields: fields),
            body: RequestBody(buffer: ByteBuffer()))
        for name in ["latchkey_signin", "latchkey_session", "a", "b", "missing"] {
            let value = request.cookieValue(named: name)
            #expect((value == "" ? nil : value) == request.cookies[name]?.value, "\(name) in \(headers)")
        }
    }
}
