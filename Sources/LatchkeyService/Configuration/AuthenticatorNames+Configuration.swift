import LatchkeyConfiguration
import WebAuthn

extension AuthenticatorNames {
    /// The names the server shows: the provider list at `authenticatorNames` (none when there is no
    /// file), then `metadata`'s descriptions. A file that cannot be read stops the server.
    public static func load(_ configuration: LatchkeyConfiguration, metadata: MetadataService?) throws -> AuthenticatorNames {
        do {
            return AuthenticatorNames(providers: try providers(atPath: configuration.authenticatorNames), metadata: metadata)
        } catch let error as AuthenticatorNamesError {
            throw ConfigurationError("authenticatorNames (LATCHKEY_AUTHENTICATOR_NAMES): \(error.description)")
        }
    }
}
