import Testing
@testable import WebAuthn

/// Real ceremonies with bytes flipped, cut or inserted: every outcome must be a verdict (a value or
/// a ``WebAuthnError``), never a trap; and a flipped byte that a signature covers must be refused.
/// The generator is seeded, so a failure reproduces.
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

    /// A mutation of signed bytes must be refused with a ``WebAuthnError``; acceptance or a trap fails.
    static func expectRefusal(_ what: @autoclosure () -> String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("\(what()) was accepted")
        } catch is WebAuthnError {
        } catch {
            Issue.record("\(what()): unexpected error type: \(error)")
        }
    }

    /// The cross-origin policy under which a vector passes.
    static func crossOrigin(_ vector: ConformanceVector) -> CrossOriginPolicy {
        ConformanceVectorTests.isCrossOrigin(vector) ? .allow(topOrigins: ["https://example.com"]) : .forbid
    }

    static func seed(_ vector: ConformanceVector) -> SeededGenerator {
        SeededGenerator(state: vector.name.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 })
    }

    /// Sign-in vectors that verify as they are.
    static let passingSignIns = ConformanceVector.all().filter {
        !$0.isRegistration && $0.mustPass && !ConformanceVectorTests.postQuantum.contains($0.name)
    }

    /// Authenticator data and clientDataJSON are both under the assertion signature, and the
    /// signature itself must match them: every byte of the three, flipped, must be refused, through
    /// the plain entry point and through the key cache with client data parsed by the caller.
    @Test("a flipped signed byte of a sign-in is refused", arguments: passingSignIns)
    func flippedSignInByte(_ vector: ConformanceVector) throws {
        var generator = Self.seed(vector)
        let relyingParty = vector.relyingParty(crossOrigin: Self.crossOrigin(vector))
        let plain = SignInVerifier(relyingParty: relyingParty)
        let cached = SignInVerifier(relyingParty: relyingParty, keyCache: CredentialKeyCache())
        let original = vector.authenticationResponse
        let expectation = vector.authenticationExpectation
        _ = try plain.verify(original, expecting: expectation)
        _ = try cached.verify(original, clientData: CollectedClientData(original.clientDataJSON), expecting: expectation)
        let fields: [(String, WritableKeyPath<SignInResponse, [UInt8]>)] = [
            ("authenticatorData", \.authenticatorData), ("clientDataJSON", \.clientDataJSON), ("signature", \.signature),
        ]
        for (name, field) in fields {
            for index in original[keyPath: field].indices {
                var response = original
                response[keyPath: field][index] ^= UInt8.random(in: 1...255, using: &generator)
                Self.expectRefusal("\(vector.name) \(name)[\(index)]") { _ = try plain.verify(response, expecting: expectation) }
                Self.expectRefusal("\(vector.name) \(name)[\(index)], cached key") {
                    _ = try cached.verify(response, clientData: CollectedClientData(response.clientDataJSON), expecting: expectation)
                }
            }
        }
    }

    /// How many clientDataJSON positions each registration flips.
    static let sampledClientDataBytes = 32

    /// Registration vectors that verify as they are, in a format whose statement signs something.
    static let passingSignedRegistrations = ConformanceVector.all().filter {
        $0.isRegistration && $0.mustPass && SignedBytes.coversClientData(format: $0.attestationFormat ?? "")
            && ConformanceVectorTests.refusedByDecision[$0.name] == nil
    }

    /// A flipped byte of the authenticator data inside the attestation object, where the statement
    /// covers it (every byte is tried), or of clientDataJSON (a sample) must be refused; flips of authenticator data bytes the format
    /// does not sign (fido-u2f's flags, counter, AAGUID, COSE framing) only need a verdict.
    @Test("a flipped signed byte of a registration is refused", arguments: passingSignedRegistrations)
    func flippedRegistrationByte(_ vector: ConformanceVector) throws {
        var generator = Self.seed(vector)
        let format = try #require(vector.attestationFormat)
        let verifier = RegistrationVerifier(relyingParty: vector.relyingParty(crossOrigin: Self.crossOrigin(vector)), trust: try vector.trust())
        let expectation = RegistrationExpectation(challenge: vector.challenge, userVerification: vector.userVerification)
        let object = try #require(vector.attestationObject)
        func verify(_ clientDataJSON: [UInt8], _ attestationObject: [UInt8]) throws {
            _ = try verifier.verify(
                RegistrationResponse(credentialID: vector.credentialID, clientDataJSON: clientDataJSON, attestationObject: attestationObject),
                expecting: expectation)
        }
        try verify(vector.clientDataJSON, object)
        let (offset, authData) = try #require(SignedBytes.authenticatorDataOffset(in: object))
        let signed = SignedBytes.authenticatorData(format: format, authData)
        #expect(!signed.isEmpty)
        for index in authData.indices {
            var mutated = object
            mutated[offset + index] ^= UInt8.random(in: 1...255, using: &generator)
            if signed.contains(where: { $0.contains(index) }) {
                Self.expectRefusal("\(vector.name) authData[\(index)]") { try verify(vector.clientDataJSON, mutated) }
            } else {
                Self.expectVerdict { try verify(vector.clientDataJSON, mutated) }
            }
        }
        // clientDataJSON reaches every format the same way, through clientDataHash: a seeded sample
        // of its bytes (the sign-in test flips them all) keeps this test's run time down.
        let clientDataIndices = Set([0, vector.clientDataJSON.count - 1] + (0..<Self.sampledClientDataBytes).map { _ in
            Int.random(in: vector.clientDataJSON.indices, using: &generator)
        })
        for index in clientDataIndices.sorted() {
            var clientData = vector.clientDataJSON
            clientData[index] ^= UInt8.random(in: 1...255, using: &generator)
            Self.expectRefusal("\(vector.name) clientDataJSON[\(index)]") { try verify(clientData, object) }
        }
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
        let verifier = SignInVerifier(relyingParty: vector.relyingParty())
        for _ in 0..<150 {
            let response = SignInResponse(
                credentialID: vector.credentialID, clientDataJSON: Self.mutate(vector.clientDataJSON, using: &generator),
                authenticatorData: Self.mutate(vector.authenticatorData ?? [], using: &generator),
                signature: Self.mutate(vector.signature ?? [], using: &generator), userHandle: vector.userHandle)
            let expectation = SignInExpectation(
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
