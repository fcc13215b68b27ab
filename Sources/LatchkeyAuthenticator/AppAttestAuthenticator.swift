import Foundation
import WebAuthn

/// A software stand-in for Apple's App Attest (`DCAppAttestService`), so the whole flow runs
/// without an iPhone: a test CA plays Apple's App Attestation root, and a key file plays the
/// app's attested key. Its data has the shape real devices send (a chain of leaf and
/// intermediate, the nonce extension, `appattestdevelop` or `appattest` AAGUIDs, assertions with
/// the AT flag set), but only a server told to trust the test CA (`appAttestTestRoots`) accepts it.
public struct AppAttestAuthenticator: Sendable {
    /// The JSON file of the app's key and its counter: created by ``attest(challengeReply:)``.
    public let keyPath: String
    /// The folder of the test CA: `app-attest-test-root.pem` and its key, `app-attest-test-root.key`.
    public let caFolder: String

    public init(keyPath: String, caFolder: String) {
        self.keyPath = keyPath
        self.caFolder = caFolder
    }

    /// The root certificate's file in ``caFolder``, which a test server lists in `appAttestTestRoots`.
    public var rootPath: String { caFolder + "/app-attest-test-root.pem" }
    private var rootKeyPath: String { caFolder + "/app-attest-test-root.key" }

    /// Makes the test CA in ``caFolder`` unless it is there already; returns the root's path.
    @discardableResult
    public func makeCA() throws -> String {
        if FileManager.default.fileExists(atPath: rootPath) { return rootPath }
        try FileManager.default.createDirectory(atPath: caFolder, withIntermediateDirectories: true)
        let key = try CredentialPrivateKey.generate(.es256)
        let now = Date()
        let root = try key.issueCertificate(
            for: key, commonName: "Latchkey Test App Attestation Root CA", issuer: nil, isCA: true, serial: 1,
            validity: now.addingTimeInterval(-3600)...now.addingTimeInterval(20 * 365 * 86_400))
        try SecretFile.replace(rootKeyPath, with: Array(try key.pem().utf8), what: "the test CA key")
        try SecretFile.replace(rootPath, with: Array(PEM.encode(root, label: "CERTIFICATE").utf8), what: "the test CA")
        return rootPath
    }

    /// Makes a new app key in ``keyPath`` (which must not exist) and attests it for `appID` over
    /// the challenge of a `POST /app-attest/challenge` reply: `{"keyId","attestationObject","challenge"}`
    /// for `POST /app-attest/keys`, the client data hash being SHA-256 of the challenge's bytes.
    public func attest(challengeReply json: [UInt8], appID: String, environment: AppAttestEnvironment) throws -> [UInt8] {
        let reply = try JSONInput.decode(ChallengeReply.self, from: json, source: "App Attest challenge", code: .malformedOptions)
        guard !FileManager.default.fileExists(atPath: keyPath) else {
            throw AuthenticatorError(.unwritableKeyFile, "\(keyPath) exists already: an App Attest key is attested once")
        }
        try makeCA()
        let (caKey, root) = try loadCA()
        let key = try CredentialPrivateKey.generate(.es256)
        let point = try key.uncompressedP256Point()
        let keyID = Digest.sha256(point)

        let authenticatorData = AuthenticatorDataBytes.make(
            rpID: appID, flags: [.attestedCredentialData], signCount: 0,
            attested: .init(aaguid: environment.aaguid, credentialID: keyID, publicKey: COSEPublicKey.encode(try key.publicKeyParts(), algorithm: .es256)))
        let nonce = Digest.sha256(authenticatorData + Digest.sha256(reply.challenge.bytes))

        let now = Date()
        let intermediateKey = try CredentialPrivateKey.generate(.es256)
        let intermediate = try caKey.issueCertificate(
            for: intermediateKey, commonName: "Latchkey Test App Attestation CA 1", issuer: root, isCA: true, serial: 2,
            validity: now.addingTimeInterval(-3600)...now.addingTimeInterval(365 * 86_400))
        let leaf = try intermediateKey.issueCertificate(
            for: key, commonName: keyID.map { String(format: "%02x", $0) }.joined(), issuer: intermediate, isCA: false, serial: 3,
            validity: now.addingTimeInterval(-300)...now.addingTimeInterval(30 * 86_400),
            extension: (AppleAttestation.nonceExtensionOID, Self.nonceExtension(nonce)))
        let attestationObject = CBOREncoder.encode(.map([
            CBORMapEntry(key: .text("fmt"), value: .text(AppAttestAttestationVerifier.format)),
            CBORMapEntry(key: .text("attStmt"), value: .map([
                CBORMapEntry(key: .text("x5c"), value: .array([.bytes(leaf), .bytes(intermediate)])),
                CBORMapEntry(key: .text("receipt"), value: .bytes(Array("latchkey software App Attest receipt".utf8))),
            ])),
            CBORMapEntry(key: .text("authData"), value: .bytes(authenticatorData)),
        ]))
        try save(KeyState(privateKey: try key.pem(), appId: appID, counter: 0))
        return try [
            "keyId": Base64URL.encode(keyID), "attestationObject": Base64URL.encode(attestationObject),
            "challenge": Base64URL.encode(reply.challenge.bytes),
        ].jsonLine()
    }

