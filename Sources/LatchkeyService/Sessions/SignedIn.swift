import Foundation
import LatchkeyStore
import WebAuthn

/// How every ceremony that signs a user in ends (a passkey sign-in, a device key's, a first registration or
/// one under a ticket): the session started in the same transaction as the ceremony's record, and the signed
/// sign-in token saying who signed in, with what.
package struct SignedIn: Sendable {
    package let user: UserRecord
    /// The passkey's credential ID, or the device key's ID.
    package let credentialID: [UInt8]
    package let userVerified: Bool
    package let session: Sessions.Started
    /// Nil when `signInTokens` is off.
    package let idToken: String?
}

/// Options issued with their challenge, and the bindings the client's binding carrier is to hold from now on.
package struct IssuedOptions<Options: Sendable>: Sendable {
    package let options: Options
    package let bindings: [[UInt8]]
}
