import LatchkeyAuthenticator
import Testing

/// `--origin` is checked and serialized as a browser serializes its own origin.
@Suite("Origins")
struct WebOriginTests {
    @Test(arguments: [
        ("http://localhost:8080", "http://localhost:8080"),
        ("https://Example.COM:443", "https://example.com"),
        ("https://login.example.com:8443", "https://login.example.com:8443"),
        ("http://app.localhost", "http://app.localhost"),
        ("android:apk-key-hash:" + String(repeating: "A", count: 43), "android:apk-key-hash:" + String(repeating: "A", count: 43)),
    ])
    func acceptedOrigins(text: String, serialized: String) throws {
        #expect(try WebOrigin(text).serialized == serialized)
    }

    @Test(arguments: [
        "http://example.com", "https://example.com/", "https://example.com/path", "example.com", "ftp://example.com",
        "https://", "https://exa_mple.com", "https://example.com:0", "https://example.com:99999", "https://user@example.com",
        "https://[::1]", "android:apk-key-hash:short",
    ])
    func refusedOrigins(text: String) {
        let error = authenticatorError { try WebOrigin(text) }
        #expect(error?.code == .invalidOrigin, "\(text)")
    }
}
