import LatchkeyStore
import Testing
import _ConnectionPoolModule

@testable import LatchkeyStorePostgres

/// Reading `postgres://` URLs: no server needed.
@Suite("PostgreSQL URL")
struct PostgresConfigurationTests {
    @Test func aFullURL() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://latchkey:s3cret@db.example:6432/passkeys")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6432)
        #expect(configuration.username == "latchkey")
        #expect(configuration.password == "s3cret")
        #expect(configuration.database == "passkeys")
        #expect(configuration.tls == .prefer, "libpq's default")
        #expect(configuration.connectTimeout == .seconds(10))
        #expect(configuration.server == "db.example:6432/passkeys")
    }

    @Test func thePortDefaultsAndThePasswordIsOptional() throws {
        let configuration = try PostgresStore.Configuration(url: "postgresql://app@localhost/latchkey")
        #expect(configuration.port == 5432)
        #expect(configuration.password == nil)
        #expect(configuration.username == "app")
    }

    @Test func theSchemeIsCaseInsensitive() throws {
        #expect(try PostgresStore.Configuration(url: "POSTGRES://app@localhost/latchkey").host == "localhost")
    }

    @Test func percentEncodedCredentialsAreDecoded() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://us%40er:p%40ss%3Aw%2Frd@127.0.0.1:5432/db")
        #expect(configuration.username == "us@er")
        #expect(configuration.password == "p@ss:w/rd")
        // A % that starts no escape is kept as typed.
        #expect(try PostgresStore.Configuration(url: "postgres://app:p%zzw@h/db").password == "p%zzw")
    }

    @Test func anIPv6HostLosesItsBrackets() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://app@[::1]:5433/db")
        #expect(configuration.host == "::1")
        #expect(configuration.port == 5433)
        #expect(configuration.server == "[::1]:5433/db")
    }

    @Test func queryParameters() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://app@h/db?sslmode=verify-full&connect_timeout=3")
        #expect(configuration.tls == .verifyFull)
        #expect(configuration.connectTimeout == .seconds(3))
        #expect(try PostgresStore.Configuration(url: "postgres://app@h/db?sslmode=disable").tls == .disable)
        // Keep-alive queries on idle pooled connections: off unless the URL asks for them.
        #expect(configuration.keepAliveIdle == nil)
        #expect(configuration.clientConfiguration.options.keepAliveBehavior == nil)
        let keptAlive = try PostgresStore.Configuration(url: "postgres://app@h/db?keepalives_idle=45")
        #expect(keptAlive.keepAliveIdle == .seconds(45))
        #expect(keptAlive.clientConfiguration.options.keepAliveBehavior?.frequency == .seconds(45))
        // The pool's minimum reaches postgres-nio (the server makes it the maximum: a fixed-size pool).
        #expect(configuration.clientConfiguration.options.minimumConnections == 0)
        var fixed = configuration
        fixed.minimumConnections = fixed.maximumConnections
        #expect(fixed.clientConfiguration.options.minimumConnections == 20)
    }

    @Test(arguments: [
        ("mysql://app:pw@h/db", "postgres://"),
        ("postgres://app:pw@/db", "no host"),
        ("postgres://h/db", "no user"),
        ("postgres://app:pw@h", "no database"),
        ("postgres://app:pw@h/", "no database"),
        ("postgres://app:pw@h/db/more", "no database"),
        ("postgres://app:pw@h:0/db", "port 0"),
        ("postgres://app:pw@h/db?sslmode=sometimes", "sslmode"),
        ("postgres://app:pw@h/db?connect_timeout=0", "connect_timeout"),
        ("postgres://app:pw@h/db?keepalives_idle=0", "keepalives_idle"),
        ("postgres://app:pw@h/db?password=pw", "unknown parameter \"password\""),
        ("postgres://app:pw@h:abc/db", "cannot be parsed"),
        ("postgres://app:pw@h:70000/db", "70000"),
    ])
    func badURLsAreRefusedWithoutQuotingThem(url: String, problem: String) throws {
        let error = #expect(throws: StoreError.self) { try PostgresStore.Configuration(url: url) }
        let message = error?.message ?? ""
        #expect(message.contains(problem), "\(message)")
        #expect(!message.contains("pw"), "the password must not be quoted: \(message)")
    }

    @Test func printingAConfigurationHidesThePassword() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://app:swordfish@h/db?sslmode=require")
        for printed in [String(describing: configuration), String(reflecting: configuration), "\(configuration)"] {
            #expect(!printed.contains("swordfish"), "\(printed)")
        }
        #expect(configuration.description == "postgres://app:<redacted>@h:5432/db?sslmode=require")
    }

    @Test func redactionHidesThePasswordAnywhere() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://app:swordfish@h/db")
        #expect(configuration.redacting("auth failed for swordfish at h") == "auth failed for <redacted> at h")
        #expect(try PostgresStore.Configuration(url: "postgres://app@h/db").redacting("as is") == "as is")
    }

    /// A connection anyone on the path could read or change is warned about; a verified one, or one
    /// that never leaves the machine, is not.
    @Test(arguments: [
        ("postgres://app@db.example/latchkey", true), ("postgres://app@db.example/latchkey?sslmode=require", true),
        ("postgres://app@10.0.0.5/latchkey?sslmode=disable", true), ("postgres://app@db.example/latchkey?sslmode=verify-full", false),
        ("postgres://app@127.0.0.1:5432/latchkey", false), ("postgres://app@127.db.example/latchkey", true), ("postgres://app@localhost/latchkey", false), ("postgres://app@[::1]/latchkey", false),
    ])
    func anUnverifiedConnectionOffThisMachineIsWarnedAbout(url: String, warned: Bool) throws {
        let warning = try PostgresStore.Configuration(url: url).transportWarning
        #expect((warning != nil) == warned, "\(url): \(warning ?? "no warning")")
        #expect(warning.map { $0.contains("verify-full") && !$0.contains("app@") } ?? true)
    }

    /// The pool's circuit breaker (a minute of failed connections) is an unavailable server, a 503, not a 500;
    /// so is a lock not granted within `lock_timeout`, which is also made again.
    @Test func thePoolsOwnErrorsAndALockTimeoutAreUnavailableOrBusy() throws {
        let configuration = try PostgresStore.Configuration(url: "postgres://app:pw@db.example/latchkey")
        let tripped = PostgresStore.storeError(ConnectionPoolError.connectionCreationCircuitBreakerTripped, configuration: configuration)
        #expect(tripped.code == .unavailable && tripped.message.contains("db.example") && !tripped.message.contains("pw"))
        #expect(PostgresStore.storeError(ConnectionPoolError.poolShutdown, configuration: configuration).code == .unavailable)
        #expect(PostgresStore.code(ofState: "55P03") == .busy)
        #expect(configuration.clientConfiguration.options.additionalStartupParameters.isEmpty, "no lock_timeout unless set")
        var bounded = configuration
        bounded.lockTimeout = .milliseconds(1500)
        #expect(bounded.clientConfiguration.options.additionalStartupParameters.map { "\($0.0)=\($0.1)" } == ["lock_timeout=1500ms"])
    }
}
