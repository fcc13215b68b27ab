/// Hides secrets in configuration values before they are printed, logged or put in a message.
public enum ConfigurationRedaction {
    /// What a hidden secret is shown as.
    public static let mark = "<redacted>"

    /// `postgres://user:password@host/db` → `postgres://user:<redacted>@host/db`; a query item whose name contains
    /// `password` (`?password=...`, `sslpassword=...`) is hidden too. Text that is not a URL with a password is returned
    /// unchanged. Errs on the side of hiding: the user information ends at the last `@`, so a password holding an
    /// unescaped `@`, `/`, `?` or `#` is still hidden whole.
    public static func redactingURLPassword(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        var result = String(text[..<schemeEnd.upperBound])
        var rest = text[schemeEnd.upperBound...]
        if let at = rest.lastIndex(of: "@") {
            let userInformation = rest[..<at]
            result += userInformation.firstIndex(of: ":").map { userInformation[...$0] + mark } ?? String(userInformation)
            result += "@"
            rest = rest[rest.index(after: at)...]
        }
        guard let query = rest.firstIndex(of: "?") else { return result + rest }
        let fragment = rest[query...].firstIndex(of: "#") ?? rest.endIndex
        let items = rest[query..<fragment].dropFirst().split(separator: "&", omittingEmptySubsequences: false).map { item in
            guard let equals = item.firstIndex(of: "="), item[..<equals].lowercased().contains("password") else { return String(item) }
            return item[...equals] + mark
        }
        return result + rest[...query] + items.joined(separator: "&") + rest[fragment...]
    }
}
