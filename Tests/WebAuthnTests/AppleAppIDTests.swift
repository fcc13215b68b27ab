import Testing
import WebAuthn

/// An Apple app ID is `TEAMID.bundle.id`; a refusal says all that is wrong with it.
@Suite("Apple app IDs")
struct AppleAppIDTests {
    @Test(arguments: [
        ("ABCDE12345.com.example.app", "ABCDE12345", "com.example.app"),
        ("0123456789.com.example-2.App", "0123456789", "com.example-2.App"),
    ])
    func appIDsAreTeamAndBundleIDs(text: String, teamID: String, bundleID: String) throws {
        let appID = try AppleAppID(parsing: text)
        #expect(appID.teamID == teamID && appID.bundleID == bundleID && appID.description == text)
    }

    @Test func anAppIDHasADot() {
        let problem = #expect(throws: IdentityProblem.self) { try AppleAppID(parsing: "ABCDE12345") }
        #expect(problem?.message == #""ABCDE12345" is not TEAMID.bundle.id"#)
    }

    /// Each row: a refused app ID, and what follows `"APPID": ` in its message.
    @Test(arguments: [
        ("com.example.app", #"the team ID "com" is not 10 upper-case letters or digits"#),
        ("abcde12345.com.example.app", #"the team ID "abcde12345" is not 10 upper-case letters or digits"#),
        ("ABCDE12345.com..app", #"the bundle ID "com..app" is not dot-separated parts of letters, digits and hyphens"#),
        ("ABCDE12345.", #"the bundle ID "" is not dot-separated parts of letters, digits and hyphens"#),
        ("ABCDE12345.com.exämple", #"the bundle ID "com.exämple" is not dot-separated parts of letters, digits and hyphens"#),
        ("ABCDE1234.com.example/app", #"the team ID "ABCDE1234" is not 10 upper-case letters or digits; the bundle ID "com.example/app" is not dot-separated parts of letters, digits and hyphens"#),
    ])
    func otherAppIDsAreRefused(text: String, problems: String) {
        let problem = #expect(throws: IdentityProblem.self) { try AppleAppID(parsing: text) }
        #expect(problem?.message == "\"\(text)\": \(problems)")
    }
}
