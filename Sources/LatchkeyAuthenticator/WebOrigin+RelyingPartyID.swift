import WebAuthn

extension WebOrigin {
    /// The RP ID a ceremony uses: the options' (named `member` in messages) when given, which this
    /// origin must admit, else the host itself.
    func relyingPartyID(_ requested: String?, member: String) throws -> String {
        guard let requested else {
            guard let host else {
                throw AuthenticatorError(.wrongRPID, "wrong RP ID: the options have no \(member) and an Android origin has no host to take it from")
            }
            return host
        }
        let rpID = requested.lowercased()
        guard admits(rpID: rpID) else {
            throw AuthenticatorError(
                .wrongRPID, "wrong RP ID: \(member) \(requested.debugDescription) is neither the origin's host \(host ?? "") nor a domain it belongs to")
        }
        return rpID
    }
}

extension SoftwareAuthenticator {
    /// An authenticator at the origin `text` (refused as ``AuthenticatorError/Code/invalidOrigin``
    /// when it is not one) keeping its keys in `keyFilePath`.
    public init(origin text: String, keyFilePath: String) throws {
        do {
            self.init(origin: try WebOrigin(text), keyFilePath: keyFilePath)
        } catch let problem as WebOrigin.Problem {
            throw AuthenticatorError(.invalidOrigin, problem.description)
        }
    }
}
