import Foundation
import FuzzSupport
import WebAuthn

// fuzz-seeds VECTORS OUTPUT: writes a seed corpus for every target into OUTPUT/<target>/ from the
// vector files in VECTORS (Tests/Vectors/vectors), and reports how far each ceremony seed verifies
// under the fuzz targets' fixed relying party, so a seed that stops early is noticed.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: fuzz-seeds VECTORS_FOLDER OUTPUT_FOLDER\n".utf8))
    exit(2)
}
let vectors = URL(fileURLWithPath: arguments[1])
let output = URL(fileURLWithPath: arguments[2])
let anchors = FuzzRelyingParty.loadAnchors()
let decoder = CBORDecoder()

/// Base64url bytes of a vector value; some real-world values keep padding, `+` or `/`.
func bytes(_ value: Any?) -> [UInt8]? {
    guard let text = value as? String else { return nil }
    return Base64URL.decode(text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: ""))
}

func write(_ data: [UInt8]?, target: String, name: String) throws {
    guard let data, !data.isEmpty else { return }
    let folder = output.appendingPathComponent(target)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(data).write(to: folder.appendingPathComponent(name))
}

func seconds(_ text: String?) -> UInt32 {
    guard let text else { return 0 }
    let formatter = ISO8601DateFormatter()
    var date = formatter.date(from: text)
    if date == nil {
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        date = formatter.date(from: text)
    }
    return date.map { UInt32(clamping: Int($0.timeIntervalSince1970)) } ?? 0
}

/// How far a registration seed gets through `fuzz-registration`'s verification.
func verify(_ input: RegistrationInput) -> String {
    do {
        let verified = try RegistrationVerifier(relyingParty: input.relyingParty, trust: input.trust(anchors: anchors))
            .verify(input.response, expecting: input.expectation)
        return "verified (\(verified.attestationFormat), \(verified.attestation.type), trusted: \(verified.attestationTrusted))"
    } catch {
        return "refused: \((error as? WebAuthnError)?.code.description ?? "\(error)")"
    }
}

var outcomes: [String: Int] = [:]
let files = try FileManager.default.contentsOfDirectory(at: vectors, includingPropertiesForKeys: nil)
    .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
for file in files {
    guard let vector = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] else { continue }
    let name = file.deletingPathExtension().lastPathComponent
    let relyingParty = vector["relyingParty"] as? [String: Any]
    let credential = vector["credential"] as? [String: Any]
    let response = credential?["response"] as? [String: Any]
    let userVerification: UserVerificationRequirement =
        relyingParty?["requireUserVerification"] as? Bool == true ? .required : .preferred
    let crossOrigin = name.contains("crossOrigin") || name.contains("topOrigin")
    let clientDataJSON = bytes(response?["clientDataJSON"]) ?? []
    try write(clientDataJSON, target: "client-data", name: name)

    let verdict: String
    if vector["ceremony"] as? String == "registration" {
        let attestationObject = bytes(response?["attestationObject"]) ?? []
        try write(attestationObject, target: "cbor", name: name)
        if let object = try? AttestationObject(attestationObject, decoder: decoder) {
            try write(object.authenticatorData.bytes, target: "authenticator-data", name: name)
            if let key = object.authenticatorData.attestedCredentialData?.publicKeyBytes {
                var fields = InputFieldsWriter()
                fields.field(key)
                try write(fields.bytes, target: "cose-key", name: name)
            }
        }
        let trust = vector["trust"] as? [String: Any]
        let input = RegistrationInput(
            settings: userVerification.settingsBits << 2 | (crossOrigin ? 0x10 : 0),
            verificationTime: seconds(trust?["verifyAt"] as? String),
            clientDataJSON: clientDataJSON, attestationObject: attestationObject)
        try write(input.encoded, target: "registration", name: name)
        verdict = verify(input)
        // No vector uses `compound` (§8.9): wrap each statement with a `none` member into one.
        if let object = try? decoder.decode(attestationObject), let format = object[textKey: "fmt"]?.textString,
           format != "none", let statement = object[textKey: "attStmt"], let authData = object[textKey: "authData"] {
            var compound = input
            compound.attestationObject = CBOREncoder.encode(.map([
                CBORMapEntry(key: .text("fmt"), value: .text("compound")),
                CBORMapEntry(key: .text("attStmt"), value: .array([
                    .map([CBORMapEntry(key: .text("fmt"), value: .text(format)), CBORMapEntry(key: .text("attStmt"), value: statement)]),
                    .map([CBORMapEntry(key: .text("fmt"), value: .text("none")), CBORMapEntry(key: .text("attStmt"), value: .map([]))]),
                ])),
                CBORMapEntry(key: .text("authData"), value: authData),
            ]))
            try write(compound.encoded, target: "registration", name: name + "-compound")
            print("\(name)-compound: \(verify(compound))")
        }
    } else {
        let stored = vector["storedCredential"] as? [String: Any]
        let publicKey = bytes(stored?["publicKey"]) ?? []
        let signature = bytes(response?["signature"]) ?? []
        let authenticatorData = bytes(response?["authenticatorData"]) ?? []
        try write(authenticatorData, target: "authenticator-data", name: name)
        try write(publicKey, target: "cbor", name: name)
        var keyFields = InputFieldsWriter()
        keyFields.field(publicKey)
        keyFields.rest(signature)
        try write(keyFields.bytes, target: "cose-key", name: name)
        let input = AssertionInput(
            settings: userVerification.settingsBits | (crossOrigin ? 0x04 : 0),
            storedSignCount: UInt32(clamping: stored?["signCount"] as? Int ?? 0),
            clientDataJSON: clientDataJSON, authenticatorData: authenticatorData, signature: signature,
            storedPublicKey: publicKey, userHandle: bytes(response?["userHandle"]) ?? [])
        try write(input.encoded, target: "assertion", name: name)
        do {
            _ = try SignInVerifier(relyingParty: input.relyingParty).verify(input.response, expecting: input.expectation)
            verdict = "verified"
        } catch let error as WebAuthnError {
            verdict = "refused: \(error.code)"
        }
    }
    print("\(name): \(verdict)")
    outcomes[verdict.hasPrefix("verified") ? "verified" : verdict, default: 0] += 1
}
print("seeds from \(files.count) vectors: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
