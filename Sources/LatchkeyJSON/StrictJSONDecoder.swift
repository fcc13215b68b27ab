/// One JSON value as ``StrictJSONReader`` read it: numbers keep their text, so a whole number is read
/// exactly whatever its size, and objects hold each name once.
enum StrictJSONNode {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([StrictJSONNode])
    case object([String: StrictJSONNode])
}

/// Decodes a request body in one pass: the strict reader (``StrictJSON``) checks the text and builds its
/// values at once, and the `Decodable` type reads those values, with no second parse of the bytes.
///
/// Failures are a ``StrictJSONProblem`` when the bytes are not strict JSON, and a `DecodingError` naming
/// the member when the JSON does not fit the type (as Foundation's `JSONDecoder` reports them, so
/// ``JSONDecodingProblem`` words both). A number a whole-number member cannot hold is a
/// `dataCorrupted` error at that member (`expiresIn must be a whole number`). Types are decoded by their
/// own `Decodable` conformance: `Data`, `Date` and `URL` get none of `JSONDecoder`'s special cases.
public enum StrictJSONDecoder {
    /// `bytes` as a `T`.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let root = try StrictJSONReader.tree(bytes.assumingMemoryBound(to: UInt8.self))
        return try T(from: NodeDecoder(root, codingPath: []))
    }
}

/// A `Decoder` over one ``StrictJSONNode``; it is its own single-value container.
private struct NodeDecoder: Decoder, SingleValueDecodingContainer {
    let node: StrictJSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ node: StrictJSONNode, codingPath: [any CodingKey]) {
        self.node = node
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch node {
        case .object(let members): return KeyedDecodingContainer(ObjectContainer<Key>(members: members, codingPath: codingPath))
        case .null: throw DecodingError.valueNotFound([String: Any].self, context("an object is required, not null"))
        default: throw DecodingError.typeMismatch([String: Any].self, context("an object is required"))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch node {
        case .array(let items): return ArrayContainer(items: items, codingPath: codingPath)
        case .null: throw DecodingError.valueNotFound([Any].self, context("an array is required, not null"))
        default: throw DecodingError.typeMismatch([Any].self, context("an array is required"))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: The single value

    func decodeNil() -> Bool {
        if case .null = node { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        if case .bool(let flag) = node { return flag }
        throw mismatch(type)
    }

    func decode(_ type: String.Type) throws -> String {
        if case .string(let text) = node { return text }
        throw mismatch(type)
    }

    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: self) }

    /// A whole number exactly as written (`7`, `-12`), or written with a fraction or exponent that makes
    /// it one (`7.0`, `1e3`), when `T` holds it.
    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = node else { throw mismatch(type) }
        if let exact = T(text) { return exact }
        if let number = Double(text), number.rounded() == number, let whole = T(exactly: number) { return whole }
        let isWhole = !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        throw DecodingError.dataCorrupted(context(
            isWhole ? "must be a whole number from \(T.min) to \(T.max)" : "must be a whole number"))
    }

    private func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let text) = node else { throw mismatch(type) }
        guard let number = T(text), number.isFinite else {
            throw DecodingError.dataCorrupted(context("must be a number \(T.self) can hold"))
        }
        return number
    }

    private func mismatch(_ type: Any.Type) -> DecodingError {
        if case .null = node { return DecodingError.valueNotFound(type, context("a value is required, not null")) }
        return DecodingError.typeMismatch(type, context("a value of another kind was sent"))
    }

    private func context(_ description: String) -> DecodingError.Context {
        DecodingError.Context(codingPath: codingPath, debugDescription: description)
    }
}

/// The members of one object, by name.
private struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: StrictJSONNode]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func decoder(for key: Key) throws -> NodeDecoder {
        guard let node = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "the member is missing"))
        }
        return NodeDecoder(node, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).decodeNil() }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(for: key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder(for: key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(for: key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(for: key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(for: key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(for: key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(for: key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(for: key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try T(from: decoder(for: key)) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        NodeDecoder(members["super"] ?? .null, codingPath: codingPath + [ElementKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        NodeDecoder(members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

/// The items of one array, in order.
private struct ArrayContainer: UnkeyedDecodingContainer {
    let items: [StrictJSONNode]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(items: [StrictJSONNode], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// The next item's decoder; the index moves on only when `read` succeeds, as `JSONDecoder`'s does.
    private mutating func next<T>(_ type: T.Type, _ read: (NodeDecoder) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [ElementKey(index: currentIndex)], debugDescription: "the array has no more items"))
        }
        let value = try read(NodeDecoder(items[currentIndex], codingPath: codingPath + [ElementKey(index: currentIndex)]))
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, case .null = items[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: String.Type) throws -> String { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type) { try $0.decode(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type) { try $0.decode(type) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type) { try T(from: $0) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next(KeyedDecodingContainer<NestedKey>.self) { try $0.container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next((any UnkeyedDecodingContainer).self) { try $0.unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next((any Decoder).self) { $0 }
    }
}

/// An array index or a made-up name in a coding path.
private struct ElementKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) { self.init(index: intValue) }
}
