import Foundation
import WebAuthn

/// A software passkey provider for shells and tests: it answers the options a relying party
/// issues with credentials whose private keys live in a keys file, made and used by OpenSSL.
///
/// It behaves as a platform authenticator that always verifies the user: UP and UV are set, every
/// credential is discoverable (`credProps.rk` true), the AAGUID is all zero. BE and BS stay clear:
/// a keys file is one machine's storage, not a synced passkey.
public struct SoftwareAuthenticator: Sendable {
    /// How a registration is attested.
    public enum Attestation: String, CaseIterable, Sendable {
        /// `fmt` "none", an empty statement.
        case none
        /// `fmt` "packed" self attestation: `alg` and a signature by the credential key itself.
        case packed
    }

    /// The origin client data carries.
    public let origin: WebOrigin
    /// Where the credentials are kept.
    public let keyFilePath: String

    /// UP and UV, reported in every ceremony.
    static let flags: AuthenticatorFlags = [.userPresent, .userVerified]
    /// No model is attested (none, or self attestation), so no AAGUID is claimed.
    static let aaguid = [UInt8](repeating: 0, count: 16)
    /// `authenticatorAttachment` and `getTransports()` of a platform authenticator.
    static let attachment = "platform"
    static let transports = ["internal"]

    public init(origin: WebOrigin, keyFilePath: String) {
        self.origin = origin
        self.keyFilePath = keyFilePath
    }

    /// Decodes options read from stdin; a server's failed reply is reported as such, not as
    /// malformed options.
    static func decodeOptions<Options: Decodable>(_ type: Options.Type, from bytes: [UInt8], endpoint: String) throws -> Options {
        guard bytes.contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) else {
            throw AuthenticatorError(.malformedOptions, "malformed options: the input is empty; pipe in the reply of POST \(endpoint)")
        }
        if let reply = try? JSONDecoder().decode(ReplyStatus.self, from: Data(bytes)), reply.status == "failed" {
            throw AuthenticatorError(.failedReply, "the input is the server's failed reply, not options: \(reply.errorMessage ?? "no errorMessage")")
        }
        return try JSONInput.decode(type, from: bytes, source: "malformed options", code: .malformedOptions)
    }
}

extension StoredCredential {
    /// How messages name a credential: the first 8 characters of its id, as the server's logs do.
    var shortID: String { String(Base64URL.encode(id).prefix(8)) }
}
