import Foundation

/// Vetoes authenticator models whose certification status forbids registration, for example from
/// FIDO metadata status reports (``MetadataService``).
public protocol AuthenticatorStatusSource: Sendable {
    /// Why model `aaguid` must not register at `time` (now when nil), naming the status; nil when it may.
    func refusalReason(aaguid: [UInt8], at time: Date?) -> String?
}
