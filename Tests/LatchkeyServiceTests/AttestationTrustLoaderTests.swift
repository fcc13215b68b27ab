import Foundation
import LatchkeyConfiguration
import Logging
import Testing
import WebAuthn
@testable import LatchkeyService

/// The trust the server verifies registrations with, loaded once at start (and by `check-config`).
@Suite("Attestation trust loading")
struct AttestationTrustLoaderTests {
    static let appleRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Config/roots/apple/apple-webauthn-root-ca.pem")

    /// A configuration whose anchor folders are empty temporary ones, and whose BLOB does not exist.
    func emptyTrust() throws -> (LatchkeyConfiguration, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-trust-\(UUID().uuidString)")
        var configuration = LatchkeyConfiguration()
        configuration.shippedTrustAnchors = folder.appendingPathComponent("roots").path
        configuration.trustAnchors = folder.appendingPathComponent("anchors").path
        configuration.metadataBLOB = folder.appendingPathComponent("mds-blob.jwt").path
        for path in [configuration.shippedTrustAnchors, configuration.trustAnchors] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        return (configuration, folder)
    }

    @Test(arguments: [AttestationPolicy.Mode.selfOrTrusted, .trustedOnly])
    func aStrictPolicyNeedsATrustAnchor(policy: AttestationPolicy.Mode) throws {
        var (configuration, folder) = try emptyTrust()
        _ = try AttestationTrustLoader.load(configuration, logger: Logger(label: "test"))  // the default policy needs none
        configuration.attestationPolicy = policy
        let error = #expect(throws: ConfigurationError.self) { try AttestationTrustLoader.load(configuration, logger: Logger(label: "test")) }
        let path = folder.path
        #expect(error?.message == "attestationPolicy (LATCHKEY_ATTESTATION_POLICY): \(policy.rawValue) needs a trust anchor, and there is "
            + "none: no certificate in \(path)/roots or \(path)/anchors, and no metadata BLOB with roots at \(path)/mds-blob.jwt, "
            + "so every registration would be refused")
        // One anchor, configured or shipped, is enough; an App Attest root in the shipped roots is not one.
        let appAttestFolder = URL(fileURLWithPath: configuration.shippedTrustAnchors).appendingPathComponent("apple-appattest")
        try FileManager.default.createDirectory(at: appAttestFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.appleRoot, to: appAttestFolder.appendingPathComponent("root.pem"))
        #expect(throws: ConfigurationError.self) { try AttestationTrustLoader.load(configuration, logger: Logger(label: "test")) }
        try FileManager.default.copyItem(at: Self.appleRoot, to: URL(fileURLWithPath: configuration.trustAnchors).appendingPathComponent("apple.pem"))
        _ = try AttestationTrustLoader.load(configuration, logger: Logger(label: "test"))
    }
}
