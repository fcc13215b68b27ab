import WebAuthn

/// `attestation` conveyance in creation options (WebAuthn §5.4.7).
public enum AttestationConveyance: String, WireEnumeration {
    case none
    case indirect
    case direct
    case enterprise
}

/// `residentKey` in `authenticatorSelection` (WebAuthn §5.4.6), read and written as the wire says.
extension ResidentKeyRequirement: WireEnumeration {}

/// `authenticatorAttachment` in `authenticatorSelection` (WebAuthn §5.4.5).
package enum AuthenticatorAttachment: String, WireEnumeration {
    case platform
    case crossPlatform = "cross-platform"
}

/// `CredentialCreationOptions.mediation` as a registration asks for it (Credential Management, WebAuthn Level 3).
package enum CreationMediation: String, WireEnumeration {
    case silent
    case optional
    case conditional
    case required
}

/// `type` of a credential: always `public-key`.
package enum PublicKeyCredentialType: String, WireEnumeration {
    case publicKey = "public-key"
}
