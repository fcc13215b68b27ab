import Foundation
import LatchkeyStore
import WebAuthn

/// Who may register a passkey for whom: a username that exists gets another passkey only from its own
/// signed-in session, recently signed in, or with a ticket for it; a new one only where registration is open; a
/// conditional create only upgrades an account the request has proven to hold. Checked when the options are
/// asked for, and what can change meanwhile checked again when the answer comes.
struct RegistrationAdmission {
    let service: RelyingPartyService

    /// The enrollment ticket presented, if any, with the user it names; refused (forbidden) when it cannot be used.
    func presentedTicket(_ presented: String?) async throws -> (EnrollmentTicketRecord?, UserRecord?) {
        guard let presented else { return (nil, nil) }
        let ticket = try await service.tickets.usable(presented)
        return (ticket, try await service.tickets.holder(ticket.userHandle))
    }

    /// The name the authenticator shows (as typed) and the one the account is kept under (folded). A ticket names
    /// its user; the username, when sent too, must be theirs. An account kept under earlier rules (`../bob`,
    /// refused today) keeps its name: its ticket or session may still add a passkey.
    func names(requested: String?, ticketHolder: UserRecord?) async throws -> (spelling: String, username: String) {
        guard let requestedName = requested ?? ticketHolder?.username else {
            throw ServiceError.invalid("username is missing; send a username, or an enrollmentTicket that names the user")
        }
        let (spelling, username): (String, String)
        do {
            let typed = try UserNames.spelling(requestedName)
            (spelling, username) = (typed, try UserNames.folded(typed))
        } catch let refusal {
            guard let kept = try await keptAccount(named: requested, ticketHolder: ticketHolder) else { throw refusal }
            (spelling, username) = (kept.username, kept.username)
        }
        if let ticketHolder, ticketHolder.username != username {
            throw ServiceError(.forbidden, "this enrollment ticket is for another user, not \"\(username)\"")
        }
        return (spelling, username)
    }

    /// The account a name today's rules refuse stands for, when one is kept under it: the ticket's holder (when the
    /// request names no one else), or the account the earlier rules find.
    private func keptAccount(named requested: String?, ticketHolder: UserRecord?) async throws -> UserRecord? {
        guard let requested else { return ticketHolder }
        let found = try await UserNames.find(requested) { try await service.store.user(named: $0) }.account
        guard let ticketHolder else { return found }
        return found?.handle == ticketHolder.handle ? ticketHolder : nil
    }

    /// Whether `caller` may ask for options for `username` (`existing` when it is taken); true for a conditional
    /// create. Refused (forbidden) saying who may otherwise, or as invalid for a mediation that does not apply.
    func admit(username: String, existing: UserRecord?, withTicket: Bool, mediation: CreationMediation?, caller: Caller) throws -> Bool {
        let policy = service.policy
        let ownerSignedIn = existing != nil && caller.identity?.user.handle == existing?.handle
        // A session adds a passkey only soon after its sign-in, so a leaked token cannot add one of its own.
        if ownerSignedIn, !withTicket, let session = caller.identity?.session {
            try policy.requireRecentSignIn(of: session, adding: "a passkey")
        }
        if !withTicket, !ownerSignedIn {
            // Where tickets are required, the same refusal whether the username exists or not: it tells
            // nobody which names are taken.
            if policy.newUsernameRegistration == .ticketRequired {
                throw ServiceError(
                    .forbidden,
                    "registration on this server needs an enrollment ticket: the service you have an account with issues one (send it as enrollmentTicket); a registered user signs in to add a passkey")
            }
            if existing != nil, policy.existingUsernameRegistration == .ownerSignedIn {
                throw ServiceError(.forbidden, "username \"\(username)\" is already registered; sign in as \(username) to add a passkey")
            }
        }
        switch mediation {
        case .conditional?:
            guard withTicket || ownerSignedIn else {
                throw ServiceError(
                    .forbidden,
                    "mediation \"conditional\" (an automatic passkey upgrade) is only for a signed-in user adding a passkey, or with an enrollment ticket")
            }
            return true
        case .silent?:
            throw ServiceError.invalid("mediation \"silent\" does not apply to creating a passkey; use \"conditional\" or \"required\"")
        case .required?, .optional?, nil:
            return false
        }
    }

    /// When the answer comes, what may have changed since the options: the account disabled or deleted, or the
    /// session that asked ended or grown too old.
    func checkStillAllowed(
        existing: UserRecord?, userHandleHasHistory: Bool, username: String, pending: PendingCeremony, caller: Caller, now: Date
    ) throws {
        if let existing, existing.disabled { throw ServiceError.accountDisabled(existing.username) }
        // A new user's handle is made with the options and has no history; one with a history belonged to the
        // account the options were for, deleted since (its deletion is an event), which must not come back.
        if existing == nil, userHandleHasHistory {
            throw ServiceError(
                .forbidden, "the account \(username.debugDescription) was deleted while this passkey was being registered; start again")
        }
        // A passkey added through a session needs the session still live, and its sign-in still recent, when the
        // result comes: signing out, or the backend ending the sessions, stops a registration already under way, and
        // options asked for just inside `reauthenticateAfter` do not stretch it by the challenge's lifetime.
        guard let existing, pending.enrollmentTicketHash == nil, service.policy.existingUsernameRegistration == .ownerSignedIn else { return }
        guard let identity = caller.identity, identity.user.handle == existing.handle else {
            // The commonest cause first: a client that sent its session with the options only.
            throw caller.sessionTokenHashes.isEmpty
                ? ServiceError(
                    .forbidden,
                    "adding a passkey to \(existing.username.debugDescription) needs that user's session with the result too: send the session that asked for the options (Authorization: Bearer, or its cookie)")
                : ServiceError(
                    .forbidden,
                    "adding a passkey to \(existing.username.debugDescription) needs that user's session, and it has ended (signed out, or ended by the service); sign in and start again")
        }
        try service.policy.requireRecentSignIn(of: identity.session, now: now, adding: "a passkey")
    }
}
