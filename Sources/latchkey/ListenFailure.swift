import Foundation
import LatchkeyConfiguration
import LatchkeyService
import NIOCore
import NIOPosix

/// A server that could not start listening, in one line a person can act on, instead of the
/// socket library's error: the port is taken, the address is not this machine's, the host name
/// does not resolve, or the port needs privileges; on the listener it was about (main, metrics or
/// admin), naming the variable that sets it.
struct ListenFailure: Error {
    /// One of the addresses `serve` listens on, and the variables that set it.
    struct Listener: Sendable {
        let host: String
        let port: Int
        let hostVariable: String
        let portVariable: String

        /// The listeners `settings` ask for: the main one, then the metrics and admin ones when set.
        static func all(of settings: LatchkeyConfiguration) -> [Listener] {
            var listeners = [Listener(host: settings.host, port: settings.port, hostVariable: "LATCHKEY_HOST", portVariable: "LATCHKEY_PORT")]
            for (key, address) in [("metricsAddress", settings.metricsAddress), ("adminAddress", settings.adminAddress)] {
                guard let address else { continue }
                let variable = LatchkeyConfiguration.environmentName(of: key)
                listeners.append(Listener(host: address.host, port: address.port, hostVariable: variable, portVariable: variable))
            }
            return listeners
        }
    }

    let listener: Listener
    let reason: String

    /// The failure `error` describes on `listener`, or nil when it is not a failure to listen.
    init?(_ error: any Error, on listener: Listener) {
        self.listener = listener
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE:
                reason = "the port is already in use (another latchkey or another server); choose another with \(listener.portVariable)"
            case EADDRNOTAVAIL: reason = "the address is not one of this machine's; check \(listener.hostVariable)"
            case EACCES: reason = "permission denied (ports below 1024 need privileges); choose another with \(listener.portVariable)"
            default: return nil
            }
        } else if error is SocketAddressError || error is SocketAddressError.UnknownHost {
            reason = "the host name does not resolve; check \(listener.hostVariable)"
        } else {
            return nil
        }
    }

    /// `latchkey: cannot listen on HOST:PORT: reason`.
    var line: String { "latchkey: cannot listen on \(listener.host):\(listener.port): \(reason)\n" }

    /// The failure `error` was, on the first of `listeners` that cannot be bound now (the server
    /// has closed the others by then), else on the first; nil when `error` is not a failure to listen.
    static func diagnose(_ error: any Error, listeners: [Listener]) async -> ListenFailure? {
        guard let first = listeners.first, ListenFailure(error, on: first) != nil else { return nil }
        return await check(listeners) ?? ListenFailure(error, on: first)
    }

    /// The first of `listeners` that cannot be bound now (each is bound and closed at once), or nil. `serve` asks
    /// before it starts anything: a second listener failing inside the running service group cancels the others,
    /// and that cancellation can hang in swift-async-algorithms' merge (seen under load: the process never exited).
    static func check(_ listeners: [Listener]) async -> ListenFailure? {
        for listener in listeners {
            do {
                let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .bind(host: listener.host, port: listener.port).get()
                try? await channel.close()
            } catch {
                if let failure = ListenFailure(error, on: listener) { return failure }
            }
        }
        return nil
    }
}
