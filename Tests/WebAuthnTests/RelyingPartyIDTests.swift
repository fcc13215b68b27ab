import Testing
import WebAuthn

/// An RP ID is a lower-case domain name, never an IP address; a refusal says all that is wrong with it.
@Suite("RP IDs")
struct RelyingPartyIDTests {
    @Test(arguments: ["localhost", "example.com", "login.example.co.uk", "xn--bcher-kva.de", "a-b.c1.example"])
    func domainNamesAreRPIDs(text: String) throws {
        #expect(try RelyingPartyID(parsing: text).value == text)
    }

    /// Each row: a refused RP ID, and what follows `"RPID" is not a valid RP ID: ` in its message.
    @Test(arguments: [
        ("", "it is empty"),
        ("example.com:443", "it is not a bare domain name (no scheme, port or path)"),
        ("https://example.com", "it is not a bare domain name (no scheme, port or path)"),
        ("bücher.de", "it has characters outside ASCII (use the punycode form, xn--...)"),
        ("Example.com", "it has upper-case letters (RP IDs are lower case)"),
        (String(repeating: "abcdefghi.", count: 26) + "com", "it is 263 bytes long (at most 253)"),
        ("example.com.", "it ends with a dot"),
        ("a..b.com", "it has an empty label (a leading dot or two dots in a row)"),
        (".example.com", "it has an empty label (a leading dot or two dots in a row)"),
        (String(repeating: "a", count: 70) + ".com", #"the label "aaaaaaaaaaaaaaaaaaaa..." is 70 bytes long (at most 63)"#),
        ("exa_mple.com", #"the label "exa_mple" has "_" (only letters, digits and hyphens)"#),
        ("exa mple.com", #"the label "exa mple" has " " (only letters, digits and hyphens)"#),
        ("-bad.com", #"the label "-bad" starts or ends with a hyphen"#),
        ("com", "it is a single label (an RP ID is a domain such as example.com, or localhost)"),
        ("Bad_-.", #"it has upper-case letters (RP IDs are lower case); it ends with a dot; the label "Bad_-" has "_" (only letters, digits and hyphens); the label "Bad_-" starts or ends with a hyphen; it is a single label (an RP ID is a domain such as example.com, or localhost)"#),
    ])
    func otherNamesAreRefused(text: String, problems: String) {
        let problem = #expect(throws: IdentityProblem.self) { try RelyingPartyID(parsing: text) }
        #expect(problem?.message == "\"\(text)\" is not a valid RP ID: \(problems)")
    }

    @Test(arguments: ["127.0.0.1", "192.168.1.10", "::1", "[::1]", "2001:db8::1"])
    func ipAddressesAreRefused(text: String) {
        let problem = #expect(throws: IdentityProblem.self) { try RelyingPartyID(parsing: text) }
        #expect(problem?.message == "\"\(text)\" is an IP address, which browsers refuse as an RP ID: use a domain name (localhost on this machine)")
    }

    @Test(arguments: [
        ("10.0.0.1", true), ("::1", true), ("::ffff:10.0.0.1", true), ("[::1]", false), ("10.0.0", false), ("proxy", false), ("", false),
    ])
    func ipAddressesAreTold(text: String, isIPAddress: Bool) {
        #expect(RelyingPartyID.isIPAddress(text) == isIPAddress)
    }
}
