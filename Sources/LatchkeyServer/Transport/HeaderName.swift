import NIOHTTP1

/// A header's name, lower-cased once, so that routes read and write headers by a constant
/// (`request.headers[.origin]`) rather than by a string spelled at every use.
public struct HeaderName: Hashable, Sendable, CustomStringConvertible {
    /// The name in lower case, as it is written on the wire.
    public let text: String

    public init(_ text: String) {
        self.text = text.lowercased()
    }

    public var description: String { text }

    static let accept = HeaderName("accept")
    static let accessControlAllowCredentials = HeaderName("access-control-allow-credentials")
    static let accessControlAllowHeaders = HeaderName("access-control-allow-headers")
    static let accessControlAllowMethods = HeaderName("access-control-allow-methods")
    static let accessControlAllowOrigin = HeaderName("access-control-allow-origin")
    static let accessControlExposeHeaders = HeaderName("access-control-expose-headers")
    static let accessControlMaxAge = HeaderName("access-control-max-age")
    static let accessControlRequestMethod = HeaderName("access-control-request-method")
    static let allow = HeaderName("allow")
    static let authorization = HeaderName("authorization")
    static let cacheControl = HeaderName("cache-control")
    static let connection = HeaderName("connection")
    static let contentLength = HeaderName("content-length")
    static let contentSecurityPolicy = HeaderName("content-security-policy")
    static let contentType = HeaderName("content-type")
    static let cookie = HeaderName("cookie")
    static let eTag = HeaderName("etag")
    static let expect = HeaderName("expect")
    static let ifModifiedSince = HeaderName("if-modified-since")
    static let ifNoneMatch = HeaderName("if-none-match")
    static let lastModified = HeaderName("last-modified")
    static let origin = HeaderName("origin")
    static let retryAfter = HeaderName("retry-after")
    static let setCookie = HeaderName("set-cookie")
    static let strictTransportSecurity = HeaderName("strict-transport-security")
    static let transferEncoding = HeaderName("transfer-encoding")
    static let userAgent = HeaderName("user-agent")
    static let vary = HeaderName("vary")
    static let wwwAuthenticate = HeaderName("www-authenticate")
    static let xContentTypeOptions = HeaderName("x-content-type-options")
}

extension HTTPHeaders {
    /// The first value of the header `name`; setting replaces every value (nil removes the header).
    subscript(_ name: HeaderName) -> String? {
        get { first(name: name.text) }
        set {
            if let newValue { replaceOrAdd(name: name.text, value: newValue) } else { remove(name: name.text) }
        }
    }

    /// Every value of the header `name`, in order, as its fields carry them (a list in one field is one value).
    subscript(values name: HeaderName) -> [String] {
        self[name.text]
    }

    /// Adds a value of `name` after the ones there are.
    mutating func append(_ name: HeaderName, _ value: String) {
        add(name: name.text, value: value)
    }
}
