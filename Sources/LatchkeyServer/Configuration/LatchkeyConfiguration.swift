import Foundation
import WebAuthn

/// Every setting of a Latchkey server. ``ConfigurationLoader/load(environment:defaultFile:home:accessReporter:)``
/// reads it from `LATCHKEY_*` environment variables over `Config/latchkey.json` (or the file named
/// by `LATCHKEY_CONFIG`) over the defaults, which are the initial values below, and resolves its
/// relative paths against the ``LatchkeyHome``. Each key is declared once in ``keys`` (name, type,
/// documentation, secrecy, checks).
public struct LatchkeyConfiguration: Sendable, Equatable {
    /// Address to listen on.
    public var host = "127.0.0.1"
    public var port = 8080
    /// The RP ID: the domain passkeys are bound to.
    public var rpID = "localhost"
    /// The name authenticators show for this relying party.
    public var rpName = "Latchkey"
    /// Exact origins accepted in client data (web origins, `android:apk-key-hash:...`). When not
    /// configured: `http://localhost:PORT` for the RP ID `localhost`, else `https://RPID`.
    public var origins = ["http://localhost:8080"]
    /// Path of the SQLite database file, created on first run; or a `postgres://` URL of a
    /// PostgreSQL database shared by several instances.
    public var database = "data/latchkey.sqlite"
    /// App IDs (`TEAMID.bundle.id`) listed under `webcredentials` in apple-app-site-association.
    public var appleAppIDs: [String] = []
    /// App IDs listed under `applinks` (universal links) in apple-app-site-association.
    public var appleAppLinks: [String] = []
    /// Whether app requests must carry an App Attest assertion (see ``AppAttestRequirement``).
    public var appAttest = AppAttestRequirement.off
    /// Which App Attest environments keys may come from.
    public var appAttestEnvironment = AppAttestEnvironments.production
    /// A folder of extra App Attest roots, for tests only (a software stand-in's CA); empty: none.
    public var appAttestTestRoots = ""
    /// Android apps as `PACKAGE@SHA256_FINGERPRINT`, listed in assetlinks.json; their
    /// `android:apk-key-hash:` origins are accepted in client data.
    public var androidApps: [String] = []
    /// Origins on other domains that may use this RP ID (WebAuthn related origin requests),
    /// listed in `/.well-known/webauthn` and accepted in client data.
    public var relatedOrigins: [String] = []
    /// Web origins, each one of `origins` or `relatedOrigins`, whose pages may call the API from
    /// another origin: they get CORS with credentials, every other origin none.
    public var corsOrigins: [String] = []
    /// The `enroll` URL of `/.well-known/passkey-endpoints`; empty for none.
    public var passkeyEnrollURL = ""
    /// The `manage` URL of `/.well-known/passkey-endpoints`; empty for none.
    public var passkeyManageURL = ""
    /// Lets the FIDO conformance tools register an existing username again without signing in,
    /// and accept assertions without UP when UV is not required. Never for production.
    public var conformanceMode = false
    /// Seconds a challenge stays valid.
    public var challengeTimeout = 300
    /// Seconds a sign-in session lasts.
    public var sessionTimeout = 86_400
    /// Seconds a connection has to deliver each whole request (head and body), counted from when
    /// it opens or sends its previous reply.
    public var requestTimeout = 10
    /// Connections the server holds open at most; more wait in the listen backlog.
    public var maxConnections = 4_096
    /// The event loop threads that serve connections and run their requests.
    public var eventLoops = EventLoopCount.one
    /// Seconds a request or readiness check waits for the store before answering 503.
    public var storeTimeout = 2
    /// Folder served at `/`.
    public var publicDirectory = "Public"
    /// Accept ceremonies run inside cross-origin iframes (`crossOrigin: true`).
    public var allowCrossOrigin = false
    /// Top-level origins accepted for cross-origin ceremonies.
    public var topOrigins: [String] = []
    /// `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
    public var logLevel = "info"
    /// `text` (one readable line per event) or `json` (one JSON object per line).
    public var logFormat = LogFormat.text
    /// IP addresses of the proxies in front of Latchkey, whose request IDs and `X-Forwarded-For`
    /// client addresses are believed.
    public var trustedProxies: [String] = []
    /// Requests a second each client address may make to the ceremony endpoints, on average, in
    /// each instance; 0 for no limit.
    public var rateLimit = 100
    /// Requests a client address may make to the ceremony endpoints at once, after being quiet.
    public var rateLimitBurst = 1_000
    /// Challenges one client address may have pending in each instance; 0 for no cap.
    public var pendingChallengesPerClient = 1_000
    /// Challenges that may be pending in all in each instance; 0 for no cap.
    public var pendingChallengesTotal = 100_000
    /// `HOST:PORT` of a separate listener serving `/metrics`; empty for none.
    public var metricsAddress = ""
    /// A token that lets `/metrics` be read on the public listener as a bearer token; empty for none.
    public var metricsToken = ""

