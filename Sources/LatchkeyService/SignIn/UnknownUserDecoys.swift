import Foundation
import LatchkeyStore
import Synchronization
import WebAuthn

/// Sign-in options for a username nobody registered that look like a registered user's, so
/// `/assertion/options` does not tell whether a username exists (`hideUnknownUsers`).
///
/// A decoy imitates the passkeys this server holds: its number of entries is drawn from how many
/// passkeys users have, and each entry's ID length and transports from how common each is among the
/// registered passkeys (WebAuthn §14.6.2, "plausible imaginary values"). The draws and the ID bytes
/// are HMACs of the username under a secret the store keeps, so the same username gets the same
/// `allowCredentials` every time, from every instance, and no credential matches it. The shapes are
/// read again every ``shapesLifetime``; as the population changes, a decoy changes about as often as
/// a real account's list does.
package final class UnknownUserDecoys: Sendable {
    /// The store's name for the HMAC key.
    package static let secretName = "unknown-user-decoys"
    /// How long the passkeys' shapes are used before the store is asked again.
    package static let shapesLifetime: TimeInterval = 600
    /// A decoy's one entry while no passkey is registered: as long as the common platform providers' IDs.
    package static let emptyStoreShape = PasskeyShapes.Shape(idLength: 32, transports: [.hybrid, .internal])

    package let store: any LatchkeyStore
    /// The HMAC key once read: it never changes, and reading it for every unknown username would
    /// make those options cost store round trips a known username's do not (telling them apart by time).
    private let key = Mutex<[UInt8]?>(nil)
    /// The shapes last read, in the order draws walk them, and when they were read.
    private let shapes = Mutex<(readAt: Date, counts: [(Int, weight: Int)], entries: [(PasskeyShapes.Shape, weight: Int)])?>(nil)

    package init(store: any LatchkeyStore) {
        self.store = store
    }

    /// The decoy allow list and user handle for `username`.
    package func decoy(for username: String, now: Date = Date()) async throws -> (allowCredentials: [CredentialDescriptor], userHandle: [UInt8]) {
        let key = try await self.secret()
        let (counts, entries) = try await self.drawOrder(now: now)
        func hmac(_ label: String) throws -> [UInt8] {
            try HMAC.sha256(key: key, message: Array("\(label)\u{0}\(username)".utf8))
        }
        // Eight bytes per draw (the count's, then each entry's shape's), from as few HMACs as can be:
        // an unknown username's options must take no longer than a known one's.
        var draws = try hmac("draws")
        func draw(_ index: Int) throws -> UInt64 {
            while draws.count < (index + 1) * 8 { draws += try hmac("draws \(draws.count / 32)") }
            return draws[(index * 8)..<(index * 8 + 8)].reduce(0) { $0 << 8 | UInt64($1) }
        }

        let count = Self.pick(try draw(0), from: counts) ?? 1
        var allowCredentials: [CredentialDescriptor] = []
        for index in 0..<count {
            let shape = Self.pick(try draw(index + 1), from: entries) ?? Self.emptyStoreShape
            var id: [UInt8] = []
            var block = 0
            while id.count < shape.idLength {
                id += try hmac("credential \(index) \(block)")
                block += 1
            }
            allowCredentials.append(CredentialDescriptor(id: Array(id.prefix(shape.idLength)), transports: shape.transports))
        }
        let userHandle = try hmac("user") + hmac("user2")
        return (allowCredentials, userHandle)
    }

    /// The value `draw` lands on when each value takes its weight's share of the range; nil for none.
    package static func pick<Value>(_ draw: UInt64, from weighted: [(Value, weight: Int)]) -> Value? {
        let total = weighted.reduce(0) { $0 + UInt64($1.weight) }
        guard total > 0 else { return nil }
        var point = draw % total
        for (value, weight) in weighted {
            if point < UInt64(weight) { return value }
            point -= UInt64(weight)
        }
        return nil
    }

    /// Passkey counts and shapes with their weights, in a fixed order, read again once stale.
    private func drawOrder(now: Date) async throws -> (counts: [(Int, weight: Int)], entries: [(PasskeyShapes.Shape, weight: Int)]) {
        if let cached = shapes.withLock({ $0 }), now.timeIntervalSince(cached.readAt) < Self.shapesLifetime {
            return (cached.counts, cached.entries)
        }
        let read = try await store.passkeyShapes()
        let counts = read.usersByPasskeyCount.filter { $0.key > 0 }.sorted { $0.key < $1.key }.map { ($0.key, weight: $0.value) }
        let entries = read.passkeys.map { ($0.key, weight: $0.value) }.sorted { left, right in
            (left.0.idLength, left.0.transports.map(\.rawValue).joined(separator: ","))
                < (right.0.idLength, right.0.transports.map(\.rawValue).joined(separator: ","))
        }
        shapes.withLock { $0 = (now, counts, entries) }
        return (counts, entries)
    }

    /// The store's secret, read (made by the first instance that asks) once.
    private func secret() async throws -> [UInt8] {
        if let key = key.withLock({ $0 }) { return key }
        let read = try await store.secret(named: Self.secretName)
        key.withLock { $0 = read }
        return read
    }
}
