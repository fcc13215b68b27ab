import Foundation
import WebAuthn

/// The checks of values that are more than a type or a range. Each returns the problem in words, quoting the value, or
/// nil when the value is good.
extension LatchkeyConfiguration {
    /// The core's refusal of a text as an identity (an RP ID, an app) in its words, or nil when `parse` takes it.
    static func identityProblem<Identity>(
        _ parse: @escaping @Sendable (String) throws(IdentityProblem) -> Identity
    ) -> @Sendable (String) -> String? {
        { text in
            do throws(IdentityProblem) {
                _ = try parse(text)
                return nil
            } catch {
                return error.message
            }
        }
    }

    /// At least one origin; each an `android:apk-key-hash:` origin of 32 bytes, or a web origin whose host the RP ID is
    /// a registrable suffix of (WebAuthn §5.1.3, HTML's "is a registrable domain suffix of or is equal to").
    static func originProblems(_ origins: [String], _ configuration: LatchkeyConfiguration) -> [String?] {
        guard !origins.isEmpty else { return ["at least one origin is required"] }
        let rpID = configuration.rpID.value
        return origins.map { origin in
            if origin.hasPrefix(AndroidApp.originPrefix) {
                guard (try? WebOrigin(origin)) == nil else { return nil }
                return "\"\(origin)\" is not android:apk-key-hash: and a SHA-256 fingerprint (32 bytes) in base64url without padding"
            }
            if let problem = webOriginProblem(origin) { return problem }
            guard let parsed = try? WebOrigin(origin), let host = parsed.host else { return nil }
            guard parsed.admits(rpID: rpID) else {
                return "the host of \"\(origin)\" is not \(rpID) or a subdomain of it, so passkeys for RP ID \(rpID) cannot be used there"
            }
            // Without the Public Suffix List, a top-level domain is the public suffix that can be told.
            guard host == rpID || rpID.contains(".") || rpID == "localhost" else {
                return "the RP ID \(rpID) is a top-level domain, which cannot be the RP ID of \"\(origin)\" (use its registrable domain)"
            }
            return nil
        }
    }

    /// A web origin the relying party already accepts, so CORS never trusts a page the ceremonies would refuse.
    static func corsOriginProblems(_ origins: [String], _ configuration: LatchkeyConfiguration) -> [String?] {
        origins.map { origin in
            if let problem = webOriginProblem(origin) { return problem }
            return configuration.pageOrigins.contains(origin) ? nil : "\"\(origin)\" is not one of origins or relatedOrigins"
        }
    }

    /// `https://host[:port]` exactly as browsers serialize it (lowercase, no default port, no path), over https unless
    /// the host is `localhost` or under it: the core's ``WebOrigin``.
    static func webOriginProblem(_ origin: String) -> String? {
        let parsed: WebOrigin
        do {
            parsed = try WebOrigin(origin)
        } catch let problem as WebOrigin.Problem where problem.kind == .insecure {
            return "\"\(origin)\" must use https (plain http is only allowed for localhost)"
        } catch {
            return "\"\(origin)\" is not an origin like https://example.com[:port]"
        }
        guard parsed.host != nil else { return "\"\(origin)\" is not an origin like https://example.com[:port]" }
        guard parsed.serialized == origin else {
            return "\"\(origin)\" would never match: browsers send this origin as \"\(parsed.serialized)\""
        }
        return nil
    }

    /// A passkey endpoint: an absolute https URL (http for localhost), or empty for none.
    static func endpointURLProblem(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        return urlProblem(text, example: "https://example.com/account/passkeys", allowsHTTP: isLocalhost,
                          https: "plain http is only allowed for localhost")
    }

    /// The name a webhook receiver is known by, and its deliveries are stored under: its URL with the password
    /// hidden, so that a new password leaves it the same receiver.
    public static func webhookReceiverName(of url: String) -> String {
        ConfigurationRedaction.redactingURLPassword(url)
    }

    /// Webhook receivers: absolute https URLs, or http with `webhookAllowHTTP`, each listed once (by name, so
    /// passwords aside). Messages show their passwords redacted.
    static func webhookURLProblems(_ urls: [String], _ configuration: LatchkeyConfiguration) -> [String?] {
        let names = urls.map(webhookReceiverName)
        return urls.indices.map { index in
            urlProblem(urls[index], example: "https://backend.example.com/hooks/latchkey",
                       allowsHTTP: { _ in configuration.webhookAllowHTTP },
                       https: "http only with webhookAllowHTTP, LATCHKEY_WEBHOOK_ALLOW_HTTP=true, for tests and loopback")
                ?? (names[..<index].contains(names[index]) ? "\"\(names[index])\" is listed twice (passwords aside)" : nil)
        }
    }

    /// An absolute http or https URL with a host, which may use http only when `allowsHTTP` admits its host.
    static func urlProblem(_ text: String, example: String, allowsHTTP: (String) -> Bool, https rule: String) -> String? {
        let shown = ConfigurationRedaction.redactingURLPassword(text)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host?.lowercased(), !host.isEmpty
        else { return "\"\(shown)\" is not an absolute URL like \(example)" }
        return scheme == "https" || allowsHTTP(host) ? nil : "\"\(shown)\" must use https (\(rule))"
    }

