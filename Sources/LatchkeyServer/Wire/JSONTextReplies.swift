import LatchkeyJSON
import LatchkeyService
import WebAuthn

extension RequestOptions: JSONTextMembers {
    func writeMembers(to json: inout JSONText) {
        json.member("challenge", base64URL: challenge.bytes)
        json.member("timeout", timeout)
        json.member("rpId", rpId)
        json.member("allowCredentials") { json in json.array(allowCredentials) { json, descriptor in descriptor.write(to: &json) } }
        json.member("userVerification", userVerification.rawValue)
        if let hints { json.member("hints", strings: hints) }
        if let extensions { json.member("extensions", .object(extensions)) }
    }
}

extension SignInReply: JSONTextMembers {
    func writeMembers(to json: inout JSONText) {
        json.member("username", username)
        json.member("displayName", displayName)
        json.member("credentialId", base64URL: credentialId.bytes)
        json.member("userVerified", userVerified)
        json.member("sessionToken", sessionToken)
        if let idToken { json.member("idToken", idToken) }
    }
}

extension CreationOptions: JSONTextMembers {
    func writeMembers(to json: inout JSONText) {
        json.member("rp") { json in
            json.object { json in
                json.member("id", rp.id)
                json.member("name", rp.name)
            }
        }
        json.member("user") { json in
            json.object { json in
                json.member("id", base64URL: user.id.bytes)
                json.member("name", user.name)
                json.member("displayName", user.displayName)
            }
        }
        json.member("challenge", base64URL: challenge.bytes)
        json.member("pubKeyCredParams") { json in
            json.array(pubKeyCredParams) { json, parameters in
                json.object { json in
                    json.member("type", parameters.type.rawValue)
                    json.member("alg", Int(parameters.alg))
                }
            }
        }
        json.member("timeout", timeout)
        json.member("excludeCredentials") { json in json.array(excludeCredentials) { json, descriptor in descriptor.write(to: &json) } }
        if let authenticatorSelection {
            json.member("authenticatorSelection") { json in
                json.object { json in
                    if let attachment = authenticatorSelection.authenticatorAttachment {
                        json.member("authenticatorAttachment", attachment.rawValue)
                    }
                    if let residentKey = authenticatorSelection.residentKey { json.member("residentKey", residentKey.rawValue) }
                    if let required = authenticatorSelection.requireResidentKey { json.member("requireResidentKey", required) }
                    if let verification = authenticatorSelection.userVerification {
                        json.member("userVerification", verification.rawValue)
                    }
                }
            }
        }
        json.member("attestation", attestation.rawValue)
        if let hints { json.member("hints", strings: hints) }
        if let attestationFormats { json.member("attestationFormats", strings: attestationFormats) }
        if let extensions { json.member("extensions", .object(extensions)) }
    }
}

extension RegistrationReply: JSONTextMembers {
    func writeMembers(to json: inout JSONText) {
        json.member("username", username)
        json.member("credentialId", base64URL: credentialId.bytes)
        json.member("attestationFormat", attestationFormat.rawValue)
        json.member("attestationType", attestationType.rawValue)
        json.member("attestationTrusted", attestationTrusted)
        json.member("userVerified", userVerified)
        if let sessionToken { json.member("sessionToken", sessionToken) }
        if let idToken { json.member("idToken", idToken) }
    }
}

extension CredentialDescriptor {
    /// `{"type","id","transports"?}`, as in allow and exclude lists.
    func write(to json: inout JSONText) {
        json.object { json in
            json.member("type", type.rawValue)
            json.member("id", base64URL: id.bytes)
            if let transports {
                json.member("transports", strings: transports.map(\.rawValue))
            }
        }
    }
}
