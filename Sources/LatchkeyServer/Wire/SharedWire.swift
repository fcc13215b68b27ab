import LatchkeyStore
import WebAuthn

/// `authenticatorSelection` (WebAuthn §5.4.4), echoed in creation options as it was asked.
struct AuthenticatorSelectionCriteria: Codable, Sendable, Equatable {
    var authenticatorAttachment: AuthenticatorAttachment?
    var residentKey: ResidentKeyRequirement?
    var requireResidentKey: Bool?
    var userVerification: UserVerificationRequirement?
}

/// A `PublicKeyCredentialDescriptor` for allow and exclude lists (WebAuthn §5.8.3).
struct CredentialDescriptor: Encodable, Sendable, Equatable {
    var type = PublicKeyCredentialType.publicKey
    var id: Base64URLBytes
    var transports: [AuthenticatorTransport]?

    init(_ credential: CredentialRecord) {
        self.init(id: credential.id, transports: credential.transports)
    }

    init(id: [UInt8], transports: [AuthenticatorTransport]) {
        self.id = Base64URLBytes(id)
        self.transports = transports.isEmpty ? nil : transports
    }
}

/// `{"status":"failed","errorMessage":…}`: the body of every refusal. Some refusals add a
/// machine-readable `reason` (and the credential it is about) for clients that act on it.
struct FailureReply: Encodable, Sendable {
    let status = "failed"
    var errorMessage: String
    var reason: FailureReason?
    var credentialId: Base64URLBytes?
}

/// Machine-readable reasons for a refusal, for clients that act on them.
enum FailureReason: String, Encodable, Sendable {
    /// The passkey is not registered (any more): a page tells the browser with
    /// `PublicKeyCredential.signalUnknownCredential` so it stops offering it.
    case unknownCredential
    /// The device key is not enrolled (any more: removed, or its account deleted): the app
    /// enrols a new one (as it must when the biometrics changed and the Secure Enclave dropped it).
    case unknownDeviceKey
    /// The App Attest key is not known (never attested here): the app attests a new key.
    case unknownAppAttestKey
    /// The session signed in too long ago to add a passkey or a device key: the client signs in
    /// again (a new session) and retries.
    case reauthenticationRequired
    /// The backend disabled the account: it may not sign in or add keys until the backend enables it.
    case accountDisabled
}

/// `{"status":"ok","errorMessage":""}` with nothing else.
struct OKReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
}
