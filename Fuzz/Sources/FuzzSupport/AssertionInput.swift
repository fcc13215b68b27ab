import WebAuthn

/// What `fuzz-assertion` reads from one input: two settings bytes, the stored sign count, then
/// length-prefixed clientDataJSON, authenticator data, signature and stored COSE public key, and the
/// user handle (the rest; empty means absent). The stored user handle is the response's own, as when a
/// server found the credential's owner by it.
///
/// First settings byte: bits 0-1 user verification (preferred, required, discouraged, preferred),
/// 2 cross-origin allowed, 3 strict token binding, 4 user presence optional unless UV is required,
/// 5 sign-count regressions accepted, 6 backup-eligibility changes refused, 7 user handle required.
/// Second: the BE flag stored at registration, 0 unknown, 1 false, 2 or more true.
public struct AssertionInput {
    public var settings: UInt8
    public var storedBackupEligible: UInt8
    public var storedSignCount: UInt32
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    public var storedPublicKey: [UInt8]
    public var userHandle: [UInt8]

    public init(
        settings: UInt8, storedBackupEligible: UInt8 = 0, storedSignCount: UInt32, clientDataJSON: [UInt8],
        authenticatorData: [UInt8], signature: [UInt8], storedPublicKey: [UInt8], userHandle: [UInt8]
    ) {
        self.settings = settings
        self.storedBackupEligible = storedBackupEligible
        self.storedSignCount = storedSignCount
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.storedPublicKey = storedPublicKey
        self.userHandle = userHandle
    }

    public init(decoding bytes: [UInt8]) {
        var fields = InputFields(bytes)
        settings = fields.byte()
        storedBackupEligible = fields.byte()
        storedSignCount = fields.uint32()
        clientDataJSON = fields.field()
        authenticatorData = fields.field()
        signature = fields.field()
        storedPublicKey = fields.field()
        userHandle = fields.rest()
    }

    public var encoded: [UInt8] {
        var writer = InputFieldsWriter()
        writer.byte(settings)
        writer.byte(storedBackupEligible)
        writer.uint32(storedSignCount)
        writer.field(clientDataJSON)
        writer.field(authenticatorData)
        writer.field(signature)
        writer.field(storedPublicKey)
        writer.rest(userHandle)
        return writer.bytes
    }

    public var relyingParty: RelyingParty {
        FuzzRelyingParty.make(
            allowCrossOrigin: settings & 0x04 != 0, strictTokenBinding: settings & 0x08 != 0,
            userPresenceOptional: settings & 0x10 != 0,
            signCount: settings & 0x20 != 0 ? .acceptRegression : .refuseRegression,
            backupEligibilityChanges: settings & 0x40 != 0 ? .refused : .accepted)
    }

    public var response: SignInResponse {
        SignInResponse(
            credentialID: [], clientDataJSON: clientDataJSON, authenticatorData: authenticatorData,
            signature: signature, userHandle: userHandle.isEmpty ? nil : userHandle)
    }

    public var expectation: SignInExpectation {
        SignInExpectation(
            challenge: FuzzRelyingParty.challenge(in: clientDataJSON),
            userVerification: UserVerificationRequirement.fromSettings(settings),
            publicKey: storedPublicKey, storedSignCount: storedSignCount, userHandle: userHandle,
            userHandleRequired: settings & 0x80 != 0,
            storedBackupEligible: storedBackupEligible == 0 ? nil : storedBackupEligible >= 2)
    }
}
