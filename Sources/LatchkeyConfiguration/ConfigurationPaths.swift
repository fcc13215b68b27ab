import Foundation
import WebAuthn

/// Files and folders: resolved against one home, and checked to exist where the server needs them.
extension LatchkeyConfiguration {
    /// The configuration with every path key (and the shipped roots) made absolute against `home`.
    public func resolvingPaths(against home: LatchkeyHome) -> LatchkeyConfiguration {
        var resolved = self
        resolved.home = home.path
        for key in Self.keys where key.isPath {
            guard case .string(let path) = key.get(resolved) else { continue }
            _ = key.set(&resolved, .string(home.resolve(path)))
        }
        resolved.shippedTrustAnchors = home.resolve(shippedTrustAnchors)
        return resolved
    }

    /// `path` as the loader resolves it: against ``home`` when the paths were resolved.
    func resolvedPath(_ path: String) -> String {
        home.isEmpty ? path : LatchkeyHome.resolve(path, against: home)
    }

    /// What is wrong with a path: missing when `required`, or not of its kind when it exists.
    static func pathProblem(_ path: String, _ kind: ConfigurationKey.PathKind, required: Bool) -> String? {
        switch (kind, pathKind(path)) {
        case (_, nil): required ? "\(kind.rawValue) \(path) does not exist" : nil
        case (.folder, .file): "\(path) is a file, not a folder"
        case (.file, .folder): "\(path) is a folder, not a file"
        default: nil
        }
    }

    /// Whether `path` names a file or a folder; nil when it names nothing.
    static func pathKind(_ path: String) -> ConfigurationKey.PathKind? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return nil }
        return isFolder.boolValue ? .folder : .file
    }

    static func isFile(_ path: String) -> Bool { pathKind(path) == .file }

    /// Problems of the installation itself, which no key sets: the roots shipped with Latchkey.
    var installationProblems: [String] {
        guard let problem = Self.pathProblem(shippedTrustAnchors, .folder, required: true) else { return [] }
        let hint = "the roots shipped with Latchkey (Apple, Google) live there; " + (home.isEmpty
            ? "start latchkey from its installation folder"
            : "is \(home) the installation folder? Set \(LatchkeyHome.variable) to it")
        return ["shippedTrustAnchors (\(ConfigurationSource.derived("under the home"))): \(problem): \(hint)"]
    }

    /// A strict attestation policy with nothing to trust would refuse every registration.
    static func attestationPolicyProblem(_ mode: AttestationPolicy.Mode, _ configuration: LatchkeyConfiguration) -> String? {
        guard mode != .none, configuration.attestationRootCount == 0 else { return nil }
        return "\(mode.rawValue) needs a trust anchor, and there is none: no certificate in \(configuration.shippedTrustAnchors) "
            + "or \(configuration.trustAnchors), and no metadata BLOB with roots at \(configuration.metadataBLOB), "
            + "so every registration would be refused"
    }

    /// How many attestation roots the server would load: shipped, configured and, when there are none of those and a
    /// metadata BLOB is present, the roots its entries name. Nil when the anchor folders cannot be read: loading them
    /// reports that, and a count would only add noise.
    var attestationRootCount: Int? {
        guard let anchors = try? TrustAnchors.load(directories: [shippedTrustAnchors, trustAnchors]) else { return nil }
        guard anchors.count == 0, Self.isFile(metadataBLOB) else { return anchors.count }
        // A BLOB that cannot be verified anchors nothing (and is reported when it is loaded).
        let metadata = try? loadMetadata(from: metadataBLOB)
        return metadata?.blob.entries.reduce(0) { $0 + $1.attestationRootCertificates.count } ?? 0
    }

    /// Reads and verifies a metadata BLOB file against the configured metadata roots.
    public func loadMetadata(from path: String) throws -> MetadataService {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("metadataBLOB (LATCHKEY_METADATA_BLOB): cannot read \(path)")
        }
        return try metadata(String(decoding: bytes, as: UTF8.self), source: path)
    }

    /// Verifies a metadata BLOB's text against the configured metadata roots.
    public func metadata(_ text: String, source path: String) throws -> MetadataService {
        let roots: [X509Certificate]
        do {
            roots = try TrustAnchors.load(directories: [metadataRoots]).certificates
        } catch let error as WebAuthnError {
            throw ConfigurationError("metadataRoots (LATCHKEY_METADATA_ROOTS): \(error.message)")
        }
        guard !roots.isEmpty else {
            throw ConfigurationError("metadataRoots (LATCHKEY_METADATA_ROOTS): no PEM root in \(metadataRoots) to verify the metadata BLOB with")
        }
        do {
            return MetadataService(blob: try MetadataBLOB.verify(jwt: text, roots: roots))
        } catch let error as WebAuthnError {
            throw ConfigurationError("metadataBLOB (LATCHKEY_METADATA_BLOB): \(path) was refused: \(error.message)")
        }
    }
}
