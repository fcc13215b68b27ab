import Foundation
import LatchkeyAuthenticator
import Testing
import WebAuthn

/// A folder for one test's keys file, removed when the value goes away.
final class TemporaryFolder {
    let path: String

    init() throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/latchkey-authenticator-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The keys file the tests use.
    var keys: String { path + "/keys.json" }

    /// The names in the folder (to see that no temporary file was left behind).
    func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    /// The bytes of the keys file, or nil when it does not exist.
    func keyFileBytes() -> Data? { FileManager.default.contents(atPath: keys) }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Options as `latchkey serve` issues them, with knobs for the cases under test.
enum Options {
    static let origin = "http://localhost:8080"
    static let relyingParty = RelyingParty(id: "localhost", name: "Latchkey", origins: [origin])

    /// A `POST /attestation/options` reply.
    static func creation(
        challenge: [UInt8], userID: [UInt8], username: String = "alice", rpID: String? = "localhost",
        algorithms: [Int64] = COSEAlgorithm.verifiable.map(\.rawValue), exclude: [[UInt8]] = [],
        authenticatorSelection: [String: Any] = ["residentKey": "required", "userVerification": "preferred"]
    ) throws -> [UInt8] {
        var rp: [String: Any] = ["name": "Latchkey"]
        rp["id"] = rpID
        return try json([
            "status": "ok", "errorMessage": "", "rp": rp,
            "user": ["id": Base64URL.encode(userID), "name": username, "displayName": username.capitalized],
            "challenge": Base64URL.encode(challenge),
            "pubKeyCredParams": algorithms.map { ["type": "public-key", "alg": $0] },
            "timeout": 300_000, "attestation": "none",
            "excludeCredentials": exclude.map { ["type": "public-key", "id": Base64URL.encode($0)] },
            "authenticatorSelection": authenticatorSelection,
        ])
    }

    /// A `POST /assertion/options` reply.
    static func request(challenge: [UInt8], rpID: String? = "localhost", allow: [[UInt8]] = []) throws -> [UInt8] {
        var options: [String: Any] = [
            "status": "ok", "errorMessage": "", "challenge": Base64URL.encode(challenge), "timeout": 300_000,
            "allowCredentials": allow.map { ["type": "public-key", "id": Base64URL.encode($0), "transports": ["internal"]] },
            "userVerification": "preferred",
        ]
        options["rpId"] = rpID
        return try json(options)
    }

    static func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }
}

/// The authenticator's JSON output read back.
struct OutputJSON {
    let object: [String: Any]

    init(_ bytes: [UInt8]) throws {
        #expect(bytes.last == UInt8(ascii: "\n"), "the output is one line")
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw TestFailure("output is not a JSON object")
        }
        self.object = object
    }

    var response: [String: Any] { object["response"] as? [String: Any] ?? [:] }

    func bytes(_ member: String, in object: [String: Any]? = nil) throws -> [UInt8] {
        guard let text = (object ?? response)[member] as? String, let bytes = Base64URL.decode(text) else {
            throw TestFailure("\(member) is not base64url")
        }
        return bytes
    }

    /// As the server decodes a `RegistrationResponseJSON`.
    func registrationResponse() throws -> RegistrationResponse {
        let extensions = object["clientExtensionResults"] as? [String: Any]
        let credProps = extensions?["credProps"] as? [String: Any]
        return RegistrationResponse(
            credentialID: try bytes("id", in: object), clientDataJSON: try bytes("clientDataJSON"),
            attestationObject: try bytes("attestationObject"), transports: AuthenticatorTransport.known(response["transports"] as? [String] ?? []),
            residentKey: credProps?["rk"] as? Bool)
    }

    /// As the server decodes an `AuthenticationResponseJSON`.
    func authenticationResponse() throws -> SignInResponse {
        SignInResponse(
            credentialID: try bytes("id", in: object), clientDataJSON: try bytes("clientDataJSON"),
            authenticatorData: try bytes("authenticatorData"), signature: try bytes("signature"),
            userHandle: try bytes("userHandle"))
    }
}

/// The code of the ``AuthenticatorError`` `body` throws (recording an issue for any other outcome),
/// and its message.
func authenticatorError(_ body: () throws -> Any) -> (code: AuthenticatorError.Code, message: String)? {
    do {
        _ = try body()
        Issue.record("expected an AuthenticatorError, but it succeeded")
    } catch let error as AuthenticatorError {
        return (error.code, error.message)
    } catch {
        Issue.record("expected an AuthenticatorError, got \(error)")
    }
    return nil
}

func randomBytes(_ count: Int) throws -> [UInt8] { try SecureRandom.bytes(count: count) }
