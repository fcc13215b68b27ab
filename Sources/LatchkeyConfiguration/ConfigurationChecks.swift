import Foundation
import WebAuthn

/// The checks of configuration values that are more than a type or a range: names, origins and
/// URLs. Each returns the problem in words, naming the value, or `nil` when the value is good.
extension LatchkeyConfiguration {
    /// A lowercase domain name, without scheme, port or path, and not an IP address: browsers
    /// refuse an IP address as RP ID (WebAuthn §5.1.3 wants a valid domain).
    static func rpIDProblem(_ rpID: String) -> String? {
        let unbracketed = rpID.hasPrefix("[") && rpID.hasSuffix("]") ? String(rpID.dropFirst().dropLast()) : rpID
        if isIPAddress(unbracketed) {
            return "\"\(rpID)\" is an IP address, which browsers refuse as an RP ID: use a domain name (localhost on this machine)"
        }
        let problems = domainNameProblems(rpID)
        return problems.isEmpty ? nil : "\"\(rpID)\" is not a valid RP ID: " + problems.joined(separator: "; ")
    }

    /// What keeps `name` from being a registrable-looking DNS name as an RP ID must be: lower-case
    /// LDH labels of 1 to 63 bytes that neither start nor end with a hyphen, at most 253 bytes in
    /// all, no trailing dot, and at least two labels unless it is `localhost`. Empty when it is one.
    static func domainNameProblems(_ name: String) -> [String] {
        guard !name.isEmpty else { return ["it is empty"] }
        if name.contains("://") || name.contains("/") || name.contains(":") {
            return ["it is not a bare domain name (no scheme, port or path)"]
        }
        guard name.unicodeScalars.allSatisfy(\.isASCII) else {
            return ["it has characters outside ASCII (use the punycode form, xn--...)"]
        }
        var problems: [String] = []
        if name != name.lowercased() { problems.append("it has upper-case letters (RP IDs are lower case)") }
        if name.utf8.count > 253 { problems.append("it is \(name.utf8.count) bytes long (at most 253)") }
        if name.hasSuffix(".") { problems.append("it ends with a dot") }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let inner = name.hasSuffix(".") ? labels.dropLast() : labels[...]
        if inner.contains(where: \.isEmpty) { problems.append("it has an empty label (a leading dot or two dots in a row)") }
        for label in inner where !label.isEmpty {
            if label.utf8.count > 63 { problems.append("the label \"\(label.prefix(20))...\" is \(label.utf8.count) bytes long (at most 63)") }
            if let bad = label.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-")) }) {
                problems.append("the label \"\(label)\" has \"\(bad)\" (only letters, digits and hyphens)")
            }
            if label.hasPrefix("-") || label.hasSuffix("-") { problems.append("the label \"\(label)\" starts or ends with a hyphen") }
        }
        if inner.count < 2, name != "localhost" {
            problems.append("it is a single label (an RP ID is a domain such as example.com, or localhost)")
        }
        return problems
    }

    /// `TEAMID.bundle.id`: a team ID of 10 upper-case letters or digits, then a bundle ID of
    /// dot-separated parts made of letters, digits and hyphens.
    static func appleAppIDProblem(_ appID: String) -> String? {
        guard let dot = appID.firstIndex(of: ".") else { return "\"\(appID)\" is not TEAMID.bundle.id" }
        let teamID = appID[..<dot]
        let bundleID = appID[appID.index(after: dot)...]
        var problems: [String] = []
        if teamID.count != 10 || !teamID.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) {
            problems.append("the team ID \"\(teamID)\" is not 10 upper-case letters or digits")
        }
        let parts = bundleID.split(separator: ".", omittingEmptySubsequences: false)
        if !parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }) {
            problems.append("the bundle ID \"\(bundleID)\" is not dot-separated parts of letters, digits and hyphens")
        }
        return problems.isEmpty ? nil : "\"\(appID)\": " + problems.joined(separator: "; ")
    }

    /// `PACKAGE@SHA256_FINGERPRINT`.
    static func androidAppProblem(_ text: String) -> String? {
        do {
            _ = try AndroidApp(parsing: text)
            return nil
        } catch {
            return error.message
        }
    }

    /// Each origin of `origins`: an `android:apk-key-hash:` origin of 32 bytes, or a web origin
    /// whose host the RP ID is a registrable suffix of (WebAuthn §5.1.3, HTML's "is a registrable
    /// domain suffix of or is equal to").
    static func originProblems(_ origins: [String], rpID: String) -> [String] {
        guard !origins.isEmpty else { return ["at least one origin is required"] }
        return origins.compactMap { origin in
            if origin.hasPrefix(AndroidApp.originPrefix) {
                guard (try? WebOrigin(origin)) != nil else {
                    return "\"\(origin)\" is not android:apk-key-hash: and a SHA-256 fingerprint (32 bytes) in base64url without padding"
                }
                return nil
            }
            if let problem = webOriginProblem(origin) { return problem }
            // A bad RP ID is reported under its own key; comparing with it would only add noise.
            guard rpIDProblem(rpID) == nil, let parsed = try? WebOrigin(origin), let host = parsed.host else { return nil }
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

    /// CORS origins must be web origins the relying party already accepts, so CORS never trusts
    /// a page the ceremonies and the cross-site request guard would refuse.
    static func corsOriginProblems(_ origins: [String], _ configuration: LatchkeyConfiguration) -> [String] {
        origins.compactMap { origin in
            if let problem = webOriginProblem(origin) { return problem }
            guard configuration.pageOrigins.contains(origin) else {
                return "\"\(origin)\" is not one of origins or relatedOrigins"
            }
            return nil
        }
    }

    /// `https://host[:port]` exactly as browsers serialize it (lowercase, no default port, no
    /// path), over https unless the host is `localhost` or under it: the core's ``WebOrigin``.
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

    /// An absolute https URL (http for localhost), or empty for none.
    static func endpointURLProblem(_ text: String) -> String? {
        guard !text.isEmpty else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            return "\"\(text)\" is not an absolute URL like https://example.com/account/passkeys"
        }
        guard scheme == "https" || isLocalhost(host.lowercased()) else {
            return "\"\(text)\" must use https (plain http is only allowed for localhost)"
        }
        return nil
    }

    /// A webhook receiver: an absolute https URL, or http with `webhookAllowHTTP`.
    static func webhookURLProblem(_ text: String, _ configuration: LatchkeyConfiguration) -> String? {
        // A receiver URL may carry a password: messages show it redacted.
        let shown = ConfigurationRedaction.redactingURLPassword(text)
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            return "\"\(shown)\" is not an absolute URL like https://backend.example.com/hooks/latchkey"
        }
        guard scheme == "https" || configuration.webhookAllowHTTP else {
            return "\"\(shown)\" must use https (http only with webhookAllowHTTP, for tests and loopback)"
        }
        return nil
    }

    /// The signing secret: required with receivers, in the Standard Webhooks form.
    static func webhookSecretProblem(_ secret: String, _ configuration: LatchkeyConfiguration) -> String? {
        if secret.isEmpty {
            return configuration.webhookURLs.isEmpty ? nil : "is required when webhookURLs are set"
        }
        do {
            _ = try webhookSigningKey(secret)
            return nil
        } catch {
            return error.message
        }
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

    /// The problem with a `HOST:PORT` value, or nil when it is one (or empty).
    static func listenAddressProblem(_ address: String, key: String) -> String? {
        address.isEmpty || (try? listenAddress(address, key: key)) != nil ? nil : "\"\(address)\" is not HOST:PORT"
    }

    /// A host name or address to listen on that resolves (getaddrinfo), as the server will
    /// resolve it when it binds.
    static func hostProblem(_ host: String) -> String? {
        guard !host.isEmpty else { return "must not be empty" }
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &results)
        defer { if let results { freeaddrinfo(results) } }
        guard status == 0 else {
            return "\"\(host)\" does not resolve (\(String(cString: gai_strerror(status))))"
        }
        return nil
    }

    /// An IPv4 or IPv6 address in its usual text form (inet_pton accepts it).
    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    static func isLocalhost(_ host: String) -> Bool {
        host == "localhost" || host.hasSuffix(".localhost")
    }

    // MARK: - Files and folders: resolved against one home, and checked to exist where the server needs them

    /// The configuration with every path key (and the shipped roots) made absolute against `home`.
    public func resolvingPaths(against home: LatchkeyHome) -> LatchkeyConfiguration {
        var resolved = self
        resolved.home = home.path
        for key in Self.keys where key.isPath {
            guard case .string(let path) = key.get(resolved) else { continue }
            _ = key.set(&resolved, .string(home.resolve(path)))
        }
        resolved.shippedTrustAnchors = home.resolve(shippedTrustAnchors)
        return resolved
    }

    /// `path` as the loader resolves it: against ``home`` when the paths were resolved.
    func resolvedPath(_ path: String) -> String {
        home.isEmpty ? path : LatchkeyHome.resolve(path, against: home)
    }

    /// What is wrong with a path: missing when `required`, or not of its kind when it exists.
    static func pathProblem(_ path: String, _ kind: ConfigurationKey.PathKind, required: Bool) -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            guard required else { return nil }
            return kind == .folder ? "folder \(path) does not exist" : "file \(path) does not exist"
        }
        switch (kind, isFolder.boolValue) {
        case (.folder, false): return "\(path) is a file, not a folder"
        case (.file, true): return "\(path) is a folder, not a file"
        default: return nil
        }
    }

    /// Whether `path` names a file (not a folder) that exists.
    static func isFile(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }

    /// Problems of the installation itself, which no key sets: the roots shipped with Latchkey.
    var installationProblems: [String] {
        guard let problem = Self.pathProblem(shippedTrustAnchors, .folder, required: true) else { return [] }
        let hint = "the roots shipped with Latchkey (Apple, Google) live there; "
            + (home.isEmpty ? "start latchkey from its installation folder" : "is \(home) the installation folder? Set \(LatchkeyHome.variable) to it")
        return [ConfigurationError.line(key: "shippedTrustAnchors", source: .derived("under the home"), "\(problem): \(hint)")]
    }

    /// A strict attestation policy with nothing to trust refuses every registration.
    static func attestationPolicyProblem(_ mode: AttestationPolicy.Mode, _ configuration: LatchkeyConfiguration) -> String? {
        guard mode != .none, configuration.attestationRootCount == 0 else { return nil }
        return "\(mode.rawValue) needs a trust anchor, and there is none: no certificate in \(configuration.shippedTrustAnchors) "
            + "or \(configuration.trustAnchors), and no metadata BLOB with roots at \(configuration.metadataBLOB), "
            + "so every registration would be refused"
    }

    /// How many attestation roots the server would load: shipped, configured and, when there are
    /// none of those and a metadata BLOB is present, the roots its entries name. `nil` when the
    /// anchor folders cannot be read: loading them reports that, and a count would only add noise.
    var attestationRootCount: Int? {
        guard let anchors = try? TrustAnchors.load(directories: [shippedTrustAnchors, trustAnchors]) else { return nil }
        guard anchors.count == 0, Self.isFile(metadataBLOB) else { return anchors.count }
        // A BLOB that cannot be verified anchors nothing (and is reported when it is loaded).
        let metadata = try? loadMetadata(from: metadataBLOB)
        return metadata?.blob.entries.reduce(0) { $0 + $1.attestationRootCertificates.count } ?? 0
    }
}

