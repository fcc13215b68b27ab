/// This Latchkey release.
package enum LatchkeyRelease {
    /// As `latchkey --version` prints it, and webhook requests' `User-Agent` carries it.
    package static let version = "0.8.0"
}
