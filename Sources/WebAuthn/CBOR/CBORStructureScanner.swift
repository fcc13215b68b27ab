/// Walks CBOR item heads without allocating anything, so that no declared length larger than the
/// remaining input ever reaches libcbor (whose `cbor_load` allocates what a header declares).
///
/// It rejects indefinite lengths, reserved additional-information values, stray break codes, tags 6
/// to 20 and nesting deeper than the limit, and returns where the first complete item ends.
struct CBORStructureScanner {
    private let bytes: [UInt8]
    private let limits: CBORLimits
    private var offset: Int

    init(_ bytes: [UInt8], from offset: Int = 0, limits: CBORLimits) {
        self.bytes = bytes
        self.offset = offset
        self.limits = limits
    }

    /// The offset just past the first complete item.
    mutating func scanItem() throws -> Int {
        try scan(depth: 0)
        return offset
    }

    private var remaining: Int { bytes.count - offset }

    private mutating func scan(depth: Int) throws {
        guard depth <= limits.maximumDepth else {
            throw WebAuthnError(.malformedCBOR, "CBOR nesting is deeper than \(limits.maximumDepth) levels")
        }
        guard remaining > 0 else {
            throw WebAuthnError(.malformedCBOR, "CBOR input ends in the middle of an item")
        }
        let initial = bytes[offset]
        offset += 1
        let majorType = initial >> 5
        let argument = try readArgument(additionalInformation: initial & 0x1F, majorType: majorType)

        switch majorType {
        case 0, 1:
            return
        case 2, 3:
            guard argument <= UInt64(remaining) else {
                throw WebAuthnError(.malformedCBOR, "CBOR string declares \(argument) bytes but only \(remaining) remain")
            }
            offset += Int(argument)
        case 4, 5:
            let itemsPerEntry: UInt64 = majorType == 4 ? 1 : 2
            // Every item takes at least one byte, so a count beyond what remains cannot be honest.
            let (items, overflow) = argument.multipliedReportingOverflow(by: itemsPerEntry)
            guard !overflow, items <= UInt64(remaining) else {
                throw WebAuthnError(.malformedCBOR, "CBOR \(majorType == 4 ? "array" : "map") declares \(argument) entries but only \(remaining) bytes remain")
            }
            for _ in 0..<items {
                try scan(depth: depth + 1)
            }
        case 6:
            // libcbor 0.8 refuses tags 6 to 20 written in one byte (0xC6...0xD4) yet takes them
            // written longer: refused in every form, a tag means the same whatever its head, and
            // what the encoder writes (the shortest head) decodes again.
            guard !Self.tagsLibCBORRefuses.contains(argument) else {
                throw WebAuthnError(.malformedCBOR, "CBOR tag \(argument) is not accepted")
            }
            try scan(depth: depth + 1)
        default:
            return  // simple values and floats: the argument was the whole payload
        }
    }

    private static let tagsLibCBORRefuses: ClosedRange<UInt64> = 6...20

    private mutating func readArgument(additionalInformation: UInt8, majorType: UInt8) throws -> UInt64 {
        let width: Int
        switch additionalInformation {
        case 0..<24: return UInt64(additionalInformation)
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        case 31:
            throw WebAuthnError(.malformedCBOR, majorType == 7 ? "unexpected CBOR break code" : "indefinite-length CBOR items are not accepted")
        default:
            throw WebAuthnError(.malformedCBOR, "reserved CBOR additional information \(additionalInformation)")
        }
        guard remaining >= width else {
            throw WebAuthnError(.malformedCBOR, "CBOR input ends inside an item header")
        }
        var value: UInt64 = 0
        for _ in 0..<width {
            value = value << 8 | UInt64(bytes[offset])
            offset += 1
        }
        return value
    }
}
