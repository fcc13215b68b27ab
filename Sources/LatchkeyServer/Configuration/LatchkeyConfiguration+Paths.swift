import Foundation
import WebAuthn

/// The files and folders a configuration names: resolved against one home, and checked to exist
/// where the server needs them, so that a configuration that passes also works.
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
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            guard required else { return nil }
            return kind == .folder ? "folder \(path) does not exist" : "file \(path) does not exist"
        }
        switch (kind, isFolder.boolValue) {
        case (.folder, false): return "\(path) is a file, not a folder"
        case (.file, true): return "\(path) is a folder, not a file"
        default: return nil
        }
    }

    /// Whether `path` names a file (not a folder) that exists.
    static func isFile(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }

    /// Problems of the installation itself, which no key sets: the roots shipped with Latchkey.
    var installationProblems: [String] {
        guard let problem = Self.pathProblem(shippedTrustAnchors, .folder, required: true) else { return [] }
        let hint = "the roots shipped with Latchkey (Apple, Google) live there; "
            + (home.isEmpty ? "start latchkey from its installation folder" : "is \(home) the installation folder? Set \(LatchkeyHome.variable) to it")
        return [ConfigurationError.line(key: "shippedTrustAnchors", source: .derived("under the home"), "\(problem): \(hint)")]
    }

    /// A strict attestation policy with nothing to trust refuses every registration.
    static func attestationPolicyProblem(_ mode: AttestationPolicy.Mode, _ configuration: LatchkeyConfiguration) -> String? {
        guard mode != .none, configuration.attestationRootCount == 0 else { return nil }
        return "\(mode.rawValue) needs a trust anchor, and there is none: no certificate in \(configuration.shippedTrustAnchors) "
            + "or \(configuration.trustAnchors), and no metadata BLOB with roots at \(configuration.metadataBLOB), "
            + "so every registration would be refused"
    }

    /// How many attestation roots the server would load: shipped, configured and, when there are
    /// none of those and a metadata BLOB is present, the roots its entries name. `nil` when the
    /// anchor folders cannot be read: loading them reports that, and a count would only add noise.
    var attestationRootCount: Int? {
        guard let anchors = try? TrustAnchors.load(directories: [shippedTrustAnchors, trustAnchors]) else { return nil }
        guard anchors.count == 0, Self.isFile(metadataBLOB) else { return anchors.count }
        // A BLOB that cannot be verified anchors nothing (and is reported when it is loaded).
        let metadata = try? AttestationTrustLoader.loadMetadata(from: metadataBLOB, configuration: self)
        return metadata?.blob.entries.reduce(0) { $0 + $1.attestationRootCertificates.count } ?? 0
    }
}
