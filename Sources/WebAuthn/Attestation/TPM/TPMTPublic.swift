/// TPMT_PUBLIC (TPM 2.0 Part 2 §12.2.4), the public area of a TPM object, for RSA and ECC keys.
struct TPMTPublic: Equatable {
    /// TPMU_PUBLIC_ID, the public key itself.
    enum Unique: Equatable {
        /// TPM2B_PUBLIC_KEY_RSA: the modulus.
        case rsa(modulus: [UInt8])
        /// TPMS_ECC_POINT.
        case ecc(x: [UInt8], y: [UInt8])
    }

    /// TPM_ECC_CURVE values (TPM 2.0 Part 2, table 25) this verifier maps to COSE curves.
    static let curves: [UInt16: EllipticCurve] = [0x0003: .p256, 0x0004: .p384, 0x0005: .p521]

    /// The exponent a TPMS_RSA_PARMS.exponent of zero stands for.
    static let defaultRSAExponent: UInt32 = 65537

    /// The complete encoding, as received; the object's Name is computed over these bytes.
    let bytes: [UInt8]
    /// TPMI_ALG_PUBLIC: TPM_ALG_RSA or TPM_ALG_ECC.
    let type: UInt16
    /// The hash of the object's Name.
    let nameAlg: UInt16
    let objectAttributes: UInt32
    let authPolicy: [UInt8]
    /// TPMS_RSA_PARMS.keyBits (RSA only).
    let rsaKeyBits: UInt16?
    /// TPMS_RSA_PARMS.exponent as stated; 0 means 2^16 + 1 (RSA only).
    let rsaExponent: UInt32?
    /// TPMS_ECC_PARMS.curveID (ECC only).
    let curveID: UInt16?
    let unique: Unique

    /// The RSA public exponent, with 0 read as 65537.
    var effectiveRSAExponent: UInt32? {
        rsaExponent.map { $0 == 0 ? Self.defaultRSAExponent : $0 }
    }

    init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        var reader = TPMReader(bytes, structure: "pubArea")
        type = try reader.uint16("type")
        nameAlg = try reader.uint16("nameAlg")
        objectAttributes = try reader.uint32("objectAttributes")
        authPolicy = try reader.sized("authPolicy")
        switch type {
        case TPMAlgorithm.rsa:
            // TPMS_RSA_PARMS: symmetric, scheme, keyBits, exponent.
            try Self.skipSymmetric(&reader)
            try Self.skipScheme(&reader, "parameters.scheme")
            rsaKeyBits = try reader.uint16("parameters.keyBits")
            rsaExponent = try reader.uint32("parameters.exponent")
            curveID = nil
            unique = .rsa(modulus: try reader.sized("unique"))
        case TPMAlgorithm.ecc:
            // TPMS_ECC_PARMS: symmetric, scheme, curveID, kdf.
            try Self.skipSymmetric(&reader)
            try Self.skipScheme(&reader, "parameters.scheme")
            curveID = try reader.uint16("parameters.curveID")
            try Self.skipScheme(&reader, "parameters.kdf")
            rsaKeyBits = nil
            rsaExponent = nil
            let x = try reader.sized("unique.x")
            let y = try reader.sized("unique.y")
            unique = .ecc(x: x, y: y)
        default:
            throw WebAuthnError(.invalidAttestationStatement, "tpm pubArea.type \(TPMAlgorithm.hex(type)) is neither TPM_ALG_RSA nor TPM_ALG_ECC")
        }
        try reader.expectEnd()
    }

    /// TPMT_SYM_DEF_OBJECT: an algorithm, then keyBits and mode unless it is TPM_ALG_NULL.
    private static func skipSymmetric(_ reader: inout TPMReader) throws {
        let algorithm = try reader.uint16("parameters.symmetric.algorithm")
        if algorithm != TPMAlgorithm.null {
            _ = try reader.uint16("parameters.symmetric.keyBits")
            _ = try reader.uint16("parameters.symmetric.mode")
        }
    }

    /// TPMT_RSA_SCHEME, TPMT_ECC_SCHEME or TPMT_KDF_SCHEME: a scheme, then its details, which are
    /// empty for TPM_ALG_NULL and TPM_ALG_RSAES, a hash and a count for TPM_ALG_ECDAA, and a hash
    /// for every other scheme.
    private static func skipScheme(_ reader: inout TPMReader, _ field: String) throws {
        let scheme = try reader.uint16("\(field).scheme")
        switch scheme {
        case TPMAlgorithm.null, 0x0015: // TPM_ALG_RSAES
            return
        case 0x001A: // TPM_ALG_ECDAA
            _ = try reader.uint16("\(field).details.hashAlg")
            _ = try reader.uint16("\(field).details.count")
        default:
            _ = try reader.uint16("\(field).details.hashAlg")
        }
    }

    /// The object's Name (TPM 2.0 Part 1 §16): nameAlg ‖ H_nameAlg(the public area).
    func name() throws -> [UInt8] {
        guard let digest = TPMAlgorithm.digest(nameAlg) else {
            throw WebAuthnError(.invalidAttestationStatement, "tpm pubArea.nameAlg \(TPMAlgorithm.hex(nameAlg)) is not SHA-1, SHA-256, SHA-384 or SHA-512")
        }
        return [UInt8(nameAlg >> 8), UInt8(nameAlg & 0xFF)] + digest.hash(bytes)
    }
}
