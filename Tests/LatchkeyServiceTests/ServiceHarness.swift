import Foundation
import LatchkeyAuthenticator
import LatchkeyConfiguration
import LatchkeyJSON
@testable import LatchkeyService
import LatchkeyStore
import LatchkeyStoreSQLite
import Logging
import Testing
import WebAuthn

/// One relying party's service over a real SQLite store in a temporary folder, with a software passkey provider
/// (`LatchkeyAuthenticator`) at its origin: the service's use cases called as the transport calls them, with no
/// HTTP in between.
struct ServiceHarness {
    let configuration: LatchkeyConfiguration
    let store: SQLiteStore
    let service: RelyingPartyService
    let authenticator: SoftwareAuthenticator
    private let folder: URL

    init(appAttestRoots: [X509Certificate] = [], configure: (inout LatchkeyConfiguration) -> Void = { _ in }) throws {
        var configuration = LatchkeyConfiguration()
        configure(&configuration)
        self.configuration = configuration
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-service-\(UUID().uuidString)")
        store = try SQLiteStore(path: folder.appendingPathComponent("latchkey.sqlite").path)
        service = RelyingPartyService(
            configuration: configuration, store: store, attestationTrust: AttestationTrust(policy: configuration.attestation),
            appAttestRoots: appAttestRoots, metrics: LatchkeyMetrics())
        authenticator = try SoftwareAuthenticator(
            origin: configuration.origins[0], keyFilePath: folder.appendingPathComponent("keys.json").path)
    }

    /// A second passkey provider at the same origin, with keys of its own.
    func anotherAuthenticator() throws -> SoftwareAuthenticator {
        try SoftwareAuthenticator(origin: configuration.origins[0], keyFilePath: folder.appendingPathComponent("other-keys.json").path)
    }

    static var logger: Logger {
        var logger = Logger(label: "latchkey-service-tests")
        logger.logLevel = .critical
        return logger
    }

    /// A caller from `client`, signed in as `identity` when given, presenting `tokens`.
    func caller(identity: SessionWithUser? = nil, tokens: [String] = [], client: String = "203.0.113.7") -> Caller {
        Caller(
            identity: identity, sessionTokens: tokens, client: ClientAddress.Resolver(trustedProxies: []).client(peer: client, forwardedFor: []),
            origin: EventOrigin(clientAddress: client, userAgent: "tests", requestID: nil, actor: .user), logger: Self.logger)
    }

    /// Options as the transport encodes them, for the software authenticator to read.
    static func json(_ options: some Encodable) throws -> [UInt8] {
        try OrderedJSONEncoder().encode(options)
    }

    /// The software authenticator's answer, decoded as the transport decodes a body.
    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try StrictJSONDocument.decode(type, from: bytes, document: "request body")
    }

    /// Registers a passkey for `username` through the service, from options to record.
    func register(_ username: String, caller: Caller? = nil, on device: SoftwareAuthenticator? = nil) async throws -> Registered {
        let caller = caller ?? self.caller()
        let authenticator = device ?? self.authenticator
        let issued = try await service.registration.options(
            RegistrationOptionsRequest(username: username), appAttestation: AppAttestProof(header: nil, body: [], binding: .none),
            caller: caller, presented: .none)
        let answer = try authenticator.register(options: try Self.json(issued.options))
        return try await service.registration.finish(
            try Self.decode(RegistrationCredential.self, answer), caller: caller,
            presented: CeremonyBinding(carrier: "the binding", values: issued.bindings))
    }

    /// A caller signed in with `registered`'s session.
    func caller(signedInBy registered: Registered) async throws -> Caller {
        let token = try #require(registered.session?.token)
        return caller(identity: try await service.sessions.current(presented: [token]), tokens: [token])
    }

    /// Sign-in options for `username` (usernameless without one).
    func signInOptions(_ username: String? = nil, caller: Caller? = nil) async throws -> IssuedOptions<RequestOptions> {
        try await service.signIn.options(SignInOptionsRequest(username: username), caller: caller ?? self.caller(), presented: .none)
    }

    /// The software authenticator's answer to sign-in `options`.
    func answer(_ options: RequestOptions) throws -> SignInCredential {
        try Self.decode(SignInCredential.self, try authenticator.signIn(options: try Self.json(options)))
    }
}
