import Testing
import WebAuthn

/// An Android app is `PACKAGE@SHA256_FINGERPRINT`; its origin is the fingerprint in base64url.
@Suite("Android apps")
struct AndroidAppTests {
    /// The bytes 0, 7, 14, ... 217 as Android's tools print them.
    static let fingerprint = "00:07:0E:15:1C:23:2A:31:38:3F:46:4D:54:5B:62:69:70:77:7E:85:8C:93:9A:A1:A8:AF:B6:BD:C4:CB:D2:D9"
    /// Fingerprints that are not: 33 bytes, a byte of one digit, bytes that are not hex.
    static let (tooLong, oneDigit, notHex) = (fingerprint + ":00", "0" + String(fingerprint.dropFirst(2)), String(repeating: "GG:", count: 31) + "GG")

    @Test func anAppHasItsFingerprintAndOrigin() throws {
        let app = try AndroidApp(parsing: "com.example_2.a1@" + Self.fingerprint)
        #expect(app.packageName == "com.example_2.a1" && app.certificateFingerprint == (0..<32).map { UInt8($0 * 7) })
        #expect(app.fingerprintText == Self.fingerprint)
        #expect(app.origin == "android:apk-key-hash:AAcOFRwjKjE4P0ZNVFtiaXB3foWMk5qhqK-2vcTL0tk")
        #expect(try WebOrigin(app.origin).host == nil)
        #expect(try AndroidApp(parsing: "com.example_2.a1@" + Self.fingerprint.lowercased()) == app, "hex of either case")
    }

    @Test func anAppHasAnAt() {
        let problem = #expect(throws: IdentityProblem.self) { try AndroidApp(parsing: "com.example.app") }
        #expect(problem?.message == #""com.example.app" is not PACKAGE@SHA256_FINGERPRINT"#)
    }

    /// Each row: a refused app, and what follows `"APP": ` in its message.
    @Test(arguments: [
        ("example@" + fingerprint, badPackage("example")),
        ("com..app@" + fingerprint, badPackage("com..app")),
        ("com.1example@" + fingerprint, badPackage("com.1example")),
        ("com.exa-mple@" + fingerprint, badPackage("com.exa-mple")),
        ("com.example.app@00:11", badFingerprint("00:11")),
        ("com.example.app@" + tooLong, badFingerprint(tooLong)),
        ("com.example.app@" + oneDigit, badFingerprint(oneDigit)),
        ("com.example.app@" + notHex, badFingerprint(notHex)),
        ("com.1example@00:11", badPackage("com.1example") + "; " + badFingerprint("00:11")),
    ] as [(String, String)])
    func otherAppsAreRefused(text: String, problems: String) {
        let problem = #expect(throws: IdentityProblem.self) { try AndroidApp(parsing: text) }
        #expect(problem?.message == "\"\(text)\": \(problems)")
    }

    static func badPackage(_ name: String) -> String {
        "the package name \"\(name)\" is not two or more dot-separated parts of letters, digits and _, each starting with a letter"
    }

    static func badFingerprint(_ fingerprint: String) -> String {
        "the fingerprint \"\(fingerprint)\" is not 32 hex bytes separated by colons (the SHA-256 of the signing certificate)"
    }
}
