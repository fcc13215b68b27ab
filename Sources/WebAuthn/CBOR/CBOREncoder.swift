/// Encodes ``CBORValue`` items with definite lengths and shortest-form heads, in the order given.
public enum CBOREncoder {
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var output: [UInt8] = []
        append(value, to: &output)
        return output
    }

    private static func append(_ value: CBORValue, to output: inout [UInt8]) {
        switch value {
        case .unsigned(let n): appendHead(0, n, to: &output)
        case .negative(let n): appendHead(1, n, to: &output)
        case .bytes(let bytes):
            appendHead(2, UInt64(bytes.count), to: &output)
            output += bytes
        case .text(let text):
            let utf8 = Array(text.utf8)
            appendHead(3, UInt64(utf8.count), to: &output)
            output += utf8
        case .array(let items):
            appendHead(4, UInt64(items.count), to: &output)
            for item in items { append(item, to: &output) }
        case .map(let entries):
            appendHead(5, UInt64(entries.count), to: &output)
            for entry in entries {
                append(entry.key, to: &output)
                append(entry.value, to: &output)
            }
        case .tagged(let tag, let item):
            appendHead(6, tag, to: &output)
            append(item, to: &output)
        case .bool(let flag): output.append(flag ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        case .undefined: output.append(0xF7)
        case .simple(let value):
            if value < 24 { output.append(0xE0 | value) } else { output += [0xF8, value] }
        case .float(let number):
            output.append(0xFB)
            let bits = number.bitPattern
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        }
    }

    private static func appendHead(_ majorType: UInt8, _ argument: UInt64, to output: inout [UInt8]) {
        let major = majorType << 5
        switch argument {
        case 0..<24: output.append(major | UInt8(argument))
        case 24...0xFF: output += [major | 24, UInt8(argument)]
        case 0x100...0xFFFF: output += [major | 25] + bigEndian(argument, bytes: 2)
        case 0x1_0000...0xFFFF_FFFF: output += [major | 26] + bigEndian(argument, bytes: 4)
        default: output += [major | 27] + bigEndian(argument, bytes: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }
}
