/// The sizes every request must keep to.
enum HTTPLimits {
    /// The largest request body read (413 beyond it): the largest registration, a TPM
    /// attestation with its certificate chain, is a few kilobytes.
    static let maximumBodyBytes = 64 * 1024
    /// The most bytes of header names and values in one request, and in one field (431 beyond).
    static let maximumHeaderBytes = 32 * 1024
    /// The most header fields in one request (431 beyond).
    static let maximumHeaderFields = 100
}
