/// What the relying party requires of attestation (WebAuthn §7.1 steps 22-23), as a value.
public struct AttestationPolicy: Sendable, Equatable {
    /// How much trust a registration must establish.
    public enum Mode: String, Sendable, CaseIterable {
        /// Accept every attestation, keeping the statement; chains are checked and the outcome recorded,
        /// never refused for lack of trust (a statement whose certificates cannot be parsed still is).
        case none
        /// Accept self attestation and chains that verify to a trust anchor; refuse `none` and unknown authenticators.
        case selfOrTrusted = "self-or-trusted"
        /// Accept only chains that verify to a trust anchor.
        case trustedOnly = "trusted-only"
    }

    public var mode: Mode
    /// When set, only authenticator models (AAGUIDs, 16 bytes) in this set may register.
    public var allowedAAGUIDs: Set<[UInt8]>?
    /// Authenticator models that may never register.
    public var deniedAAGUIDs: Set<[UInt8]>
    /// Accept RS1 (RSASSA-PKCS1-v1_5 with SHA-1) credential and attestation signatures. Off by default;
    /// the FIDO conformance tools need it.
    public var allowSHA1: Bool

    public init(mode: Mode = .none, allowedAAGUIDs: Set<[UInt8]>? = nil, deniedAAGUIDs: Set<[UInt8]> = [], allowSHA1: Bool = false) {
        self.mode = mode
        self.allowedAAGUIDs = allowedAAGUIDs
        self.deniedAAGUIDs = deniedAAGUIDs
        self.allowSHA1 = allowSHA1
    }

    /// Whether `/attestation/options` should ask authenticators for a `direct` statement.
    public var wantsAttestationStatement: Bool { mode != .none }
}
