import Foundation

/// Rates of several loops measured side by side, each for about `seconds` in all: each runs in turn
/// for `seconds / rounds`, round after round, and keeps its best round, so load from other processes
/// on a busy machine skews all of them alike and least.
func interleavedRates(seconds: Double, rounds: Int = 10, _ bodies: [() throws -> Void]) throws -> [Double] {
    for body in bodies { try body() }  // warm up, and fail early
    var best = [Double](repeating: 0, count: bodies.count)
    let slice = UInt64(seconds / Double(rounds) * 1e9)
    for _ in 0..<rounds {
        for (index, body) in bodies.enumerated() {
            var iterations = 0
            let start = DispatchTime.now().uptimeNanoseconds
            var elapsed: UInt64 = 0
            while elapsed < slice {
                for _ in 0..<20 { try body() }
                iterations += 20
                elapsed = DispatchTime.now().uptimeNanoseconds - start
            }
            best[index] = max(best[index], Double(iterations) / (Double(elapsed) / 1e9))
        }
    }
    return best
}

/// Operations per second of one loop run for about `seconds`.
func rate(seconds: Double, _ body: @escaping () throws -> Void) throws -> Double {
    try interleavedRates(seconds: seconds, rounds: 1, [body])[0]
}
