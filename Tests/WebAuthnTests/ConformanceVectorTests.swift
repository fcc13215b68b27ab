import Testing
import WebAuthn

/// Every vector in `Tests/Vectors/vectors/` whose format this release verifies (see
/// ``AttestationFormats/all``, and every authentication) gets the verdict its file states; must-fail
/// vectors fail with the error code their `failureReason` describes, and the few disputed vectors
/// Latchkey decides against fail with the code in `refusedByDecision`.
@Suite("Conformance vectors")
struct ConformanceVectorTests {
    static let vectors = ConformanceVector.all()
    static let implementedFormats = AttestationFormats.all.identifiers

    /// Why each must-fail vector must fail, as Latchkey's error code.
    static let failureCodes: [String: WebAuthnError.Code] = [
        "pywebauthn-auth-uv-required-not-set": .userNotVerified,
        "pywebauthn-auth-wrong-public-key": .invalidSignature,
        "swa-auth-counter-replay": .signCountRegression,
        "swa-auth-rpid-not-in-list": .rpIDMismatch,
        "swa-auth-wrong-origin": .originMismatch,
        "swa-none-origin-not-in-list-reg": .originMismatch,
        "swa-none-rpid-not-in-list-reg": .rpIDMismatch,
        "swa-none-wrong-challenge-reg": .challengeMismatch,
        "swa-none-wrong-origin-reg": .originMismatch,
        "swa-packed-aaguid-ext-mismatch-reg": .invalidCertificate,
        "pywebauthn-packed-yubikey-wrong-root-reg": .untrustedAttestation,
        "swa-tpm-aaguid-ext-mismatch-reg": .invalidCertificate,
        // DISPUTED (see the vectors README): both authorization lists are empty, so no list shows
        // origin KM_ORIGIN_GENERATED or purpose KM_PURPOSE_SIGN (§8.4 step 5).
        "w3c-android-key-es256-reg": .invalidCertificate,
        "pywebauthn-fido-u2f-tokenbinding-status-not-supported-reg": .invalidTokenBinding,
        "swa-android-safetynet-2019-stale-reg": .invalidAttestationStatement,
        "swa-safetynet-cts-false-reg": .invalidAttestationStatement,
    ]

    /// Disputed vectors whose file expects a pass that Latchkey refuses by decision, with the code.
    /// w3c-fido-u2f-es256-reg: its AAGUID is non-zero; fido-u2f requires the all-zero AAGUID, which
    /// the U2F signature does not cover (FIDO conformance Resp-8 F-1; see FIDOU2FAttestation).
    static let refusedByDecision: [String: WebAuthnError.Code] = [
        "w3c-fido-u2f-es256-reg": .invalidAttestationStatement,
    ]

    /// ML-DSA vectors expect a pass from a post-quantum-capable verifier; OpenSSL 3.0 (Debian 12)
    /// has no ML-DSA, so Latchkey must refuse them with a clear unsupported-algorithm error.
    static let postQuantum: Set<String> = ["pywebauthn-none-mldsa44-reg", "pywebauthn-none-mldsa65-reg", "pywebauthn-auth-mldsa44"]

    /// Vectors that are only valid when the RP accepts cross-origin iframes (and https://example.com on top).
    static func isCrossOrigin(_ vector: ConformanceVector) -> Bool {
        vector.name.contains("crossOrigin") || vector.name.contains("topOrigin")
    }

    static var inScope: [ConformanceVector] {
        vectors.filter { !$0.isRegistration || implementedFormats.contains($0.attestationFormat ?? "") }
    }

    @Test func vectorFolderIsFound() {
        #expect(Self.vectors.count >= 100, "expected the vector folder at \(ConformanceVector.directory.path)")
        #expect(Self.vectors.count == ConformanceVector.fileCount, "every vector file must load")
    }

    @Test("verdict matches the file", arguments: inScope)
    func verdict(_ vector: ConformanceVector) throws {
        if Self.postQuantum.contains(vector.name) {
            let error = #expect(throws: WebAuthnError.self) { try vector.verify() }
            #expect(error?.code == .unsupportedAlgorithm)
            return
        }
        if Self.isCrossOrigin(vector) {
            let refused = #expect(throws: WebAuthnError.self) { try vector.verify(crossOrigin: .forbid) }
            #expect(refused?.code == .crossOriginNotAllowed)
            try vector.verify(crossOrigin: .allow(topOrigins: ["https://example.com"]))
            return
        }
        if let code = Self.refusedByDecision[vector.name] {
            let error = #expect(throws: WebAuthnError.self) { try vector.verify() }
            #expect(error?.code == code, "\(vector.name) is refused by decision; got: \(error?.message ?? "no error")")
            return
        }
        if vector.mustPass {
            let outcome = try vector.verify()
            // What the source asserts about the result: credential ID, AAGUID, key, counter, UV.
            #expect(vector.comparable(outcome) == vector.expectedOutcome)
        } else {
            let error = #expect(throws: WebAuthnError.self) { try vector.verify() }
            let code = try #require(Self.failureCodes[vector.name], "no expected error code recorded for \(vector.name)")
            #expect(error?.code == code, "\(vector.name) must fail because: \(vector.failureReason ?? "?"); got: \(error?.message ?? "no error")")
        }
    }

    @Test func everyRegistrationVectorHasAVerifiedFormat() {
        #expect(Self.vectors.filter { $0.isRegistration && !Self.implementedFormats.contains($0.attestationFormat ?? "") }.isEmpty)
    }
}
