import Testing
@testable import WebAuthn

/// Real ceremonies with bytes flipped, cut or inserted: every outcome must be a verdict (a value or
/// a ``WebAuthnError``), never a trap. The generator is seeded, so a failure reproduces.
@Suite("Mutated vectors")
struct MutationTests {
    /// SplitMix64: small, seedable and good enough to pick positions and bytes.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func mutate(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        guard !bytes.isEmpty else { return [UInt8.random(in: 0...255, using: &generator)] }
        var copy = bytes
        let index = Int.random(in: 0..<copy.count, using: &generator)
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: copy[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
        case 1: copy[index] = UInt8.random(in: 0...255, using: &generator)
        case 2: copy.removeSubrange(index...)
        default: copy.insert(UInt8.random(in: 0...255, using: &generator), at: index)
        }
        return copy
    }

    /// Only WebAuthnError may escape; anything else (or a trap) fails the test.
    static func expectVerdict(_ body: () throws -> Void) {
        do { try body() } catch is WebAuthnError {} catch { Issue.record("unexpected error type: \(error)") }
    }

    @Test("registrations survive mutation", arguments: ConformanceVector.all().filter(\.isRegistration))
    func registration(_ vector: ConformanceVector) throws {
        var generator = SeededGenerator(state: vector.name.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 })
        let verifier = RegistrationVerifier(relyingParty: vector.relyingParty(), trust: try vector.trust())
        let expectation = RegistrationExpectation(challenge: vector.challenge, userVerification: .preferred)
        for _ in 0..<150 {
            let object = Self.mutate(vector.attestationObject ?? [], using: &generator)
            let clientData = Self.mutate(vector.clientDataJSON, using: &generator)
            Self.expectVerdict {
                _ = try verifier.verify(RegistrationResponse(credentialID: vector.credentialID, clientDataJSON: vector.clientDataJSON, attestationObject: object), expecting: expectation)
            }
            Self.expectVerdict {
                _ = try verifier.verify(RegistrationResponse(credentialID: vector.credentialID, clientDataJSON: clientData, attestationObject: vector.attestationObject ?? []), expecting: expectation)
            }
        }
    }

    @Test("sign-ins survive mutation", arguments: ConformanceVector.all().filter { !$0.isRegistration })
    func authentication(_ vector: ConformanceVector) {
        var generator = SeededGenerator(state: vector.name.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 })
        let verifier = AuthenticationVerifier(relyingParty: vector.relyingParty())
        for _ in 0..<150 {
            let response = AuthenticationResponse(
                credentialID: vector.credentialID, clientDataJSON: Self.mutate(vector.clientDataJSON, using: &generator),
                authenticatorData: Self.mutate(vector.authenticatorData ?? [], using: &generator),
                signature: Self.mutate(vector.signature ?? [], using: &generator), userHandle: vector.userHandle)
            let expectation = AuthenticationExpectation(
                challenge: vector.challenge, userVerification: .preferred,
                publicKey: Self.mutate(vector.storedPublicKey ?? [], using: &generator),
                storedSignCount: vector.storedSignCount, userHandle: vector.userHandle ?? [], userHandleRequired: false)
            Self.expectVerdict { _ = try verifier.verify(response, expecting: expectation) }
        }
    }

    @Test func randomBytesNeverTrapTheCBORDecoderOrTheDERReader() {
        var generator = SeededGenerator(state: 42)
        for length in 0..<2_000 {
            let bytes = (0..<(length % 97)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            Self.expectVerdict { _ = try CBORDecoder().decode(bytes) }
            Self.expectVerdict { _ = try AuthenticatorData(bytes) }
            Self.expectVerdict {
                var reader = DERReader(bytes)
                while !reader.isAtEnd { _ = try reader.read().children() }
            }
        }
    }
}
