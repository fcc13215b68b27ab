import COpenSSL
import Foundation
import LatchkeyJSON
import LatchkeyTokens
import WebAuthn

// Measures verification throughput on real vectors from Tests/Vectors/vectors: a whole §7.2
// sign-in check against OpenSSL alone checking the same signature, and §7.1 registrations.
// Usage: swift run -c release latchkey-benchmarks [VECTOR_FOLDER] [SECONDS_PER_CASE]

let arguments = CommandLine.arguments
/// The repository's copy of the vectors, found from this source file, so any working directory works.
let defaultFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Tests/Vectors/vectors")
let folder = arguments.count > 1 ? URL(fileURLWithPath: arguments[1]) : defaultFolder
let secondsPerCase = arguments.count > 2 ? Double(arguments[2]) ?? 1 : 1

/// The members of a vector file a benchmark needs.
struct Vector {
    let root: JSONValue

    init(_ name: String) throws {
        root = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: folder.appendingPathComponent(name + ".json")))
    }

    func bytes(_ path: String...) -> [UInt8] {
        var value: JSONValue? = root
        for member in path { value = value?[member] }
        let text = (value?.stringValue ?? "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return Base64URL.decode(text) ?? []
    }

    func text(_ path: String...) -> String {
        var value: JSONValue? = root
        for member in path { value = value?[member] }
        return value?.stringValue ?? ""
    }

    var relyingParty: RelyingParty {
        RelyingParty(id: text("relyingParty", "expectedRpId"), name: "Benchmark", origins: [text("relyingParty", "expectedOrigin")])
    }
}

func row(_ columns: [String]) { print("| " + columns.joined(separator: " | ") + " |") }
func format(_ value: Double) -> String { String(format: "%.0f", value) }
func microseconds(_ rate: Double) -> Double { 1e6 / rate }

let openSSLVersion = OpenSSL_version(OPENSSL_VERSION).map { String(cString: $0) } ?? "OpenSSL"
print("Latchkey verification throughput, one thread, \(ProcessInfo.processInfo.processorCount) cores visible, \(openSSLVersion)")
print("Each sign-in loop runs about \(secondsPerCase) s in 10 interleaved rounds; the best round counts.\n")

