/// Hides secrets in configuration values before they are printed, logged or put in a message.
public enum ConfigurationRedaction {
    /// What a hidden secret is shown as.
    public static let mark = "<redacted>"

    /// `postgres://user:password@host/db` → `postgres://user:<redacted>@host/db`; a query item whose
    /// name contains `password` (`?password=...`, `sslpassword=...`) is hidden too. Text that is
    /// not a URL with a password is returned unchanged.
    ///
    /// Errs on the side of hiding: the user information ends at the last `@`, so a password
    /// holding an unescaped `@`, `/`, `?` or `#` is still hidden whole.
    public static func redactingURLPassword(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        var result = String(text[..<schemeEnd.upperBound])
        var rest = text[schemeEnd.upperBound...]
        if let at = rest.lastIndex(of: "@") {
            let userInformation = rest[..<at]
            if let colon = userInformation.firstIndex(of: ":") {
                result += userInformation[...colon] + mark
            } else {
                result += userInformation
            }
            result += "@"
            rest = rest[rest.index(after: at)...]
        }
        if let queryStart = rest.firstIndex(of: "?") {
            result += rest[..<queryStart] + redactingPasswordItems(String(rest[queryStart...]))
        } else {
            result += rest
        }
        return result
    }

    /// `?user=a&password=b#x` → `?user=a&password=<redacted>#x`.
    private static func redactingPasswordItems(_ query: String) -> String {
        guard query.hasPrefix("?") else { return query }
        let fragmentStart = query.firstIndex(of: "#") ?? query.endIndex
        let items = query[query.index(after: query.startIndex)..<fragmentStart].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = items.map { item -> String in
            guard let equals = item.firstIndex(of: "="), item[..<equals].lowercased().contains("password") else { return String(item) }
            return item[...equals] + mark
        }
        return "?" + redacted.joined(separator: "&") + query[fragmentStart...]
    }
}