    /// The signing secret: required with receivers, in the Standard Webhooks form.
    static func webhookSecretProblem(_ secret: String, _ configuration: LatchkeyConfiguration) -> String? {
        guard !secret.isEmpty else { return configuration.webhookURLs.isEmpty ? nil : "is required when webhookURLs are set" }
        do {
            _ = try webhookSigningKey(secret)
            return nil
        } catch {
            return error.message
        }
    }

    /// The secret being rotated out: in the same form, and not the current one.
    static func previousWebhookSecretProblem(_ secret: String, _ configuration: LatchkeyConfiguration) -> String? {
        guard !secret.isEmpty else { return nil }
        guard !configuration.webhookSecret.isEmpty else { return "is only used with a webhookSecret" }
        guard secret != configuration.webhookSecret else { return "is webhookSecret itself; it is the secret rotated out" }
        return webhookSecretProblem(secret, configuration)
    }

    /// The key of a Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 bytes.
    public static func webhookSigningKey(_ secret: String) throws(ConfigurationError) -> [UInt8] {
        guard secret.hasPrefix("whsec_") else {
            throw ConfigurationError("must start with whsec_ (then the base64 of 24 to 64 random bytes)")
        }
        guard let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else {
            throw ConfigurationError("must be whsec_ followed by base64 (for example whsec_$(openssl rand -base64 32))")
        }
        guard (24...64).contains(key.count) else {
            throw ConfigurationError("must hold 24 to 64 bytes after whsec_ (it holds \(key.count))")
        }
        return Array(key)
    }

    static func appAttestProblem(_ requirement: AppAttestRequirement, _ configuration: LatchkeyConfiguration) -> String? {
        if requirement != .off, configuration.appleAppIDs.isEmpty {
            return "App Attest verifies keys of the apps in appleAppIDs, and there is none"
        }
        return requirement == .required && configuration.conformanceMode
            ? "\"required\" cannot be used with conformanceMode, whose tools cannot attest" : nil
    }

    static func registrationProblem(_ mode: RegistrationMode, _ configuration: LatchkeyConfiguration) -> String? {
        mode == .tickets && configuration.conformanceMode
            ? "\"tickets\" cannot be used with conformanceMode, whose tools register any username" : nil
    }

    static func metricsAddressProblem(_ address: ListenAddress?, _ configuration: LatchkeyConfiguration) -> String? {
        guard let address else { return nil }
        return hostProblem(address.host) ?? sharedListenerProblem(address, with: [("the main listener's", configuration.mainListener)])
    }

    /// Empty, or a web origin that no page of the relying party has: the console's cookies are host-only, so an origin
    /// of its own keeps every other page (and whatever script one runs) away from an operator's session.
    static func consoleOriginProblem(_ origin: String, _ configuration: LatchkeyConfiguration) -> String? {
        guard !origin.isEmpty else { return nil }
        if let problem = webOriginProblem(origin) { return problem }
        let pages = Set(configuration.origins + configuration.relatedOrigins + configuration.corsOrigins)
        guard !pages.contains(origin) else {
            return "\"\(origin)\" is one of the relying party's origins; the console needs an origin of its own (another host, such as console.\(configuration.rpID), or the admin listener's port), so that no page of the site shares its cookies"
        }
        return nil
    }

    static func adminAddressProblem(_ address: ListenAddress?, _ configuration: LatchkeyConfiguration) -> String? {
        guard let address else { return nil }
        return hostProblem(address.host) ?? sharedListenerProblem(address, with: [
            ("the main listener's", configuration.mainListener), ("metricsAddress's", configuration.metricsAddress),
        ])
    }

    /// `host:port` as a listen address, as the second listeners are compared with it.
    private var mainListener: ListenAddress? { ListenAddress("\(host):\(port)") }

    /// A second listener on an address another one takes (the same port on the same host, or on every address):
    /// `serve` could never start, so it is refused here, where `check-config` says it. (The host of a second
    /// listener resolves, as `host`'s must: `serve` stopped with "does not resolve" after `check-config` passed it.)
    private static func sharedListenerProblem(_ mine: ListenAddress, with others: [(name: String, address: ListenAddress?)]) -> String? {
        for other in others {
            guard let theirs = other.address, theirs.port == mine.port else { continue }
            if sameAddress(boundHost(mine.host), boundHost(theirs.host)) {
                return "\"\(mine.text)\" takes port \(mine.port), which is \(other.name) (\(theirs.text)); give this listener a port of its own"
            }
        }
        return nil
    }

    /// Whether two listeners on one port would take the same address: the same host, or a wildcard of the other's
    /// family (`0.0.0.0` every IPv4 address, `::` every address of either family, as Linux binds it by default).
    private static func sameAddress(_ a: String, _ b: String) -> Bool {
        func covers(_ wildcard: String, _ host: String) -> Bool {
            wildcard == "::" || (wildcard == "0.0.0.0" && !host.contains(":"))
        }
        return a == b || covers(a, b) || covers(b, a)
    }

    private static func boundHost(_ host: String) -> String {
        let lowered = host.lowercased()
        return lowered == "localhost" ? "127.0.0.1" : lowered
    }

    /// A host name or address to listen on that resolves (getaddrinfo), as the server will resolve it when it binds.
    static func hostProblem(_ host: String) -> String? {
        guard !host.isEmpty else { return "must not be empty" }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &results)
        defer { if let results { freeaddrinfo(results) } }
        return status == 0 ? nil : "\"\(host)\" does not resolve (\(String(cString: gai_strerror(status))))"
    }

    static func isLocalhost(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost")
    }
}
