import CLibCBOR

/// Decodes CBOR with libcbor, after ``CBORStructureScanner`` has proved the input well-formed and
/// bounded. Rejects duplicate map keys and text strings that are not UTF-8.
public struct CBORDecoder: Sendable {
    public let limits: CBORLimits

    public init(limits: CBORLimits = .webAuthn) {
        self.limits = limits
    }

    /// Decodes exactly one item; trailing bytes are an error.
    public func decode(_ bytes: [UInt8]) throws -> CBORValue {
        let (value, end) = try decodePrefix(bytes, from: 0)
        guard end == bytes.count else {
            throw WebAuthnError(.malformedCBOR, "\(bytes.count - end) unexpected bytes after the CBOR item")
        }
        return value
    }

    /// Decodes the item that starts at `offset` and returns it with the offset just past it.
    public func decodePrefix(_ bytes: [UInt8], from offset: Int) throws -> (CBORValue, Int) {
        guard bytes.count <= limits.maximumInputSize else {
            throw WebAuthnError(.malformedCBOR, "CBOR input of \(bytes.count) bytes exceeds the limit of \(limits.maximumInputSize)")
        }
        guard offset >= 0, offset < bytes.count else {
            throw WebAuthnError(.malformedCBOR, "CBOR input is empty")
        }
        var scanner = CBORStructureScanner(bytes, from: offset, limits: limits)
        let end = try scanner.scanItem()

        let value: CBORValue = try bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else {
                throw WebAuthnError(.malformedCBOR, "CBOR input is empty")
            }
            var result = cbor_load_result()
            var item: UnsafeMutablePointer<cbor_item_t>? = cbor_load(base + offset, end - offset, &result)
            guard let loaded = item else {
                throw WebAuthnError(.malformedCBOR, "libcbor could not decode the item (error \(result.error.code.rawValue) at byte \(result.error.position))")
            }
            defer { cbor_decref(&item) }
            guard result.read == end - offset else {
                throw WebAuthnError(.malformedCBOR, "libcbor read \(result.read) bytes where \(end - offset) were expected")
            }
            return try Self.convert(loaded)
        }
        return (value, end)
    }

    private static func convert(_ item: UnsafeMutablePointer<cbor_item_t>) throws -> CBORValue {
        switch cbor_typeof(item) {
        case CBOR_TYPE_UINT:
            return .unsigned(cbor_get_int(item))
        case CBOR_TYPE_NEGINT:
            return .negative(cbor_get_int(item))
        case CBOR_TYPE_BYTESTRING:
            guard cbor_bytestring_is_definite(item) else {
                throw WebAuthnError(.malformedCBOR, "indefinite-length CBOR items are not accepted")
            }
            let count = cbor_bytestring_length(item)
            guard count > 0, let handle = cbor_bytestring_handle(item) else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: handle, count: count)))
        case CBOR_TYPE_STRING:
            guard cbor_string_is_definite(item) else {
                throw WebAuthnError(.malformedCBOR, "indefinite-length CBOR items are not accepted")
            }
            let count = cbor_string_length(item)
            guard count > 0, let handle = cbor_string_handle(item) else { return .text("") }
            guard let text = String(validating: UnsafeBufferPointer(start: handle, count: count), as: UTF8.self) else {
                throw WebAuthnError(.malformedCBOR, "CBOR text string is not valid UTF-8")
            }
            return .text(text)
        case CBOR_TYPE_ARRAY:
            let count = cbor_array_size(item)
            guard count > 0, let handle = cbor_array_handle(item) else { return .array([]) }
            return .array(try (0..<count).map { index in
                guard let element = handle[index] else {
                    throw WebAuthnError(.malformedCBOR, "CBOR array element \(index) is missing")
                }
                return try convert(element)
            })
        case CBOR_TYPE_MAP:
            let count = cbor_map_size(item)
            guard count > 0, let handle = cbor_map_handle(item) else { return .map([]) }
            var entries: [CBORMapEntry] = []
            var seenKeys = Set<CBORValue>()
            entries.reserveCapacity(count)
            for index in 0..<count {
                guard let keyItem = handle[index].key, let valueItem = handle[index].value else {
                    throw WebAuthnError(.malformedCBOR, "CBOR map entry \(index) is incomplete")
                }
                let key = try convert(keyItem)
                guard seenKeys.insert(key).inserted else {
                    throw WebAuthnError(.malformedCBOR, "CBOR map has the key \(key) twice")
                }
                entries.append(CBORMapEntry(key: key, value: try convert(valueItem)))
            }
            return .map(entries)
        case CBOR_TYPE_TAG:
            var tagged: UnsafeMutablePointer<cbor_item_t>? = cbor_tag_item(item)
            guard let content = tagged else {
                throw WebAuthnError(.malformedCBOR, "CBOR tag has no item")
            }
            defer { cbor_decref(&tagged) }
            return .tagged(cbor_tag_value(item), try convert(content))
        case CBOR_TYPE_FLOAT_CTRL:
            if cbor_float_ctrl_is_ctrl(item) {
                if cbor_is_null(item) { return .null }
                if cbor_is_undef(item) { return .undefined }
                let value = cbor_ctrl_value(item)
                switch value {
                case 20: return .bool(false)
                case 21: return .bool(true)
                default: return .simple(value)
                }
            }
            return .float(cbor_float_get_float(item))
        default:
            throw WebAuthnError(.malformedCBOR, "unknown CBOR item type")
        }
    }
}
