import CFuzzerDriver

/// Hands a fuzz target's body to libFuzzer. The executable's main calls ``run(_:)`` once; libFuzzer
/// parses the command line (corpus folders, `-max_total_time=`, ...) and calls the body with each input.
public enum FuzzDriver {
    /// The target's body; set once, before libFuzzer starts, and only read afterwards.
    nonisolated(unsafe) private static var body: (([UInt8]) -> Void)?

    /// Runs libFuzzer over `body` and exits with its status. A crash, a trap or a sanitizer report
    /// inside `body` is a finding; a thrown error is an ordinary, refused input.
    public static func run(_ body: @escaping ([UInt8]) -> Void) -> Never {
        Self.body = body
        let status = latchkey_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            FuzzDriver.body?(bytes)
            return 0
        }
        exit(status)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
