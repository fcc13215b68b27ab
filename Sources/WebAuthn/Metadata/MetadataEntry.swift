import Foundation

/// One `MetadataBLOBPayloadEntry`: an authenticator model, its statement and its status history.
public struct MetadataEntry: Sendable, Decodable {
    /// The FIDO2 model identifier (16 bytes); nil for UAF and U2F entries.
    public let aaguid: [UInt8]?
    /// The UAF model identifier.
    public let aaid: String?
    /// U2F (and some FIDO2) models: lowercase hexadecimal SHA-1 key identifiers of attestation certificates.
    public let attestationCertificateKeyIdentifiers: [String]
    public let metadataStatement: MetadataStatement?
    public let statusReports: [StatusReport]
    /// `YYYY-MM-DD` of the latest status change, as written.
    public let timeOfLastStatusChange: String?

    public init(aaguid: [UInt8]?, aaid: String? = nil, attestationCertificateKeyIdentifiers: [String] = [],
                metadataStatement: MetadataStatement?, statusReports: [StatusReport], timeOfLastStatusChange: String? = nil) {
        self.aaguid = aaguid
        self.aaid = aaid
        self.attestationCertificateKeyIdentifiers = attestationCertificateKeyIdentifiers
        self.metadataStatement = metadataStatement
        self.statusReports = statusReports
        self.timeOfLastStatusChange = timeOfLastStatusChange
    }

    /// The model's description, for display.
    public var description: String? { metadataStatement?.description }

    /// The roots attestations of this model chain to (empty without a statement).
    public var attestationRootCertificates: [X509Certificate] { metadataStatement?.attestationRootCertificates ?? [] }

    /// The status report in force at `time` (now when nil): the latest one whose effective date has come.
    public func latestStatusReport(at time: Date? = nil) -> StatusReport? {
        statusReports.latest(at: time ?? Date())
    }

    private enum CodingKeys: String, CodingKey {
        case aaguid, aaid, attestationCertificateKeyIdentifiers, metadataStatement, statusReports, timeOfLastStatusChange
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        aaguid = try AAGUID.decodeIfPresent(from: container, forKey: .aaguid)
        aaid = try container.decodeIfPresent(String.self, forKey: .aaid)
        attestationCertificateKeyIdentifiers = (try container.decodeIfPresent([String].self, forKey: .attestationCertificateKeyIdentifiers) ?? [])
            .map { $0.lowercased() }
        metadataStatement = try container.decodeIfPresent(MetadataStatement.self, forKey: .metadataStatement)
        if let aaguid, let stated = metadataStatement?.aaguid, stated != aaguid {
            throw DecodingError.dataCorruptedError(
                forKey: .metadataStatement, in: container,
                debugDescription: "the statement's aaguid \(AAGUID.string(stated)) differs from the entry's \(AAGUID.string(aaguid))")
        }
        statusReports = try container.decode([StatusReport].self, forKey: .statusReports)
        timeOfLastStatusChange = try container.decodeIfPresent(String.self, forKey: .timeOfLastStatusChange)
    }
}
