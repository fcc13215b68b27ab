import Foundation
import LatchkeyJSON
import Testing
import WebAuthn

/// One file of `Tests/Vectors/vectors/`: a real ceremony and the verdict it must get.
struct ConformanceVector: Sendable, CustomTestStringConvertible {
    let name: String
    let ceremony: String
    let attestationFormat: String?
    let expect: String
    let failureReason: String?
    let challenge: [UInt8]
    let origins: [String]
    let rpIDs: [String]
    let requireUserVerification: Bool
    let credentialID: [UInt8]
    let clientDataJSON: [UInt8]
    let attestationObject: [UInt8]?
    let authenticatorData: [UInt8]?
    let signature: [UInt8]?
    let userHandle: [UInt8]?
    let storedPublicKey: [UInt8]?
    let storedSignCount: UInt32
    /// Trust anchor files (relative to the conformance folder) and the time to check certificates at.
    let anchorFiles: [String]
    let verifyAt: Date?

    var testDescription: String { name }
    var mustPass: Bool { expect.hasPrefix("pass") }
    var isRegistration: Bool { ceremony == "registration" }

    /// The folder of vector files: `LATCHKEY_VECTORS`, else the repository's own copy in
    /// `Tests/Vectors/vectors/`, found from this source file; trust anchors sit in its sibling `roots/`.
    static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_VECTORS"] {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Vectors/vectors")
    }

    /// How many vector files the folder holds; every one must load.
    static var fileCount: Int {
        ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "json" }.count
    }

    /// Every vector file that loads, read once for the whole test run.
    static func all() -> [ConformanceVector] { loaded }

    private static let loaded: [ConformanceVector] = {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .compactMap { try? ConformanceVector(contentsOf: $0) }
    }()

    /// The vector called `name`.
    static func named(_ name: String) -> ConformanceVector? {
        loaded.first { $0.name == name }
    }

    init(contentsOf url: URL) throws {
        let root = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
        func text(_ value: JSONValue?) -> String? { value?.stringValue }
        /// Vector files keep some real-world values with padding, `+` or `/`: normalise to base64url.
        func bytes(_ value: JSONValue?) -> [UInt8]? {
            guard let text = value?.stringValue else { return nil }
            let normalized = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            return Base64URL.decode(normalized)
        }
        func list(_ value: JSONValue?) -> [String] {
            switch value {
            case .string(let single)?: return [single]
            case .array(let items)?: return items.compactMap(\.stringValue)
            default: return []
            }
        }
        let relyingParty = root["relyingParty"]
        let credential = root["credential"]
        let response = credential?["response"]
        name = text(root["name"]) ?? url.deletingPathExtension().lastPathComponent
        ceremony = text(root["ceremony"]) ?? ""
        attestationFormat = text(root["attestationFormat"])
        expect = text(root["expect"]) ?? ""
        failureReason = text(root["failureReason"])
        challenge = bytes(relyingParty?["expectedChallenge"]) ?? []
        origins = list(relyingParty?["expectedOrigin"])
        rpIDs = list(relyingParty?["expectedRpId"])
        requireUserVerification = relyingParty?["requireUserVerification"]?.boolValue ?? false
        credentialID = bytes(credential?["rawId"]) ?? bytes(credential?["id"]) ?? []
        clientDataJSON = bytes(response?["clientDataJSON"]) ?? []
        attestationObject = bytes(response?["attestationObject"])
        authenticatorData = bytes(response?["authenticatorData"])
        signature = bytes(response?["signature"])
        let handle = bytes(response?["userHandle"])
        userHandle = handle?.isEmpty == true ? nil : handle
        storedPublicKey = bytes(root["storedCredential"]?["publicKey"])
        let outcome = root["expectedOutcome"]
        var count: UInt32?
        if case .number(let value)? = outcome?["newSignCount"] ?? outcome?["signCount"] { count = UInt32(exactly: value) }
        expectedOutcome = Outcome(
            credentialID: bytes(outcome?["credentialId"]), aaguid: text(outcome?["aaguid"])?.lowercased(),
            publicKey: bytes(outcome?["credentialPublicKey"]), signCount: count, userVerified: outcome?["userVerified"]?.boolValue)
        anchorFiles = list(root["trust"]?["anchors"])
        verifyAt = text(root["trust"]?["verifyAt"]).flatMap(Self.parseDate)
        if case .number(let count)? = root["storedCredential"]?["signCount"] {
            storedSignCount = UInt32(count)
        } else {
            storedSignCount = 0
        }
    }

    func relyingParty(crossOrigin: CrossOriginPolicy = .forbid) -> RelyingParty {
        RelyingParty(
            id: rpIDs.first ?? "", name: "Vector RP", origins: Set(origins),
            additionalRPIDs: Array(rpIDs.dropFirst()), crossOrigin: crossOrigin,
            algorithms: COSEAlgorithm.verifiable + [.rs1])
    }

    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// The vector's trust anchors, loaded from `../roots/`.
    func anchors() throws -> [X509Certificate] {
        let conformance = Self.directory.deletingLastPathComponent()
        return try anchorFiles.flatMap { file in
            let text = try String(contentsOf: conformance.appendingPathComponent(file), encoding: .utf8)
            return try PEM.certificates(in: text).map { try X509Certificate(der: $0) }
        }
    }

    /// Vectors that name anchors are held to them under the self-or-trusted policy; the rest (none,
    /// self, and authenticators whose roots are not public, like the conformance tools' fake roots)
    /// run under the accept-any policy, which still verifies every statement and signature.
    func trust() throws -> AttestationTrust {
        let anchors = try anchors()
        return AttestationTrust(
            policy: AttestationPolicy(mode: anchors.isEmpty ? .none : .selfOrTrusted, allowSHA1: true),
            anchors: TrustAnchors(anchors), verificationTime: verifyAt)
    }

    var userVerification: UserVerificationRequirement { requireUserVerification ? .required : .preferred }

    /// What a verified ceremony yielded, to compare with the file's `expectedOutcome`.
    struct Outcome: Equatable {
        var credentialID: [UInt8]?
        var aaguid: String?
        var publicKey: [UInt8]?
        var signCount: UInt32?
        var userVerified: Bool?
    }

    /// The members of `expectedOutcome` Latchkey reports; absent ones stay nil.
    let expectedOutcome: Outcome

    /// `outcome` with only the members the file states, so the two can be compared.
    func comparable(_ outcome: Outcome) -> Outcome {
        Outcome(
            credentialID: expectedOutcome.credentialID == nil ? nil : outcome.credentialID,
            aaguid: expectedOutcome.aaguid == nil ? nil : outcome.aaguid,
            publicKey: expectedOutcome.publicKey == nil ? nil : outcome.publicKey,
            signCount: expectedOutcome.signCount == nil ? nil : outcome.signCount,
            userVerified: expectedOutcome.userVerified == nil ? nil : outcome.userVerified)
    }

    /// Runs the ceremony the file describes through Latchkey's verifier.
    @discardableResult
    func verify(crossOrigin: CrossOriginPolicy = .forbid) throws -> Outcome {
        let relyingParty = relyingParty(crossOrigin: crossOrigin)
        if isRegistration {
            let response = RegistrationResponse(
                credentialID: credentialID, clientDataJSON: clientDataJSON, attestationObject: attestationObject ?? [])
            let verified = try RegistrationVerifier(relyingParty: relyingParty, trust: trust())
                .verify(response, expecting: RegistrationExpectation(challenge: challenge, userVerification: userVerification))
            return Outcome(
                credentialID: verified.credentialID, aaguid: AAGUID.string(verified.aaguid), publicKey: verified.publicKey,
                signCount: verified.signCount, userVerified: verified.userVerified)
        } else {
            let verified = try SignInVerifier(relyingParty: relyingParty)
                .verify(authenticationResponse, expecting: authenticationExpectation)
            return Outcome(credentialID: verified.credentialID, signCount: verified.signCount, userVerified: verified.userVerified)
        }
    }

    /// The sign-in response of an authentication vector.
    var authenticationResponse: SignInResponse {
        SignInResponse(
            credentialID: credentialID, clientDataJSON: clientDataJSON,
            authenticatorData: authenticatorData ?? [], signature: signature ?? [], userHandle: userHandle)
    }

    /// What the relying party expects of an authentication vector's sign-in.
    var authenticationExpectation: SignInExpectation {
        SignInExpectation(
            challenge: challenge, userVerification: userVerification, publicKey: storedPublicKey ?? [],
            storedSignCount: storedSignCount, userHandle: userHandle ?? [], userHandleRequired: false)
    }
}
