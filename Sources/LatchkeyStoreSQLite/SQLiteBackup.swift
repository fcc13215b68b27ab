import CSQLite
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LatchkeyStore

/// A consistent copy of a live SQLite store, made with SQLite's online backup API: the copy is the
/// database as one transaction saw it, while the server goes on serving (a file copy of a database
/// in WAL mode is not: it can miss the WAL or catch it mid-checkpoint).
public enum SQLiteBackup {
    /// Copies the database at `source` to a new file at `destination`, which must not exist (a
    /// backup never overwrites). Returns the number of pages copied.
    @discardableResult
    public static func copy(from source: String, to destination: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: source) else {
            throw StoreError(.database, "there is no SQLite database at \(source)")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StoreError(.database, "\(destination) exists already; a backup never overwrites a file")
        }
        // The copy holds the token signing keys and the store's secrets: readable by its owner
        // only, created here so that an existing file or a symbolic link is never written through.
        let descriptor = Glibc.open(destination, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.database, "cannot create \(destination): \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        let from = try open(source, flags: SQLITE_OPEN_READONLY)
        defer { sqlite3_close_v2(from) }
        let to = try open(destination, flags: SQLITE_OPEN_READWRITE)
        var finished = false
        defer {
            sqlite3_close_v2(to)
            if !finished { try? FileManager.default.removeItem(atPath: destination) }
        }
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else {
            throw StoreError(.database, "cannot start the backup: \(String(cString: sqlite3_errmsg(to)))")
        }
        // One step copies every page from one read snapshot. In WAL mode that snapshot does not
        // block the server's writes; copying in several steps would start over after each write
        // in between, which on a busy server may never end.
        var status: Int32
        repeat {
            status = sqlite3_backup_step(backup, -1)
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(20) }
        } while status == SQLITE_BUSY || status == SQLITE_LOCKED
        let pages = Int(sqlite3_backup_pagecount(backup))
        sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else {
            throw StoreError(.database, "the backup failed (\(status)): \(String(cString: sqlite3_errmsg(to)))")
        }
        // The copy opens as the store it came from: WAL mode, every migration it had.
        let mode = sqlite3_exec(to, "PRAGMA journal_mode = WAL", nil, nil, nil)
        guard mode == SQLITE_OK else {
            throw StoreError(.database, "the copy cannot be put in WAL mode: \(String(cString: sqlite3_errmsg(to)))")
        }
        finished = true
        return pages
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw StoreError(.database, "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 5_000)
        return handle
    }
}
