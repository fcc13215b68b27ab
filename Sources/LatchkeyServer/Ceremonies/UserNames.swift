import Foundation

/// Rules for the names people give themselves and their passkeys: bounded in UTF-8 bytes (authenticators may keep only
/// 64), free of control characters (which would also let a name forge log lines), and usernames
/// compared in Unicode NFC so that one name cannot be registered twice in two encodings.
enum UserNames {
    static let maximumUsernameBytes = 64
    static let maximumDisplayNameBytes = 128

    /// The username in NFC, or a 400 naming the problem.
    static func username(_ raw: String) throws -> String {
        let name = raw.precomposedStringWithCanonicalMapping
        try check(name, member: "username", limit: maximumUsernameBytes)
        return name
    }

    /// A display name, or the name a person gives one of their passkeys (`member: "name"`), in
    /// NFC, or a 400 naming `member` and the problem.
    static func displayName(_ raw: String, member: String = "displayName") throws -> String {
        let name = raw.precomposedStringWithCanonicalMapping
        try check(name, member: member, limit: maximumDisplayNameBytes)
        return name
    }

    private static func check(_ name: String, member: String, limit: Int) throws {
        guard name.utf8.count <= limit else {
            throw APIError.badRequest("\(member) is \(name.utf8.count) bytes of UTF-8; at most \(limit) are allowed")
        }
        if let bad = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            throw APIError.badRequest("\(member) contains the control character U+\(String(bad.value, radix: 16, uppercase: true))")
        }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw APIError.badRequest("\(member) is blank")
        }
    }
}
