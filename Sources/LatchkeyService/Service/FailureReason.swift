/// Machine-readable reasons for a refusal, for clients that act on them.
public enum FailureReason: String, Encodable, Sendable {
    /// The passkey is not registered (any more): a page tells the browser with
    /// `PublicKeyCredential.signalUnknownCredential` so it stops offering it.
    case unknownCredential
    /// The device key is not enrolled (any more: removed, or its account deleted): the app
    /// enrolls a new one (as it must when the biometrics changed and the Secure Enclave dropped it).
    case unknownDeviceKey
    /// The App Attest key is not known (never attested here): the app attests a new key.
    case unknownAppAttestKey
    /// The session signed in too long ago to add a passkey or a device key: the client signs in
    /// again (a new session) and retries.
    case reauthenticationRequired
    /// The backend disabled the account: it may not sign in or add keys until the backend enables it.
    case accountDisabled
}

