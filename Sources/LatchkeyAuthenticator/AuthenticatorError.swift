import WebAuthn

/// Why the software authenticator cannot answer: a ``Code`` callers can match (the command maps
/// it to an exit status) and a message that names the member, credential or value at fault.
public struct AuthenticatorError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem it is. New codes may be added; match the ones you care about.
    public typealias Code = ErrorCode<AuthenticatorError>

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension ErrorCode where Domain == AuthenticatorError {
    /// The options are not JSON, lack a member, or a member has the wrong type or encoding.
    public static var malformedOptions: Self { Self("malformedOptions") }
    /// The options are a server's failure reply (`"status":"failed"`), not options.
    public static var failedReply: Self { Self("failedReply") }
    /// `--origin` is not a web origin (`https://host[:port]`, http only for localhost).
    public static var invalidOrigin: Self { Self("invalidOrigin") }
    /// The origin's host is neither the RP ID nor a subdomain of it.
    public static var wrongRPID: Self { Self("wrongRPID") }
    /// No algorithm both offered in `pubKeyCredParams` and made by this authenticator.
    public static var unsupportedAlgorithm: Self { Self("unsupportedAlgorithm") }
    /// The options ask for something this authenticator is not (a cross-platform authenticator).
    public static var unsupportedRequirement: Self { Self("unsupportedRequirement") }
    /// A credential in the keys file is listed in `excludeCredentials`.
    public static var credentialExcluded: Self { Self("credentialExcluded") }
    /// No credential in the keys file answers the request options.
    public static var noMatchingCredential: Self { Self("noMatchingCredential") }
    /// The keys file cannot be read or is not a keys file.
    public static var unreadableKeyFile: Self { Self("unreadableKeyFile") }
    /// The keys file cannot be written.
    public static var unwritableKeyFile: Self { Self("unwritableKeyFile") }
    /// OpenSSL failed for a reason unrelated to the input.
    public static var cryptoFailure: Self { Self("cryptoFailure") }
}
