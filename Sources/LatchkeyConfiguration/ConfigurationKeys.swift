import WebAuthn

extension LatchkeyConfiguration {
    typealias Key = ConfigurationKey

    /// Every key, in the order of docs/CONFIGURATION.md, of `check-config` and of validation. Adding a key: a stored
    /// property with its default, and one declaration here.
    public static let keys: [ConfigurationKey] = [
        Key("host", \.host, check: single(hostProblem), "Address to listen on (`0.0.0.0` for all); a name must resolve."),
        Key("port", \.port, check: within(1...65_535, "a port number (1-65535)"), "TCP port."),
        Key("rpID", \.rpID,
            "The RP ID: the domain passkeys belong to (not an IP address, which browsers refuse)."),
        Key("rpName", \.rpName, check: notEmpty, "Name authenticators show."),
        Key("origins", \.origins, check: originProblems, reading: ["rpID"],
            derived: ("`http://localhost:PORT` for `localhost`, else `https://RPID`", "from rpID and port",
                      { [$0.rpID == .localhost ? "http://localhost:\($0.port)" : "https://\($0.rpID)"] }),
            "Exact origins accepted in clientDataJSON, comma-separated. Each must be the RP ID or a subdomain, over https (http only for `localhost` and `*.localhost`); `android:apk-key-hash:...` origins are allowed. The origins of `androidApps` and `relatedOrigins` are accepted too, without being listed here."),
        Key("hosts", \.hosts, check: each(TenantSettings.hostProblem),
            "Host names whose requests are the default tenant's (the one this configuration defines) once the store holds other tenants (TENANTS.md), comma-separated, lowercase, without a port. Empty: every host no other tenant lists is the default tenant's, as on a server without tenants."),
        Key("database", \.database, secrecy: .urlPassword, isPath: true, check: notEmpty,
            "A path: the SQLite file, created on first run (WAL mode, migrated). A URL `postgres://USER[:PASSWORD]@HOST:PORT/DATABASE` (or `postgresql://`, with optional `?sslmode=`, `connect_timeout=` and `keepalives_idle=`): a PostgreSQL database that several instances share, migrated on start (see PostgreSQL below). Secret: the URL's password is never printed."),
        Key("appleAppIDs", \.appleAppIDs, check: each(identityProblem(AppleAppID.init(parsing:))),
            "`TEAMID.bundle.id` values (a team ID is 10 upper-case letters or digits) listed under `webcredentials` in `/.well-known/apple-app-site-association`, which is served when this or `appleAppLinks` is set."),
        Key("appleAppLinks", \.appleAppLinks, check: each(identityProblem(AppleAppID.init(parsing:))),
            "App IDs listed under `applinks` (universal links)."),
        Key("appAttest", \.appAttest, check: single(appAttestProblem),
            "Apple App Attest: `off` (no `/app-attest` endpoints), `optional` (an `X-Latchkey-App-Attest` assertion on `/attestation/options`, `POST /device-keys` and `POST /device-keys/sign-in` is verified when sent) or `required` (those requests must carry one, so only a genuine copy of an app in `appleAppIDs` registers and uses device keys; browsers cannot, so this is for app-only deployments)."),
        Key("appAttestEnvironment", \.appAttestEnvironment,
            "Which App Attest keys are accepted: `production` (App Store, TestFlight and enterprise builds), `development` (builds signed for development) or `both`."),
        .path("appAttestTestRoots", \.appAttestTestRoots, .folder, required: .when { !$0.appAttestTestRoots.isEmpty },
            "For tests only: a folder of PEM roots App Attest chains may end in besides Apple's App Attestation Root CA (shipped in `Config/roots/apple-appattest`), such as the CA of `latchkey authenticator app-attest`. The server and `check-config` warn when it is set."),
        Key("androidApps", \.androidApps,
            "Android apps as `PACKAGE@SHA256_FINGERPRINT` (the signing certificate's SHA-256, 32 hex bytes separated by colons; a package may be listed once per certificate). Served in `/.well-known/assetlinks.json` (`get_login_creds` and `handle_all_urls`), and each certificate's origin `android:apk-key-hash:...` is accepted in clientDataJSON."),
        Key("relatedOrigins", \.relatedOrigins, check: each(webOriginProblem),
            "Origins on other domains allowed to use this RP ID (WebAuthn related origin requests), over https (http only for `localhost`): served in `/.well-known/webauthn`, accepted in clientDataJSON and by the cross-site request guard. Browsers honour at most 5 distinct registrable domains."),
        Key("corsOrigins", \.corsOrigins, check: corsOriginProblems,
            "Origins whose pages may call this API from another origin (a page on `https://app.example.com` signing in through Latchkey on `https://login.example.com`): CORS with credentials (`Access-Control-Allow-Origin` naming the origin, `Access-Control-Allow-Credentials`, preflights for `GET`, `POST`, `PATCH` and `DELETE` with `Content-Type` and `Authorization`). Each must be one of `origins` or `relatedOrigins`. Every other origin gets no CORS headers. Cookies stay `SameSite=Lax`, so a page on another site (not the same registrable domain) uses the `sessionToken` as a bearer token."),
        Key("passkeyEnrollURL", \.passkeyEnrollURL, check: single(endpointURLProblem),
            "Absolute https URL (http only for `localhost`) of the page where a signed-in user creates a passkey, served as `enroll` in `/.well-known/passkey-endpoints`, which is served when this or `passkeyManageURL` is set."),
        Key("passkeyManageURL", \.passkeyManageURL, check: single(endpointURLProblem),
            "Absolute https URL (http only for `localhost`) of the page where a user manages their passkeys, served as `manage` in `/.well-known/passkey-endpoints`."),
        Key("conformanceMode", \.conformanceMode,
            "For the FIDO conformance tools only, never in production: an existing username may register again without signing in; assertions without UP pass when UV is not required; the cross-site request guard is off and CORS answers any origin with credentials; cookies are `SameSite=None` over https; `tokenBinding` follows the strict Level 2 rules; the requested `displayName` is echoed."),
        Key("challengeTimeout", \.challengeTimeout, check: within(1...3_600, "between 1 and 3600 seconds"),
            "Seconds a challenge stays valid (1-3600)."),
        Key("sessionTimeout", \.sessionTimeout, check: within(60...31_536_000, "between 60 seconds and one year"),
            "Seconds a sign-in session lasts (60 s to one year)."),
        Key("reauthenticateAfter", \.reauthenticateAfter, check: within(0...86_400, "between 0 and 86400 seconds"),
            "Seconds after its sign-in that a session may still add a passkey or enroll a device key (0: as long as it lives). Later, those requests (the options, and the result or enrollment that adds the key) answer 403 with `\"reason\":\"reauthenticationRequired\"`: the person signs in again, which makes a new session, and the client retries. So a session token that leaked (an app log, a script on a page) cannot add a key of its own that outlives the session. Enrollment tickets are not affected. Not applied in conformance mode."),
        Key("requestTimeout", \.requestTimeout, check: within(1...300, "between 1 and 300 seconds"),
            "Seconds a connection has to deliver each whole request, head and body, counted from when it opens or sends its previous reply (1-300); a client that sends slowly (one byte a second) or leaves a kept-alive connection unused is disconnected then. Request bodies are at most 64 KiB (413), headers 32 KiB and 100 fields (431)."),
        Key("maxConnections", \.maxConnections, check: within(8...1_000_000, "between 8 and 1000000"),
            "Client connections the server holds open at most (8-1000000); more wait in the listen backlog until one closes. At start the open-file limit is raised to its hard limit, and when it still leaves too little room (this plus about 50 descriptors, plus the PostgreSQL pool, 64 for each of the admin and metrics listeners and 16 for each webhook receiver) the server warns and holds fewer. Should descriptors run out all the same, accepting pauses for a second at a time (one log line a minute, `latchkey_accept_pauses_total`) instead of spinning, and open connections are served meanwhile."),
        Key("eventLoops", \.eventLoops,
            "`one` (the default) or `perCore`: the event loop threads that serve connections and run their requests (and the PostgreSQL pool's connections). One thread serves about 1,500 sign-ins a second at the least CPU for each; on a 2-core machine one thread per core cost a quarter more CPU per sign-in (BENCHMARKS.md), spent waking threads. Choose `perCore` when the server's one thread is busy most of the time."),
        Key("storeTimeout", \.storeTimeout, check: within(1...30, "between 1 and 30 seconds"),
            "Seconds a request waits for a PostgreSQL connection or for a lock another process or session holds (SQLite's write lock, PostgreSQL's `lock_timeout`), and `/readyz` for its probe write, before answering 503 with `Retry-After` (1-30). `/readyz` is 503 whenever the store cannot take a write (a full disk, an I/O error, a read-only file or replica, an unreachable server); ceremonies then answer 503 too, never a 500."),
        .path("publicDirectory", \.publicDirectory, .folder, required: .always, "Folder served at `/`; must exist."),
        Key("allowCrossOrigin", \.allowCrossOrigin, "Accept ceremonies from cross-origin iframes (`crossOrigin: true`)."),
        Key("topOrigins", \.topOrigins, "Top-level origins accepted for cross-origin ceremonies."),
        Key("logLevel", \.logLevel, "`trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`."),
        Key("logFormat", \.logFormat,
            "`text` (one readable line per event) or `json` (one JSON object per line on standard error, with `time`, `level`, `message`, `label` and the event's metadata, such as `requestID`)."),
        Key("metricsAddress", \.metricsAddress, check: single(metricsAddressProblem),
            "`HOST:PORT` of a separate listener that serves `GET /metrics` (Prometheus text format) to anyone who can reach it, e.g. `127.0.0.1:9464`. Empty: no such listener."),
        Key("metricsToken", \.metricsToken, secrecy: .whole,
            "When set, `GET /metrics` is also served on the public listener to requests with `Authorization: Bearer` and this token. Empty (the default) with no `metricsAddress`: metrics are not served at all. Secret: never printed."),
        Key("trustedProxies", \.trustedProxies, check: each { RelyingPartyID.isIPAddress($0) ? nil : "\"\($0)\" is not an IP address" },
            "IP addresses of the reverse proxies in front of Latchkey. Only from these is a request's `X-Request-ID` kept (1-64 letters, digits, `-`, `_`, `.`); every other request gets a new ID. Every reply carries its ID in `X-Request-ID`, and every log line of the request as `requestID`. Only from these is `X-Forwarded-For` read: the client, for rate limits and challenge caps, is the right-most address in it that is not a trusted proxy; from anyone else it is the peer."),
        Key("rateLimit", \.rateLimit, check: within(0...1_000_000, "between 0 and 1000000"),
            "Requests a second each client address (an IPv6 client by its /64) may make, on average, to the endpoints that issue challenges or check signatures (`POST` to `/attestation/options` and `/result`, `/assertion/options` and `/result`, the device-key and App Attest endpoints) together; beyond it, 429 with `Retry-After`. 0 turns the limit off. Each tenant counts its own. Instances on one PostgreSQL count together: each decides from its own buckets and reconciles them through the store every second, so a client limited on one instance is limited on all within about two seconds (spreading requests over N instances gains at most what their buckets hold in that time). With SQLite, the one process counts alone. Not applied in conformance mode."),
        Key("rateLimitBurst", \.rateLimitBurst, check: within(1...1_000_000, "between 1 and 1000000"),
            "Requests a client address may make to those endpoints at once, after a quiet spell (the token bucket's size)."),
        Key("pendingChallengesPerClient", \.pendingChallengesPerClient, check: within(0...1_000_000, "between 0 and 1000000"),
            "Challenges (options not yet answered, not expired) one client address may have pending, per tenant; beyond it, options get 429. Each instance counts those it issued; when the cap is reached it asks the store which were answered through another instance, and stops counting them. On PostgreSQL the other instances' pending challenges count too, as the store said within the last second (a client's once it has two or more pending through them). 0: no cap. Not applied in conformance mode."),
        Key("pendingChallengesTotal", \.pendingChallengesTotal, check: within(0...100_000_000, "between 0 and 100000000"),
            "Challenges that may be pending in all, per tenant (on PostgreSQL, every instance's together, as the store said within the last second); beyond it, options get 503 with `Retry-After`. 0: no cap."),
        Key("adminAddress", \.adminAddress, check: single(adminAddressProblem),
            "`HOST:PORT` of a separate listener that serves the admin API (`/admin/v1`) and the operator console (`/console/`) and nothing else, e.g. `127.0.0.1:9090` or an address only the backend's network reaches; the main listener then answers `/admin/v1` with 404. Empty: the admin API is on the main listener (still only to admin keys)."),
        Key("consoleOrigin", \.consoleOrigin, check: single(consoleOriginProblem), reading: ["adminAddress", "origins", "rpID", "port"],
            derived: ("`http://localhost:PORT` of `adminAddress`; without one, `http://console.localhost:PORT` for RP ID `localhost`, else none",
                      "from adminAddress or rpID", { configuration in
                          if let admin = configuration.adminAddress { return "http://localhost:\(admin.port)" }
                          return configuration.rpID == .localhost ? "http://console.localhost:\(configuration.port)" : ""
                      }),
            "The origin operators' browsers open the console at (`/console/`): exact, as for `origins`, over https unless on localhost. Its host is the RP ID of the operators' passkeys, a relying party of its own, and it must be an origin of its own (none of `origins`, `relatedOrigins` or `corsOrigins`), so no page of the relying party shares the console's cookies. The console is on the admin listener; without `adminAddress`, on the main listener (reached at this origin's host). Behind a TLS proxy, its public origin. Empty: no console on the main listener."),
        Key("webhookURLs", \.webhookURLs, secrecy: .urlPassword, check: webhookURLProblems,
            "URLs every security event is POSTed to, signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`), from an outbox in the store: at least once, in order for each user, retried with backoff for 24 hours. `https` only, unless `webhookAllowHTTP`. A URL's `user:password@` is sent as HTTP Basic authentication; secret: the password is never printed or stored."),
        Key("webhookSecret", \.webhookSecret, secrecy: .whole, check: single(webhookSecretProblem),
            "The secret webhook deliveries are signed with: `whsec_` and the base64 of 24 to 64 random bytes, the form Standard Webhooks libraries take (`openssl rand -base64 32`). Required with `webhookURLs`. Secret: never printed."),
        Key("webhookPreviousSecret", \.webhookPreviousSecret, secrecy: .whole, check: single(previousWebhookSecretProblem),
            "The secret deliveries were signed with before `webhookSecret`, while receivers move to the new one: each delivery is then signed with both (`webhook-signature: v1,NEW v1,OLD`, as Standard Webhooks libraries accept), so a receiver verifies with either. Remove it once every receiver has the new secret. Secret: never printed."),
        Key("webhookAllowHTTP", \.webhookAllowHTTP, "Accept `http://` webhook URLs: for tests and receivers on loopback only."),
        Key("eventRetentionDays", \.eventRetentionDays, check: within(2...36_500, "between 2 and 36500 days"),
            "Days security events (and their webhook deliveries) are kept before the background sweep removes them."),
        Key("registration", \.registration, check: single(registrationProblem),
            "Who may register a username that does not exist yet: `open` (anyone; the first to ask owns the name) or `tickets` (only with an enrollment ticket the backend issued through the admin API, or a signed-in user adding a passkey; `/attestation/options` for an unknown username without a ticket is a 403)."),
        Key("tokenIssuer", \.tokenIssuer, check: notEmpty,
            derived: ("the first of `origins`", "the first origin", { $0.origins.first ?? "" }),
            "`iss` of the sign-in tokens (`idToken`) every successful ceremony returns; verifiers check it."),
        Key("tokenAudience", \.tokenAudience, check: single { $0.isEmpty ? "must name at least one audience" : nil },
            derived: ("the RP ID", "from rpID", { [$0.rpID.value] }),
            "`aud` of the sign-in tokens: the services that accept them, comma-separated; one is written as a string, several as an array."),
        Key("tokenLifetime", \.tokenLifetime, check: within(30...86_400, "between 30 seconds and one day"),
            "Seconds a sign-in token is valid (`exp` − `iat`, 30 s to one day). A rotated-out signing key stays in `/.well-known/jwks.json` this long (plus a minute) after its successor begins signing."),
        Key("signInTokens", \.signInTokens,
            "Whether each registration and sign-in answers with a sign-in token (`idToken`). A deployment whose backend reads the session instead (`GET /session` with the `sessionToken`) can turn them off: replies then have no `idToken`, and a sign-in skips its signature (about a tenth of its cost). The OpenID provider signs its ID tokens either way."),
        Key("attestationPolicy", \.attestationPolicy,
            "`none` accepts every attestation and records whether its chain verified; `self-or-trusted` accepts self attestation and chains to a trust anchor; `trusted-only` accepts only chains to a trust anchor. The strict modes make `/attestation/options` ask for `direct` attestation, and need at least one trust anchor (shipped, configured or from metadata)."),
        .path("trustAnchors", \.trustAnchors, .folder, required: .unlessDefault,
            "Folder of PEM root (or intermediate) certificates attestation chains may end in, added to the roots shipped in `Config/roots` (`apple/`: Apple WebAuthn; `android-key/`: Google hardware attestation). Files directly in a folder anchor every format; files in a subfolder named after a format (`packed/`, `tpm/`, ...) anchor that format only. A certificate inside `x5c` is never trusted by itself. The default folder is optional; any other must exist."),
        Key("allowedAAGUIDs", \.allowedAAGUIDs,
            "When set, only these authenticator models may register. The AAGUID in authenticator data is a claim: a model is admitted only when a certificate vouches for it (a trusted leaf with a matching id-fido-gen-ce-aaguid extension, or a chain to that model's own metadata roots)."),
        Key("deniedAAGUIDs", \.deniedAAGUIDs, "Authenticator models that may never register."),
        Key("allowSHA1", \.allowSHA1,
            "Accept RS1 (RSA with SHA-1) credentials and attestation signatures; the FIDO conformance tools need it."),
        .path("metadataBLOB", \.metadataBLOB, .file, required: .never,
            "FIDO Metadata Service (MDS3) BLOB loaded on start when present; `latchkey mds import FILE` verifies one and installs it here. Its entries add attestation roots per authenticator model, and models whose latest status is REVOKED or a compromise (ATTESTATION_KEY_COMPROMISE, USER_VERIFICATION_BYPASS, USER_KEY_REMOTE_COMPROMISE, USER_KEY_PHYSICAL_COMPROMISE) cannot register."),
        .path("metadataRoots", \.metadataRoots, .folder, required: .when { pathKind($0.metadataBLOB) == .file },
            "Folder of PEM roots the BLOB's signing chain must lead to (put the FIDO MDS root there); must exist when a BLOB is present."),
        Key("userVerification", \.userVerification,
            "The least user verification (Face ID, Touch ID, PIN...) every ceremony asks for: `required`, `preferred` or `discouraged`. A client may ask for more, never less; options carry the effective value and results are checked against it. Not applied in conformance mode."),
        Key("residentKey", \.residentKey,
            "The least resident-key requirement registrations ask for: `required` (discoverable passkeys, so usernameless sign-in works), `preferred` (deployments with security keys that have little storage) or `discouraged`. Not applied in conformance mode."),
        Key("syncedPasskeys", \.syncedPasskeys,
            "Whether passkeys that can be synced to other devices may register: `allowed`, or `refused` for device-bound ones only (security keys, Windows Hello), for deployments that must know a credential never leaves its device. Synced ones have the BE flag: iCloud Keychain (so every passkey an iPhone makes), Google Password Manager, password managers. Passkeys registered before stay usable; `backupEligible` in the credential lists shows which. A passkey whose BE flag at sign-in differs from its registration is refused either way, unless `backupEligibilityChanges` says otherwise."),
        Key("backupEligibilityChanges", \.backupEligibilityChanges,
            "A sign-in whose BE flag differs from its passkey's registration: `refused` (WebAuthn §7.2: BE is fixed for a credential's life, so a change means another or a misbehaving authenticator) or `accepted`, with a warning in the log, for a passkey provider known to change it."),
        Key("hideUnknownUsers", \.hideUnknownUsers,
            "Do not reveal whether a username exists: `/assertion/options` answers an unknown username with ordinary-looking options (a decoy `allowCredentials` shaped like the registered passkeys, the same for the same username every time, derived with a secret the store keeps; an account with no passkey yet gets one too) and the sign-in then fails, instead of 404. Off by default, as the FIDO conformance API expects 404. Open registration still refuses a taken username (403 without its owner's session), as any sign-up with chosen names must, and the rate limit bounds how fast names can be tried that way; with `registration: tickets` the refusal is the same for every name."),
        .path("authenticatorNames", \.authenticatorNames, .file, required: .unlessDefault,
            "JSON file naming passkey providers by AAGUID (`{\"AAGUID\": \"name\"}`), the default name of a passkey in `GET /credentials`; models it does not name are named by the metadata BLOB's descriptions, else \"Passkey\". No file at the default path: metadata names only; any other path must exist."),
    ]

