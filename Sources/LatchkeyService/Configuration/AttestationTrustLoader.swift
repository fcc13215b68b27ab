import Foundation
import LatchkeyConfiguration
import Logging
import WebAuthn

/// Builds the attestation trust the server verifies registrations with: the shipped roots, the
/// configured anchor folder and, when a metadata BLOB is present, FIDO metadata (roots per
/// authenticator model and status reports).
public enum AttestationTrustLoader {
    /// Loads everything; a broken anchor file or metadata BLOB stops the server with a message.
    public static func load(_ configuration: LatchkeyConfiguration, logger: Logger) throws -> AttestationTrust {
        var anchors = try Self.anchors(in: [configuration.shippedTrustAnchors, configuration.trustAnchors], for: "trustAnchors")
        // Apple's App Attestation root vouches for App Attest keys, never for passkeys.
        var byFormat = anchors.certificatesByFormat
        byFormat[AppAttestAttestationVerifier.format] = nil
        anchors = TrustAnchors(anchors.certificates, byFormat: byFormat)
        // A subfolder anchors the format it is named after; a misspelt one would anchor nothing.
        let formats = AttestationFormats.all.identifiers
        if let unknown = anchors.certificatesByFormat.keys.sorted().first(where: { !formats.contains($0) }) {
            throw ConfigurationError("trustAnchors (LATCHKEY_TRUST_ANCHORS): subfolder \"\(unknown)\" is not an attestation format (\(formats.sorted().joined(separator: ", ")))")
        }
        var trust = AttestationTrust(policy: configuration.attestation, anchors: anchors)
        var metadataRoots = 0
        if FileManager.default.fileExists(atPath: configuration.metadataBLOB) {
            let metadata = try Self.metadata(fromFile: configuration.metadataBLOB, configuration)
            if metadata.blob.isOutdated() {
                logger.warning("the metadata BLOB is past its nextUpdate; import a newer one", metadata: ["nextUpdate": "\(metadata.blob.nextUpdate)"])
            }
            trust.modelAnchors = metadata
            trust.statusSource = metadata
            metadataRoots = metadata.blob.entries.reduce(0) { $0 + $1.attestationRootCertificates.count }
            logger.info("metadata loaded", metadata: ["entries": "\(metadata.blob.entries.count)", "no": "\(metadata.blob.number)"])
        }
        // A strict policy with nothing to trust would refuse every registration.
        if configuration.attestationPolicy != .none, anchors.count + metadataRoots == 0 {
            throw ConfigurationError("attestationPolicy (LATCHKEY_ATTESTATION_POLICY): \(configuration.attestationPolicy.rawValue) "
                + "needs a trust anchor, and there is none: no certificate in \(configuration.shippedTrustAnchors) or "
                + "\(configuration.trustAnchors), and no metadata BLOB with roots at \(configuration.metadataBLOB), "
                + "so every registration would be refused")
        }
        logger.info("trust anchors loaded", metadata: ["count": "\(anchors.count)", "policy": "\(configuration.attestationPolicy.rawValue)"])
        return trust
    }

    /// Reads and verifies a metadata BLOB file against the configured metadata roots.
    public static func metadata(fromFile path: String, _ configuration: LatchkeyConfiguration) throws -> MetadataService {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("metadataBLOB (LATCHKEY_METADATA_BLOB): cannot read \(path)")
        }
        return try metadata(String(decoding: bytes, as: UTF8.self), source: path, configuration)
    }

    /// Verifies a metadata BLOB's text against the configured metadata roots.
    public static func metadata(_ text: String, source path: String, _ configuration: LatchkeyConfiguration) throws -> MetadataService {
        let folder = configuration.metadataRoots
        let roots = try anchors(in: [folder], for: "metadataRoots").certificates
        guard !roots.isEmpty else {
            throw ConfigurationError("metadataRoots (LATCHKEY_METADATA_ROOTS): no PEM root in \(folder) to verify the metadata BLOB with")
        }
        do {
            return MetadataService(blob: try MetadataBLOB.verify(jwt: text, roots: roots))
        } catch let error as WebAuthnError {
            throw ConfigurationError("metadataBLOB (LATCHKEY_METADATA_BLOB): \(path) was refused: \(error.message)")
        }
    }

    /// The roots App Attest chains may end in: Apple's App Attestation Root CA shipped in
    /// `Config/roots/apple-appattest`, and the test roots of `appAttestTestRoots` when set.
    public static func appAttestRoots(_ configuration: LatchkeyConfiguration, logger: Logger) throws -> [X509Certificate] {
        let shipped = URL(fileURLWithPath: configuration.shippedTrustAnchors).appendingPathComponent(AppAttestAttestationVerifier.format).path
        var roots = try anchors(in: [shipped], for: "appAttest").certificates
        guard !roots.isEmpty else {
            throw ConfigurationError("appAttest (LATCHKEY_APP_ATTEST): Apple's App Attestation Root CA is missing from \(shipped)")
        }
        if !configuration.appAttestTestRoots.isEmpty {
            let testRoots = try anchors(in: [configuration.appAttestTestRoots], for: "appAttestTestRoots").certificates
            roots += testRoots
            // The configuration's warnings say what this means; the log says how many.
            logger.info("App Attest test roots loaded", metadata: ["roots": "\(testRoots.count)", "folder": "\(configuration.appAttestTestRoots)"])
        }
        return roots
    }

    /// The certificates in `folders`; a folder or file that cannot be read is a problem of the key `key` names them by.
    private static func anchors(in folders: [String], for key: String) throws(ConfigurationError) -> TrustAnchors {
        let named = "\(key) (\(LatchkeyConfiguration.environmentName(of: key)))"
        do {
            return try TrustAnchors.load(directories: folders)
        } catch let error as WebAuthnError {
            throw ConfigurationError("\(named): \(error.message)")
        } catch {
            throw ConfigurationError("\(named): cannot read \(folders.joined(separator: " or ")): \(error.localizedDescription)")
        }
    }
}
