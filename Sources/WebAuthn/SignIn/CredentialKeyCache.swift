import Synchronization

/// Parsed credential public keys by credential ID, used by all sign-ins, so a sign-in skips
/// decoding the stored COSE_Key and building its OpenSSL key (§7.2 step 7).
///
/// An entry remembers the COSE_Key bytes it was parsed from and is used only while the stored bytes
/// are still exactly those, so a replaced key is never checked with a stale copy. Call
/// ``invalidate(credentialID:)`` when a credential is deleted, ``removeAll()`` when many are. When
/// full, the least recently used quarter of the entries is dropped. Safe to share between threads.
public final class CredentialKeyCache: Sendable {
    /// The most entries kept.
    public let capacity: Int
    private let state: Mutex<State>

    /// A cache that keeps at most `capacity` parsed keys (at least one).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
        state = Mutex(State())
    }

    /// The key for `credentialID` stored as `publicKey` (COSE_Key bytes): the cached one when it was
    /// parsed from exactly these bytes, else a freshly parsed one, which replaces it. Parse failures
    /// throw as ``COSEKey/init(_:)`` does and are not cached.
    public func key(for credentialID: [UInt8], publicKey: [UInt8], decoder: CBORDecoder = CBORDecoder()) throws -> COSEKey {
        let id = CredentialID(credentialID)
        let cached: COSEKey? = state.withLock { state in
            guard let index = state.entries.index(forKey: id), state.entries.values[index].publicKey == publicKey else {
                return nil
            }
            state.clock &+= 1
            state.entries.values[index].lastUse = state.clock
            return state.entries.values[index].key
        }
        if let cached { return cached }
        // Parse outside the lock: building an OpenSSL key is the slow part.
        let key = try COSEKey(decoder.decode(publicKey))
        state.withLock { state in
            if state.entries[id] == nil, state.entries.count >= capacity {
                state.dropLeastRecentlyUsed(keeping: capacity - max(1, capacity / 4))
            }
            state.clock &+= 1
            state.entries[id] = Entry(publicKey: publicKey, key: key, lastUse: state.clock)
        }
        return key
    }

    /// Forgets the key of one credential (deleted, or its key replaced).
    public func invalidate(credentialID: [UInt8]) {
        _ = state.withLock { $0.entries.removeValue(forKey: CredentialID(credentialID)) }
    }

    /// Forgets every key.
    public func removeAll() {
        state.withLock { $0.entries.removeAll() }
    }

    /// How many keys are cached now.
    public var count: Int {
        state.withLock { $0.entries.count }
    }

    /// A credential ID as a dictionary key, hashed as one block of bytes.
    private struct CredentialID: Hashable, Sendable {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private struct Entry: Sendable {
        /// The COSE_Key bytes `key` was parsed from.
        let publicKey: [UInt8]
        let key: COSEKey
        var lastUse: UInt64
    }

    private struct State: Sendable {
        var entries: [CredentialID: Entry] = [:]
        /// Counts uses; an entry's `lastUse` is the count at its latest use.
        var clock: UInt64 = 0

        /// Keeps the `count` most recently used entries.
        mutating func dropLeastRecentlyUsed(keeping count: Int) {
            let victims = entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(max(0, entries.count - count))
            for victim in victims { entries.removeValue(forKey: victim.key) }
        }
    }
}