    /// The declaration of a key, by its name in the file.
    public static func key(named name: String) -> ConfigurationKey? {
        keys.first { $0.name == name }
    }

    /// The value of a key as it may be printed or logged: secrets redacted.
    public func displayValue(of key: String) -> String {
        Self.key(named: key)?.displayValue(in: self) ?? ""
    }

    /// `rpID` → `LATCHKEY_RP_ID`, `appleAppIDs` → `LATCHKEY_APPLE_APP_IDS`: the words of swift-configuration's
    /// environment variable for `latchkey.<key>`.
    public static func environmentName(of key: String) -> String {
        var name = ""
        var previousWasUpper = false
        for character in key {
            if character.isUppercase, !name.isEmpty, !previousWasUpper { name += "_" }
            previousWasUpper = character.isUppercase
            name += character.uppercased()
        }
        return "LATCHKEY_" + name
    }

    /// The table of keys in docs/CONFIGURATION.md (Markdown), one row per key.
    public static var markdownTable: String {
        let defaults = LatchkeyConfiguration()
        let rows = keys.map { key in
            let value = key.displayValue(in: defaults)
            let shownDefault = key.defaultDescription ?? (value.isEmpty ? "none" : "`\(value)`")
            return "| `\(key.name)` | `\(key.environmentName)` | \(shownDefault) | \(key.documentation) |"
        }
        return (["| Key | Variable | Default | Meaning |", "|---|---|---|---|"] + rows).joined(separator: "\n")
    }

    // MARK: - Checks several keys share

    static func single<Value>(_ problem: @escaping @Sendable (Value) -> String?) -> Key.Check<Value> {
        { value, _ in [problem(value)] }
    }

    static func single<Value>(_ problem: @escaping @Sendable (Value, LatchkeyConfiguration) -> String?) -> Key.Check<Value> {
        { value, configuration in [problem(value, configuration)] }
    }

    /// One problem per bad item of a list.
    static func each(_ problem: @escaping @Sendable (String) -> String?) -> Key.Check<[String]> {
        { items, _ in items.map(problem) }
    }

    static func within(_ range: ClosedRange<Int>, _ description: String) -> Key.Check<Int> {
        single { range.contains($0) ? nil : "\($0) is not \(description)" }
    }

    static let notEmpty: Key.Check<String> = single { $0.isEmpty ? "must not be empty" : nil }
}