    /// ``metricsAddress`` split, or nil when there is none.
    public var metricsListenAddress: (host: String, port: Int)? {
        get throws { try Self.listenAddress(metricsAddress, key: "metricsAddress") }
    }
    /// `HOST:PORT` of a separate listener serving the admin API (`/admin/v1`) alone; empty: the
    /// admin API is on the main listener.
    public var adminAddress = ""
    /// URLs every security event is POSTed to (Standard Webhooks); empty for none.
    public var webhookURLs: [String] = []
    /// The `whsec_`-prefixed base64 secret webhook deliveries are signed with.
    public var webhookSecret = ""
    /// Accept `http://` webhook URLs (tests, loopback receivers).
    public var webhookAllowHTTP = false
    /// Days security events are kept.
    public var eventRetentionDays = 365
    /// ``adminAddress`` split, or nil when there is none.
    public var adminListenAddress: (host: String, port: Int)? {
        get throws { try Self.listenAddress(adminAddress, key: "adminAddress") }
    }

    /// The problem with a `HOST:PORT` value, or nil when it is one (or empty).
    static func listenAddressProblem(_ address: String, key: String) -> String? {
        guard !address.isEmpty else { return nil }
        return (try? listenAddress(address, key: key)) == nil ? "\"\(address)\" is not HOST:PORT" : nil
    }

