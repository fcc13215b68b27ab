import Foundation
import WebAuthn

/// A software stand-in for an app's device key (the P-256 key an iOS app makes in the Secure
/// Enclave): one key in a PEM file, enrolled and used through the device-key endpoints, signing
/// ``DeviceKeySignature``'s messages as `SecKeyCreateSignature` would.
public struct DeviceKeyAuthenticator: Sendable {
    /// The PEM file of the key: created (mode 0600) by ``enroll(options:)``, read by ``signIn(options:)``.
    public let keyPath: String

    public init(keyPath: String) {
        self.keyPath = keyPath
    }

    /// The options of `POST /device-keys/options` and `/device-keys/sign-in/options`.
    struct Options: Decodable {
        var challenge: Base64URLBytes
        var rpId: String
    }

    /// Makes a new key in ``keyPath`` (which must not exist) and answers enrollment options with
    /// `{"challenge","publicKey","signature"}` for `POST /device-keys`.
    public func enroll(options json: [UInt8]) throws -> [UInt8] {
        let options = try JSONInput.decode(Options.self, from: json, source: "device key options", code: .malformedOptions)
        let key = try CredentialPrivateKey.generate(.es256)
        let point = try key.uncompressedP256Point()
        let signed = DeviceKeySignature(purpose: .enroll, rpID: options.rpId, challenge: options.challenge.bytes, publicKey: point)
        let signature = try key.sign(signed.message)
        try Self.create(keyPath, contents: Array(try key.pem().utf8))
        return try [
            "challenge": Base64URL.encode(options.challenge.bytes), "publicKey": Base64URL.encode(point),
            "signature": Base64URL.encode(signature),
        ].jsonLine()
    }

    /// Answers sign-in options with the key in ``keyPath``: `{"keyId","challenge","signature"}`
    /// for `POST /device-keys/sign-in`.
    public func signIn(options json: [UInt8]) throws -> [UInt8] {
        let options = try JSONInput.decode(Options.self, from: json, source: "device key options", code: .malformedOptions)
        guard let pem = FileManager.default.contents(atPath: keyPath) else {
            throw AuthenticatorError(.unreadableKeyFile, "cannot read the device key \(keyPath): enroll one first")
        }
        let key = try CredentialPrivateKey(pem: String(decoding: pem, as: UTF8.self), algorithm: .es256)
        let point = try key.uncompressedP256Point()
        let signed = DeviceKeySignature(purpose: .signIn, rpID: options.rpId, challenge: options.challenge.bytes, publicKey: point)
        return try [
            "keyId": Base64URL.encode(DeviceKeySignature.keyID(of: point)), "challenge": Base64URL.encode(options.challenge.bytes),
            "signature": Base64URL.encode(try key.sign(signed.message)),
        ].jsonLine()
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
}
