import NIOHTTP1

/// A header's name, so that routes read and write headers by a constant (`request.headers[.origin]`)
/// rather than by a string spelled at every use. Names compare without regard to case, as HTTP's do;
/// replies write them as spelled here (`Content-Type`).
public struct HeaderName: Hashable, Sendable, CustomStringConvertible {
    /// The name as it is written on the wire.
    public let text: String
    /// The name in lower case, which equality and hashing use.
    private let key: String

    public init(_ text: String) {
        self.text = text
        self.key = text.lowercased()
    }

    public var description: String { text }

    public static func == (left: HeaderName, right: HeaderName) -> Bool { left.key == right.key }

    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    static let accept = HeaderName("Accept")
    static let accessControlAllowCredentials = HeaderName("Access-Control-Allow-Credentials")
    static let accessControlAllowHeaders = HeaderName("Access-Control-Allow-Headers")
    static let accessControlAllowMethods = HeaderName("Access-Control-Allow-Methods")
    static let accessControlAllowOrigin = HeaderName("Access-Control-Allow-Origin")
    static let accessControlExposeHeaders = HeaderName("Access-Control-Expose-Headers")
    static let accessControlMaxAge = HeaderName("Access-Control-Max-Age")
    static let accessControlRequestMethod = HeaderName("Access-Control-Request-Method")
    static let allow = HeaderName("Allow")
    static let authorization = HeaderName("Authorization")
    static let cacheControl = HeaderName("Cache-Control")
    static let connection = HeaderName("Connection")
    static let contentLength = HeaderName("Content-Length")
    static let contentSecurityPolicy = HeaderName("Content-Security-Policy")
    static let contentType = HeaderName("Content-Type")
    static let cookie = HeaderName("Cookie")
    static let eTag = HeaderName("ETag")
    static let expect = HeaderName("Expect")
    static let host = HeaderName("Host")
    static let ifModifiedSince = HeaderName("If-Modified-Since")
    static let ifNoneMatch = HeaderName("If-None-Match")
    static let lastModified = HeaderName("Last-Modified")
    static let origin = HeaderName("Origin")
    static let retryAfter = HeaderName("Retry-After")
    static let setCookie = HeaderName("Set-Cookie")
    static let strictTransportSecurity = HeaderName("Strict-Transport-Security")
    static let transferEncoding = HeaderName("Transfer-Encoding")
    static let userAgent = HeaderName("User-Agent")
    static let vary = HeaderName("Vary")
    static let wwwAuthenticate = HeaderName("WWW-Authenticate")
    static let xContentTypeOptions = HeaderName("X-Content-Type-Options")
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
