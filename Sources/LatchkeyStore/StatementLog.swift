import Synchronization

/// The statements a store sends, each once in the order first sent, while a task runs with this log
/// (a backend's task-local `statementLog`). The planner tests learn from it every statement a workload
/// issues, recorded where statements are sent rather than listed by hand, so a statement added later is
/// covered as soon as a store call sends it.
public final class StatementLog<Statement: Hashable & Sendable>: Sendable {
    private let recorded = Mutex<(seen: Set<Statement>, order: [Statement])>(([], []))

    public init() {}

    /// Notes `statement`, unless it was noted before.
    public func record(_ statement: Statement) {
        recorded.withLock { recorded in
            if recorded.seen.insert(statement).inserted { recorded.order.append(statement) }
        }
    }

    /// Every statement noted, in the order first sent.
    public var statements: [Statement] { recorded.withLock { $0.order } }
}
