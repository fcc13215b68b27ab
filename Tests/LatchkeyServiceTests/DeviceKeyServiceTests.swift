import Foundation
import LatchkeyAuthenticator
@testable import LatchkeyService
import LatchkeyStore
import Testing
import WebAuthn

/// Device keys through the service: enrolled by a recently signed-in user, then signing in on their own.
@Suite("Device key service")
struct DeviceKeyServiceTests {
    @Test func aKeyEnrolledInASessionSignsItsOwnerIn() async throws {
        let harness = try ServiceHarness()
        let session = try #require(try await harness.register("hal").session)
        let identity = try #require(try await harness.service.sessions.current(presented: [session.token]))
        let owner = harness.caller(identity: identity, tokens: [session.token])
        let device = DeviceKeyAuthenticator(keyPath: FileManager.default.temporaryDirectory.appendingPathComponent("dk-\(UUID()).pem").path)

        let options = try await harness.service.deviceKeys.enrollmentOptions(ticket: nil, caller: owner, presented: .none)
        #expect(options.options.rpId == "localhost")
        let enrollment = try ServiceHarness.decode(DeviceKeyEnrollmentRequest.self, try device.enroll(options: try ServiceHarness.json(options.options)))
        let noProof = AppAttestProof(header: nil, body: [], binding: .none)
        let keyID = try await harness.service.deviceKeys.enroll(enrollment, appAttestation: noProof, caller: owner, presented: .none)
        #expect(try await harness.service.deviceKeys.list(caller: owner).map(\.id) == [keyID])

        // Signing in needs no session: the key's signature over its challenge is the proof.
        let signInOptions = try await harness.service.deviceKeys.signInOptions(
            SignInOptionsForKey.request(keyID), caller: harness.caller(), presented: .none)
        var answer = try JSONSerialization.jsonObject(with: Data(try device.signIn(options: try ServiceHarness.json(signInOptions.options)))) as? [String: Any] ?? [:]
        answer["keyId"] = answer["keyId"] ?? Base64URL.encode(keyID)
        let request = try ServiceHarness.decode(DeviceKeySignInRequest.self, Array(try JSONSerialization.data(withJSONObject: answer)))
        let signedIn = try await harness.service.deviceKeys.signIn(request, appAttestation: noProof, caller: harness.caller(), presented: .none)
        #expect(signedIn.user.username == "hal")
        #expect(signedIn.credentialID == keyID)
        #expect(!signedIn.userVerified)
    }

    @Test func aKeyIsRenamedAndRemovedByItsOwnerOnlyAndItsSessionsEndWithIt() async throws {
        let harness = try ServiceHarness()
        let owner = try await harness.caller(signedInBy: try await harness.register("ida"))
        let stranger = try await harness.caller(signedInBy: try await harness.register("jon", on: try harness.anotherAuthenticator()))
        let device = DeviceKeyAuthenticator(keyPath: FileManager.default.temporaryDirectory.appendingPathComponent("dk-\(UUID()).pem").path)
        let options = try await harness.service.deviceKeys.enrollmentOptions(ticket: nil, caller: owner, presented: .none)
        let enrollment = try ServiceHarness.decode(DeviceKeyEnrollmentRequest.self, try device.enroll(options: try ServiceHarness.json(options.options)))
        let noProof = AppAttestProof(header: nil, body: [], binding: .none)
        let keyID = try await harness.service.deviceKeys.enroll(enrollment, appAttestation: noProof, caller: owner, presented: .none)

        #expect(try await harness.service.deviceKeys.rename(keyID, to: "Ida's phone", caller: owner).name == "Ida's phone")
        for attempt in [
            { _ = try await harness.service.deviceKeys.rename(keyID, to: "mine", caller: stranger) },
            { try await harness.service.deviceKeys.remove(keyID, caller: stranger) },
        ] as [() async throws -> Void] {
            let refusal = await #expect(throws: ServiceError.self) { try await attempt() }
            #expect(refusal?.code == .notFound, "another user's key is not theirs to see")
        }
        #expect(try await harness.service.deviceKeys.list(caller: stranger).isEmpty)
        try await harness.service.deviceKeys.remove(keyID, caller: owner)
        #expect(try await harness.service.deviceKeys.list(caller: owner).isEmpty)
        let gone = await #expect(throws: ServiceError.self) { try await harness.service.deviceKeys.remove(keyID, caller: owner) }
        #expect(gone?.code == .notFound)
    }

    @Test func enrollmentNeedsASessionOrATicket() async throws {
        let harness = try ServiceHarness()
        let refusal = await #expect(throws: ServiceError.self) {
            try await harness.service.deviceKeys.enrollmentOptions(ticket: nil, caller: harness.caller(), presented: .none)
        }
        #expect(refusal?.code == .notSignedIn)
        #expect(refusal?.message == "not signed in: sign in, or send the enrollmentTicket your service issued")
    }

    @Test func anUnknownKeyIsRefusedNamingIt() async throws {
        let harness = try ServiceHarness()
        let unknown = Array(repeating: UInt8(4), count: 32)
        let refusal = await #expect(throws: ServiceError.self) {
            try await harness.service.deviceKeys.signInOptions(SignInOptionsForKey.request(unknown), caller: harness.caller(), presented: .none)
        }
        #expect(refusal?.reason == .unknownDeviceKey)
        let short = await #expect(throws: ServiceError.self) {
            try await harness.service.deviceKeys.signInOptions(SignInOptionsForKey.request([1, 2]), caller: harness.caller(), presented: .none)
        }
        #expect(short?.message == "keyId is 2 bytes; a device key's ID is the SHA-256 of its public key, 32 bytes")
    }
}

/// Sign-in options requests for a key, as an app sends them.
enum SignInOptionsForKey {
    static func request(_ keyID: [UInt8]) throws -> DeviceKeySignInOptionsRequest {
        try ServiceHarness.decode(DeviceKeySignInOptionsRequest.self, Array(#"{"keyId":"\#(Base64URL.encode(keyID))"}"#.utf8))
    }
}
