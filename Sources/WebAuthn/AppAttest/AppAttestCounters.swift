/// The counters an App Attest key's assertions may still carry: the one owner of Apple's "verify that the counter
/// is greater than the stored value" step. An app that sends gated requests at once has the Secure Enclave number
/// them in one order while they reach the server in another, each over its own single-use challenge; so any counter
/// above the highest accepted passes, and so does one of the ``width`` - 1 below it that was never accepted. A counter
/// accepted before, or one too far below the highest, is refused: an assertion is never accepted twice.
public struct AppAttestCounters: Sendable, Equatable {
    /// How many counters, the highest included, the window remembers.
    public static let width: UInt32 = 64

    /// The highest counter accepted (0 after the attestation).
    public private(set) var highest: UInt32
    /// Bit `k` set: the counter `highest - k` was accepted (bit 0, the highest itself, always is).
    public private(set) var accepted: UInt64

    /// A key's window as stored. An `accepted` without bit 0 is read with it: the highest was accepted.
    public init(highest: UInt32, accepted: UInt64) {
        self.highest = highest
        self.accepted = accepted | 1
    }

    /// The window of a key just attested (counter 0, accepted), or of one whose counters below the highest are all spent.
    public init(highest: UInt32) {
        self.init(highest: highest, accepted: 1)
    }

    /// The window after accepting `counter`, or nil when it was accepted before or is ``width`` or more below the highest.
    public func accepting(_ counter: UInt32) -> AppAttestCounters? {
        if counter > highest {
            let shift = counter - highest
            return AppAttestCounters(highest: counter, accepted: shift >= Self.width ? 1 : accepted << UInt64(shift) | 1)
        }
        let below = highest - counter
        guard below < Self.width, accepted & (1 << UInt64(below)) == 0 else { return nil }
        return AppAttestCounters(highest: highest, accepted: accepted | 1 << UInt64(below))
    }

    /// Why `counter` is refused, for ``accepting(_:)``'s nil.
    public func refusal(of counter: UInt32) -> String {
        counter > highest || highest - counter < Self.width
            ? "App Attest assertion: the counter \(counter) was accepted before (an assertion is accepted once)"
            : "App Attest assertion: the counter \(counter) is \(Self.width) or more below the highest accepted, \(highest)"
    }
}
