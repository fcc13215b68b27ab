import NIOHTTP1

/// The host a request names, settled once from its head before anything routes it (RFC 9112 §3.2), so that a proxy
/// in front and Latchkey can never read two different hosts (and pick two tenants) from one request:
/// - an HTTP/1.1 request has exactly one `Host` field; HTTP/1.0 may have none, never two;
/// - its value is a `uri-host [":" port]` of RFC 3986 (no spaces, no list, no user information), not empty;
/// - an absolute-form target (`GET http://id.example/session`, §3.2.2) names the host itself: its authority replaces
///   `Host`, and its path and query become the target, so it is served as the origin form would be.
///
/// Anything else is a 400 naming what was wrong.
enum RequestHost {
    /// `head` with its host settled (an absolute-form target made origin-form), or why it has none a server may use.
    static func settle(_ head: HTTPRequestHead) -> Result<HTTPRequestHead, Refusal> {
        var head = head
        let hosts = head.headers[values: .hostField]
        if hosts.count > 1 { return .failure(Refusal("the request has \(hosts.count) Host fields; it must have one (RFC 9112 §3.2)")) }
        if let absolute = absoluteForm(head.uri) {
            guard isAuthority(absolute.authority) else {
                return .failure(Refusal("the request target's host \(quoted(absolute.authority)) is not a valid host name, address or port"))
            }
            head.uri = absolute.rest.isEmpty ? "/" : String(absolute.rest)
            head.headers[.hostField] = String(absolute.authority)
            return .success(head)
        }
        guard let host = hosts.first else {
            if head.version.major == 1 && head.version.minor == 0 { return .success(head) }
            return .failure(Refusal("the request has no Host field (RFC 9112 §3.2)"))
        }
        guard isAuthority(Substring(host)) else {
            return .failure(Refusal(
                host.isEmpty ? "the Host field is empty" : "the Host field \(quoted(Substring(host))) is not a valid host name, address or port"))
        }
        return .success(head)
    }

    /// `text` for a message: quoted, at most 100 characters.
    private static func quoted(_ text: Substring) -> String { String(text.prefix(100)).debugDescription }

    /// Why a request's host cannot be used.
    struct Refusal: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// The authority and the rest of an `http` or `https` absolute-form target; nil for any other form.
    static func absoluteForm(_ target: String) -> (authority: Substring, rest: Substring)? {
        let lowered = target.prefix(8).lowercased()
        let scheme = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : nil
        guard let scheme else { return nil }
        let afterScheme = target.dropFirst(scheme)
        let end = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        return (afterScheme[..<end], afterScheme[end...])
    }

    /// Whether `text` is `host [":" port]`: a registered name (unreserved, percent-encoded and sub-delimiter
    /// characters, no empty name), an IPv4 address (a registered name's characters cover it) or a bracketed IP
    /// literal; the port all digits.
    static func isAuthority(_ text: Substring) -> Bool {
        var host = text, port: Substring = ""
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return false }
            host = text[...close]
            port = text[text.index(after: close)...]
            let literal = host.dropFirst().dropLast()
            guard !literal.isEmpty, literal.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
        } else {
            if let colon = text.lastIndex(of: ":") {
                host = text[..<colon]
                port = text[colon...]
            }
            guard !host.isEmpty, isRegisteredName(host) else { return false }
        }
        if port.isEmpty { return true }
        guard port.first == ":" else { return false }
        return port.dropFirst().utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } && port.utf8.count <= 6
    }

    /// RFC 3986 §3.2.2 `reg-name`: unreserved, `%HH` and sub-delimiters.
    private static func isRegisteredName(_ name: Substring) -> Bool {
        var bytes = name.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                continue
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                continue
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="):
                continue
            case UInt8(ascii: "%"):
                guard let high = bytes.next(), let low = bytes.next(), isHexDigit(high), isHexDigit(low) else { return false }
            default:
                return false
            }
        }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
