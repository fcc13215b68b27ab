import Foundation
import WebAuthn

/// An App Attest key ID as apps have it: `DCAppAttestService` returns it in standard base64,
/// and base64url is taken as well.
package struct AppAttestKeyID: Decodable, Sendable {
    package var bytes: [UInt8]

    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = Self.bytes(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "is not the base64 of a 32-byte key ID"))
        }
        self.bytes = bytes
    }

    /// The 32 bytes `text` encodes in base64url or standard base64, if it does.
    package static func bytes(_ text: String) -> [UInt8]? {
        let bytes = Base64URL.decode(text) ?? Data(base64Encoded: text).map { Array($0) }
        return bytes?.count == 32 ? bytes : nil
    }
}

/// `POST /app-attest/keys` body: `DCAppAttestService.attestKey`'s result for a server challenge.
package struct AppAttestKeyRequest: Decodable, Sendable {
    package var keyId: AppAttestKeyID
    package var attestationObject: Base64URLBytes
    /// The challenge from `/app-attest/challenge`; the app passed SHA-256 of its bytes as `clientDataHash`.
    package var challenge: Base64URLBytes
}

/// `POST /app-attest/assertions` body: an assertion over `clientData`, a JSON object that carries
/// a challenge from `/app-attest/challenge` as `appAttestChallenge`.
package struct AppAttestAssertionRequest: Decodable, Sendable {
    package var keyId: AppAttestKeyID
    package var assertion: Base64URLBytes
    package var clientData: Base64URLBytes
}

/// The member of an asserted body (or `clientData`) that carries the server's challenge.
package struct AppAttestChallengeCarrier: Decodable, Sendable {
    package var appAttestChallenge: Base64URLBytes?
}
