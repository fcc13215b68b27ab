import Foundation
@testable import WebAuthn

/// A registration vector's attestation as mutable parts (see ``AttestationFixture``), so that a
/// format can be called directly with inputs tampered with in place.
struct DecodedVectorAttestation {
    var statement: CBORValue
    let authenticatorData: AuthenticatorData
    var clientDataHash: [UInt8]
    var credentialKey: COSEKey
    let verificationTime: Date?

    struct MissingData: Error {
        let what: String
    }

    init(_ name: String) throws {
        let fixture = try AttestationFixture(name)
        statement = fixture.statement
        authenticatorData = fixture.object.authenticatorData
        clientDataHash = fixture.clientDataHash
        credentialKey = fixture.credentialKey
        verificationTime = fixture.vector.verifyAt
    }

    func input(allowSHA1: Bool = true) -> AttestationInput {
        AttestationInput(
            statement: statement, authenticatorData: authenticatorData, clientDataHash: clientDataHash,
            credentialKey: credentialKey, verificationTime: verificationTime, allowSHA1: allowSHA1)
    }

    /// A byte-string member of the statement.
    func bytes(_ key: String) throws -> [UInt8] {
        guard let bytes = statement[textKey: key]?.byteString else { throw MissingData(what: "attStmt.\(key)") }
        return bytes
    }

    /// The x5c certificates, leaf first.
    func certificates() throws -> [[UInt8]] {
        guard let items = statement[textKey: "x5c"]?.arrayItems else { throw MissingData(what: "attStmt.x5c") }
        return try items.map {
            guard let der = $0.byteString else { throw MissingData(what: "x5c entry") }
            return der
        }
    }

    /// Replaces (or adds) one statement member.
    mutating func set(_ key: String, _ value: CBORValue) {
        var entries = statement.mapEntries ?? []
        if let index = entries.firstIndex(where: { $0.key == .text(key) }) {
            entries[index] = CBORMapEntry(key: .text(key), value: value)
        } else {
            entries.append(CBORMapEntry(key: .text(key), value: value))
        }
        statement = .map(entries)
    }

    /// Replaces x5c.
    mutating func setCertificates(_ certificates: [[UInt8]]) {
        set("x5c", .array(certificates.map { .bytes($0) }))
    }

    /// Tampers with the leaf certificate: replaces the single occurrence of `old` with `new` (same
    /// length, so the DER stays well-formed). The format does not check certificate signatures
    /// (chains are judged by AttestationTrust), and the leaf key is unchanged, so every check before
    /// the tampered one still passes.
    mutating func patchLeaf(_ old: [UInt8], _ new: [UInt8]) throws {
        var chain = try certificates()
        chain[0] = try Self.replacingOnce(chain[0], old, new)
        setCertificates(chain)
    }

    static func replacingOnce(_ bytes: [UInt8], _ old: [UInt8], _ new: [UInt8]) throws -> [UInt8] {
        precondition(old.count == new.count)
        let starts = (0...(bytes.count - old.count)).filter { bytes[$0..<$0 + old.count].elementsEqual(old) }
        guard starts.count == 1, let start = starts.first else {
            throw MissingData(what: "pattern found \(starts.count) times; exactly once expected")
        }
        var result = bytes
        result.replaceSubrange(start..<start + old.count, with: new)
        return result
    }
}

/// Hexadecimal test data.
func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
}
