import Foundation
import LatchkeyStore

/// Where each token signing key stands, as the console lists them: the same rule the key set is published by.
package struct SigningKeyState: Sendable, Equatable {
    package enum Phase: String, Sendable, Encodable {
        /// Published, signing once its `signsFrom` comes.
        case waiting
        /// The key that signs now.
        case signing
        /// No longer signing, still published while tokens it signed may be live.
        case published
        /// Neither signing nor published.
        case retired
    }

    package let record: SigningKeyRecord
    package let phase: Phase

    package init(record: SigningKeyRecord, phase: Phase) {
        self.record = record
        self.phase = phase
    }

    /// Every key of `records`, newest generation first, with its phase at `now` for tokens living `tokenLifetime`.
    package static func states(of records: [SigningKeyRecord], tokenLifetime: TimeInterval, now: Date = Date()) -> [SigningKeyState] {
        let sorted = records.sorted { $0.generation < $1.generation }
        guard !sorted.isEmpty else { return [] }
        let signing = sorted.lastIndex { $0.signsFrom <= now } ?? 0
        let overlap = tokenLifetime + SignInTokens.refreshInterval + SignInTokens.publicationMargin
        return sorted.indices.map { index in
            let phase: Phase
            if index > signing { phase = .waiting }
            else if index == signing { phase = .signing }
            else { phase = now.timeIntervalSince(sorted[index + 1].signsFrom) < overlap ? .published : .retired }
            return SigningKeyState(record: sorted[index], phase: phase)
        }.reversed()
    }
}
