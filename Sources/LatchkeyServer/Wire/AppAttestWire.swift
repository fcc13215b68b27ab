import Foundation
import LatchkeyService
import LatchkeyStore
import WebAuthn

/// `POST /app-attest/challenge` reply.
struct AppAttestChallengeReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var challenge: Base64URLBytes
    /// Milliseconds.
    var timeout: Int
}

/// An App Attest key ID as apps have it: `DCAppAttestService` returns it in standard base64,
/// and base64url is taken as well.
struct AppAttestKeyID: Decodable, Sendable {
    var bytes: [UInt8]

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = Self.bytes(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "is not the base64 of a 32-byte key ID"))
        }
        self.bytes = bytes
    }

    /// The 32 bytes `text` encodes in base64url or standard base64, if it does.
    static func bytes(_ text: String) -> [UInt8]? {
        let bytes = Base64URL.decode(text) ?? Data(base64Encoded: text).map { Array($0) }
        return bytes?.count == 32 ? bytes : nil
    }
}

/// `POST /app-attest/keys` body: `DCAppAttestService.attestKey`'s result for a server challenge.
struct AppAttestKeyRequest: Decodable, Sendable {
    var keyId: AppAttestKeyID
    var attestationObject: Base64URLBytes
    /// The challenge from `/app-attest/challenge`; the app passed SHA-256 of its bytes as `clientDataHash`.
    var challenge: Base64URLBytes
}

/// `POST /app-attest/keys` reply.
struct AppAttestKeyReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var keyId: Base64URLBytes
    var appId: String
    var environment: String
}

/// `POST /app-attest/assertions` body: an assertion over `clientData`, a JSON object that carries
/// a challenge from `/app-attest/challenge` as `appAttestChallenge`.
struct AppAttestAssertionRequest: Decodable, Sendable {
    var keyId: AppAttestKeyID
    var assertion: Base64URLBytes
    var clientData: Base64URLBytes
}

/// `POST /app-attest/assertions` reply.
struct AppAttestAssertionReply: Encodable, Sendable {
    let status = "ok"
    let errorMessage = ""
    var keyId: Base64URLBytes
    var appId: String
    var counter: UInt32
}

/// The member of an asserted body (or `clientData`) that carries the server's challenge.
struct AppAttestChallengeCarrier: Decodable, Sendable {
    var appAttestChallenge: Base64URLBytes?
}
