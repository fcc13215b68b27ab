import Foundation
import Logging
import WebAuthn

/// Every setting of a Latchkey server. ``ConfigurationLoader`` reads it from `LATCHKEY_*` variables over the JSON
/// file over the defaults (the initial values below), and resolves relative paths against the ``LatchkeyHome``.
/// Each key is declared and documented once, in ``keys``.
public struct LatchkeyConfiguration: Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var rpID = RelyingPartyID.localhost
    public var rpName = "Latchkey"
    public var origins = ["http://localhost:8080"]
    public var hosts: [String] = []
    public var database = "data/latchkey.sqlite"
    public var appleAppIDs: [String] = []
    public var appleAppLinks: [String] = []
    public var appAttest = AppAttestRequirement.off
    public var appAttestEnvironment = AppAttestEnvironments.production
    public var appAttestTestRoots = ""
    public var androidApps: [AndroidApp] = []
    public var relatedOrigins: [String] = []
    public var corsOrigins: [String] = []
    public var passkeyEnrollURL = ""
    public var passkeyManageURL = ""
    public var conformanceMode = false
    public var challengeTimeout = 300
    public var sessionTimeout = 86_400
    public var reauthenticateAfter = 300
    public var requestTimeout = 10
    public var maxConnections = 4_096
    public var eventLoops = EventLoopCount.one
    public var storeTimeout = 2
    public var publicDirectory = "Public"
    public var allowCrossOrigin = false
    public var topOrigins: [String] = []
    public var logLevel = Logger.Level.info
    public var logFormat = LogFormat.text
    public var metricsAddress: ListenAddress?
    public var metricsToken = ""
    public var trustedProxies: [String] = []
    public var rateLimit = 100
    public var rateLimitBurst = 1_000
    public var pendingChallengesPerClient = 1_000
    public var pendingChallengesTotal = 100_000
    public var adminAddress: ListenAddress?
    /// The origin operators open the console at; its host is the operators' RP ID.
    public var consoleOrigin = "http://console.localhost:8080"
    public var webhookURLs: [String] = []
    public var webhookSecret = ""
    public var webhookPreviousSecret = ""
    public var webhookAllowHTTP = false
    public var eventRetentionDays = 365
    public var registration = RegistrationMode.open
    public var tokenIssuer = "http://localhost:8080"
    public var tokenAudience = ["localhost"]
    public var tokenLifetime = 300
    public var signInTokens = true
    public var attestationPolicy = AttestationPolicy.Mode.none
    public var trustAnchors = "Config/trust-anchors"
    public var allowedAAGUIDs: [AAGUID] = []
    public var deniedAAGUIDs: [AAGUID] = []
    public var allowSHA1 = false
    public var metadataBLOB = "data/mds-blob.jwt"
    public var metadataRoots = "Config/mds-roots"
    public var userVerification = UserVerificationRequirement.preferred
    public var residentKey = ResidentKeyRequirement.required
    public var syncedPasskeys = SyncedCredentialPolicy.allowed
    public var backupEligibilityChanges = BackupEligibilityChanges.refused
    public var hideUnknownUsers = false
    public var authenticatorNames = "Config/passkey-provider-aaguids.json"

    /// Not a key: the folder of the roots shipped with Latchkey (Apple WebAuthn, Google hardware attestation).
    public var shippedTrustAnchors = "Config/roots"
    /// Not a key: the folder relative paths were resolved against; empty when they were not resolved.
    public var home = ""

    public init() {}

    /// The web origins whose pages may send state-changing requests (the cross-site request guard).
    public var pageOrigins: Set<String> { Set(origins + relatedOrigins) }
}

/// Who may register a username that does not exist yet (`registration`).
public enum RegistrationMode: String, Sendable, CaseIterable, ConfigurationChoice { case open, tickets }

/// Whether requests must carry an App Attest assertion (`appAttest`).
public enum AppAttestRequirement: String, Sendable, CaseIterable, ConfigurationChoice { case off, optional, required }

/// The App Attest environments whose keys are accepted (`appAttestEnvironment`).
public enum AppAttestEnvironments: String, Sendable, CaseIterable, ConfigurationChoice { case production, development, both }

/// How many event loop threads serve (`eventLoops`).
public enum EventLoopCount: String, Sendable, CaseIterable, ConfigurationChoice { case one, perCore }

/// How log lines are written (`logFormat`).
public enum LogFormat: String, Sendable, CaseIterable, ConfigurationChoice { case text, json }

extension LatchkeyConfiguration {
    /// The host of `consoleOrigin`, lowercase; nil when there is no console.
    public var consoleHost: String? { URL(string: consoleOrigin)?.host?.lowercased() }

    /// The names the server itself answers on besides its sites, lowercase: the console origin's host and the host
    /// names its listeners bind (addresses are refused as tenant hosts anyway). No tenant may take one.
    public var ownHosts: Set<String> {
        var hosts: Set<String> = []
        if let consoleHost { hosts.insert(consoleHost) }
        for listener in [host] + [adminAddress?.host, metricsAddress?.host].compactMap({ $0 }) where TenantSettings.tenantHostProblem(listener) == nil {
            hosts.insert(listener.lowercased())
        }
        return hosts
    }
}
