/// What a statement says of its own plan, as a comment in its text, where the planner tests would otherwise find a
/// read that grows with a table. A note is a claim a reviewer reads beside the statement, so every one says why:
/// - `whole tenant:` the statement reads every row of its tenant by design; the tests still refuse a read of the
///   whole table (every tenant's rows);
/// - `whole store:` it reads whole tables by design (rare operator work);
/// - `bounded:` its scan stops after a batch in a way the planner's output does not show.
public enum PlannerNote {
    /// The statistics rebuild (`latchkey stats backfill`) reads every event, user and passkey of its tenant.
    public static let statisticsRebuild = "/* whole tenant: a statistics rebuild reads the tenant's events, users and passkeys */"
    /// Removing a tenant removes every row it has, from tables not all indexed by tenant.
    public static let tenantRemoval = "/* whole store: removing a tenant looks for its rows in every table */"
    /// The purge reads the oldest events in the order they were written, a batch at most.
    public static let oldestEventsFirst = "/* bounded: the oldest events in sequence order, a batch at most */"
}
