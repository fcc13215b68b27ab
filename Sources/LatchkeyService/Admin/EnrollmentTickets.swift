import Foundation
import LatchkeyStore
import WebAuthn

/// One-time enrollment tickets: `lk_ticket_` and 32 random bytes in base64url, handed to the
/// backend once; the store keeps only the SHA-256. A ticket lets its bearer register one passkey
/// for the user it names, without a session.
package struct EnrollmentTickets: Sendable {
    package static let prefix = "lk_ticket_"
    /// When the backend names no lifetime.
    package static let defaultLifetime = 600
    package static let lifetimes = 30...86_400

    package let store: any LatchkeyStore

    package init(store: any LatchkeyStore) {
        self.store = store
    }

    /// A new ticket for `user`, valid for `lifetime` seconds, stored with `events`.
    package func issue(for user: UserRecord, lifetime: Int, now: Date = Date(), recording events: [SecurityEvent] = []) async throws
        -> (ticket: String, expiresAt: Date)
    {
        let ticket = Self.prefix + Base64URL.encode(try SecureRandom.bytes(count: 32))
        let expiresAt = now.addingTimeInterval(TimeInterval(lifetime))
        try await store.saveEnrollmentTicket(EnrollmentTicketRecord(
            hash: Self.hash(ticket), userHandle: user.handle, createdAt: now, expiresAt: expiresAt), recording: events)
        return (ticket, expiresAt)
    }

    package static func hash(_ ticket: String) -> [UInt8] {
        Digest.sha256(Array(ticket.utf8))
    }

    /// The ticket's record when it may be used now; otherwise a 403 saying why: unknown, spent,
    /// revoked or expired.
    package func usable(_ ticket: String, now: Date = Date()) async throws -> EnrollmentTicketRecord {
        guard let record = try await store.enrollmentTicket(hash: Self.hash(ticket)) else {
            throw ServiceError(.forbidden, "enrollmentTicket is not a valid enrollment ticket (unknown, or expired more than a day ago)")
        }
        try Self.checkState(record, now: now)
        return record
    }

    /// The user a ticket was issued for (its record's, or a ceremony's it started), when they may still enroll;
    /// a 403 when they were deleted or disabled since.
    package func holder(_ handle: [UInt8]) async throws -> UserRecord {
        guard let holder = try await store.user(handle: handle) else {
            throw ServiceError(.forbidden, "the user this enrollment ticket was issued for no longer exists")
        }
        guard !holder.disabled else { throw ServiceError.accountDisabled(holder.username) }
        return holder
    }

    /// A 403 naming why a ticket that exists cannot be used at `now`.
    package static func checkState(_ record: EnrollmentTicketRecord, now: Date) throws {
        if record.usedAt != nil {
            throw ServiceError(.forbidden, "this enrollment ticket was already used (to register a passkey or enroll a device key); a ticket works once, ask for a new one")
        }
        if record.revokedAt != nil {
            throw ServiceError(.forbidden, "this enrollment ticket was revoked; ask for a new one")
        }
        guard record.expiresAt > now else {
            throw ServiceError(.forbidden, "this enrollment ticket expired \(Int(now.timeIntervalSince(record.expiresAt))) seconds ago; ask for a new one")
        }
    }

    /// Why a registration could not spend its ticket (``StoreError/Code/ticketNotUsable``): reads
    /// the ticket again and names what happened to it since the options were issued.
    package func refusal(forSpending hash: [UInt8], now: Date = Date()) async -> ServiceError {
        guard let record = try? await store.enrollmentTicket(hash: hash) else {
            return ServiceError(.forbidden, "the enrollment ticket of this registration no longer exists (its user was deleted)")
        }
        do {
            try Self.checkState(record, now: now)
        } catch let error as ServiceError {
            return error
        } catch {}
        return ServiceError(.forbidden, "the enrollment ticket of this registration is for another user")
    }
}
