// Encodes one admin-sized reply (three passkeys, about 930 bytes) with OrderedJSONEncoder, which every reply and webhook
// body not written by hand goes through, and with Foundation's JSONEncoder it replaced; prints µs per reply, 3 rounds.
// Built against the encoder's own files (scripts/benchmark-json-encoders), not the whole package.
import Foundation
/// JSONText names it; no reply here has bytes to encode.
enum Base64URL { static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() } }
struct Passkey: Encodable { var id = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdEfGh"; var name: String? = "Work laptop"; var provider = "iCloud Keychain"; var aaguid = "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"; var synced = true; var createdAt = "2026-12-01T20:03:29.000Z"; var lastUsedAt: String? = "2026-12-01T20:05:00.000Z"; var transports = ["hybrid", "internal"] }
struct Reply: Encodable { var status = "ok"; var errorMessage = ""; var username = "alice"; var credentials = [Passkey(), Passkey(), Passkey()]; var deviceKeys: [Passkey] = [] }
// `main.swift ENCODER N` encodes N replies with one encoder only (ordered or foundation), for callgrind's instruction count.
let arguments = CommandLine.arguments
let ordered = OrderedJSONEncoder()
let plain = JSONEncoder()
plain.outputFormatting = [.withoutEscapingSlashes]
if arguments.count == 3, let count = Int(arguments[2]) {
    var bytes = 0
    for _ in 0..<count { bytes &+= arguments[1] == "ordered" ? try! ordered.encode(Reply()).count : try! plain.encode(Reply()).count }
    print("\(arguments[1]): \(count) replies, \(bytes / max(count, 1)) bytes each")
    exit(0)
}
let n = 20000
for round in 0..<3 {
    var t = Date()
    var bytes = 0
    for _ in 0..<n { bytes &+= try! ordered.encode(Reply()).count }
    let o = Date().timeIntervalSince(t) / Double(n) * 1e6
    t = Date()
    for _ in 0..<n { bytes &+= try! plain.encode(Reply()).count }
    let p = Date().timeIntervalSince(t) / Double(n) * 1e6
    print(String(format: "round %d: OrderedJSONEncoder %.1f µs, JSONEncoder %.1f µs per reply (%d bytes)", round, o, p, bytes / (2 * n)))
}
