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

        let target = URL(fileURLWithPath: path)
        let folder = target.deletingLastPathComponent().path
        let suffix = (try? SecureRandom.bytes(count: 6)).map { Base64URL.encode($0) } ?? String(getpid())
        let temporary = folder + "/." + target.lastPathComponent + "." + suffix + ".tmp"

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.writeFailure(path, errno) }
        var written = 0
        var failure: Int32?
        // fchmod: the umask may have taken bits away, never adds any; the mode is exactly 0600.
        if fchmod(descriptor, 0o600) != 0 { failure = errno }
        while failure == nil, written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno != EINTR { failure = errno }
            } else {
                written += count
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw Self.writeFailure(path, failure)
        }
        // The rename itself reaches the disk with the folder's entry.
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    private static func writeFailure(_ path: String, _ code: Int32) -> AuthenticatorError {
        AuthenticatorError(.unwritableKeyFile, "cannot write keys file \(path): \(String(cString: strerror(code)))")
    }
}
