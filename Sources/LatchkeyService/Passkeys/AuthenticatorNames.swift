import Foundation
import LatchkeyStore
import WebAuthn

/// Names authenticator models for people, by AAGUID: first the passkey provider list shipped in
/// `Config/passkey-provider-aaguids.json` (iCloud Keychain, Google Password Manager, Windows Hello,
/// password managers), then the FIDO Metadata Service's description when a BLOB is loaded (security
/// keys), else "Passkey" — also the name of the all-zero AAGUID, which providers send when they do
/// not say who they are. A naming aid only: trust comes from attestation, never from these names.
public struct AuthenticatorNames: Sendable {
    /// The name of a passkey whose provider is unknown or unnamed.
    public static let generic = EventStatistics.genericAuthenticatorName

    /// Provider names by AAGUID bytes.
    private let providers: [[UInt8]: String]
    private let metadata: MetadataService?

    /// Names from `providers` (AAGUID bytes to name), then from `metadata`.
    public init(providers: [[UInt8]: String] = [:], metadata: MetadataService? = nil) {
        self.providers = providers
        self.metadata = metadata
    }

    /// The name to show for a passkey made by the authenticator model `aaguid`.
    public func name(aaguid: [UInt8]) -> String {
        if let name = providers[aaguid] { return name }
        if aaguid.allSatisfy({ $0 == 0 }) { return Self.generic }
        if let description = metadata?.description(aaguid: aaguid), !description.isEmpty { return description }
        return Self.generic
    }

    /// Reads a provider list: a JSON object from AAGUID (dashed or plain hexadecimal) to a name, or
    /// to `{"name": ...}` as in the community list it comes from. Members whose key starts with `_`
    /// are comments.
    public static func providers(fromJSON data: Data, source: String) throws -> [[UInt8]: String] {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw AuthenticatorNamesError("\(source) is not a JSON object of AAGUIDs to names")
        }
        var providers: [[UInt8]: String] = [:]
        for (key, value) in object where !key.hasPrefix("_") {
            guard let aaguid = AAGUID.bytes(key) else {
                throw AuthenticatorNamesError("\(source): \"\(key)\" is not an AAGUID")
            }
            let name = (value as? String) ?? ((value as? [String: Any])?["name"] as? String)
            guard let name, !name.isEmpty else {
                throw AuthenticatorNamesError("\(source): the name of \(key) must be a non-empty string or {\"name\": string}")
            }
            providers[aaguid] = name
        }
        return providers
    }

    /// The provider list at `path`; an empty one when there is no file there.
    public static func providers(atPath path: String) throws -> [[UInt8]: String] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AuthenticatorNamesError("cannot read \(path)")
        }
        return try providers(fromJSON: data, source: path)
    }
}

/// A provider list that cannot be used, with the reason.
public struct AuthenticatorNamesError: Error, Sendable, CustomStringConvertible {
    public let description: String
    package init(_ description: String) { self.description = description }
}
