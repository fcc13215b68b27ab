import WebAuthn

extension RequestOptionsReply: JSONTextEncodable {
    func write(to json: inout JSONText) {
        json.object { json in
            json.member("status", status)
            json.member("errorMessage", errorMessage)
            json.member("challenge", base64URL: challenge.bytes)
            json.member("timeout", timeout)
            json.member("rpId", rpId)
            json.member("allowCredentials") { json in
                json.array(allowCredentials) { json, descriptor in
                    json.object { json in
                        json.member("type", descriptor.type.rawValue)
                        json.member("id", base64URL: descriptor.id.bytes)
                        if let transports = descriptor.transports {
                            json.member("transports") { json in json.array(transports) { json, transport in json.element(transport.rawValue) } }
                        }
                    }
                }
            }
            json.member("userVerification", userVerification.rawValue)
            if let hints { json.member("hints") { json in json.array(hints) { json, hint in json.element(hint) } } }
            if let extensions { json.member("extensions", encoded: extensions) }
        }
    }
}

extension SignInReply: JSONTextEncodable {
    func write(to json: inout JSONText) {
        json.object { json in
            json.member("status", status)
            json.member("errorMessage", errorMessage)
            json.member("username", username)
            json.member("displayName", displayName)
            json.member("credentialId", base64URL: credentialId.bytes)
            json.member("userVerified", userVerified)
            json.member("sessionToken", sessionToken)
            json.member("idToken", idToken)
        }
    }
}
