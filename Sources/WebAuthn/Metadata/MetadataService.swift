import Foundation

/// The contents of a verified metadata BLOB, looked up by AAGUID: trust anchors for attestation,
/// a status veto for registration, and descriptions for display.
///
/// Use it both as ``AttestationTrust/modelAnchors`` and as
/// ``AttestationTrust/statusSource``.
public struct MetadataService: TrustAnchorSource, AuthenticatorStatusSource {
    public let blob: MetadataBLOB
    /// Statuses that refuse registration when they are a model's latest.
    public let refusedStatuses: Set<AuthenticatorStatus>
    private let entriesByAAGUID: [[UInt8]: [MetadataEntry]]

    public init(blob: MetadataBLOB, refusedStatuses: Set<AuthenticatorStatus> = AuthenticatorStatus.refused) {
        self.blob = blob
        self.refusedStatuses = refusedStatuses
        var index: [[UInt8]: [MetadataEntry]] = [:]
        for entry in blob.entries {
            if let aaguid = entry.aaguid { index[aaguid, default: []].append(entry) }
        }
        entriesByAAGUID = index
    }

    /// Every entry for `aaguid` (normally one).
    public func entries(aaguid: [UInt8]) -> [MetadataEntry] {
        entriesByAAGUID[aaguid] ?? []
    }

    /// The entry for `aaguid`, if the BLOB has one.
    public func entry(aaguid: [UInt8]) -> MetadataEntry? {
        entries(aaguid: aaguid).first
    }

    /// The model's description from its metadata statement, for display.
    public func description(aaguid: [UInt8]) -> String? {
        entries(aaguid: aaguid).lazy.compactMap(\.description).first
    }

    /// The model's status in force at `time` (now when nil); nil for unknown models.
    public func status(aaguid: [UInt8], at time: Date? = nil) -> AuthenticatorStatus? {
        entry(aaguid: aaguid)?.latestStatusReport(at: time)?.status
    }

    /// The attestation root certificates of the model's statement, whatever the format.
    public func anchors(format: String, aaguid: [UInt8]) -> [X509Certificate] {
        entries(aaguid: aaguid).flatMap(\.attestationRootCertificates)
    }

    /// Names the refused status in force for the model, if any. An ATTESTATION_KEY_COMPROMISE report
    /// refuses the whole model even when it names one compromised certificate.
    public func refusalReason(aaguid: [UInt8], at time: Date?) -> String? {
        for entry in entries(aaguid: aaguid) {
            guard let report = entry.latestStatusReport(at: time), refusedStatuses.contains(report.status) else { continue }
            let since = report.effectiveDate.map { " since \($0)" } ?? ""
            return "its FIDO metadata status is \(report.status.rawValue)\(since)"
        }
        return nil
    }
}
