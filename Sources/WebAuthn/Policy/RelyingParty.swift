/// Everything the verification steps need to know about the relying party: identity, accepted
/// origins and the policy decisions WebAuthn leaves to it.
public struct RelyingParty: Sendable {
    /// The RP ID put into options (a registrable domain, such as `example.com` or `localhost`), taken as given:
    /// ``RelyingPartyID`` says what is wrong with one.
    public var id: String
    /// The human-readable name put into creation options.
    public var name: String
    /// Every RP ID whose hash authenticator data may carry; `id` comes first.
    public var acceptedRPIDs: [String] {
        didSet { acceptedRPIDHashes = Self.hashes(acceptedRPIDs) }
    }
    /// The SHA-256 of each of ``acceptedRPIDs``, in its order: computed once, not at every ceremony.
    public private(set) var acceptedRPIDHashes: [[UInt8]]
    /// Exact origins accepted in `clientDataJSON.origin` (`https://example.com`, `android:apk-key-hash:...`).
    public var origins: Set<String>
    public var crossOrigin: CrossOriginPolicy
    public var userPresence: UserPresencePolicy
    public var signCount: SignCountPolicy
    public var backupEligibilityChanges: BackupEligibilityChanges
    public var syncedCredentials: SyncedCredentialPolicy
    public var tokenBinding: TokenBindingPolicy
    /// Credential algorithms offered in `pubKeyCredParams` and accepted at registration.
    public var algorithms: [COSEAlgorithm]

    public init(
        id: String,
        name: String,
        origins: Set<String>,
        additionalRPIDs: [String] = [],
        crossOrigin: CrossOriginPolicy = .forbid,
        userPresence: UserPresencePolicy = .required,
        signCount: SignCountPolicy = .refuseRegression,
        backupEligibilityChanges: BackupEligibilityChanges = .refused,
        syncedCredentials: SyncedCredentialPolicy = .allowed,
        tokenBinding: TokenBindingPolicy = .lenient,
        algorithms: [COSEAlgorithm] = COSEAlgorithm.verifiable
    ) {
        self.id = id
        self.name = name
        let acceptedRPIDs = [id] + additionalRPIDs.filter { $0 != id }
        self.acceptedRPIDs = acceptedRPIDs
        self.acceptedRPIDHashes = Self.hashes(acceptedRPIDs)
        self.origins = origins
        self.crossOrigin = crossOrigin
        self.userPresence = userPresence
        self.signCount = signCount
        self.backupEligibilityChanges = backupEligibilityChanges
        self.syncedCredentials = syncedCredentials
        self.tokenBinding = tokenBinding
        self.algorithms = algorithms
    }

    private static func hashes(_ rpIDs: [String]) -> [[UInt8]] {
        rpIDs.map { Digest.sha256(Array($0.utf8)) }
    }
}