print("Sign-ins (§7.2, steps 6-22). \"Plain\": verify(_:expecting:), the stored COSE key parsed every time.")
print("\"Cached\": clientDataJSON parsed by the caller, then verify(_:clientData:expecting:) with a CredentialKeyCache.")
print("\"OpenSSL alone\": EVP_DigestVerifyInit + EVP_DigestVerify on an already built key, no Latchkey code.\n")
row(["Sign-in vector", "Algorithm", "Plain / s", "Cached / s", "OpenSSL alone / s", "Cached ÷ OpenSSL", "Plain ÷ OpenSSL", "µs beyond signature, cached", "µs beyond, plain"])
row(["---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])
for (name, algorithm) in [
    ("w3c-packed-es256-auth", "ES256"), ("w3c-packed-rs256-auth", "RS256"), ("w3c-packed-eddsa-auth", "EdDSA (Ed25519)"),
    ("w3c-packed-es384-auth", "ES384"), ("w3c-packed-es512-auth", "ES512"), ("w3c-packed-ed448-auth", "Ed448"),
] {
    let vector = try Vector(name)
    let clientDataJSON = vector.bytes("credential", "response", "clientDataJSON")
    let authenticatorData = vector.bytes("credential", "response", "authenticatorData")
    let signature = vector.bytes("credential", "response", "signature")
    let publicKey = vector.bytes("storedCredential", "publicKey")
    let response = SignInResponse(
        credentialID: vector.bytes("credential", "rawId"), clientDataJSON: clientDataJSON,
        authenticatorData: authenticatorData, signature: signature, userHandle: nil)
    let expectation = SignInExpectation(
        challenge: vector.bytes("relyingParty", "expectedChallenge"), userVerification: .preferred, publicKey: publicKey,
        storedSignCount: 0, userHandle: [], userHandleRequired: false)
    let plain = SignInVerifier(relyingParty: vector.relyingParty)
    let cached = SignInVerifier(relyingParty: vector.relyingParty, keyCache: CredentialKeyCache())
    let raw = try RawOpenSSLVerifier(coseKey: publicKey, signature: signature, message: authenticatorData + Digest.sha256(clientDataJSON))
    let rates = try interleavedRates(seconds: secondsPerCase, [
        { _ = try plain.verify(response, expecting: expectation) },
        { _ = try cached.verify(response, clientData: CollectedClientData(response.clientDataJSON), expecting: expectation) },
        { raw.verify() },
    ])
    let (plainRate, cachedRate, rawRate) = (rates[0], rates[1], rates[2])
    row([
        name, algorithm, format(plainRate), format(cachedRate), format(rawRate),
        String(format: "%.2f", cachedRate / rawRate), String(format: "%.2f", plainRate / rawRate),
        String(format: "%.1f", microseconds(cachedRate) - microseconds(rawRate)),
        String(format: "%.1f", microseconds(plainRate) - microseconds(rawRate)),
    ])
}

print("")
let speedSeconds = max(1, Int(secondsPerCase.rounded()))
if let reference = opensslSpeedP256Verify(seconds: speedSeconds) {
    print("Reference: openssl speed -mr -seconds \(speedSeconds) ecdsap256: \(format(reference)) P-256 verifies / s\n")
} else {
    print("Reference: openssl speed is not available on this machine\n")
}

row(["Registration vector", "Format", "Full §7.1 check with chain / s"])
row(["---", "---", "---:"])
for (name, label) in [
    ("w3c-none-es256-reg", "none"), ("w3c-packed-self-es256-reg", "packed self"), ("w3c-packed-es256-reg", "packed x5c"),
    ("w3c-tpm-es256-reg", "tpm"), ("w3c-apple-es256-reg", "apple"),
] {
    let vector = try Vector(name)
    let anchors = try PEM.certificates(in: String(contentsOf: folder.deletingLastPathComponent()
        .appendingPathComponent("roots/w3c-webauthn-test-vectors-attestation-ca.pem"), encoding: .utf8)).map { try X509Certificate(der: $0) }
    let verifier = RegistrationVerifier(relyingParty: vector.relyingParty, trust: AttestationTrust(anchors: TrustAnchors(anchors)))
    let response = RegistrationResponse(
        credentialID: vector.bytes("credential", "rawId"), clientDataJSON: vector.bytes("credential", "response", "clientDataJSON"),
        attestationObject: vector.bytes("credential", "response", "attestationObject"))
    let expectation = RegistrationExpectation(challenge: vector.bytes("relyingParty", "expectedChallenge"), userVerification: .preferred)
    // Measure the path that trusts the chain, not a fast failure.
    guard try verifier.verify(response, expecting: expectation).attestationTrusted || label.hasPrefix("none") || label.hasSuffix("self") else {
        fatalError("\(name) did not verify to the W3C test root")
    }
    row([name, label, format(try rate(seconds: secondsPerCase) { _ = try verifier.verify(response, expecting: expectation) })])
}

print("")
print("Sign-in tokens: what every successful ceremony adds, an ES256 idToken signed with OpenSSL (claims encoded, signed, DER → r ‖ s).\n")
row(["Token", "Tokens / s", "µs each"])
row(["---", "---:", "---:"])
let tokenKey = try TokenSigningKey.generate()
let tokenClaims = IDTokenClaims(
    iss: "https://login.example.com", aud: ["api.example.com"], sub: Base64URL.encode([UInt8](repeating: 7, count: 64)),
    preferredUsername: "alice", externalId: "crm-1001", issuedAt: Date(), expiresAt: Date().addingTimeInterval(300),
    authenticatedAt: Date(), amr: ["pop", "user", "mfa"], credentialID: Base64URL.encode([UInt8](repeating: 9, count: 16)),
    jwtID: Base64URL.encode([UInt8](repeating: 1, count: 16)))
let tokenRate = try rate(seconds: secondsPerCase) { _ = try JSONWebToken.sign(tokenClaims, with: tokenKey) }
row(["ES256 idToken", format(tokenRate), String(format: "%.1f", microseconds(tokenRate))])
