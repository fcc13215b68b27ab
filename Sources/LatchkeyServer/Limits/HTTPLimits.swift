import LatchkeyService

/// The sizes every request must keep to.
enum HTTPLimits {
    /// The largest request body read (413 beyond it): the largest registration, a TPM
    /// attestation with its certificate chain, is a few kilobytes.
    static let maximumBodyBytes = 64 * 1024
    /// The most bytes of header names and values in one request, and in one field (431 beyond).
    static let maximumHeaderBytes = 32 * 1024
    /// The most header fields in one request (431 beyond).
    static let maximumHeaderFields = 100
    /// The most pieces (chunks, or reads of a body without chunks) one request body may come in; the
    /// connection closes beyond it. 64 KiB in full-sized TCP segments is some 45.
    static let maximumBodyParts = 4_096
}
