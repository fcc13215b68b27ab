import Foundation
import Synchronization

/// Bounds the challenges that are still pending (neither answered nor expired): at most `perClient`
/// for one client address and `total` in all, so that nobody can fill the store with unanswered
/// challenges. Zero turns a cap off.
///
/// It counts the challenges this process issued, one by one; a challenge answered through another
/// instance counts here until a full cap has the store say which are gone
/// (``challengesToCheck(for:now:)``). On a store several instances share, the others' pending
/// challenges count too: every second or so the store says how many there are
/// (``countElsewhere(perClient:total:)``).
package final class PendingChallengeCaps: Sendable {
    package let perClient: Int
    package let total: Int

    private struct Entry {
        package let client: ClientAddress
        package let expiresAt: Date
    }

    private struct State {
        /// Pending challenges by the SHA-256 of the challenge.
        package var entries: [[UInt8]: Entry] = [:]
        package var perClient: [ClientAddress: Int] = [:]
        package var lastSweep = Date.distantPast
        /// When a check last found every challenge it asked about still pending.
        package var lastFruitlessCheck = Date.distantPast
        /// Challenges other instances issued, pending as the store last said: of the clients that have several, and in all.
        package var elsewhere: [ClientAddress: Int] = [:]
        package var elsewhereTotal = 0

        package mutating func remove(_ challengeHash: [UInt8]) {
            guard let entry = entries.removeValue(forKey: challengeHash) else { return }
            let left = (perClient[entry.client] ?? 1) - 1
            perClient[entry.client] = left > 0 ? left : nil
        }

        /// Forgets every expired challenge.
        package mutating func sweep(now: Date) {
            lastSweep = now
            for hash in entries.filter({ $0.value.expiresAt <= now }).keys { remove(hash) }
        }
    }

    private let state = Mutex(State())

    package init(perClient: Int, total: Int) {
        self.perClient = perClient
        self.total = total
    }

    /// Why a challenge was not issued.
    package enum Refusal: Error, Equatable {
        case client(ClientAddress, limit: Int)
        case total(limit: Int)
    }

    /// Counts a challenge issued to `client`, or says which cap is full. Expired challenges are
    /// swept out (at most once a second) before a cap refuses.
    package func reserve(_ challengeHash: [UInt8], for client: ClientAddress, expiresAt: Date, now: Date = Date()) throws(Refusal) {
        let refusal: Refusal? = state.withLock { state in
            func full() -> Refusal? {
                if perClient > 0, state.perClient[client, default: 0] + state.elsewhere[client, default: 0] >= perClient {
                    return .client(client, limit: perClient)
                }
                if total > 0, state.entries.count + state.elsewhereTotal >= total { return .total(limit: total) }
                return nil
            }
            if full() != nil, now.timeIntervalSince(state.lastSweep) >= 1 { state.sweep(now: now) }
            if let refusal = full() { return refusal }
            state.entries[challengeHash] = Entry(client: client, expiresAt: expiresAt)
            state.perClient[client, default: 0] += 1
            return nil
        }
        if let refusal { throw refusal }
    }

    /// The most challenges one check asks the store about.
    package static let checkBatch = 10_000

    /// When `refusal`'s cap is full: the challenges it counts (the client's, or all; at most
    /// ``checkBatch``), to ask the store which another instance has answered. Empty within a second of
    /// a check that found all still pending, so that a flood of refused options costs few store reads.
    package func challengesToCheck(for refusal: Refusal, now: Date = Date()) -> [[UInt8]] {
        state.withLock { state in
            guard now.timeIntervalSince(state.lastFruitlessCheck) >= 1 else { return [] }
            var counted: [[UInt8]] = []
            for (hash, entry) in state.entries where counted.count < Self.checkBatch {
                if case .client(let client, _) = refusal, entry.client != client { continue }
                counted.append(hash)
            }
            return counted
        }
    }

    /// Stops counting those of `checked` that are no longer pending in the store; returns how many.
    @discardableResult
    package func forget(_ checked: [[UInt8]], except stillPending: Set<[UInt8]>, now: Date = Date()) -> Int {
        let answered = checked.filter { !stillPending.contains($0) }
        state.withLock { state in
            for hash in answered { state.remove(hash) }
            if answered.isEmpty { state.lastFruitlessCheck = now }
        }
        return answered.count
    }

    /// Counts, in place of what it counted before, the challenges other instances have pending: `perClient` for the
    /// clients the store named, `total` in all.
    package func countElsewhere(perClient: [ClientAddress: Int], total: Int) {
        state.withLock { state in
            state.elsewhere = perClient
            state.elsewhereTotal = total
        }
    }

    /// Stops counting a challenge: answered (successfully or not) or never stored.
    package func release(_ challengeHash: [UInt8]) {
        state.withLock { $0.remove(challengeHash) }
    }

    /// Pending challenges counted for `client`, and in all, here and elsewhere.
    package func counts(for client: ClientAddress) -> (client: Int, total: Int) {
        state.withLock {
            ($0.perClient[client, default: 0] + $0.elsewhere[client, default: 0], $0.entries.count + $0.elsewhereTotal)
        }
    }
}
