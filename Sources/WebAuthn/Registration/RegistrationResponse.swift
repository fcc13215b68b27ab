/// The client's answer to `navigator.credentials.create()`, decoded from its JSON form.
public struct RegistrationResponse: Sendable {
    public var credentialID: [UInt8]
    public var clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]
    /// Transports reported by `getTransports()` that this version knows, each once.
    public var transports: [AuthenticatorTransport]
    /// `clientExtensionResults.credProps.rk`, when the client reported it.
    public var residentKey: Bool?

    public init(
        credentialID: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8], transports: [AuthenticatorTransport] = [],
        residentKey: Bool? = nil
    ) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
        self.residentKey = residentKey
    }
}

/// What the server issued for one registration and now expects back.
public struct RegistrationExpectation: Sendable {
    /// How the client was asked to create the credential (`CredentialCreationOptions.mediation`).
    public enum Mediation: String, Sendable {
        /// A modal ceremony: the user was present (UP must be set).
        case required
        /// A conditional create (WebAuthn Level 3, §7.1 step 14): the client may create the passkey
        /// without asking, so UP may be clear.
        case conditional
    }

    public var challenge: IssuedChallenge
    public var userVerification: UserVerificationRequirement
    public var mediation: Mediation

    public init(challenge: IssuedChallenge, userVerification: UserVerificationRequirement, mediation: Mediation = .required) {
        self.challenge = challenge
        self.userVerification = userVerification
        self.mediation = mediation
    }

    /// For the ceremony issued with `challenge`.
    public init(challenge: [UInt8], userVerification: UserVerificationRequirement, mediation: Mediation = .required) {
        self.init(challenge: .expected(challenge), userVerification: userVerification, mediation: mediation)
    }
}

/// A credential that passed every registration check, ready to be stored.
public struct VerifiedRegistration: Sendable {
    public let credentialID: [UInt8]
    /// The COSE_Key bytes as the authenticator encoded them.
    public let publicKey: [UInt8]
    public let algorithm: COSEAlgorithm
    public let signCount: UInt32
    public let aaguid: [UInt8]
    /// `fmt` of the attestation object.
    public let attestationFormat: AttestationFormatIdentifier
    public let attestation: AttestationResult
    /// True when the statement's certificate path verified to a trust anchor.
    public let attestationTrusted: Bool
    public let flags: AuthenticatorFlags
    public let transports: [AuthenticatorTransport]
    public let residentKey: Bool?
    /// The RP ID whose hash the authenticator data carried.
    public let rpID: String
    public let extensions: AuthenticatorExtensionOutputs

    public var userVerified: Bool { flags.contains(.userVerified) }
    public var backupEligible: Bool { flags.contains(.backupEligible) }
    public var backedUp: Bool { flags.contains(.backedUp) }
}
