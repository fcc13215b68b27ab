/// What a statement says of its own plan, as a comment in its text, where the planner tests would otherwise find a
/// read that grows with a table: a statement that reads a whole tenant by design (`unbounded:`), or one whose scan
/// stops after a batch in a way the planner's output does not show (`bounded:`). The tests list these and check the
/// rest; a note is a claim a reviewer reads beside the statement, so every one says why.
public enum PlannerNote {
    /// The statistics rebuild (`latchkey stats backfill`) reads every event, user and passkey of its tenant.
    public static let statisticsRebuild = "/* unbounded: a statistics rebuild reads the whole tenant */"
    /// Removing a tenant removes every row it has.
    public static let tenantRemoval = "/* unbounded: removing a tenant removes every row it has */"
    /// The purge reads the oldest events in the order they were written, a batch at most.
    public static let oldestEventsFirst = "/* bounded: the oldest events in sequence order, a batch at most */"
}
