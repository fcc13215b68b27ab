import Testing

@testable import WebAuthn

/// Draws from the pooled block and from OpenSSL directly: the sizes asked for, and no two alike.
@Suite struct SecureRandomTests {
    @Test func drawsHaveTheirSizeAndNeverRepeat() throws {
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        var seen = Set<[UInt8]>()
        // More than one 4 KiB block of small draws, then draws around the pooled limit.
        for count in Array(repeating: 16, count: 600) + [1, 63, SecureRandom.pooledLimit, SecureRandom.pooledLimit + 1, 4097] {
            let bytes = try SecureRandom.bytes(count: count)
            #expect(bytes.count == count)
            if count >= 16 { #expect(seen.insert(bytes).inserted, "a draw of \(count) bytes repeated") }
        }
    }

    @Test func concurrentDrawsNeverRepeat() async throws {
        let draws = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<8 { group.addTask { try (0..<200).map { _ in try SecureRandom.bytes(count: 32) } } }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(Set(draws).count == draws.count)
    }
}
