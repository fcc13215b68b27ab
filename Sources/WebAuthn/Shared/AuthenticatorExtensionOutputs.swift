/// The authenticator extension outputs Latchkey understands, read from the ED part of authenticator
/// data (WebAuthn §9, CTAP 2.1 §12). Unknown extensions are listed by name and otherwise skipped.
public struct AuthenticatorExtensionOutputs: Sendable, Equatable {
    /// `credProtect`: 1 userVerificationOptional, 2 ...WithCredentialIDList, 3 userVerificationRequired.
    public var credentialProtectionPolicy: UInt8?
    /// `hmac-secret` at registration: whether the authenticator enabled it for this credential.
    public var hmacSecret: Bool?
    /// Identifiers of outputs that were present but are not interpreted.
    public var unrecognized: [String]

    public init(credentialProtectionPolicy: UInt8? = nil, hmacSecret: Bool? = nil, unrecognized: [String] = []) {
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.hmacSecret = hmacSecret
        self.unrecognized = unrecognized
    }

    /// Reads the outputs map. Outputs with an unexpected shape are treated as unrecognized rather
    /// than failing the ceremony: the RP did not depend on them.
    public init(_ map: CBORValue?) {
        self.init()
        for entry in map?.mapEntries ?? [] {
            let name = entry.key.textString ?? "\(entry.key)"
            switch (name, entry.value) {
            case ("credProtect", .unsigned(let level)) where (1...3).contains(level):
                credentialProtectionPolicy = UInt8(level)
            case ("hmac-secret", .bool(let enabled)):
                hmacSecret = enabled
            default:
                unrecognized.append(name)
            }
        }
    }
}
