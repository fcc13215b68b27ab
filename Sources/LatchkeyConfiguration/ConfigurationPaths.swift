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

    /// Problems of the installation itself, which no key sets: the roots shipped with Latchkey.
    var installationProblems: [String] {
        guard let problem = Self.pathProblem(shippedTrustAnchors, .folder, required: true) else { return [] }
        let hint = "the roots shipped with Latchkey (Apple, Google) live there; " + (home.isEmpty
            ? "start latchkey from its installation folder"
            : "is \(home) the installation folder? Set \(LatchkeyHome.variable) to it")
        return ["shippedTrustAnchors (\(ConfigurationSource.derived("under the home"))): \(problem): \(hint)"]
    }
}
