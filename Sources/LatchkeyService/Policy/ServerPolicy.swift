import Foundation
import LatchkeyStore

/// What the service decides that WebAuthn leaves to the relying party, as values. The
/// configuration's `conformanceMode` sets them together to what the FIDO conformance tools need
/// (``conformance``); everything else runs with ``standard``. The core's share of conformance mode
/// (user presence, token binding) lives in ``WebAuthn/RelyingParty``.
public struct ServerPolicy: Sendable, Equatable {
    /// Who may ask for registration options for a username that exists already.
    public enum ExistingUsernameRegistration: Sendable, Equatable {
        /// Only that user, signed in: anyone else gets 403.
        case ownerSignedIn
        /// Anyone: the conformance tools register several passkeys under one name without signing in.
        case anyone
    }

    /// Who may ask for registration options for a username that does not exist yet.
    public enum NewUsernameRegistration: Sendable, Equatable {
        /// Anyone: the first to ask owns the name.
        case open
        /// Only the bearer of an enrollment ticket, which names an existing user: a backend owns
        /// the accounts and creates users through the admin API.
        case ticketRequired
    }

    /// Which display name creation options carry for an existing user.
    public enum OptionsDisplayName: Sendable, Equatable {
        /// The stored one; a request cannot rename the user.
        case stored
        /// The one the request sent, as the conformance tools compare it.
        case requested
    }

    /// How requests from other origins are treated.
    public enum CrossOriginRequests: Sendable, Equatable {
        /// Only the relying party's own origins: a state-changing request whose `Origin` is not one
        /// of `origins` or `relatedOrigins`, or that the browser marks `Sec-Fetch-Site: cross-site`
        /// without such an `Origin`, is refused, and CORS answers the configured `corsOrigins` only.
        case configuredOrigins
        /// CORS with credentials for any origin and no cross-site guard (the conformance tool's
        /// page calls from its own).
        case anyOriginWithCredentials
    }

    /// Whether the rate limit and the cap on pending challenges apply per client address.
    public enum ClientAddressLimits: Sendable, Equatable {
        /// As configured (`rateLimit`, `pendingChallengesPerClient`).
        case enforced
        /// Off: the conformance tools run every test from one address, as fast as they can.
        case off
    }

    public var existingUsernameRegistration: ExistingUsernameRegistration
    public var newUsernameRegistration: NewUsernameRegistration
    public var optionsDisplayName: OptionsDisplayName
    public var crossOriginRequests: CrossOriginRequests
    /// Cookies `SameSite=None` (over https) so a cross-origin caller gets them back.
    public var crossSiteCookies: Bool
    /// User verification, resident key and attestation conveyance, whatever the client asks.
    public var ceremonies: CeremonyPolicy
    public var clientAddressLimits: ClientAddressLimits
    /// How recent a session's sign-in must be for it to add a passkey or enroll a device key; nil:
    /// any live session may.
    public var addingKeysNeedsSignInWithin: TimeInterval?

    public init(
        existingUsernameRegistration: ExistingUsernameRegistration, optionsDisplayName: OptionsDisplayName,
        crossOriginRequests: CrossOriginRequests, crossSiteCookies: Bool, ceremonies: CeremonyPolicy,
        clientAddressLimits: ClientAddressLimits = .enforced, newUsernameRegistration: NewUsernameRegistration = .open
    ) {
        self.existingUsernameRegistration = existingUsernameRegistration
        self.newUsernameRegistration = newUsernameRegistration
        self.optionsDisplayName = optionsDisplayName
        self.crossOriginRequests = crossOriginRequests
        self.crossSiteCookies = crossSiteCookies
        self.ceremonies = ceremonies
        self.clientAddressLimits = clientAddressLimits
    }

    /// Refuses (403, `reauthenticationRequired`) a session that signed in longer ago than
    /// ``addingKeysNeedsSignInWithin`` allows for `adding` a key.
    package func requireRecentSignIn(of session: SessionRecord, now: Date = Date(), adding key: String) throws(ServiceError) {
        guard let window = addingKeysNeedsSignInWithin else { return }
        let age = now.timeIntervalSince(session.createdAt)
        guard age > window else { return }
        throw ServiceError(
            .forbidden,
            "sign in again to add \(key): this session signed in \(Self.seconds(Int(age))) ago, and adding one needs a sign-in within the last \(Self.seconds(Int(window)))",
            reason: .reauthenticationRequired)
    }

    /// `1 second`, `300 seconds`.
    package static func seconds(_ count: Int) -> String { count == 1 ? "1 second" : "\(count) seconds" }

    /// Production behaviour, with the default ceremony minimums.
    public static let standard = ServerPolicy(
        existingUsernameRegistration: .ownerSignedIn, optionsDisplayName: .stored,
        crossOriginRequests: .configuredOrigins, crossSiteCookies: false, ceremonies: CeremonyPolicy())

    /// What the FIDO conformance tools need. Never for production.
    public static let conformance = ServerPolicy(
        existingUsernameRegistration: .anyone, optionsDisplayName: .requested,
        crossOriginRequests: .anyOriginWithCredentials, crossSiteCookies: true,
        ceremonies: CeremonyPolicy(userVerification: .discouraged, residentKey: .discouraged, clientChoices: .takenAsAsked),
        clientAddressLimits: .off)
}
