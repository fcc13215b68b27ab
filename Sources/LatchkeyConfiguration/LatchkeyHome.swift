import Foundation

/// The folder relative paths are resolved against, the same however the server is started: the folder `LATCHKEY_HOME`
/// names, else the installation the executable belongs to (the nearest folder at or above its own that holds
/// `Config/latchkey.json`), else the current directory.
public struct LatchkeyHome: Sendable, Equatable, CustomStringConvertible {
    /// How the folder was found.
    public enum Origin: Sendable, Equatable {
        case environment
        /// At or above the folder of this executable.
        case installation(executable: String)
        /// No installation was found above this executable.
        case currentDirectory(executable: String?)
    }

    public static let variable = "LATCHKEY_HOME"
    /// The file that marks a folder as an installation (a checkout or an installed copy).
    public static let marker = "Config/latchkey.json"

    /// Absolute, without `.` or `..` components, as ``find(environment:executable:currentDirectory:)`` makes it.
    public let path: String
    public let origin: Origin

    /// The home for this process: `LATCHKEY_HOME` (a folder, relative to the current directory), else the installation
    /// above `executable`, else `currentDirectory`.
    public static func find(
        environment: [String: String], executable: String? = executablePath,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) throws -> LatchkeyHome {
        if let named = environment[variable] {
            guard !named.isEmpty else { throw ConfigurationError("\(variable): is empty; name the installation folder, or unset it") }
            let path = absolute(named, base: currentDirectory)
            guard LatchkeyConfiguration.pathKind(path) == .folder else {
                throw ConfigurationError("\(variable): folder \(path) does not exist (it names the installation folder relative paths are resolved against)")
            }
            return LatchkeyHome(path: path, origin: .environment)
        }
        if let executable {
            let start = URL(fileURLWithPath: executable).deletingLastPathComponent().standardizedFileURL
            let folders = sequence(first: start) { $0.path == "/" ? nil : $0.deletingLastPathComponent().standardizedFileURL }
            let installation = folders.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(marker).path) }
            if let installation { return LatchkeyHome(path: installation.path, origin: .installation(executable: executable)) }
        }
        return LatchkeyHome(path: absolute(currentDirectory, base: "/"), origin: .currentDirectory(executable: executable))
    }

    /// `path` against the home when it is relative; absolute paths, URLs (`postgres://...`) and empty values as they are.
    public func resolve(_ path: String) -> String {
        path.isEmpty || path.contains("://") ? path : Self.absolute(path, base: self.path)
    }

    public var description: String {
        switch origin {
        case .environment:
            "\(path) (\(Self.variable))"
        case .installation(let executable):
            "\(path) (the installation holding \(Self.marker), found from the executable \(executable))"
        case .currentDirectory(let executable):
            "\(path) (the current directory: no \(Self.marker) at or above "
                + (executable.map { "the executable's folder \(URL(fileURLWithPath: $0).deletingLastPathComponent().path)" } ?? "the executable")
                + "; set \(Self.variable) to the installation folder)"
        }
    }

    /// The running executable, symbolic links resolved, so that a link in `/usr/local/bin` finds the installation the
    /// binary really lives in.
    public static var executablePath: String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executableURL?.resolvingSymlinksInPath().path
    }

    static func absolute(_ path: String, base: String) -> String {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : URL(fileURLWithPath: base).appendingPathComponent(path)
        return url.standardizedFileURL.path
    }
}
