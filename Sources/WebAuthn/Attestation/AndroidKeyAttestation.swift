/// The `android-key` format (WebAuthn §8.4): the credential key lives in Android Keystore, whose
/// attestation certificate (first in `x5c`) certifies that key and describes it in the key
/// description extension. Attestation type Basic. Chains to trust anchors (Google hardware
/// attestation roots) are judged separately; this checks the statement and the leaf certificate.
public struct AndroidKeyAttestation: AttestationFormat {
    public let identifier = "android-key"

    /// Which authorization lists must establish that the key was generated in Keystore for signing
    /// (§8.4 step 5: "use only the teeEnforced authorization list if the RP wants to accept only keys
    /// from a trusted execution environment, otherwise use the union of teeEnforced and softwareEnforced").
    public enum EnforcementPolicy: Sendable {
        /// origin and purpose must be in teeEnforced: the key is held by a TEE or StrongBox.
        case trustedEnvironmentOnly
        /// origin and purpose may come from either list, so software-only keystores pass too.
        case trustedEnvironmentOrSoftware
    }

    /// Latchkey's default is ``EnforcementPolicy/trustedEnvironmentOnly``: android-key attestation is
    /// only worth asking for to learn that the key is hardware-bound, and a software keystore's
    /// claims about itself prove nothing. Relying parties that also accept software keys opt in.
    public let enforcement: EnforcementPolicy

    public init(enforcement: EnforcementPolicy = .trustedEnvironmentOnly) {
        self.enforcement = enforcement
    }

    /// The Android key attestation extension (key description), §8.4.1.
    static let keyDescriptionOID = "1.3.6.1.4.1.11129.2.1.17"
    /// KM_ORIGIN_GENERATED: the key was generated inside Keystore.
    static let originGenerated: Int64 = 0
    /// KM_PURPOSE_SIGN.
    static let purposeSign: Int64 = 2

    public func verify(_ input: AttestationInput) throws -> AttestationResult {
        // §8.4 step 1: attStmt is valid CBOR with alg, sig and x5c.
        let statement = try AttestationStatement(input.statement, format: identifier)
        let algorithm = try statement.algorithm()
        try input.checkSignatureAlgorithm(algorithm)
        let signature = try statement.bytes("sig")
        let chain = try statement.certificateChain()

        // §8.4 step 2: sig is a valid signature over authenticatorData ‖ clientDataHash by the
        // public key in the first certificate in x5c, with alg.
        let leaf = chain[0]
        let leafKey = try leaf.publicKey()
        try leafKey.verify(signature: signature, over: input.signedBytes, algorithm: algorithm)

        // §8.4 step 3: the public key in the first certificate is the credential public key.
        guard leafKey.isSameKey(as: input.credentialKey.publicKey) else {
            throw WebAuthnError(.invalidAttestationStatement, "android-key attestation certificate public key is not the credential public key")
        }

        // §8.4 steps 4 and 5: the key description extension.
        guard let (value, _) = leaf.extensionValue(oid: Self.keyDescriptionOID) else {
            throw WebAuthnError(.invalidCertificate, "android-key attestation certificate has no key description extension (\(Self.keyDescriptionOID))")
        }
        let description = try KeyDescription(der: value)
        try check(description, clientDataHash: input.clientDataHash)

        // §8.4 step 6: attestation type Basic, trust path x5c.
        return AttestationResult(type: .basic, certificates: chain)
    }

