/// A strict reader of JSON text (RFC 8259) for where a reader's leniency matters. RFC 8259 leaves the
/// meaning of a repeated member name open, and readers differ (the first copy wins in one, the last in
/// another), so the same bytes can mean two things.
/// - For the one object `clientDataJSON` holds, it validates the whole text but builds values only for
///   the top-level members the ceremony reads; every other member is checked and skipped.
///   Duplicate copies of a read member are refused, so no other JSON reader can see a different
///   challenge or origin in the same bytes.
/// - For other JSON (request bodies), ``check(_:)`` reads the whole text and refuses a repeated name in any
///   object, so that it, not a more lenient reader, decides what is JSON.
package struct StrictJSONReader {
    /// A top-level member's value, as far as the client data checks need it.
    package enum Value: Equatable {
        case null
        case bool(Bool)
        case number
        case string(String)
        case array
        /// An object; `status` is its `status` member when that is a string (for `tokenBinding`).
        case object(status: String?)

        /// A short name of the value's kind, for error messages (as ``JSONValue/kindName``).
        package var kindName: String {
            switch self {
            case .null: return "null"
            case .bool: return "a boolean"
            case .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    /// Deepest nesting of arrays and objects accepted.
    package static let maximumDepth = 32

    /// Reads `bytes` as one JSON object and keeps the top-level members named in `names` (each refused when repeated);
    /// every other member is checked and skipped. For `clientDataJSON`, whose few members decide a ceremony.
    package static func members(of bytes: [UInt8], reading names: Set<String>) throws(Failure) -> [String: Value] {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<[String: Value], Failure> in
            var reader = StrictJSONReader(buffer)
            do throws(Failure) {
                return .success(try reader.topLevelObject(reading: names))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads `bytes` as one JSON text (RFC 8259: UTF-8, no byte order mark) and refuses it when it is not one,
    /// when any of its objects repeats a member name, or when it nests deeper than ``maximumDepth``.
    static func check(_ bytes: UnsafeBufferPointer<UInt8>) throws(StrictJSONProblem) {
        try readWhole(bytes) { (reader: inout StrictJSONReader) throws(Failure) in try reader.skipValue(depth: 0) }
    }

    /// Reads `bytes` as ``check(_:)`` does and keeps what they say, in the same pass: the tree a
    /// ``StrictJSONDecoder`` decodes.
    static func tree(_ bytes: UnsafeBufferPointer<UInt8>) throws(StrictJSONProblem) -> StrictJSONNode {
        try readWhole(bytes) { (reader: inout StrictJSONReader) throws(Failure) in try reader.node(depth: 0) }
    }

    /// `bytes` as one JSON text read by `readValue`, with nothing after it; every name repeated in an object refused.
    private static func readWhole<Value>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ readValue: (inout StrictJSONReader) throws(Failure) -> Value
    ) throws(StrictJSONProblem) -> Value {
        // Names are compared as text, and text that is not UTF-8 is not JSON.
        if bytes.contains(where: { $0 >= 0x80 }), !isValidUTF8(bytes) { throw .notJSON }
        var reader = StrictJSONReader(bytes, refusesEveryRepeatedName: true)
        do throws(Failure) {
            reader.skipWhitespace()
            let value = try readValue(&reader)
            try reader.expectEnd()
            return value
        } catch {
            switch error {
            case .duplicate(let name): throw .repeatedMember(name)
            case .tooDeep: throw .tooDeep(maximumDepth)
            case .notJSON, .notAnObject: throw .notJSON
            }
        }
    }

    /// Why a text is refused.
    package enum Failure: Error, Equatable {
        case notJSON
        case notAnObject
        case duplicate(String)
        case tooDeep
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Whether a name repeated in any object is refused, not only a repeated member that is read.
    private let refusesEveryRepeatedName: Bool

    private init(_ bytes: UnsafeBufferPointer<UInt8>, refusesEveryRepeatedName: Bool = false) {
        self.bytes = bytes
        self.refusesEveryRepeatedName = refusesEveryRepeatedName
    }

    private mutating func topLevelObject(reading names: Set<String>) throws(Failure) -> [String: Value] {
        // JSON text is UTF-8; check any non-ASCII bytes once, up front.
        if bytes.contains(where: { $0 >= 0x80 }), !Self.isValidUTF8(bytes) { throw .notJSON }
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else {
            try skipValue(depth: 0)
            try expectEnd()
            throw .notAnObject
        }
        index += 1
        var members: [String: Value] = [:]
        try forEachMember(depth: 1) { (reader: inout StrictJSONReader, name: String) throws(Failure) in
            guard names.contains(name) else {
                try reader.skipValue(depth: 1)
                return
            }
            let value = try reader.value(depth: 1)
            guard members.updateValue(value, forKey: name) == nil else { throw .duplicate(name) }
        }
        try expectEnd()
        return members
    }

    /// A member's value: strings kept, objects reduced to their `status` string, the rest validated.
    private mutating func value(depth: Int) throws(Failure) -> Value {
        switch peek() {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"):
            index += 1
            var status: String?
            var sawStatus = false
            try forEachMember(depth: depth + 1) { (reader: inout StrictJSONReader, name: String) throws(Failure) in
                guard name == "status" else {
                    try reader.skipValue(depth: depth + 1)
                    return
                }
                guard !sawStatus else { throw .duplicate("status") }
                sawStatus = true
                if case .string(let text) = try reader.value(depth: depth + 1) { status = text }
            }
            return .object(status: status)
        case UInt8(ascii: "["):
            try skipValue(depth: depth)
            return .array
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            try number()
            return .number
        }
    }

    /// Reads `"name": value` pairs up to the closing brace (the opening one is already read),
    /// handing each name to `body` with the reader at the value.
    private mutating func forEachMember(
        depth: Int, _ body: (inout StrictJSONReader, String) throws(Failure) -> Void
    ) throws(Failure) {
        guard depth <= Self.maximumDepth else { throw .tooDeep }
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        var names = MemberNames()
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw .notJSON }
            let name = try string()
            if refusesEveryRepeatedName, !names.insert(name) { throw .duplicate(name) }
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            try body(&self, name)
            skipWhitespace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return
            default: throw .notJSON
            }
        }
    }

    /// One value of any kind, kept whole; names repeated in an object are refused by ``forEachMember``.
    private mutating func node(depth: Int) throws(Failure) -> StrictJSONNode {
        switch peek() {
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "{"):
            index += 1
            var members: [String: StrictJSONNode] = [:]
            try forEachMember(depth: depth + 1) { (reader: inout StrictJSONReader, name: String) throws(Failure) in
                members[name] = try reader.node(depth: depth + 1)
            }
            return .object(members)
        case UInt8(ascii: "["):
            index += 1
            var items: [StrictJSONNode] = []
            try forEachItem(depth: depth + 1) { (reader: inout StrictJSONReader) throws(Failure) in
                items.append(try reader.node(depth: depth + 1))
            }
            return .array(items)
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            let start = index
            try number()
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }
    }

    /// Reads the items of an array up to the closing bracket (the opening one is already read), handing the
    /// reader to `body` at each item.
    private mutating func forEachItem(depth: Int, _ body: (inout StrictJSONReader) throws(Failure) -> Void) throws(Failure) {
        guard depth <= Self.maximumDepth else { throw .tooDeep }
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try body(&self)
            skipWhitespace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return
            default: throw .notJSON
            }
        }
    }

    /// Validates one value of any kind without keeping it.
    private mutating func skipValue(depth: Int) throws(Failure) {
        switch peek() {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"):
            index += 1
            try forEachMember(depth: depth + 1) { (reader: inout StrictJSONReader, _: String) throws(Failure) in
                try reader.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            index += 1
            try forEachItem(depth: depth + 1) { (reader: inout StrictJSONReader) throws(Failure) in
                try reader.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    /// A string, escapes resolved; the reader is at its opening quote.
    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        // The common case: no escapes, so the text is the bytes between the quotes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw .notJSON }
            index += 1
        }
        var text = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &text)
            default:
                guard byte >= 0x20 else { throw .notJSON }
                text.append(byte)
            }
        }
        throw .notJSON
    }

    /// Validates a string without keeping it; the reader is at its opening quote.
    private mutating func skipString() throws(Failure) {
        index += 1
        var scratch: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"):
                scratch.removeAll(keepingCapacity: true)
                try escape(into: &scratch)
            default:
                guard byte >= 0x20 else { throw .notJSON }
            }
        }
        throw .notJSON
    }

    /// One escape sequence (the backslash already read), appended to `text` as UTF-8.
    private mutating func escape(into text: inout [UInt8]) throws(Failure) {
        switch next() {
        case UInt8(ascii: "\""): text.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): text.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): text.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hexQuad())
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u") else { throw .notJSON }
                let low = UInt32(try hexQuad())
                guard (0xDC00...0xDFFF).contains(low) else { throw .notJSON }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw .notJSON
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw .notJSON }
            text.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw .notJSON
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            let digit: UInt8
            switch next() {
            case let byte? where (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte): digit = byte - UInt8(ascii: "0")
            case let byte? where (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte): digit = byte - UInt8(ascii: "a") + 10
            case let byte? where (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte): digit = byte - UInt8(ascii: "A") + 10
            default: throw .notJSON
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Failure) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw .notJSON }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw .notJSON }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw .notJSON }
        }
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index - start
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw .notJSON }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw .notJSON
        }
        index += count
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard next() == byte else { throw .notJSON }
    }

    private mutating func expectEnd() throws(Failure) {
        skipWhitespace()
        guard index == bytes.count else { throw .notJSON }
    }

    /// The names of one object's members so far: a short list, as objects mostly are, and a set past that, so a
    /// body of thousands of members costs no more than a pass over it.
    private struct MemberNames {
        private var few: [String] = []
        private var many: Set<String> = []

        /// Adds `name`; false when it was there already.
        mutating func insert(_ name: String) -> Bool {
            if many.isEmpty {
                guard !few.contains(name) else { return false }
                few.append(name)
                if few.count > 16 { many = Set(few) }
                return true
            }
            return many.insert(name).inserted
        }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func next() -> UInt8? {
        defer { index += 1 }
        return peek()
    }

    /// True when `bytes` are well-formed UTF-8 (no overlong forms, surrogates or truncated sequences).
    private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
