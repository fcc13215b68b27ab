import Foundation
import Testing
@testable import WebAuthn

/// A registration vector taken apart for format-level tests: its statement, authenticator data,
/// client data hash and credential key, from which tests build altered ``AttestationInput``s.
struct AttestationFixture {
    let vector: ConformanceVector
    let object: AttestationObject
    let clientDataHash: [UInt8]
    let credentialKey: COSEKey

    init(_ name: String) throws {
        vector = try #require(ConformanceVector.named(name), "vector \(name) not found")
        object = try AttestationObject(try #require(vector.attestationObject, "\(name) has no attestationObject"))
        clientDataHash = Digest.sha256(vector.clientDataJSON)
        let attested = try #require(object.authenticatorData.attestedCredentialData)
        credentialKey = try COSEKey(attested.publicKey)
    }

    var statement: CBORValue { object.statement }

    /// The vector's inputs, with any of them replaced; the time defaults to the vector's verifyAt.
    func input(
        statement: CBORValue? = nil, clientDataHash: [UInt8]? = nil, credentialKey: COSEKey? = nil,
        at time: Date? = nil
    ) -> AttestationInput {
        AttestationInput(
            statement: statement ?? object.statement, authenticatorData: object.authenticatorData,
            clientDataHash: clientDataHash ?? self.clientDataHash, credentialKey: credentialKey ?? self.credentialKey,
            verificationTime: time ?? vector.verifyAt, allowSHA1: false)
    }

    /// The certificates of the statement's x5c.
    var x5c: [[UInt8]] { statement[textKey: "x5c"]?.arrayItems?.compactMap(\.byteString) ?? [] }
}

extension CBORValue {
    /// A copy of this map with `key` set to `value` (appended when absent), or removed when nil.
    func setting(_ key: String, to value: CBORValue?) -> CBORValue {
        var entries = (mapEntries ?? []).filter { $0.key != .text(key) }
        if let value { entries.append(CBORMapEntry(key: .text(key), value: value)) }
        return .map(entries)
    }
}

/// Flips the low bit of the byte at `index` (negative counts from the end).
func flippingBit(_ bytes: [UInt8], at index: Int) -> [UInt8] {
    var copy = bytes
    let position = index < 0 ? copy.count + index : index
    copy[position] ^= 0x01
    return copy
}

/// Runs `body` and returns the WebAuthnError it throws; records an issue when it does not throw.
func webAuthnError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> WebAuthnError? {
    #expect(throws: WebAuthnError.self, sourceLocation: sourceLocation) { try body() }
}