    /// §8.4 steps 4-5 on a parsed key description.
    ///
    /// The W3C spec vector `w3c-android-key-es256-reg` has empty authorization lists, so no list
    /// says that the key was generated in Keystore or that it may only sign; it is refused with
    /// ``WebAuthnError/Code/invalidCertificate`` under either policy. The spec's "RPs may check they
    /// can validate these outputs" does not relax §8.4, and without origin and purpose nothing
    /// distinguishes the key from an imported one.
    func check(_ description: KeyDescription, clientDataHash: [UInt8]) throws {
        // Step 4: attestationChallenge is identical to clientDataHash.
        guard description.attestationChallenge == clientDataHash else {
            throw WebAuthnError(.invalidAttestationStatement, "android-key attestationChallenge (\(description.attestationChallenge.count) bytes) is not the clientDataHash")
        }
        // Step 5: allApplications is present in neither list, since the credential MUST be scoped to the RP ID.
        for (name, list) in [("softwareEnforced", description.softwareEnforced), ("teeEnforced", description.teeEnforced)]
        where list.allApplications {
            throw WebAuthnError(.invalidCertificate, "android-key \(name) authorization list has allApplications [600]: the key is not scoped to the RP ID")
        }
        let lists: [(name: String, list: KeyDescription.AuthorizationList)] = enforcement == .trustedEnvironmentOnly
            ? [("teeEnforced", description.teeEnforced)]
            : [("teeEnforced", description.teeEnforced), ("softwareEnforced", description.softwareEnforced)]
        let considered = lists.map(\.name).joined(separator: " or ")
        // origin is KM_ORIGIN_GENERATED, and no considered list states another origin.
        let origins = lists.compactMap { entry in entry.list.origin.map { (entry.name, $0) } }
        guard !origins.isEmpty else {
            throw WebAuthnError(.invalidCertificate, "android-key \(considered) authorization list has no origin [702]; KM_ORIGIN_GENERATED (0) is required")
        }
        for (name, origin) in origins where origin != Self.originGenerated {
            throw WebAuthnError(.invalidCertificate, "android-key \(name) origin is \(origin); KM_ORIGIN_GENERATED (0) is required")
        }
        // purpose is KM_PURPOSE_SIGN.
        // "equal to KM_PURPOSE_SIGN": the key may sign and do nothing else (no decrypt, no wrap).
        let purposes = lists.flatMap { $0.list.purposes ?? [] }
        guard !purposes.isEmpty, purposes.allSatisfy({ $0 == Self.purposeSign }) else {
            throw WebAuthnError(.invalidCertificate, "android-key \(considered) purpose [1] is \(purposes); exactly KM_PURPOSE_SIGN (2) is required")
        }
    }

    /// The key description (Android Keystore attestation extension schema): the fields §8.4 uses.
    struct KeyDescription {
        /// The tags of an AuthorizationList this verifier reads; every tag is EXPLICIT.
        struct AuthorizationList {
            /// purpose [1] SET OF INTEGER, if present.
            var purposes: [Int64]?
            /// allApplications [600] NULL: present or not.
            var allApplications = false
            /// origin [702] INTEGER, if present.
            var origin: Int64?

            init(_ element: DERReader.Element, name: String) throws {
                guard element.tag == 0x30 else {
                    throw WebAuthnError(.invalidCertificate, "android-key \(name) is not a SEQUENCE")
                }
                var seen = Set<UInt>()
                for entry in try element.children() {
                    guard entry.tagClass == 2, entry.isConstructed else {
                        throw WebAuthnError(.invalidCertificate, "android-key \(name) holds an element that is not a context-specific EXPLICIT tag")
                    }
                    guard seen.insert(entry.tagNumber).inserted else {
                        throw WebAuthnError(.invalidCertificate, "android-key \(name) repeats tag [\(entry.tagNumber)]")
                    }
                    let inner = try entry.children()
                    guard inner.count == 1, let value = inner.first else {
                        throw WebAuthnError(.invalidCertificate, "android-key \(name) tag [\(entry.tagNumber)] does not wrap exactly one element")
                    }
                    switch entry.tagNumber {
                    case 1:
                        guard value.tag == 0x31 else {
                            throw WebAuthnError(.invalidCertificate, "android-key \(name) purpose [1] is not a SET OF INTEGER")
                        }
                        purposes = try value.children().map { try $0.integer() }
                    case 600:
                        guard value.tag == 0x05, value.content.isEmpty else {
                            throw WebAuthnError(.invalidCertificate, "android-key \(name) allApplications [600] is not NULL")
                        }
                        allApplications = true
                    case 702:
                        origin = try value.integer()
                    default:
                        continue
                    }
                }
            }
        }

        let attestationVersion: Int64
        let attestationChallenge: [UInt8]
        let softwareEnforced: AuthorizationList
        let teeEnforced: AuthorizationList

        /// Parses the extension value: SEQUENCE { attestationVersion, attestationSecurityLevel,
        /// keymasterVersion, keymasterSecurityLevel, attestationChallenge, uniqueId,
        /// softwareEnforced, teeEnforced }.
        init(der: [UInt8]) throws {
            var reader = DERReader(der)
            let sequence = try reader.read()
            guard sequence.tag == 0x30, reader.isAtEnd else {
                throw WebAuthnError(.invalidCertificate, "android-key key description is not one DER SEQUENCE")
            }
            let fields = try sequence.children()
            guard fields.count >= 8 else {
                throw WebAuthnError(.invalidCertificate, "android-key key description has \(fields.count) fields; 8 are required")
            }
            attestationVersion = try fields[0].integer()
            guard fields[4].tag == 0x04 else {
                throw WebAuthnError(.invalidCertificate, "android-key attestationChallenge is not an OCTET STRING")
            }
            attestationChallenge = fields[4].content
            softwareEnforced = try AuthorizationList(fields[6], name: "softwareEnforced")
            teeEnforced = try AuthorizationList(fields[7], name: "teeEnforced")
        }
    }
}