    /// `HOST:PORT` (`[IPv6]:PORT`) split, or nil when empty.
    static func listenAddress(_ address: String, key: String) throws -> (host: String, port: Int)? {
        guard !address.isEmpty else { return nil }
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
              (1...65_535).contains(port), colon != address.startIndex
        else {
            throw ConfigurationError("\(key) (\(environmentName(of: key))): \"\(address)\" is not HOST:PORT")
        }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
    /// Who may register a username that does not exist yet.
    public var registration = RegistrationMode.open
    /// `iss` of sign-in tokens; empty: the first of ``origins``.
    public var tokenIssuer = "http://localhost:8080"
    /// `aud` of sign-in tokens.
    public var tokenAudience = ["localhost"]
    /// Seconds a sign-in token is valid.
    public var tokenLifetime = 300
    /// `none`, `self-or-trusted` or `trusted-only` (see ``AttestationPolicy/Mode``).
    public var attestationPolicy = AttestationPolicy.Mode.none
    /// Folder of PEM trust anchors for attestation certificates, in addition to `Config/roots`.
    public var trustAnchors = "Config/trust-anchors"
    /// Folder of the roots shipped with Latchkey (Apple WebAuthn, Google hardware attestation).
    public var shippedTrustAnchors = "Config/roots"
    /// When not empty, only these authenticator models (AAGUIDs) may register.
    public var allowedAAGUIDs: [String] = []
    /// Authenticator models (AAGUIDs) that may never register.
    public var deniedAAGUIDs: [String] = []
    /// Accept RS1 (SHA-1) signatures; the FIDO conformance tools need it.
    public var allowSHA1 = false
    /// The FIDO metadata BLOB (MDS3) loaded on start when the file exists; `latchkey mds import` writes it.
    public var metadataBLOB = "data/mds-blob.jwt"
    /// Folder of PEM roots a metadata BLOB's signing chain must lead to (the FIDO MDS root).
    public var metadataRoots = "Config/mds-roots"
    /// The least user verification every ceremony asks for and checks (clients may ask for more).
    public var userVerification = UserVerificationRequirement.preferred
    /// The least resident-key requirement every registration asks for.
    public var residentKey = ResidentKeyRequirement.required
    /// Answer an unknown username at `/assertion/options` with decoy options instead of 404.
    public var hideUnknownUsers = false
    /// Passkey provider names by AAGUID, for naming passkeys (``AuthenticatorNames``).
    public var authenticatorNames = "Config/passkey-provider-aaguids.json"
    /// The folder the loader resolved relative paths against (``LatchkeyHome``); empty when they
    /// were not resolved, so that they are relative to the current directory.
    public var home = ""

    public init() {}

    /// The relying party the verification core works with. Client data may carry one of the
    /// configured origins, an Android app's origin or a related origin, each matched exactly.
    public var relyingParty: RelyingParty {
        RelyingParty(
            id: rpID, name: rpName, origins: Set(origins + androidAppList.map(\.origin) + relatedOrigins),
            crossOrigin: allowCrossOrigin ? .allow(topOrigins: Set(topOrigins)) : .forbid,
            userPresence: conformanceMode ? .optionalUnlessVerificationRequired : .required,
            tokenBinding: conformanceMode ? .strict : .lenient,
            algorithms: COSEAlgorithm.verifiable + (allowSHA1 ? [.rs1] : []))
    }

    /// The attestation policy as a value; AAGUIDs were validated when loading.
    public var attestation: AttestationPolicy {
        AttestationPolicy(
            mode: attestationPolicy,
            allowedAAGUIDs: allowedAAGUIDs.isEmpty ? nil : Set(allowedAAGUIDs.compactMap(AAGUID.bytes)),
            deniedAAGUIDs: Set(deniedAAGUIDs.compactMap(AAGUID.bytes)),
            allowSHA1: allowSHA1)
    }

    /// The web origins whose pages may send state-changing requests here (the cross-site request
    /// guard): the configured origins and the related origins, which share this RP ID on purpose.
    var pageOrigins: Set<String> { Set(origins + relatedOrigins) }

    /// The configured Android apps; entries were validated when loading.
    var androidAppList: [AndroidApp] {
        androidApps.compactMap { try? AndroidApp(parsing: $0) }
    }

    /// Cookies get the Secure attribute when the relying party is served over HTTPS.
    var usesHTTPS: Bool { origins.contains { $0.hasPrefix("https://") } }
}

/// Who may register a username that does not exist yet (`registration`).
public enum RegistrationMode: String, Sendable, CaseIterable {
    /// Anyone: the first to ask for a free username owns it.
    case open
    /// Only with an enrollment ticket a backend issued for an existing user.
    case tickets
}

/// Whether `/attestation/options`, `POST /device-keys` and `POST /device-keys/sign-in` must carry an
/// App Attest assertion over their body (`appAttest`).
public enum AppAttestRequirement: String, Sendable, CaseIterable {
    /// App Attest is not offered: `/app-attest` answers 404 and the header is ignored.
    case off
    /// Verified when sent, and then it must be valid; requests without it are served.
    case optional
    /// Every such request must carry a valid assertion.
    case required
}

/// The App Attest environments whose keys are accepted (`appAttestEnvironment`).
public enum AppAttestEnvironments: String, Sendable, CaseIterable {
    case production
    case development
    case both

    /// The environments this value admits.
    public var environments: Set<AppAttestEnvironment> {
        switch self {
        case .production: [.production]
        case .development: [.development]
        case .both: [.production, .development]
        }
    }
}

/// How log lines are written.
/// How many event loop threads serve (`eventLoops`).
public enum EventLoopCount: String, Sendable, CaseIterable {
    /// One thread serves every connection: the least CPU per request.
    case one
    /// One thread per core: the most requests a second.
    case perCore
}

public enum LogFormat: String, Sendable, CaseIterable {
    /// One readable line per event (swift-log's default handler).
    case text
    /// One JSON object per line, for log collectors.
    case json
}
