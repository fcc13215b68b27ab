import COpenSSL
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Random bytes from OpenSSL's CSPRNG.
///
/// Small draws (challenges, tokens, IDs: at most ``pooledLimit`` bytes) come from a block that is
/// filled from `RAND_bytes` 4 KiB at a time. A `RAND_bytes` call has a fixed cost (the generator's
/// lock and reseed check, the fork check's `getpid`, the DRBG's state update) that is most of a
/// 16- or 32-byte draw; a server makes several such draws per request. Every byte of a block is
/// handed out once and zeroed as it leaves, and a forked child never reuses its parent's block.
public enum SecureRandom {
    /// The largest draw served from the block; larger ones call OpenSSL directly.
    public static let pooledLimit = 64

    /// `count` random bytes. Throws only when OpenSSL's generator is not seeded.
    public static func bytes(count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        guard count <= pooledLimit else { return try direct(count: count) }
        return try pool.withLock { block throws(WebAuthnError) in try block.take(count, generation: ForkWatch.generation) }
    }

    private static func direct(count: Int) throws(WebAuthnError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            throw WebAuthnError(.cryptoFailure, "OpenSSL RAND_bytes failed")
        }
        return bytes
    }

    private static let pool = Mutex(Block())

    /// Bytes drawn from OpenSSL and not yet handed out: `bytes[next...]`.
    private struct Block: ~Copyable {
        static let size = 4096
        var bytes = [UInt8](repeating: 0, count: Block.size)
        var next = Block.size
        /// The process's fork generation when `bytes` were drawn.
        var generation = -1

        mutating func take(_ count: Int, generation current: Int) throws(WebAuthnError) -> [UInt8] {
            if next + count > bytes.count || generation != current {
                guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else {
                    throw WebAuthnError(.cryptoFailure, "OpenSSL RAND_bytes failed")
                }
                (next, generation) = (0, current)
            }
            let range = next..<(next + count)
            let taken = Array(bytes[range])
            bytes.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                (base + range.lowerBound).update(repeating: 0, count: count)
            }
            next += count
            return taken
        }
    }
}

/// Counts forks, so that a child process draws a block of its own.
private enum ForkWatch {
    private static let forks = Atomic<Int>(0)
    private static let registered: Bool = {
        pthread_atfork(nil, nil) { ForkWatch.forks.add(1, ordering: .relaxed) }
        return true
    }()

    static var generation: Int {
        _ = registered
        return forks.load(ordering: .relaxed)
    }
}
