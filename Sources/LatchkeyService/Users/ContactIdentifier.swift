import LatchkeyStore

/// A contact identifier as the account-creation sheet hands it over: an email address or a phone number. Only its
/// form is checked (Latchkey sends nothing to it): an email address is `local@domain` with a dot in the domain, at
/// most 254 bytes, without spaces or controls; a phone number is E.164, `+` and 8 to 15 digits (spaces, dashes and
/// brackets between them are dropped).
package enum ContactIdentifier {
    /// The contact `text` is; a refusal naming `member` when it is neither form.
    package static func parse(_ text: String, member: String = "contactIdentifier") throws(ServiceError) -> UserContact {
        if text.contains("@") {
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
                  text.utf8.count <= 254, !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F })
            else { throw ServiceError.invalid("\(member) is not an email address") }
            return UserContact(kind: .email, value: text)
        }
        let digits = text.filter { !" -().".contains($0) }
        guard digits.hasPrefix("+"), (8...15).contains(digits.count - 1), digits.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ServiceError.invalid("\(member) is neither an email address nor a phone number in E.164 form (+ and 8 to 15 digits)")
        }
        return UserContact(kind: .phone, value: digits)
    }
}
