import WebAuthn

/// The origin the authenticator puts into client data, checked and serialized as a browser would:
/// `https://host[:port]`, `http://` only for `localhost` and `*.localhost` (the only insecure
/// contexts with a valid RP ID), lower-case, default port dropped. An Android app origin
/// (`android:apk-key-hash:...`) is taken as given; its binding to the RP ID is the server's
/// `assetlinks.json`, not the host name.
public struct WebOrigin: Sendable, CustomStringConvertible {
    /// The origin as client data carries it.
    public let serialized: String
    /// The host, or nil for an Android app origin.
    public let host: String?

    public var description: String { serialized }

    public init(_ text: String) throws {
        if text.hasPrefix("android:apk-key-hash:") {
            let hash = text.dropFirst("android:apk-key-hash:".count)
            guard Base64URL.decode(String(hash))?.count == 32, !hash.hasSuffix("=") else {
                throw AuthenticatorError(.invalidOrigin, "origin \(text.debugDescription): an Android origin is android:apk-key-hash: and the base64url SHA-256 of the signing certificate (43 characters)")
            }
            serialized = text
            host = nil
            return
        }
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw AuthenticatorError(.invalidOrigin, "origin \(text.debugDescription) must start with https:// (or http:// for localhost)")
        }
        let authority = lowered.dropFirst(scheme.count + 3)
        guard !authority.contains(where: { "/?#@".contains($0) }) else {
            throw AuthenticatorError(.invalidOrigin, "origin \(text.debugDescription) must be scheme, host and optional port only, such as https://example.com (no path, query or user)")
        }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = String(parts[0])
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !host.isEmpty, host.count <= 253,
              labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } })
        else {
            throw AuthenticatorError(.invalidOrigin, "origin \(text.debugDescription) has no valid domain name as its host")
        }
        var port: Int?
        if parts.count == 2 {
            guard let number = Int(parts[1]), (1...65535).contains(number), parts[1].allSatisfy(\.isNumber) else {
                throw AuthenticatorError(.invalidOrigin, "origin \(text.debugDescription) has a port that is not 1-65535")
            }
            port = number
        }
        let isLocalhost = host == "localhost" || host.hasSuffix(".localhost")
        guard scheme == "https" || isLocalhost else {
            throw AuthenticatorError(.invalidOrigin, "origin \(text.debugDescription) must be https: WebAuthn runs over http only on localhost")
        }
        if port == (scheme == "https" ? 443 : 80) { port = nil }
        self.serialized = "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
        self.host = host
    }

    /// The RP ID a ceremony uses: the options' (named `member` in messages) when given, which must
    /// be this origin's host or a registrable suffix of it (WebAuthn §5.1.3 step 8, §5.1.4.1 step
    /// 7), else the host itself.
    func relyingPartyID(_ requested: String?, member: String) throws -> String {
        guard let requested else {
            guard let host else {
                throw AuthenticatorError(.wrongRPID, "wrong RP ID: the options have no \(member) and an Android origin has no host to take it from")
            }
            return host
        }
        let rpID = requested.lowercased()
        guard let host else { return rpID }
        guard !rpID.isEmpty, !rpID.hasPrefix("."), host == rpID || host.hasSuffix("." + rpID) else {
            throw AuthenticatorError(.wrongRPID, "wrong RP ID: \(member) \(requested.debugDescription) is neither the origin's host \(host) nor a domain it belongs to")
        }
        return rpID
    }
}
