import FuzzSupport
import WebAuthn

// Authenticator data parsing (§6.1): flags, counter, attested credential data, extension outputs,
// then what the verifiers read from them: the credential key and the extension outputs.
let decoder = CBORDecoder()

FuzzDriver.run { bytes in
    guard let data = try? AuthenticatorData(bytes, decoder: decoder) else { return }
    _ = AuthenticatorExtensionOutputs(data.extensions)
    if let attested = data.attestedCredentialData {
        _ = try? COSEKey(attested.publicKey)
    }
}
