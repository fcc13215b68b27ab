import Foundation
import LatchkeyConfiguration
import LatchkeyStore
import WebAuthn

/// The console's operators: a relying party of their own, on the console's origin, kept in the store under
/// ``TenantID/operators`` (beside the operator keys), so no user of any tenant is an operator and no operator's
/// passkey or session is a user's. Operators enroll only with a ticket `latchkey operators add` prints, sign in
/// with user verification, and hold short sessions.
package enum OperatorRelyingParty {
    /// How long an operator's session lives: half an hour.
    package static let sessionLifetime = 1_800
    /// How long the enrollment link `latchkey operators add` prints lives: a day.
    package static let enrollmentLifetime = 86_400

    /// The operators' relying party's configuration, made from the server's: the console's origin and its host as
    /// the RP ID, tickets only, user verification and discoverable passkeys required, short sessions; nothing of the
    /// server's apps, related origins, CORS, conformance or webhooks.
    package static func configuration(server: LatchkeyConfiguration) throws -> LatchkeyConfiguration {
        guard !server.consoleOrigin.isEmpty else {
            throw ConfigurationError("consoleOrigin is empty, so there is no console: set it, or adminAddress")
        }
        let origin: WebOrigin
        do {
            origin = try WebOrigin(server.consoleOrigin)
        } catch {
            throw ConfigurationError("consoleOrigin \(server.consoleOrigin.debugDescription) is not an origin: \(error)")
        }
        guard let host = origin.host, let rpID = try? RelyingPartyID(parsing: host) else {
            throw ConfigurationError("consoleOrigin \(server.consoleOrigin.debugDescription) has no host that can be an RP ID")
        }
        var configuration = server
        configuration.rpID = rpID
        configuration.rpName = "\(server.rpName) console"
        configuration.origins = [server.consoleOrigin]
        configuration.hosts = []
        configuration.appleAppIDs = []
        configuration.appleAppLinks = []
        configuration.appAttest = .off
        configuration.androidApps = []
        configuration.relatedOrigins = []
        configuration.corsOrigins = []
        configuration.topOrigins = []
        configuration.allowCrossOrigin = false
        configuration.passkeyEnrollURL = ""
        configuration.passkeyManageURL = ""
        configuration.conformanceMode = false
        configuration.hideUnknownUsers = false
        configuration.registration = .tickets
        configuration.userVerification = .required
        configuration.residentKey = .required
        configuration.sessionTimeout = sessionLifetime
        configuration.reauthenticateAfter = min(server.reauthenticateAfter, sessionLifetime)
        configuration.webhookURLs = []
        configuration.tokenIssuer = server.consoleOrigin
        configuration.tokenAudience = [rpID.value]
        return configuration
    }

    /// What `latchkey operators add` made: the operator, and the one-time link that enrolls their passkey.
    package struct Enrollment: Sendable {
        package let name: String
        package let url: String
        package let expiresAt: Date
        /// Whether the operator was new (else: a link for another passkey of one who exists).
        package let created: Bool
    }

    /// Adds operator `name` (or finds them) in `store`'s operators' scope and issues a ticket for their passkey: the
    /// link is the console with the ticket in its fragment, which browsers send nowhere.
    package static func add(
        _ name: String, store: any LatchkeyStore, configuration server: LatchkeyConfiguration, now: Date = Date()
    ) async throws -> Enrollment {
        _ = try configuration(server: server)
        let operators = store.scoped(to: .operators)
        let username = try UserNames.username(name)
        var created = false
        let origin = EventOrigin(clientAddress: nil, userAgent: nil, requestID: nil, actor: .system("cli"))
        let recorder = SecurityEventRecorder(names: AuthenticatorNames())
        let user: UserRecord
        if let found = try await operators.user(named: username) {
            user = found
        } else {
            let handle = try SecureRandom.bytes(count: 32)
            user = UserRecord(handle: handle, username: username, displayName: username, createdAt: now)
            try await operators.createUser(user, recording: [try recorder.event(.userCreated, origin, user: user, at: now)])
            created = true
        }
        let issued = try await EnrollmentTickets(store: operators).issue(
            for: user, lifetime: enrollmentLifetime, now: now,
            recording: [try recorder.event(.enrollmentTicketIssued, origin, user: user, detail: "console enrollment", at: now)])
        return Enrollment(
            name: username, url: "\(server.consoleOrigin)/console/#enroll=\(issued.ticket)", expiresAt: issued.expiresAt, created: created)
    }

    /// The operators, by name.
    package static func list(store: any LatchkeyStore) async throws -> [UserOverview] {
        let operators = store.scoped(to: .operators)
        var all: [UserOverview] = []
        var after: String?
        while true {
            let page = try await operators.users(after: after, limit: 200)
            all += page
            guard page.count == 200, let last = page.last else { return all }
            after = last.user.username
        }
    }

    /// Removes operator `name` with their passkeys, sessions and links: at once, on every instance. False when there
    /// is no such operator.
    package static func remove(_ name: String, store: any LatchkeyStore, now: Date = Date()) async throws -> Bool {
        let operators = store.scoped(to: .operators)
        guard let user = try await operators.user(named: try UserNames.username(name)) else { return false }
        let origin = EventOrigin(clientAddress: nil, userAgent: nil, requestID: nil, actor: .system("cli"))
        let event = try SecurityEventRecorder(names: AuthenticatorNames()).event(.accountDeleted, origin, user: user, at: now)
        return try await operators.deleteUser(handle: user.handle, recording: [event]) != nil
    }
}
