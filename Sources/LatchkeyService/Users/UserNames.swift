import Foundation
import LatchkeyStore

/// Rules for the names people give themselves and their passkeys: ``PrintableText`` (authenticators may keep only
/// 64 bytes), and usernames kept and compared in Unicode NFC, width-mapped and case-folded, free of invisible
/// characters and of words that mix look-alike scripts, so that one name cannot be registered twice in two encodings, widths or cases,
/// nor beside itself with an invisible character added or a letter swapped for its look-alike (`Alice`,
/// `ＡＬＩＣＥ` and `alice` are one account, kept as `alice`; `alice` with a word joiner, and `аlice` with a
/// Cyrillic `а`, are refused).
package enum UserNames {
    package static let maximumUsernameBytes = 64
    package static let maximumDisplayNameBytes = 128

    /// The username as accounts are kept and found: ``spelling(_:)`` case-folded, or a 400 naming the problem.
    package static func username(_ raw: String) throws -> String {
        try plainASCIIUsername(raw) ?? folded(spelling(raw))
    }

    /// The username of `raw` when it is printable ASCII that every rule takes as it is (most names): NFC, width
    /// mapping, invisible characters and look-alike scripts do not apply to it, so it is only lower-cased. Nil
    /// for anything else, and for a name a rule refuses, which ``spelling(_:)`` then words.
    private static func plainASCIIUsername(_ raw: String) -> String? {
        let bytes = raw.utf8
        guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20, bytes.count <= maximumUsernameBytes,
              bytes.allSatisfy({ (0x20...0x7E).contains($0) }), unaddressableSegment(raw) == nil
        else { return nil }
        return raw.lowercased()
    }

    /// The names to look an account up by, in order: ``username(_:)``, then the name as accounts made before
    /// width mapping and the refusal of invisible characters, of mixed look-alike scripts and of `.` and `..`
    /// were kept (NFC and lower case), so that such an account can still sign in and be managed. A 400 when
    /// neither rule reads `raw`.
    package static func lookupNames(_ raw: String) throws -> [String] {
        let current = try? username(raw)
        // Without width forms, a name today's rules read is the same under the earlier ones.
        if let current, !raw.unicodeScalars.contains(where: isWidthForm) { return [current] }
        let earlier = raw.precomposedStringWithCanonicalMapping.lowercased().precomposedStringWithCanonicalMapping
        guard let current else {
            try PrintableText.check(earlier, member: "username", maximumBytes: maximumUsernameBytes)
            return [earlier]
        }
        return current == earlier ? [current] : [current, earlier]
    }

    /// What `lookup` finds by the first of ``lookupNames(_:)`` that finds anything, with the name today's
    /// rules give `raw` (for messages and decoys): one lookup for most names, two for an account kept
    /// under the earlier rules.
    /// A name typed in width forms (`ａｌｉｃｅ`) is looked up as kept under the earlier rules first: an account kept so
    /// is the one it names exactly, which its folded twin (`alice`, made since) would otherwise hide from every route.
    package static func find<Account>(_ raw: String, by lookup: (String) async throws -> Account?) async throws -> (name: String, account: Account?) {
        let names = try lookupNames(raw)
        for name in names.count > 1 ? names.reversed() : names {
            if let account = try await lookup(name) { return (names[0], account) }
        }
        return (names[0], nil)
    }

    /// The username as typed, width-mapped (RFC 8265: fullwidth and halfwidth forms become their ordinary
    /// ones) and in NFC (what an authenticator shows), or a 400 naming the problem.
    package static func spelling(_ raw: String) throws -> String {
        let name = widthMapped(raw).precomposedStringWithCanonicalMapping
        try PrintableText.check(name, member: "username", maximumBytes: maximumUsernameBytes)
        if let invisible = name.unicodeScalars.first(where: \.properties.isDefaultIgnorableCodePoint) {
            throw ServiceError.invalid("username contains the invisible character \(PrintableText.codePoint(invisible))")
        }
        if let (first, second, letter) = LookAlikeScripts.mixture(in: name) {
            throw ServiceError.invalid(
                "username mixes \(first.rawValue) and \(second.rawValue) letters in one word (\(PrintableText.codePoint(letter)) is "
                    + "\(second.rawValue)), the way a look-alike of another name does; write each word in one script")
        }
        if let segment = unaddressableSegment(name) {
            throw ServiceError.invalid(
                "username may not have \"\(segment)\" \(name.contains("/") ? "between slashes" : "as the whole name"), "
                    + "which a URL path cannot carry (the admin API names users in its paths)")
        }
        // `alice ` would be an account beside `alice` that looks the same.
        if let edge = [name.unicodeScalars.first, name.unicodeScalars.last].compactMap({ $0 }).first(where: \.properties.isWhitespace) {
            throw ServiceError.invalid("username starts or ends with a space (\(PrintableText.codePoint(edge))); remove it")
        }
        return name
    }

    /// The `.` or `..` segment of `name` that no URL path can carry (`..`, `../bob`, `a/./b`), as
    /// ``StaticFilePathGuard`` refuses it in any spelling (`%2E`, through ``PathSegments``); nil for a name every route can address. Names
    /// with a slash are allowed otherwise (`team/alice`, sent as `team%2Falice`).
    package static func unaddressableSegment(_ name: String) -> String? {
        PathSegments.dotSegment(in: name)
    }

    /// Each character of the Halfwidth and Fullwidth Forms block (and the ideographic space) as its
    /// compatibility decomposition, `ａ` → `a`; everything else as it is.
    private static func widthMapped(_ raw: String) -> String {
        guard raw.unicodeScalars.contains(where: isWidthForm) else { return raw }
        var mapped = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            if isWidthForm(scalar) {
                mapped.append(contentsOf: String(scalar).decomposedStringWithCompatibilityMapping.unicodeScalars)
            } else {
                mapped.append(scalar)
            }
        }
        return String(mapped)
    }

    /// A checked spelling in lower case (Unicode's full case mapping, as the UsernameCaseMapped
    /// profile of RFC 8265 does), in NFC again; the length is checked again, as lower case may be longer.
    package static func folded(_ spelling: String) throws -> String {
        let name = spelling.lowercased().precomposedStringWithCanonicalMapping
        try PrintableText.check(name, member: "username", maximumBytes: maximumUsernameBytes)
        return name
    }

    /// `user` under the new name `spelling` (checked by ``spelling(_:)``): the handle, so every passkey and token
    /// subject, stays, and a display name that was the username (the default) follows it.
    package static func renaming(_ user: UserRecord, to spelling: String) throws -> UserRecord {
        var renamed = user
        renamed.username = try folded(spelling)
        if user.displayName.lowercased() == user.username { renamed.displayName = spelling }
        return renamed
    }

    /// A display name, or the name a person gives one of their passkeys (`member: "name"`), in
    /// NFC, or a 400 naming `member` and the problem.
    package static func displayName(_ raw: String, member: String = "displayName") throws -> String {
        let name = raw.precomposedStringWithCanonicalMapping
        try PrintableText.check(name, member: member, maximumBytes: maximumDisplayNameBytes)
        return name
    }

    private static func isWidthForm(_ scalar: Unicode.Scalar) -> Bool {
        (0xFF00...0xFFEF).contains(scalar.value) || scalar.value == 0x3000
    }
}