extension LatchkeyConfiguration {
    /// Reads and verifies a metadata BLOB file against the configured metadata roots.
    public func loadMetadata(from path: String) throws -> MetadataService {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("metadataBLOB (LATCHKEY_METADATA_BLOB): cannot read \(path)")
        }
        return try metadata(String(decoding: bytes, as: UTF8.self), source: path)
    }

    /// Verifies a metadata BLOB's text against the configured metadata roots.
    public func metadata(_ text: String, source path: String) throws -> MetadataService {
        let roots: [X509Certificate]
        do {
            roots = try TrustAnchors.load(directories: [metadataRoots]).certificates
        } catch let error as WebAuthnError {
            throw ConfigurationError("metadataRoots (LATCHKEY_METADATA_ROOTS): \(error.message)")
        }
        guard !roots.isEmpty else {
            throw ConfigurationError("metadataRoots (LATCHKEY_METADATA_ROOTS): no PEM root in \(metadataRoots) to verify the metadata BLOB with")
        }
        do {
            return MetadataService(blob: try MetadataBLOB.verify(jwt: text, roots: roots))
        } catch let error as WebAuthnError {
            throw ConfigurationError("metadataBLOB (LATCHKEY_METADATA_BLOB): \(path) was refused: \(error.message)")
        }
    }
}
