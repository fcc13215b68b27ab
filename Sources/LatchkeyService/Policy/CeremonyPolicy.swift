import WebAuthn

/// What the server requires of every ceremony, whatever the client asks: a client may ask for
/// more user verification, a stronger resident-key requirement or more attestation, never less.
/// Options carry the effective values, and results are checked against them again.
public struct CeremonyPolicy: Sendable, Equatable {
    /// How the client's own choices in an options request are treated.
    public enum ClientChoices: Sendable, Equatable {
        /// Raised to the server's minimums (production).
        case raisedToMinimums
        /// Taken as asked and echoed unchanged: the FIDO conformance tools compare options with
        /// what they sent.
        case takenAsAsked
    }

    /// The least user verification a ceremony may ask for.
    public var userVerification: UserVerificationRequirement
    /// The least resident-key requirement a registration may ask for. `required` by default:
    /// passkeys are discoverable credentials, and usernameless sign-in depends on it.
    public var residentKey: ResidentKeyRequirement
    public var clientChoices: ClientChoices

    public init(
        userVerification: UserVerificationRequirement = .preferred, residentKey: ResidentKeyRequirement = .required,
        clientChoices: ClientChoices = .raisedToMinimums
    ) {
        self.userVerification = userVerification
        self.residentKey = residentKey
        self.clientChoices = clientChoices
    }

    /// The user verification a ceremony runs with when the client asked for `requested`.
    public func userVerification(requested: UserVerificationRequirement?) -> UserVerificationRequirement {
        switch clientChoices {
        case .takenAsAsked: return requested ?? .preferred
        case .raisedToMinimums: return Self.stronger(requested ?? userVerification, userVerification, order: [.discouraged, .preferred, .required])
        }
    }

    /// The resident-key requirement a registration runs with when the client asked for `requested`.
    public func residentKey(requested: ResidentKeyRequirement?) -> ResidentKeyRequirement? {
        switch clientChoices {
        case .takenAsAsked: return requested
        case .raisedToMinimums: return Self.stronger(requested ?? residentKey, residentKey, order: [.discouraged, .preferred, .required])
        }
    }

    /// The attestation conveyance a registration asks for when the client asked for `requested` and
    /// the attestation policy needs a statement (`direct`) or not (`none`) to judge the authenticator.
    public func attestation(requested: AttestationConveyance?, policyNeedsStatement: Bool) -> AttestationConveyance {
        let floor: AttestationConveyance = policyNeedsStatement ? .direct : .none
        switch clientChoices {
        case .takenAsAsked: return requested ?? floor
        case .raisedToMinimums: return Self.stronger(requested ?? floor, floor, order: [.none, .indirect, .direct, .enterprise])
        }
    }

    /// The later of `a` and `b` in `order`.
    private static func stronger<Value: Equatable>(_ a: Value, _ b: Value, order: [Value]) -> Value {
        (order.firstIndex(of: a) ?? 0) >= (order.firstIndex(of: b) ?? 0) ? a : b
    }
}
