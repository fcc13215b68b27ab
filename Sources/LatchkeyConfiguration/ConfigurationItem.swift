import WebAuthn

/// What a key's text stands for, parsed once when the configuration is read: the value of a key
/// (`rpID`), an item of a typed list (`androidApps`, `allowedAAGUIDs`) or the value of an optional
/// key (`metricsAddress`). The server is handed the parsed value and never parses the text again.
protocol ConfigurationItem: Sendable, Equatable {
    /// The value `text` writes, or the problem with it in words, quoting it.
    static func parse(_ text: String) -> Result<Self, ConfigurationItemProblem>
    /// The value as the configuration shows it (`check-config`, the defaults).
    var configuredText: String { get }
}

/// Why a key's text is not a value of its type, in words that quote the text.
struct ConfigurationItemProblem: Error {
    let message: String

    /// The identity `parse` makes of `text`, or the core's refusal in its words.
    static func identity<Identity>(
        _ text: String, _ parse: (String) throws(IdentityProblem) -> Identity
    ) -> Result<Identity, ConfigurationItemProblem> {
        do throws(IdentityProblem) {
            return .success(try parse(text))
        } catch {
            return .failure(ConfigurationItemProblem(message: error.message))
        }
    }
}

extension String: ConfigurationItem {
    static func parse(_ text: String) -> Result<String, ConfigurationItemProblem> { .success(text) }
    var configuredText: String { self }
}

extension RelyingPartyID: ConfigurationItem {
    static func parse(_ text: String) -> Result<RelyingPartyID, ConfigurationItemProblem> {
        ConfigurationItemProblem.identity(text, RelyingPartyID.init(parsing:))
    }

    var configuredText: String { value }
}

extension AndroidApp: ConfigurationItem {
    static func parse(_ text: String) -> Result<AndroidApp, ConfigurationItemProblem> {
        ConfigurationItemProblem.identity(text, AndroidApp.init(parsing:))
    }

    /// `PACKAGE@FINGERPRINT`, the fingerprint in upper-case pairs.
    var configuredText: String { "\(packageName)@\(fingerprintText)" }
}

extension AAGUID: ConfigurationItem {
    static func parse(_ text: String) -> Result<AAGUID, ConfigurationItemProblem> {
        AAGUID(text).map(Result.success)
            ?? .failure(ConfigurationItemProblem(message: "\"\(text)\" is not an AAGUID (32 hexadecimal digits, dashes optional)"))
    }

    var configuredText: String { description }
}

extension ListenAddress: ConfigurationItem {
    static func parse(_ text: String) -> Result<ListenAddress, ConfigurationItemProblem> {
        ListenAddress(text).map(Result.success) ?? .failure(ConfigurationItemProblem(message: "\"\(text)\" is not HOST:PORT"))
    }

    var configuredText: String { text }
}
