import Foundation
import LatchkeyStore
import PostgresNIO
import _ConnectionPoolModule

/// What PostgreSQL and postgres-nio throw, as ``StoreError``s: a constraint the database enforced
/// becomes the same code SQLite gives, anything else a `.database` error whose message names the
/// server and the reason, and never the password, a statement's values or the URL.
extension PostgresStore {
    func storeError(_ error: any Error) -> StoreError {
        Self.storeError(error, configuration: configuration)
    }

    static func storeError(_ error: any Error, configuration: Configuration) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PSQLError:
            return storeError(error, configuration: configuration)
        case let error as PostgresDecodingError:
            return StoreError(
                .database, "PostgreSQL column \(error.columnName) holds a \(error.postgresType) that cannot be read as \(error.targetType)")
        case is CancellationError:
            return StoreError(.database, "the PostgreSQL call was cancelled")
        case let error as ConnectionPoolError:
            // After a minute of failed connection attempts the pool fails every call at once (its circuit
            // breaker) until one succeeds: the server is away, not broken.
            switch error {
            case .poolShutdown: return StoreError(.unavailable, "the store is closed")
            case .requestCancelled: return StoreError(.database, "the PostgreSQL call was cancelled")
            default: return StoreError(.unavailable, "cannot use PostgreSQL at \(configuration.server): no connection could be made for a while")
            }
        default:
            return StoreError(.database, configuration.redacting("PostgreSQL at \(configuration.server): \(error)"))
        }
    }

    /// Constraint names from ``PostgresSchema``, with what breaking each means to a caller.
    private static let constraintErrors: [String: StoreError] = [
        "users_username_key": StoreError(.usernameTaken, "this username is already registered"),
        "users_pkey": StoreError(.database, "a user with this handle exists already"),
        "users_external_id_key": StoreError(.externalIdTaken, "this externalId belongs to another user"),
        "admin_keys_pkey": StoreError(.nameTaken, "an admin key with this name exists already"),
        "device_keys_pkey": StoreError(.credentialAlreadyRegistered, "this device key is enrolled already"),
        "app_attest_keys_pkey": StoreError(.credentialAlreadyRegistered, "this App Attest key is attested already"),
        "device_keys_user_handle_fkey": StoreError(.userNotFound, "the user this device key was for does not exist"),
        "enrollment_tickets_user_handle_fkey": StoreError(.userNotFound, "the user this ticket was for does not exist"),
        "credentials_pkey": StoreError(.credentialAlreadyRegistered, "this credential is already registered"),
        "credentials_user_handle_fkey": StoreError(.userNotFound, "the user this passkey was being added to does not exist"),
        "sessions_pkey": StoreError(.database, "a session with this token exists already"),
        "sessions_user_handle_fkey": StoreError(.userNotFound, "the user this session was for does not exist"),
        "pending_ceremonies_pkey": StoreError(.database, "a pending ceremony with this challenge exists already"),
        "tenants_pkey": StoreError(.nameTaken, "a tenant with this ID exists already"),
        "tenant_hosts_pkey": StoreError(.nameTaken, "one of the tenant's hosts is another tenant's"),
        "oauth_clients_pkey": StoreError(.nameTaken, "a client with this ID exists already"),
        "oauth_grants_user_fkey": StoreError(.userNotFound, "the user of this grant does not exist"),
        "oauth_grants_client_fkey": StoreError(.userNotFound, "the client of this grant does not exist"),
        "oauth_device_authorizations_user_code_key": StoreError(.nameTaken, "this user code is in use"),
        "oauth_device_authorizations_client_fkey": StoreError(.userNotFound, "the client of this device authorization does not exist"),
    ]

    private static func storeError(_ error: PSQLError, configuration: Configuration) -> StoreError {
        switch error.code {
        case .server:
            if let constraint = error.serverInfo?[.constraintName], let mapped = constraintErrors[constraint] {
                return mapped
            }
            // The message only: the detail quotes the row's values.
            return StoreError(
                code(ofState: error.serverInfo?[.sqlState] ?? ""),
                configuration.redacting("PostgreSQL at \(configuration.server) refused: \(reason(error))"))
        case .poolClosed:
            return StoreError(.unavailable, "the store is closed")
        case .queryCancelled:
            return StoreError(.database, "the PostgreSQL call was cancelled")
        default:
            // The connection failed or broke: the server may be back in a moment.
            return StoreError(.unavailable, configuration.redacting("cannot use PostgreSQL at \(configuration.server): \(reason(error))"))
        }
    }

    /// The class of a server error by its SQLSTATE: no room (53100 disk full, 53200 out of memory,
    /// 53300 too many connections count as unavailable), a server that cannot take writes or
    /// connections now (25006 a read-only transaction, as on a replica; 57P0x shutting down or
    /// starting; class 08, connection exceptions), a transaction rolled back to end a deadlock
    /// (40P01), a serialization conflict (40001) or a lock not granted within `lock_timeout` (55P03),
    /// which may simply be made again, or anything else.
    static func code(ofState state: String) -> StoreError.Code {
        switch state {
        case "53100": .full
        case "40P01", "40001", "55P03": .busy
        case "25006", "53200", "53300", "57P01", "57P02", "57P03": .unavailable
        case _ where state.hasPrefix("08"): .unavailable
        default: .database
        }
    }

    /// What went wrong with a connection, from the innermost error that says it: postgres-nio's own
    /// description is deliberately vague.
    private static func reason(_ error: PSQLError) -> String {
        if let inner = error.underlying as? PSQLError { return reason(inner) }
        if error.code == .server {
            return "\(error.serverInfo?[.message] ?? "no message") (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying {
            if let channelError = underlying as? ChannelError, case .connectTimeout(let timeout) = channelError {
                return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
            }
            return describe(underlying)
        }
        return describe(code: error.code)
    }

    /// Socket errors as the system says them ("Connection refused"), a failed lookup as such.
    private static func describe(_ error: any Error) -> String {
        switch error {
        case let error as NIOConnectionError:
            if let failure = error.connectionErrors.last { return describe(failure.error) }
            return "cannot resolve the host name \(error.host)"
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        default:
            return "\(error)"
        }
    }

    private static func describe(code: PSQLError.Code) -> String {
        switch code {
        case .serverClosedConnection: return "the server closed the connection"
        case .clientClosedConnection: return "the connection was closed"
        case .sslUnsupported: return "the server does not offer TLS (sslmode=require)"
        case .authMechanismRequiresPassword: return "the server asks for a password and the URL has none"
        case .unsupportedAuthMechanism: return "the server asks for an authentication method postgres-nio does not support"
        case .connectionError: return "cannot connect"
        default: return "\(code)"
        }
    }
}
