/// A decoded attestation object (WebAuthn §6.5): `fmt`, `attStmt` and `authData`.
public struct AttestationObject: Sendable {
    public let format: String
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    public init(_ bytes: [UInt8], decoder: CBORDecoder = CBORDecoder()) throws {
        guard !bytes.isEmpty else {
            throw WebAuthnError(.malformedInput, "attestationObject is empty")
        }
        let object = try decoder.decode(bytes)
        guard object.mapEntries != nil else {
            throw WebAuthnError(.malformedCBOR, "attestationObject is \(object.kindName), not a map")
        }
        guard let fmtValue = object[textKey: "fmt"] else {
            throw WebAuthnError(.malformedInput, "attestationObject has no fmt")
        }
        guard let format = fmtValue.textString else {
            throw WebAuthnError(.malformedInput, "attestationObject.fmt is \(fmtValue.kindName), not a text string")
        }
        guard let statement = object[textKey: "attStmt"] else {
            throw WebAuthnError(.malformedInput, "attestationObject has no attStmt")
        }
        // attStmt is a map, except for `compound` (§8.9), whose statement is an array of statements.
        guard statement.mapEntries != nil || (format == "compound" && statement.arrayItems != nil) else {
            throw WebAuthnError(.malformedInput, "attestationObject.attStmt is \(statement.kindName), not a map")
        }
        guard let authDataValue = object[textKey: "authData"] else {
            throw WebAuthnError(.malformedInput, "attestationObject has no authData")
        }
        guard let authData = authDataValue.byteString else {
            throw WebAuthnError(.malformedInput, "attestationObject.authData is \(authDataValue.kindName), not a byte string")
        }
        guard !authData.isEmpty else {
            throw WebAuthnError(.malformedInput, "attestationObject.authData is empty")
        }
        self.format = format
        self.statement = statement
        self.authenticatorData = try AuthenticatorData(authData, decoder: decoder)
    }
}
