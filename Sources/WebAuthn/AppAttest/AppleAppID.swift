/// An Apple app ID, `TEAMID.bundle.id`: the RP ID an App Attest key is bound to, and how
/// `apple-app-site-association` names an app.
public struct AppleAppID: Sendable, Hashable, CustomStringConvertible {
    /// The team ID: 10 upper-case letters or digits.
    public let teamID: String
    /// The bundle ID, such as `com.example.app`: dot-separated parts of letters, digits and hyphens.
    public let bundleID: String

    /// `TEAMID.bundle.id`.
    public var description: String { teamID + "." + bundleID }

    /// Parses `TEAMID.bundle.id`; the error says everything that is wrong with it.
    public init(parsing text: String) throws(IdentityProblem) {
        guard let dot = text.firstIndex(of: ".") else { throw IdentityProblem("\"\(text)\" is not TEAMID.bundle.id") }
        let (teamID, bundleID) = (text[..<dot], text[text.index(after: dot)...])
        let isTeamID = teamID.count == 10 && teamID.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }
        let bundleParts = bundleID.split(separator: ".", omittingEmptySubsequences: false)
        let isBundleID = bundleParts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isLDH) }
        let problems = [
            isTeamID ? nil : "the team ID \"\(teamID)\" is not 10 upper-case letters or digits",
            isBundleID ? nil : "the bundle ID \"\(bundleID)\" is not dot-separated parts of letters, digits and hyphens",
        ].compactMap { $0 }
        guard problems.isEmpty else { throw IdentityProblem("\"\(text)\": " + problems.joined(separator: "; ")) }
        self.teamID = String(teamID)
        self.bundleID = String(bundleID)
    }
}
