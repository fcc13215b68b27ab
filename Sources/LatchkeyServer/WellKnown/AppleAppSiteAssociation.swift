import Hummingbird
import WebAuthn

/// `/.well-known/apple-app-site-association`: lets the listed iOS apps use passkeys for this RP ID
/// (`webcredentials`) and, when configured, open its links (`applinks`).
struct AppleAppSiteAssociation: Sendable {
    let webCredentialApps: [String]
    let appLinkApps: [String]

    var document: JSONValue {
        var members: [String: JSONValue] = ["webcredentials": .object(["apps": .array(webCredentialApps.map(JSONValue.string))])]
        if !appLinkApps.isEmpty {
            members["applinks"] = .object(["details": .array([.object([
                "appIDs": .array(appLinkApps.map(JSONValue.string)),
                "components": .array([.object(["/": .string("*")])]),
            ])])])
        }
        return .object(members)
    }

    func response() -> Response {
        JSONResponse.make(document, status: .ok)
    }
}
