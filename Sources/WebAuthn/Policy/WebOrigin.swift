/// An origin as client data carries it, checked and serialized as a browser would:
/// `https://host[:port]`, `http://` only for `localhost` and `*.localhost` (the only insecure
/// contexts with a valid RP ID), lower-case, default port dropped. An Android app origin
/// (`android:apk-key-hash:...`) is taken as given; its binding to the RP ID is the relying party's
/// `assetlinks.json`, not a host name. The one origin rule of the project: the configuration's
/// checks and the software authenticator use it.
public struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    /// Why a text is not an origin.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// Which rule it breaks.
        public enum Kind: Sendable {
            /// Not `scheme://host[:port]`, or an Android origin without a 32-byte hash.
            case malformed
            /// A well-formed `http://` origin whose host is not `localhost` or under it.
            case insecure
        }

        public let kind: Kind
        public let description: String
        init(_ description: String, _ kind: Kind = .malformed) {
            self.kind = kind
            self.description = description
        }
    }

    /// The origin as client data carries it.
    public let serialized: String
    /// The host, or nil for an Android app origin.
    public let host: String?

    public var description: String { serialized }

    public init(_ text: String) throws {
        if text.hasPrefix(AndroidApp.originPrefix) {
            let hash = text.dropFirst(AndroidApp.originPrefix.count)
            guard Base64URL.decode(String(hash))?.count == 32, !hash.hasSuffix("=") else {
                throw Problem("origin \(text.debugDescription): an Android origin is android:apk-key-hash: and the base64url SHA-256 of the signing certificate (43 characters)")
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
            throw Problem("origin \(text.debugDescription) must start with https:// (or http:// for localhost)")
        }
        let authority = lowered.dropFirst(scheme.count + 3)
        guard !authority.contains(where: { "/?#@".contains($0) }) else {
            throw Problem("origin \(text.debugDescription) must be scheme, host and optional port only, such as https://example.com (no path, query or user)")
        }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = String(parts[0])
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !host.isEmpty, host.count <= 253,
              labels.allSatisfy({ !$0.isEmpty && $0.count <= 63 && $0.allSatisfy(\.isLDH) })
        else {
            throw Problem("origin \(text.debugDescription) has no valid domain name as its host")
        }
        var port: Int?
        if parts.count == 2 {
            guard let number = Int(parts[1]), (1...65535).contains(number), parts[1].allSatisfy(\.isNumber) else {
                throw Problem("origin \(text.debugDescription) has a port that is not 1-65535")
            }
            port = number
        }
        let isLocalhost = host == "localhost" || host.hasSuffix(".localhost")
        guard scheme == "https" || isLocalhost else {
            throw Problem("origin \(text.debugDescription) must be https: WebAuthn runs over http only on localhost", .insecure)
        }
        if port == (scheme == "https" ? 443 : 80) { port = nil }
        self.serialized = "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "")
        self.host = host
    }

    /// Whether `rpID` may be the RP ID of a ceremony at this origin: the host itself or a domain
    /// it is under (WebAuthn §5.1.3 step 8, §5.1.4.1 step 7). An Android origin has no host: its
    /// RP ID is bound elsewhere, so any is admitted here.
    public func admits(rpID: String) -> Bool {
        guard let host else { return true }
        return !rpID.isEmpty && !rpID.hasPrefix(".") && (host == rpID || host.hasSuffix("." + rpID))
    }
}
