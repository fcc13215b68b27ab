import Foundation
import WebAuthn

/// What `fuzz-registration` reads from one input: a settings byte, the time to check certificates at,
/// clientDataJSON (a length-prefixed field) and the attestation object (the rest).
///
/// Settings bits: 0-1 attestation policy (none, self-or-trusted, trusted-only, none), 2-3 user
/// verification (preferred, required, discouraged, preferred), 4 cross-origin allowed, 5 strict token
/// binding, 6 user presence optional unless UV is required.
public struct RegistrationInput {
    public var settings: UInt8
    /// Seconds since 1970; 0 checks certificates now.
    public var verificationTime: UInt32
    public var clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]

    public init(settings: UInt8, verificationTime: UInt32, clientDataJSON: [UInt8], attestationObject: [UInt8]) {
        self.settings = settings
        self.verificationTime = verificationTime
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
    }

    public init(decoding bytes: [UInt8]) {
        var fields = InputFields(bytes)
        settings = fields.byte()
        verificationTime = fields.uint32()
        clientDataJSON = fields.field()
        attestationObject = fields.rest()
    }

    public var encoded: [UInt8] {
        var writer = InputFieldsWriter()
        writer.byte(settings)
        writer.uint32(verificationTime)
        writer.field(clientDataJSON)
        writer.rest(attestationObject)
        return writer.bytes
    }

    public var policyMode: AttestationPolicy.Mode {
        [.none, .selfOrTrusted, .trustedOnly, .none][Int(settings & 3)]
    }

    public var userVerification: UserVerificationRequirement {
        UserVerificationRequirement.fromSettings(settings >> 2)
    }

    public var relyingParty: RelyingParty {
        FuzzRelyingParty.make(
            allowCrossOrigin: settings & 0x10 != 0, strictTokenBinding: settings & 0x20 != 0,
            userPresenceOptional: settings & 0x40 != 0)
    }

    public var response: RegistrationResponse {
        RegistrationResponse(credentialID: [], clientDataJSON: clientDataJSON, attestationObject: attestationObject)
    }

    public var expectation: RegistrationExpectation {
        RegistrationExpectation(challenge: FuzzRelyingParty.challenge(in: clientDataJSON), userVerification: userVerification)
    }

    /// The trust decision with these settings: every vector anchor, the input's time, SHA-1 allowed
    /// (the FIDO conformance TPM vectors need it).
    public func trust(anchors: TrustAnchors) -> AttestationTrust {
        AttestationTrust(
            policy: AttestationPolicy(mode: policyMode, allowSHA1: true), anchors: anchors,
            verificationTime: verificationTime == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(verificationTime)))
    }
}

extension UserVerificationRequirement {
    /// The requirement two settings bits choose: preferred, required, discouraged, preferred.
    static func fromSettings(_ bits: UInt8) -> UserVerificationRequirement {
        [.preferred, .required, .discouraged, .preferred][Int(bits & 3)]
    }

    /// The settings bits that choose this requirement.
    public var settingsBits: UInt8 {
        switch self {
        case .preferred: 0
        case .required: 1
        case .discouraged: 2
        }
    }
}
