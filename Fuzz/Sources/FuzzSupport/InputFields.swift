/// Reads a fuzz input as a sequence of fields, so one input can carry several byte strings (client
/// data, authenticator data, signature...). Reading never fails: a field cut short by the end of the
/// input is just shorter, and fields past the end are empty, so every byte string is a valid input.
public struct InputFields {
    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// One byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A big-endian 32-bit number.
    public mutating func uint32() -> UInt32 {
        (0..<4).reduce(0) { value, _ in value << 8 | UInt32(byte()) }
    }

    /// A field written as a big-endian 16-bit length followed by that many bytes.
    public mutating func field() -> [UInt8] {
        let length = Int(byte()) << 8 | Int(byte())
        let end = min(offset + length, bytes.count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return offset < bytes.count ? Array(bytes[offset...]) : []
    }
}

/// Writes the fields ``InputFields`` reads, to make seed inputs.
public struct InputFieldsWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    public mutating func uint32(_ value: UInt32) {
        bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    /// A length-prefixed field; longer than 65,535 bytes is cut to fit.
    public mutating func field(_ value: [UInt8]) {
        let kept = value.prefix(Int(UInt16.max))
        bytes += [UInt8(kept.count >> 8), UInt8(kept.count & 0xFF)] + kept
    }

    public mutating func rest(_ value: [UInt8]) {
        bytes += value
    }
}
