import Foundation
import LatchkeyStore
import PostgresNIO

extension PostgresStore {
    /// Where and how a ``PostgresStore`` connects, read from a URL such as
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE&connect_timeout=SECONDS&keepalives_idle=SECONDS]`.
    ///
    /// Errors never quote the URL, so they cannot leak the password; ``server`` names the server
    /// for messages.
    public struct Configuration: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// How the connection is encrypted, with libpq's names and meanings.
        public enum TLSMode: String, Sendable, CaseIterable {
            /// Never TLS.
            case disable
            /// TLS when the server offers it, without checking its certificate (libpq's default).
            case prefer
            /// TLS always, without checking the server's certificate.
            case require
            /// TLS always, with a certificate for the host that chains to the system's trust roots.
            case verifyFull = "verify-full"
        }

        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String
        public var tls: TLSMode
        /// How long reaching the server and signing in may take before it fails.
        public var connectTimeout: Duration
        /// The most connections this process keeps open to the server.
        public var maximumConnections: Int
        /// The connections kept open even when idle. postgres-nio arms an idle-timeout timer each
        /// time a connection above this many goes back to the pool (with none kept, a quarter of
        /// Latchkey's CPU per sign-in under 16 clients, BENCHMARKS.md), so the server makes its
        /// pool fixed-size: ``maximumConnections``.
        public var minimumConnections = 0
        /// How long a call waits for a pooled connection before it fails as unavailable: short,
        /// so that requests and readiness checks answer 503 while the server is down.
        public var leaseTimeout: Duration = .seconds(2)
        /// How long a statement waits for a lock another session holds (PostgreSQL's `lock_timeout`)
        /// before it fails as busy, so that an operator's open transaction or a stuck client cannot
        /// hold requests indefinitely; nil: as long as it takes.
        public var lockTimeout: Duration?
        /// After how long idle a pooled connection sends a `SELECT 1` (to keep a NAT or load
        /// balancer from dropping it); nil: never.
        public var keepAliveIdle: Duration?

        public init(
            host: String, port: Int = 5432, username: String, password: String?, database: String,
            tls: TLSMode = .prefer, connectTimeout: Duration = .seconds(10), maximumConnections: Int = 20
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls
            self.connectTimeout = connectTimeout
            self.maximumConnections = maximumConnections
        }

        /// Reads a `postgres://` or `postgresql://` URL. The user name and password may be
        /// percent-encoded; `sslmode`, `connect_timeout` and `keepalives_idle` are the only query parameters.
        public init(url: String) throws {
            guard let components = URLComponents(string: url) else {
                throw StoreError(.database, "the PostgreSQL URL cannot be parsed (percent-encode @, :, / and ? in the user name and password)")
            }
            let scheme = components.scheme?.lowercased()
            guard scheme == "postgres" || scheme == "postgresql" else {
                throw StoreError(.database, "a PostgreSQL URL starts with postgres:// or postgresql://")
            }
            guard var host = components.host, !host.isEmpty else {
                throw StoreError(.database, "the PostgreSQL URL names no host")
            }
            // An IPv6 address is written in brackets in a URL, and without them in a socket address.
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            // Never connect without the password because its escapes could not be decoded.
            guard components.percentEncodedPassword == nil || components.password != nil else {
                throw StoreError(.database, "the PostgreSQL URL's password is not correctly percent-encoded")
            }
            guard let username = components.user, !username.isEmpty else {
                throw StoreError(.database, "the PostgreSQL URL names no user (postgres://USER[:PASSWORD]@HOST:PORT/DATABASE)")
            }
            let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
            guard !database.isEmpty, !database.contains("/") else {
                throw StoreError(.database, "the PostgreSQL URL names no database (postgres://USER[:PASSWORD]@HOST:PORT/DATABASE)")
            }
            self.init(host: host, port: components.port ?? 5432, username: username, password: components.password, database: database)
            guard (1...65_535).contains(port) else {
                throw StoreError(.database, "the PostgreSQL URL's port \(port) is not between 1 and 65535")
            }
            for item in components.queryItems ?? [] {
                switch item.name {
                case "sslmode":
                    guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                        let modes = TLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                        throw StoreError(.database, "the PostgreSQL URL's sslmode must be one of \(modes)")
                    }
                    tls = mode
                case "connect_timeout":
                    guard let seconds = item.value.flatMap(Int.init), (1...600).contains(seconds) else {
                        throw StoreError(.database, "the PostgreSQL URL's connect_timeout must be whole seconds from 1 to 600")
                    }
                    connectTimeout = .seconds(seconds)
                case "keepalives_idle":
                    guard let seconds = item.value.flatMap(Int.init), (1...3_600).contains(seconds) else {
                        throw StoreError(.database, "the PostgreSQL URL's keepalives_idle must be whole seconds from 1 to 3600")
                    }
                    keepAliveIdle = .seconds(seconds)
                default:
                    // The name only: a misplaced password must not be echoed.
                    throw StoreError(.database, "the PostgreSQL URL has an unknown parameter \"\(item.name)\" (known: sslmode, connect_timeout, keepalives_idle)")
                }
            }
        }

        /// Why the connection could be read or changed by someone on the network: nil over a Unix
        /// socket, to a loopback address, or with `sslmode=verify-full`. The store holds token
        /// signing keys and credential public keys, so whoever can change it can sign anyone in.
        public var transportWarning: String? {
            // A Unix socket's folder, or a loopback name or address (127.0.0.0/8 written in full).
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            let loopback = host.hasPrefix("/") || host == "localhost" || host == "::1"
                || (octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil })
            guard tls != .verifyFull, !loopback else { return nil }
            return "the connection to PostgreSQL at \(server) is not verified (sslmode=\(tls.rawValue)): anyone on the network "
                + "path could read or change what Latchkey stores, its token signing keys included; use sslmode=verify-full"
        }

        /// `host:port/database`, for messages and logs: never the user's password.
        public var server: String {
            let address = host.contains(":") ? "[\(host)]" : host
            return "\(address):\(port)/\(database)"
        }

        /// The URL with the password hidden: a configuration may be printed or logged.
        public var description: String {
            let password = password == nil ? "" : ":<redacted>"
            return "postgres://\(username)\(password)@\(server)?sslmode=\(tls.rawValue)"
        }

        public var debugDescription: String { description }

        /// Reflection (`dump`, test reports) sees the redacted URL only.
        public var customMirror: Mirror { Mirror(self, children: ["url": description]) }

        /// Hides the password wherever it occurs in `text`, in case an error quoted it.
        func redacting(_ text: String) -> String {
            guard let password, !password.isEmpty else { return text }
            return text.replacingOccurrences(of: password, with: "<redacted>")
        }

        // MARK: postgres-nio settings

        var clientConfiguration: PostgresClient.Configuration {
            var configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
            configuration.options.connectTimeout = connectTimeout
            configuration.options.maximumConnections = maximumConnections
            // postgres-nio arms a keep-alive timer (a task group and a Dispatch timer) each time a
            // connection goes back to the pool: a sixth of Latchkey's CPU per sign-in (BENCHMARKS.md).
            // Off unless asked for, as libpq's own keep-alives are left to the system's defaults.
            configuration.options.keepAliveBehavior = keepAliveIdle.map { .init(frequency: $0) }
            configuration.options.minimumConnections = minimumConnections
            if let lockTimeout {
                let milliseconds = max(1, Int((lockTimeout / .milliseconds(1)).rounded(.up)))
                configuration.options.additionalStartupParameters = [("lock_timeout", "\(milliseconds)ms")]
            }
            return configuration
        }

        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database,
                tls: try connectionTLS())
            configuration.options.connectTimeout = .nanoseconds(Int64(connectTimeout.components.seconds) * 1_000_000_000)
            return configuration
        }

        private var tlsConfiguration: TLSConfiguration {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if tls != .verifyFull { configuration.certificateVerification = .none }
            return configuration
        }

        private var clientTLS: PostgresClient.Configuration.TLS {
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(tlsConfiguration)
            case .require, .verifyFull: .require(tlsConfiguration)
            }
        }

        private func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
            switch tls {
            case .disable: return .disable
            case .prefer: return .prefer(try NIOSSLContext(configuration: tlsConfiguration))
            case .require, .verifyFull: return .require(try NIOSSLContext(configuration: tlsConfiguration))
            }
        }
    }
}
