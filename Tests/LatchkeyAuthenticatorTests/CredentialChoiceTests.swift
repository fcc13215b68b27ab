import Foundation
import LatchkeyAuthenticator
import Testing
import WebAuthn

/// Which stored credential answers request options: the RP ID's, those `allowCredentials` lists,
/// the user's when named, the most recently created of what remains.
@Suite("Credential choice")
struct CredentialChoiceTests {
    let folder: TemporaryFolder
    let authenticator: SoftwareAuthenticator
    /// alice (first), bob, alice (second), all for localhost; carol for example.com.
    let ids: [String: [UInt8]]

    init() throws {
        folder = try TemporaryFolder()
        authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.keys)
        var ids: [String: [UInt8]] = [:]
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        for (offset, (key, username)) in [("alice-1", "alice"), ("bob", "bob"), ("alice-2", "alice")].enumerated() {
            let output = try OutputJSON(authenticator.register(
                options: Options.creation(challenge: try randomBytes(32), userID: Array(username.utf8), username: username),
                now: start.addingTimeInterval(Double(offset) * 60)))
            ids[key] = try output.bytes("id", in: output.object)
        }
        let other = SoftwareAuthenticator(origin: try WebOrigin("https://example.com"), keyFilePath: folder.keys)
        let output = try OutputJSON(other.register(
            options: Options.creation(challenge: try randomBytes(32), userID: Array("carol".utf8), username: "carol", rpID: "example.com"),
            now: start.addingTimeInterval(600)))
        ids["carol"] = try output.bytes("id", in: output.object)
        self.ids = ids
    }

    func chosen(allow: [[UInt8]] = [], user: String? = nil) throws -> [UInt8] {
        let output = try OutputJSON(authenticator.signIn(options: Options.request(challenge: try randomBytes(32), allow: allow), username: user))
        return try output.bytes("id", in: output.object)
    }

    @Test func usernamelessTakesTheMostRecentCredentialOfTheRPID() throws {
        #expect(try chosen() == ids["alice-2"], "carol's is newer but belongs to example.com")
    }

    @Test func aUserNarrowsTheChoice() throws {
        #expect(try chosen(user: "bob") == ids["bob"])
        #expect(try chosen(user: "alice") == ids["alice-2"])
    }

    @Test func allowCredentialsNarrowsTheChoice() throws {
        #expect(try chosen(allow: [ids["alice-1"]!, try randomBytes(16)]) == ids["alice-1"])
        #expect(try chosen(allow: [ids["alice-1"]!, ids["bob"]!]) == ids["bob"])
    }

    @Test func onlyTheChosenCredentialsCounterMoves() throws {
        _ = try chosen(user: "bob")
        _ = try chosen(user: "bob")
        let counters = try KeyFile.load(from: folder.keys).credentials.map(\.signCount)
        #expect(counters == [0, 2, 0, 0])
    }

    @Test func noMatchingCredentialIsAnErrorThatLeavesTheFileAlone() throws {
        let before = folder.keyFileBytes()
        let unknown = authenticatorError { try chosen(allow: [try randomBytes(16)]) }
        #expect(unknown?.code == .noMatchingCredential)
        #expect(unknown?.message.contains("allowCredentials") == true)
        let nobody = authenticatorError { try chosen(user: "mallory") }
        #expect(nobody?.code == .noMatchingCredential)
        #expect(nobody?.message.contains("\"mallory\"") == true)
        let carolHere = authenticatorError { try chosen(allow: [ids["carol"]!]) }
        #expect(carolHere?.code == .noMatchingCredential, "a credential of another RP ID never answers")
        let elsewhere = SoftwareAuthenticator(origin: try WebOrigin("https://other.example"), keyFilePath: folder.keys)
        let none = authenticatorError { try elsewhere.signIn(options: Options.request(challenge: try randomBytes(32), rpID: "other.example")) }
        #expect(none?.code == .noMatchingCredential)
        #expect(none?.message.contains("no credential for RP ID other.example") == true)
        #expect(folder.keyFileBytes() == before)
    }
}
