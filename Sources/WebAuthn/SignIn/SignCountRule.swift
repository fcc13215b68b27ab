/// §7.2 step 22, the rule: a signature counter must grow from the stored one, unless both are zero (an
/// authenticator that keeps no counter, as synced passkeys do). A counter that does not grow may mean a cloned
/// authenticator; ``SignCountPolicy`` says whether the assertion is then refused.
public enum SignCountRule {
    /// Whether `received` fails to grow from `stored`.
    public static func regressed(received: UInt32, stored: UInt32) -> Bool {
        (received != 0 || stored != 0) && received <= stored
    }
}
