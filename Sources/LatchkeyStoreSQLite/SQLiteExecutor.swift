import Dispatch

/// The executor ``SQLiteStore`` runs on: a serial dispatch queue of its own. SQLite calls block
/// (on disk I/O, and up to the busy timeout while another process writes), so they run on a thread
/// outside Swift's cooperative pool, where a blocked call cannot starve request handling.
final class SQLiteExecutor: SerialExecutor, @unchecked Sendable {
    // Immutable; DispatchQueue is thread-safe.
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
