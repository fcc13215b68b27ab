import Foundation
import WebAuthn

/// Files that hold private keys: readable by their owner alone, and replaced atomically.
enum SecretFile {
    /// Replaces the file at `path` with `bytes`, atomically: written to a temporary file with mode
    /// 0600 in the same folder, flushed, then renamed over `path`. A reader sees the old file or
    /// the new one, never a half-written one, and the private keys are never readable by others.
    static func replace(_ path: String, with bytes: [UInt8], what: String) throws {
        let target = URL(fileURLWithPath: path)
        let folder = target.deletingLastPathComponent().path
        let suffix = (try? SecureRandom.bytes(count: 6)).map { Base64URL.encode($0) } ?? String(getpid())
        let temporary = folder + "/." + target.lastPathComponent + "." + suffix + ".tmp"

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path, what, errno) }
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
            throw Self.failure(path, what, failure)
        }
        // The rename itself reaches the disk with the folder's entry.
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    private static func failure(_ path: String, _ what: String, _ code: Int32) -> AuthenticatorError {
        AuthenticatorError(.unwritableKeyFile, "cannot write \(what) \(path): \(String(cString: strerror(code)))")
    }
}
