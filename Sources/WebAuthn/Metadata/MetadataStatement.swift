/// The parts of a FIDO `MetadataStatement` Latchkey uses; other members are ignored.
public struct MetadataStatement: Sendable, Decodable {
    /// A human-readable, short description of the authenticator model, for display.
    public let description: String?
    /// The FIDO2 model identifier (16 bytes), when the statement names one.
    public let aaguid: [UInt8]?
    /// "fido2", "u2f" or "uaf".
    public let protocolFamily: String?
    public let authenticatorVersion: UInt64?
    /// The attestation types the model supports ("basic_full", "basic_surrogate", "attca", ...).
    public let attestationTypes: [String]
    /// The roots an attestation of this model must chain to.
    public let attestationRootCertificates: [X509Certificate]

    public init(description: String?, aaguid: [UInt8]? = nil, protocolFamily: String? = nil, authenticatorVersion: UInt64? = nil,
                attestationTypes: [String] = [], attestationRootCertificates: [X509Certificate] = []) {
        self.description = description
        self.aaguid = aaguid
        self.protocolFamily = protocolFamily
        self.authenticatorVersion = authenticatorVersion
        self.attestationTypes = attestationTypes
        self.attestationRootCertificates = attestationRootCertificates
    }

    private enum CodingKeys: String, CodingKey {
        case description, aaguid, protocolFamily, authenticatorVersion, attestationTypes, attestationRootCertificates
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        aaguid = try AAGUID.decodeIfPresent(from: container, forKey: .aaguid)
        protocolFamily = try container.decodeIfPresent(String.self, forKey: .protocolFamily)
        authenticatorVersion = try container.decodeIfPresent(UInt64.self, forKey: .authenticatorVersion)
        attestationTypes = try container.decodeIfPresent([String].self, forKey: .attestationTypes) ?? []
        var roots: [X509Certificate] = []
        for (index, text) in (try container.decodeIfPresent([String].self, forKey: .attestationRootCertificates) ?? []).enumerated() {
            guard let der = StandardBase64.decode(text), let certificate = try? X509Certificate(der: der) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .attestationRootCertificates, in: container,
                    debugDescription: "attestation root certificate \(index) is not base64 of a DER X.509 certificate")
            }
            roots.append(certificate)
        }
        attestationRootCertificates = roots
    }
}
