import Foundation

/// A FIDO Metadata Service `AuthenticatorStatus` value. Values this version does not know are kept
/// as read, so a BLOB with a newer status still loads.
///
/// Registration is refused when an authenticator model's latest status is in ``refused``:
/// REVOKED, ATTESTATION_KEY_COMPROMISE, USER_VERIFICATION_BYPASS, USER_KEY_REMOTE_COMPROMISE and
/// USER_KEY_PHYSICAL_COMPROMISE, each of which says keys or user verification of the model cannot be
/// relied on. The other statuses are accepted: the certification levels, NOT_FIDO_CERTIFIED and
/// SELF_ASSERTION_SUBMITTED describe certification, not a defect (the attestation policy and the
/// AAGUID lists decide about uncertified models); UPDATE_AVAILABLE and RETIRED describe firmware and
/// vendor support; unknown values are accepted rather than refusing models for a status not yet
/// understood. A ``MetadataService`` can be given a different set.
public struct AuthenticatorStatus: RawRepresentable, Hashable, Sendable, Decodable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public var description: String { rawValue }

    public static let notFIDOCertified = AuthenticatorStatus(rawValue: "NOT_FIDO_CERTIFIED")
    public static let fidoCertified = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED")
    public static let userVerificationBypass = AuthenticatorStatus(rawValue: "USER_VERIFICATION_BYPASS")
    public static let attestationKeyCompromise = AuthenticatorStatus(rawValue: "ATTESTATION_KEY_COMPROMISE")
    public static let userKeyRemoteCompromise = AuthenticatorStatus(rawValue: "USER_KEY_REMOTE_COMPROMISE")
    public static let userKeyPhysicalCompromise = AuthenticatorStatus(rawValue: "USER_KEY_PHYSICAL_COMPROMISE")
    public static let updateAvailable = AuthenticatorStatus(rawValue: "UPDATE_AVAILABLE")
    public static let retired = AuthenticatorStatus(rawValue: "RETIRED")
    public static let revoked = AuthenticatorStatus(rawValue: "REVOKED")
    public static let selfAssertionSubmitted = AuthenticatorStatus(rawValue: "SELF_ASSERTION_SUBMITTED")
    public static let fidoCertifiedL1 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L1")
    public static let fidoCertifiedL1Plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L1plus")
    public static let fidoCertifiedL2 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L2")
    public static let fidoCertifiedL2Plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L2plus")
    public static let fidoCertifiedL3 = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L3")
    public static let fidoCertifiedL3Plus = AuthenticatorStatus(rawValue: "FIDO_CERTIFIED_L3plus")

    /// The statuses that refuse registration by default (see the type's documentation).
    public static let refused: Set<AuthenticatorStatus> = [
        .revoked, .attestationKeyCompromise, .userVerificationBypass, .userKeyRemoteCompromise, .userKeyPhysicalCompromise,
    ]
}

/// One `StatusReport` of a metadata entry: a status and the day it took effect.
public struct StatusReport: Sendable, Decodable {
    public let status: AuthenticatorStatus
    /// `YYYY-MM-DD` as written; nil when the report carries no date.
    public let effectiveDate: String?
    /// ``effectiveDate`` at 00:00 UTC.
    public let effectiveDay: Date?
    /// The firmware version the report applies to, when given.
    public let authenticatorVersion: UInt64?
    /// For ATTESTATION_KEY_COMPROMISE: the compromised certificate (base64 DER), when only one is.
    public let certificate: String?
    public let url: String?

    public init(status: AuthenticatorStatus, effectiveDate: String? = nil, authenticatorVersion: UInt64? = nil, certificate: String? = nil, url: String? = nil) {
        self.status = status
        self.effectiveDate = effectiveDate
        self.effectiveDay = effectiveDate.flatMap(MetadataDate.parse)
        self.authenticatorVersion = authenticatorVersion
        self.certificate = certificate
        self.url = url
    }

    private enum CodingKeys: String, CodingKey {
        case status, effectiveDate, authenticatorVersion, certificate, url
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(AuthenticatorStatus.self, forKey: .status)
        effectiveDate = try container.decodeIfPresent(String.self, forKey: .effectiveDate)
        if let effectiveDate {
            guard let day = MetadataDate.parse(effectiveDate) else {
                throw DecodingError.dataCorruptedError(forKey: .effectiveDate, in: container, debugDescription: "\"\(effectiveDate)\" is not a YYYY-MM-DD date")
            }
            effectiveDay = day
        } else {
            effectiveDay = nil
        }
        authenticatorVersion = try container.decodeIfPresent(UInt64.self, forKey: .authenticatorVersion)
        certificate = try container.decodeIfPresent(String.self, forKey: .certificate)
        url = try container.decodeIfPresent(String.self, forKey: .url)
    }
}

extension Array where Element == StatusReport {
    /// The report in force at `time`: the one with the latest effective date not after `time`;
    /// undated reports count as effective since always, and among equal dates the later one in the
    /// array wins. Nil when no report is in force yet.
    func latest(at time: Date) -> StatusReport? {
        var best: StatusReport?
        for report in self {
            let day = report.effectiveDay ?? .distantPast
            guard day <= time else { continue }
            if let current = best, (current.effectiveDay ?? .distantPast) > day { continue }
            best = report
        }
        return best
    }
}
