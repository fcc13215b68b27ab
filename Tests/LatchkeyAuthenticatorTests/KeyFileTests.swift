import Foundation
import LatchkeyAuthenticator
import Testing
import WebAuthn

/// The keys file holds private keys: mode 0600 always, replaced atomically, and refused with a
/// message naming the member when it is not a keys file.
@Suite("Keys file")
struct KeyFileTests {
    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    func registered(in folder: TemporaryFolder, _ algorithm: CredentialAlgorithm = .es256) throws -> SoftwareAuthenticator {
        let authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.keys)
        _ = try authenticator.register(options: Options.creation(challenge: try randomBytes(32), userID: try randomBytes(16)), algorithm: algorithm)
        return authenticator
    }

    @Test func theFileIsCreatedWithMode0600AndNoTemporaryFileStays() throws {
        let folder = try TemporaryFolder()
        let previous = umask(0)  // the widest umask: the mode must still be 0600
        defer { umask(previous) }
        _ = try registered(in: folder)
        #expect(try mode(folder.keys) == 0o600)
        #expect(try folder.names() == ["keys.json"])
    }

    @Test func aRewriteNarrowsAWiderModeTo0600() throws {
        let folder = try TemporaryFolder()
        let authenticator = try registered(in: folder)
        chmod(folder.keys, 0o644)
        _ = try authenticator.signIn(options: Options.request(challenge: try randomBytes(32)))
        #expect(try mode(folder.keys) == 0o600)
    }

    @Test func theFileHoldsEverythingACredentialNeeds() throws {
        let folder = try TemporaryFolder()
        _ = try registered(in: folder, .rs256)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.keys))) as? [String: Any]
        #expect(object?["version"] as? Int == 1)
        let credential = (object?["credentials"] as? [[String: Any]])?.first ?? [:]
        #expect(Set(credential.keys) == ["id", "rpId", "userHandle", "username", "displayName", "algorithm", "privateKey", "signCount", "createdAt"])
        #expect(credential["algorithm"] as? String == "RS256" && credential["signCount"] as? Int == 0)
        #expect((credential["privateKey"] as? String)?.hasPrefix("-----BEGIN PRIVATE KEY-----\n") == true)
        #expect((credential["createdAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)
    }

    @Test func aMissingOrEmptyFileHasNoCredentials() throws {
        let folder = try TemporaryFolder()
        #expect(try KeyFile.load(from: folder.keys).credentials.isEmpty)
        #expect(FileManager.default.createFile(atPath: folder.keys, contents: Data()))
        #expect(try KeyFile.load(from: folder.keys).credentials.isEmpty)
        // An empty file (mktemp) is then filled in.
        _ = try registered(in: folder)
        #expect(try KeyFile.load(from: folder.keys).credentials.count == 1)
    }

    @Test func aFileThatIsNotAKeysFileIsRefusedByMember() throws {
        let folder = try TemporaryFolder()
        for (text, phrase) in [
            ("{\"version\":1,\"credentials\":[{\"id\":\"AAAA\"}]}", "credentials[0].rpId is missing"),
            ("{\"version\":1,\"credentials\":[{\"id\":\"A+A\",\"rpId\":\"x\"}]}", "credentials[0].id is not base64url"),
            ("{\"version\":2,\"credentials\":[]}", "version 2 is not 1"),
            ("not json", "not valid JSON"),
        ] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: folder.keys))
            let authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.keys)
            let error = authenticatorError { try authenticator.signIn(options: Options.request(challenge: try randomBytes(32))) }
            #expect(error?.code == .unreadableKeyFile)
            #expect(error?.message.contains(phrase) == true, "\(error?.message ?? "") lacks \(phrase)")
            #expect(error?.message.contains(folder.keys) == true, "the message names the file")
        }
    }

    @Test func aKeyOfAnotherTypeThanItsAlgorithmIsRefused() throws {
        let folder = try TemporaryFolder()
        let authenticator = try registered(in: folder, .es256)
        var file = try KeyFile.load(from: folder.keys)
        file.credentials[0].algorithm = .es384
        try file.save(to: folder.keys)
        let error = authenticatorError { try authenticator.signIn(options: Options.request(challenge: try randomBytes(32))) }
        #expect(error?.code == .unreadableKeyFile)
        #expect(error?.message.contains("privateKey is not a ES384 key") == true, "\(error?.message ?? "")")
        #expect(try KeyFile.load(from: folder.keys).credentials[0].signCount == 0)
    }

    @Test func aFileThatCannotBeWrittenIsAnErrorAndNoCredentialIsReturned() throws {
        let folder = try TemporaryFolder()
        let authenticator = SoftwareAuthenticator(origin: try WebOrigin(Options.origin), keyFilePath: folder.path + "/missing/keys.json")
        let error = authenticatorError {
            try authenticator.register(options: Options.creation(challenge: try randomBytes(32), userID: try randomBytes(16)))
        }
        #expect(error?.code == .unwritableKeyFile)
        #expect(error?.message.contains("/missing/keys.json") == true)
    }
}
