/// TPMS_ATTEST (TPM 2.0 Part 2 §10.12.12), the structure a TPM signs in TPM2_Certify: only the
/// certify form (TPMS_CERTIFY_INFO in `attested`) is accepted.
struct TPMSAttest: Equatable {
    /// TPM_GENERATED_VALUE: "\xffTCG".
    static let generatedValue: UInt32 = 0xFF54_4347
    /// TPM_ST_ATTEST_CERTIFY.
    static let attestCertify: UInt16 = 0x8017

    let magic: UInt32
    let type: UInt16
    let qualifiedSigner: [UInt8]
    let extraData: [UInt8]
    /// TPMS_CLOCK_INFO: clock, resetCount, restartCount, safe.
    let clock: UInt64
    let resetCount: UInt32
    let restartCount: UInt32
    let safe: UInt8
    let firmwareVersion: UInt64
    /// TPMS_CERTIFY_INFO.name: the Name of the certified object (nameAlg ‖ digest of its public area).
    let attestedName: [UInt8]
    /// TPMS_CERTIFY_INFO.qualifiedName.
    let attestedQualifiedName: [UInt8]

    /// Parses certInfo. The magic and type are checked first, so that other `attested` forms
    /// are refused by what they are rather than by how their bytes fail to parse.
    init(_ bytes: [UInt8]) throws {
        var reader = TPMReader(bytes, structure: "certInfo")
        magic = try reader.uint32("magic")
        guard magic == Self.generatedValue else {
            throw WebAuthnError(.invalidAttestationStatement, "tpm certInfo.magic is 0x\(String(magic, radix: 16)); TPM_GENERATED_VALUE 0xff544347 is required")
        }
        type = try reader.uint16("type")
        guard type == Self.attestCertify else {
            throw WebAuthnError(.invalidAttestationStatement, "tpm certInfo.type is \(TPMAlgorithm.hex(type)); TPM_ST_ATTEST_CERTIFY 0x8017 is required")
        }
        qualifiedSigner = try reader.sized("qualifiedSigner")
        extraData = try reader.sized("extraData")
        clock = try reader.uint64("clockInfo.clock")
        resetCount = try reader.uint32("clockInfo.resetCount")
        restartCount = try reader.uint32("clockInfo.restartCount")
        safe = try reader.bytes(1, "clockInfo.safe")[0]
        firmwareVersion = try reader.uint64("firmwareVersion")
        attestedName = try reader.sized("attested.name")
        attestedQualifiedName = try reader.sized("attested.qualifiedName")
        try reader.expectEnd()
    }
}
