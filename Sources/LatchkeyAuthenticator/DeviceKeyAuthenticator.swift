import Foundation
import WebAuthn

/// A software stand-in for an app's device key (the P-256 key an iOS app makes in the Secure
/// Enclave): one key in a PEM file, enrolled and used through the device-key endpoints, signing
/// ``DeviceKeySignature``'s messages as `SecKeyCreateSignature` would.
public struct DeviceKeyAuthenticator: Sendable {
    /// The PEM file of the key: created (mode 0600) by ``enrol(options:)``, read by ``signIn(options:)``.
    public let keyPath: String

    public init(keyPath: String) {
        self.keyPath = keyPath
    }

    /// The options of `POST /device-keys/options` and `/device-keys/sign-in/options`.
    struct Options: Decodable {
        var challenge: Base64URLBytes
        var rpId: String
    }

    /// Makes a new key in ``keyPath`` (which must not exist) and answers enrolment options with
    /// `{"challenge","publicKey","signature"}` for `POST /device-keys`.
    public func enrol(options json: [UInt8]) throws -> [UInt8] {
        let options = try JSONInput.decode(Options.self, from: json, source: "device key options", code: .malformedOptions)
        let key = try CredentialPrivateKey.generate(.es256)
        let point = try Self.point(of: key)
        let signed = DeviceKeySignature(purpose: .enrol, rpID: options.rpId, challenge: options.challenge.bytes, publicKey: point)
        let signature = try key.sign(signed.message)
        try Self.create(keyPath, contents: Array(try key.pem().utf8))
        return try Self.json([
            "challenge": Base64URL.encode(options.challenge.bytes), "publicKey": Base64URL.encode(point),
            "signature": Base64URL.encode(signature),
        ])
    }

    /// Answers sign-in options with the key in ``keyPath``: `{"keyId","challenge","signature"}`
    /// for `POST /device-keys/sign-in`.
    public func signIn(options json: [UInt8]) throws -> [UInt8] {
        let options = try JSONInput.decode(Options.self, from: json, source: "device key options", code: .malformedOptions)
        guard let pem = FileManager.default.contents(atPath: keyPath) else {
            throw AuthenticatorError(.unreadableKeyFile, "cannot read the device key \(keyPath): enrol one first")
        }
        let key = try CredentialPrivateKey(pem: String(decoding: pem, as: UTF8.self), algorithm: .es256)
        let point = try Self.point(of: key)
        let signed = DeviceKeySignature(purpose: .signIn, rpID: options.rpId, challenge: options.challenge.bytes, publicKey: point)
        return try Self.json([
            "keyId": Base64URL.encode(DeviceKeySignature.keyID(of: point)), "challenge": Base64URL.encode(options.challenge.bytes),
            "signature": Base64URL.encode(try key.sign(signed.message)),
        ])
    }

    /// `0x04 ‖ x ‖ y`, as `SecKeyCopyExternalRepresentation` returns a P-256 public key.
    private static func point(of key: CredentialPrivateKey) throws -> [UInt8] {
        guard case .ec2(_, let x, let y) = try key.publicKeyParts() else {
            throw AuthenticatorError(.cryptoFailure, "the device key is not a P-256 key")
        }
        return [0x04] + x + y
    }

    /// Writes a new file readable by its owner alone; an existing file is never replaced.
    private static func create(_ path: String, contents: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw AuthenticatorError(.unwritableKeyFile, "cannot create the device key \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == contents.count, fsync(descriptor) == 0 else {
            throw AuthenticatorError(.unwritableKeyFile, "cannot write the device key \(path): \(String(cString: strerror(errno)))")
        }
    }

    private static func json(_ members: [String: String]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(members)) + [UInt8(ascii: "\n")]
    }
}
