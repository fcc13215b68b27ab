import Foundation
import WebAuthn

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension KeyFile {
    /// Reads the keys file at `path`. A missing or empty file is a keys file without credentials
    /// (so `mktemp` can name one).
    public static func load(from path: String) throws -> KeyFile {
        guard FileManager.default.fileExists(atPath: path) else { return KeyFile() }
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw AuthenticatorError(.unreadableKeyFile, "cannot read keys file \(path): \(error.localizedDescription)")
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return KeyFile() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let file = try JSONInput.decode(KeyFile.self, from: bytes, source: "keys file \(path)", code: .unreadableKeyFile, decoder: decoder)
        guard file.version == currentVersion else {
            throw AuthenticatorError(.unreadableKeyFile, "keys file \(path): version \(file.version) is not \(currentVersion), the version this latchkey reads")
        }
        return file
    }

    /// Replaces the file at `path` with this one, atomically: written to a temporary file with mode
    /// 0600 in the same folder, flushed, then renamed over `path`. A reader sees the old file or
    /// the new one, never a half-written one, and the private keys are never readable by others.
    public func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let bytes = Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]

        try SecretFile.replace(path, with: bytes, what: "keys file")
    }
}
