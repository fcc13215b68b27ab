import WebAuthn

/// An Android app allowed to use this relying party's passkeys: its package name and the SHA-256
/// fingerprint of one certificate it is signed with, as configured in `androidApps`
/// (`com.example.app@AB:CD:...`). It is listed in `assetlinks.json`, and its origin is accepted in
/// client data.
public struct AndroidApp: Sendable, Equatable {
    /// The application ID, such as `com.example.app`.
    public let packageName: String
    /// The SHA-256 digest of the app's signing certificate: 32 bytes.
    public let certificateFingerprint: [UInt8]

    /// The origin Android puts in client data for this app's ceremonies:
    /// `android:apk-key-hash:` and the fingerprint in base64url without padding.
    public var origin: String { Self.originPrefix + Base64URL.encode(certificateFingerprint) }

    /// The fingerprint as Digital Asset Links writes it: 32 upper-case hex bytes separated by colons.
    public var fingerprintText: String { Self.fingerprintText(certificateFingerprint) }

    public static let originPrefix = "android:apk-key-hash:"

    /// Parses `PACKAGE@FINGERPRINT`; the error says what is wrong with it.
    public init(parsing text: String) throws(ConfigurationError) {
        guard let at = text.firstIndex(of: "@") else {
            throw ConfigurationError("\"\(text)\" is not PACKAGE@SHA256_FINGERPRINT")
        }
        let packageName = String(text[..<at])
        let fingerprint = String(text[text.index(after: at)...])
        var problems: [String] = []
        if !Self.isPackageName(packageName) {
            problems.append("the package name \"\(packageName)\" is not two or more dot-separated parts of letters, digits and _, each starting with a letter")
        }
        let bytes = Self.fingerprintBytes(fingerprint)
        if bytes == nil {
            problems.append("the fingerprint \"\(fingerprint)\" is not 32 hex bytes separated by colons (the SHA-256 of the signing certificate)")
        }
        guard problems.isEmpty, let bytes else {
            throw ConfigurationError("\"\(text)\": " + problems.joined(separator: "; "))
        }
        self.packageName = packageName
        self.certificateFingerprint = bytes
    }

    /// An Android application ID: at least two segments separated by dots, each starting with a
    /// letter and made of ASCII letters, digits and underscores.
    static func isPackageName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        return segments.count >= 2 && segments.allSatisfy { segment in
            guard let first = segment.first, first.isASCII, first.isLetter else { return false }
            return segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }

    /// `AB:cd:...` (32 pairs of hex digits, either case) as bytes; `nil` for anything else.
    static func fingerprintBytes(_ text: String) -> [UInt8]? {
        let pairs = text.split(separator: ":", omittingEmptySubsequences: false)
        guard pairs.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for pair in pairs {
            guard pair.count == 2, pair.allSatisfy(\.isHexDigit), let byte = UInt8(pair, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    static func fingerprintText(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }
}