    /// What an app sends with an assertion: the exact body, and the header value that vouches for it.
    public struct AssertedRequest: Sendable {
        /// The request body: the one given, with `appAttestChallenge` added.
        public let body: [UInt8]
        /// `KEYID.ASSERTION`, the value of `X-Latchkey-App-Attest`.
        public let header: String
        /// `{"keyId","assertion","clientData"}` for `POST /app-attest/assertions`.
        public let assertionRequest: [UInt8]
    }

    /// Adds `challenge` (from `POST /app-attest/challenge`) to the JSON object `body` as
    /// `appAttestChallenge` and asserts over the result with the key in ``keyPath``, whose
    /// counter moves up by one.
    public func assert(body json: [UInt8], challenge: String) throws -> AssertedRequest {
        guard var members = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any] else {
            throw AuthenticatorError(.malformedOptions, "the request body is not a JSON object")
        }
        guard let challengeBytes = Base64URL.decode(challenge), !challengeBytes.isEmpty else {
            throw AuthenticatorError(.malformedOptions, "--challenge is not base64url")
        }
        members["appAttestChallenge"] = challenge
        let body = Array(try JSONSerialization.data(withJSONObject: members, options: [.sortedKeys, .withoutEscapingSlashes]))

        var state = try loadState()
        let key = try CredentialPrivateKey(pem: state.privateKey, algorithm: .es256)
        let keyID = Digest.sha256(try key.uncompressedP256Point())
        state.counter += 1
        // As devices write it: the AT flag set, with no credential data after the counter.
        let authenticatorData = AuthenticatorDataBytes.make(rpID: state.appId, flags: [.attestedCredentialData], signCount: state.counter)
        let nonce = Digest.sha256(authenticatorData + Digest.sha256(body))
        let assertion = CBOREncoder.encode(.map([
            CBORMapEntry(key: .text("signature"), value: .bytes(try key.sign(nonce))),
            CBORMapEntry(key: .text("authenticatorData"), value: .bytes(authenticatorData)),
        ]))
        try save(state)
        let header = Base64URL.encode(keyID) + "." + Base64URL.encode(assertion)
        let request = try [
            "keyId": Base64URL.encode(keyID), "assertion": Base64URL.encode(assertion), "clientData": Base64URL.encode(body),
        ].jsonLine()
        return AssertedRequest(body: body, header: header, assertionRequest: request)
    }

    // MARK: Files

    private struct ChallengeReply: Decodable {
        var challenge: Base64URLBytes
    }

    /// The key file: the app key, the app it was attested for and the last counter used.
    private struct KeyState: Codable {
        var privateKey: String
        var appId: String
        var counter: UInt32
    }

    private func loadCA() throws -> (key: CredentialPrivateKey, root: [UInt8]) {
        guard let keyPEM = FileManager.default.contents(atPath: rootKeyPath), let rootPEM = FileManager.default.contents(atPath: rootPath),
              let root = PEM.certificates(in: String(decoding: rootPEM, as: UTF8.self)).first
        else { throw AuthenticatorError(.unreadableKeyFile, "cannot read the test CA in \(caFolder)") }
        return (try CredentialPrivateKey(pem: String(decoding: keyPEM, as: UTF8.self), algorithm: .es256), root)
    }

    private func loadState() throws -> KeyState {
        guard let bytes = FileManager.default.contents(atPath: keyPath) else {
            throw AuthenticatorError(.unreadableKeyFile, "cannot read the App Attest key \(keyPath): attest one first")
        }
        return try JSONInput.decode(KeyState.self, from: Array(bytes), source: keyPath, code: .unreadableKeyFile)
    }

    private func save(_ state: KeyState) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try SecretFile.replace(keyPath, with: Array(try encoder.encode(state)) + [UInt8(ascii: "\n")], what: "the App Attest key")
    }

    /// The nonce extension's value as Apple writes it: SEQUENCE { [1] EXPLICIT OCTET STRING nonce }.
    private static func nonceExtension(_ nonce: [UInt8]) -> [UInt8] {
        let octets: [UInt8] = [0x04, UInt8(nonce.count)] + nonce
        let tagged: [UInt8] = [0xA1, UInt8(octets.count)] + octets
        return [0x30, UInt8(tagged.count)] + tagged
    }

}
