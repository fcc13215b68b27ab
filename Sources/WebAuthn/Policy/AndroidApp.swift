/// An Android app allowed to use a relying party's passkeys, written `com.example.app@AB:CD:...`: its package name and
/// the SHA-256 fingerprint of a certificate it is signed with. The relying party lists it in `assetlinks.json` and
/// accepts its ``origin`` in client data.
public struct AndroidApp: Sendable, Equatable {
    /// The application ID, such as `com.example.app`.
    public let packageName: String
    /// The SHA-256 digest of the app's signing certificate: 32 bytes.
    public let certificateFingerprint: [UInt8]

    /// What every Android app origin starts with.
    public static let originPrefix = "android:apk-key-hash:"

    /// The origin Android puts in client data: `android:apk-key-hash:` and the fingerprint in base64url without padding.
    public var origin: String { Self.originPrefix + Base64URL.encode(certificateFingerprint) }

    /// The fingerprint as Digital Asset Links writes it: 32 upper-case hex bytes separated by colons.
    public var fingerprintText: String {
        let digits = certificateFingerprint.map { String($0, radix: 16, uppercase: true) }
        return digits.map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: ":")
    }

    /// Parses `PACKAGE@FINGERPRINT`; the error says what is wrong with it.
    public init(parsing text: String) throws(IdentityProblem) {
        guard let at = text.firstIndex(of: "@") else { throw IdentityProblem("\"\(text)\" is not PACKAGE@SHA256_FINGERPRINT") }
        let (packageName, fingerprint) = (text[..<at], text[text.index(after: at)...])
        // Two or more segments, each a letter then letters, digits and underscores.
        let segments = packageName.split(separator: ".", omittingEmptySubsequences: false)
        let isPackageName = segments.count >= 2 && segments.allSatisfy { segment in
            segment.first?.isLetter == true && segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
        // 32 pairs of hex digits, either case, separated by colons.
        let pairs = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
        let bytes = pairs.compactMap { $0.count == 2 && $0.allSatisfy(\.isHexDigit) ? UInt8($0, radix: 16) : nil }
        var problems: [String] = []
        if !isPackageName {
            problems.append("the package name \"\(packageName)\" is not two or more dot-separated parts of letters, digits and _, each starting with a letter")
        }
        if pairs.count != 32 || bytes.count != 32 {
            problems.append("the fingerprint \"\(fingerprint)\" is not 32 hex bytes separated by colons (the SHA-256 of the signing certificate)")
        }
        guard problems.isEmpty else { throw IdentityProblem("\"\(text)\": " + problems.joined(separator: "; ")) }
        self.packageName = String(packageName)
        certificateFingerprint = bytes
    }
}
