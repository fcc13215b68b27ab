/// Why the software authenticator cannot answer: a ``Code`` callers can match (the command maps
/// it to an exit status) and a message that names the member, credential or value at fault.
public struct AuthenticatorError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem it is. New codes may be added; match the ones you care about.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The options are not JSON, lack a member, or a member has the wrong type or encoding.
        public static let malformedOptions = Code("malformedOptions")
        /// The options are a server's failure reply (`"status":"failed"`), not options.
        public static let failedReply = Code("failedReply")
        /// `--origin` is not a web origin (`https://host[:port]`, http only for localhost).
        public static let invalidOrigin = Code("invalidOrigin")
        /// The origin's host is neither the RP ID nor a subdomain of it.
        public static let wrongRPID = Code("wrongRPID")
        /// No algorithm both offered in `pubKeyCredParams` and made by this authenticator.
        public static let unsupportedAlgorithm = Code("unsupportedAlgorithm")
        /// The options ask for something this authenticator is not (a cross-platform authenticator).
        public static let unsupportedRequirement = Code("unsupportedRequirement")
        /// A credential in the keys file is listed in `excludeCredentials`.
        public static let credentialExcluded = Code("credentialExcluded")
        /// No credential in the keys file answers the request options.
        public static let noMatchingCredential = Code("noMatchingCredential")
        /// The keys file cannot be read or is not a keys file.
        public static let unreadableKeyFile = Code("unreadableKeyFile")
        /// The keys file cannot be written.
        public static let unwritableKeyFile = Code("unwritableKeyFile")
        /// OpenSSL failed for a reason unrelated to the input.
        public static let cryptoFailure = Code("cryptoFailure")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
