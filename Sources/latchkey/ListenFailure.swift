import Foundation
import NIOCore

/// A server that could not start listening, in one line a person can act on, instead of the
/// socket library's error: the port is taken, the address is not this machine's, the host name
/// does not resolve, or the port needs privileges.
struct ListenFailure: Error {
    let reason: String

    /// The failure `error` describes, or nil when it is not a failure to listen.
    init?(_ error: any Error) {
        if let error = error as? IOError {
            switch error.errnoCode {
            case EADDRINUSE: reason = "the port is already in use (another latchkey or another server); choose another with LATCHKEY_PORT"
            case EADDRNOTAVAIL: reason = "the address is not one of this machine's; check LATCHKEY_HOST"
            case EACCES: reason = "permission denied (ports below 1024 need privileges); choose another with LATCHKEY_PORT"
            default: return nil
            }
        } else if error is SocketAddressError || error is SocketAddressError.UnknownHost {
            reason = "the host name does not resolve; check LATCHKEY_HOST"
        } else {
            return nil
        }
    }
}
