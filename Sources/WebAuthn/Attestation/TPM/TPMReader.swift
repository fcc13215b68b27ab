/// Reads the big-endian, size-prefixed encoding of TPM 2.0 structures (TPM 2.0 Part 2), checking
/// every length against the bytes that remain.
struct TPMReader {
    private let bytes: [UInt8]
    private let structure: String
    private(set) var offset = 0

    /// `structure` names what is being read, for error messages ("certInfo", "pubArea").
    init(_ bytes: [UInt8], structure: String) {
        self.bytes = bytes
        self.structure = structure
    }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    func failure(_ what: String) -> WebAuthnError {
        WebAuthnError(.invalidAttestationStatement, "tpm \(structure) is malformed: \(what)")
    }

    mutating func bytes(_ count: Int, _ field: String) throws -> [UInt8] {
        guard count <= remaining else {
            throw failure("\(field) needs \(count) bytes at offset \(offset), \(remaining) remain")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint16(_ field: String) throws -> UInt16 {
        try bytes(2, field).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint32(_ field: String) throws -> UInt32 {
        try bytes(4, field).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64(_ field: String) throws -> UInt64 {
        try bytes(8, field).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A TPM2B_ structure: a UINT16 size, then that many bytes.
    mutating func sized(_ field: String) throws -> [UInt8] {
        let size = try uint16("\(field) size")
        return try bytes(Int(size), field)
    }

    /// Refuses bytes after the structure.
    func expectEnd() throws {
        guard isAtEnd else { throw failure("\(remaining) bytes follow the structure") }
    }
}

/// TPM_ALG_ID values (TPM 2.0 Part 2, table 9) that occur in attestation structures.
enum TPMAlgorithm {
    static let rsa: UInt16 = 0x0001
    static let sha1: UInt16 = 0x0004
    static let sha256: UInt16 = 0x000B
    static let sha384: UInt16 = 0x000C
    static let sha512: UInt16 = 0x000D
    static let null: UInt16 = 0x0010
    static let ecc: UInt16 = 0x0023

    /// The digest of a TPMI_ALG_HASH, or nil for hashes OpenSSL is not asked to compute here.
    static func digest(_ algorithm: UInt16) -> Digest? {
        switch algorithm {
        case sha1: return .sha1
        case sha256: return .sha256
        case sha384: return .sha384
        case sha512: return .sha512
        default: return nil
        }
    }

    static func hex(_ value: UInt16) -> String {
        "0x" + String(value, radix: 16, uppercase: false).leftPadded(to: 4)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
