import Foundation

/// Encodes any `Encodable` value as JSON whose members stand in the order the type encodes them (a synthesised
/// `Codable` type: the order of its stored properties), and dictionaries' members in the order of their keys, so
/// that one value is the same bytes in every reply and in every process. Foundation's `JSONEncoder` orders members
/// by its own dictionaries' hashing, which differs between processes and between replies of one process: a webhook
/// sent again after a restart was other bytes under the same `webhook-id`.
///
/// Output is as ``JSONText`` writes it: `JSONEncoder` with `.withoutEscapingSlashes`, optionals left out when nil,
/// `Data` as base64, `URL` as its absolute string, other numbers than integers as `JSONEncoder` writes a `Double`.
public struct OrderedJSONEncoder: Sendable {
    public init() {}

    /// `value` as JSON text, UTF-8.
    public func encode(_ value: some Encodable) throws -> [UInt8] {
        let root = try JSONNode.encoding(value, codingPath: [])
        var json = JSONText()
        root.write(element: &json)
        return json.bytes
    }
}

/// What one encoded value became: filled in by the containers its `encode(to:)` asks for. An object's members and an
/// array's elements are appended in place (a node is a class), not copied at each one.
private final class JSONNode {
    enum Kind {
        case unset
        case string(String)
        /// A number, `true`, `false` or `null`, as written.
        case literal(String)
        case object
        case array
    }

    var kind: Kind = .unset
    /// An object's members, in the order they were encoded.
    var members: [(key: String, value: JSONNode)] = []
    /// An array's elements.
    var elements: [JSONNode] = []

    init(_ kind: Kind = .unset) {
        self.kind = kind
    }

    /// The node `value` encodes to; `Data`, `URL` and dictionaries as `JSONEncoder` treats them, but ordered.
    static func encoding(_ value: some Encodable, codingPath: [any CodingKey]) throws -> JSONNode {
        switch value {
        case let data as Data: return JSONNode(.string(data.base64EncodedString()))
        case let url as URL: return JSONNode(.string(url.absoluteString))
        default:
            let node = JSONNode()
            try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
            if value is any UnorderedStringKeys { node.members.sort { $0.key < $1.key } }
            return node
        }
    }

    /// A value that asked for no container encodes as an empty object, as with `JSONEncoder`.
    func write(element json: inout JSONText) {
        switch kind {
        case .unset: json.object { _ in }
        case .string(let text): json.element(text)
        case .literal(let text): json.element(literal: text)
        case .object:
            json.object { json in
                for (key, value) in members { value.write(member: key, &json) }
            }
        case .array: json.array(elements) { json, item in item.write(element: &json) }
        }
    }

    private func write(member key: String, _ json: inout JSONText) {
        switch kind {
        case .string(let text): json.member(key, text)
        case .literal(let text): json.member(key, literal: text)
        case .unset, .object, .array: json.member(key) { json in write(element: &json) }
        }
    }

    /// Becomes `other`: what a single-value container encoded.
    func become(_ other: JSONNode) {
        (kind, members, elements) = (other.kind, other.members, other.elements)
    }

    func setMember(_ key: String, _ node: JSONNode) {
        // A key encoded twice keeps its place and takes the later value, as `JSONEncoder` does.
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = node
        } else {
            members.append((key, node))
        }
    }

    static func number(_ value: Double) -> JSONNode {
        JSONNode(.literal(JSONValue.wholeNumber(value).map { String($0) } ?? JSONText.doubleText(value)))
    }
}

/// Dictionaries keyed by strings: their members are sorted, since a dictionary's own order is its hashing's.
private protocol UnorderedStringKeys {}
extension Dictionary: UnorderedStringKeys where Key == String {}

private struct NodeEncoder: Encoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.kind {} else { node.kind = .object }
        return KeyedEncodingContainer(KeyedNodeContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.kind {} else { node.kind = .array }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

/// Integers and the other scalars each container writes, in one place.
private enum Scalar {
    static func node(_ value: some Encodable, codingPath: [any CodingKey]) throws -> JSONNode {
        switch value {
        case let text as String: return JSONNode(.string(text))
        case let flag as Bool: return JSONNode(.literal(flag ? "true" : "false"))
        case let number as Double: return .number(number)
        case let number as Float: return .number(Double(number))
        case let number as any BinaryInteger: return JSONNode(.literal(String(describing: number)))
        default: return try JSONNode.encoding(value, codingPath: codingPath)
        }
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.setMember(key.stringValue, JSONNode(.literal("null"))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.setMember(key.stringValue, try Scalar.node(value, codingPath: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = JSONNode()
        node.setMember(key.stringValue, child)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = JSONNode()
        node.setMember(key.stringValue, child)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> any Encoder {
        let child = JSONNode()
        node.setMember(name, child)
        return NodeEncoder(node: child, codingPath: codingPath)
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    var count: Int { node.elements.count }

    mutating func encodeNil() throws { node.elements.append(JSONNode(.literal("null"))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.elements.append(try Scalar.node(value, codingPath: codingPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = JSONNode()
        node.elements.append(child)
        return NodeEncoder(node: child, codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = JSONNode()
        node.elements.append(child)
        return NodeEncoder(node: child, codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = JSONNode()
        node.elements.append(child)
        return NodeEncoder(node: child, codingPath: codingPath)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.kind = .literal("null") }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.become(try Scalar.node(value, codingPath: codingPath))
    }
}
