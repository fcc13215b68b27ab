/// Reading header values byte by byte: HTTP's syntax is ASCII, so none of this needs Unicode's rules for
/// whitespace or case (Foundation's `trimmingCharacters(in:)` and `Character.isWhitespace` cost far more).
extension Substring {
    /// The value without the spaces and tabs HTTP allows around it (RFC 9110 §5.6.3, `OWS`).
    var trimmingOptionalWhitespace: Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start].isOptionalWhitespace { bytes.formIndex(after: &start) }
        while start < end, bytes[bytes.index(before: end)].isOptionalWhitespace { bytes.formIndex(before: &end) }
        return self[start..<end]
    }

    /// The value without the spaces and tabs before it.
    var droppingLeadingOptionalWhitespace: Substring {
        let bytes = utf8
        var start = bytes.startIndex
        while start < bytes.endIndex, bytes[start].isOptionalWhitespace { bytes.formIndex(after: &start) }
        return self[start...]
    }

    /// Whether the value is `lowercased` in any case of its ASCII letters (`Close`, `BEARER`).
    func equalsIgnoringASCIICase(_ lowercased: StaticString) -> Bool {
        guard utf8.count == lowercased.utf8CodeUnitCount else { return false }
        return zip(utf8, UnsafeBufferPointer(start: lowercased.utf8Start, count: lowercased.utf8CodeUnitCount)).allSatisfy { byte, expected in
            byte == expected || ((0x41...0x5A).contains(byte) && byte | 0x20 == expected)
        }
    }
}

extension UInt8 {
    fileprivate var isOptionalWhitespace: Bool { self == 0x20 || self == 0x09 }
}
