/// What an app's device key (a P-256 key the app made in the Secure Enclave, for example gated
/// by Face ID) signs to enroll itself and to sign in, and the check of that signature.
///
/// The signed message, byte by byte (all lengths big-endian):
///
///     "LATCHKEY-DEVICE-KEY-V1"    22 ASCII bytes: the domain, so that no other signature
///                                 (WebAuthn's start with a 32-byte RP ID hash) can be replayed
///     purpose                     1 byte: 0x01 enroll, 0x02 sign in
///     length(rpID) ‖ rpID         2 bytes, then the RP ID in UTF-8
///     length(challenge) ‖ challenge   2 bytes (32), then the server's single-use challenge
///     length(keyID) ‖ keyID       2 bytes (32), then SHA-256 of the key's uncompressed point
///
/// The signature is ECDSA with SHA-256 over that message, DER-encoded (X9.62), as
/// `SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, &error)` returns it.
public struct DeviceKeySignature: Sendable {
    /// Why the key signs.
    public enum Purpose: UInt8, Sendable {
        case enroll = 1
        case signIn = 2
    }

    public static let domain = Array("LATCHKEY-DEVICE-KEY-V1".utf8)

    public let purpose: Purpose
    public let rpID: String
    public let challenge: [UInt8]
    /// The uncompressed P-256 point (`0x04 ‖ x ‖ y`), as `SecKeyCopyExternalRepresentation` returns it.
    public let publicKey: [UInt8]

    public init(purpose: Purpose, rpID: String, challenge: [UInt8], publicKey: [UInt8]) {
        self.purpose = purpose
        self.rpID = rpID
        self.challenge = challenge
        self.publicKey = publicKey
    }

    /// SHA-256 of the public key: the key's ID.
    public static func keyID(of publicKey: [UInt8]) -> [UInt8] { Digest.sha256(publicKey) }

    /// The bytes the key signs.
    public var message: [UInt8] {
        func field(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes }
        return Self.domain + [purpose.rawValue] + field(Array(rpID.utf8)) + field(challenge) + field(Self.keyID(of: publicKey))
    }

    /// Throws unless `signature` is the key's ECDSA-SHA-256 signature over ``message``.
    public func verify(_ signature: [UInt8]) throws {
        guard publicKey.count == 65 else {
            throw WebAuthnError(.malformedPublicKey, "a device key is a 65-byte uncompressed P-256 point (0x04 ‖ x ‖ y); this one is \(publicKey.count) bytes")
        }
        guard publicKey[0] == 0x04 else {
            throw WebAuthnError(
                .malformedPublicKey,
                "a device key is an uncompressed P-256 point, starting 0x04; this one starts 0x\(String(format: "%02X", publicKey[0]))")
        }
        let key: PublicKey
        do {
            key = try PublicKey.elliptic(curve: .p256, x: Array(publicKey[1..<33]), y: Array(publicKey[33..<65]))
        } catch {
            throw WebAuthnError(.malformedPublicKey, "the device key is not a point on P-256")
        }
        // CryptoKit's `rawRepresentation` (r ‖ s) is the commonest mistake: it is 64 bytes and never DER.
        if signature.count == 64, signature.first != 0x30 {
            throw WebAuthnError(
                .invalidSignature,
                "the device key's signature is 64 bytes of r ‖ s; send it DER-encoded (X9.62), as SecKeyCreateSignature makes it or CryptoKit's derRepresentation")
        }
        do {
            try key.verify(signature: signature, over: message, algorithm: .es256)
        } catch let error as WebAuthnError where error.code == .invalidSignature {
            throw WebAuthnError(.invalidSignature, "the device key's signature does not verify (ES256 by publicKey over the message docs/IOS.md lays out)")
        }
    }
}
