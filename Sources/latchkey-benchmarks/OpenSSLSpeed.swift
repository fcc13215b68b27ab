import Foundation

/// `openssl speed -mr -seconds N ecdsap256`: the project's reference P-256 verify rate, measured by
/// OpenSSL's own tool on this machine; nil when the `openssl` command is missing or says nothing usable.
func opensslSpeedP256Verify(seconds: Int) -> Double? {
    let candidates = ["/usr/bin/openssl", "/usr/local/bin/openssl"]
    guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["speed", "-mr", "-seconds", String(seconds), "ecdsap256"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    // Machine-readable ECDSA lines: +F4:<index>:<bits>:<signs per second>:<verifies per second>
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("+F4:") {
        let fields = line.split(separator: ":")
        if fields.count >= 5, fields[2] == "256" { return Double(fields[4]) }
    }
    return nil
}
