extension AAGUID {
    /// An optional AAGUID member of a metadata object, in its dashed text form.
    static func decodeIfPresent<Key: CodingKey>(from container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> [UInt8]? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let bytes = AAGUID.bytes(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\"\(text)\" is not an AAGUID")
        }
        return bytes
    }
}
