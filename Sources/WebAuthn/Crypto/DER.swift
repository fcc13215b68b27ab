/// A minimal DER (X.690) reader for the few ASN.1 structures attestation formats carry inside
/// certificate extensions (Android key description, Apple nonce). It checks every length against
/// the bytes that remain and accepts definite lengths only.
public struct DERReader: Sendable {
    /// One TLV element.
    public struct Element: Sendable {
        /// The identifier octet: class, constructed bit and tag number (low-tag-number form).
        public let tag: UInt8
        /// High tag numbers (form 0x1F) are decoded here; otherwise equal to `tag & 0x1F`.
        public let tagNumber: UInt
        public let content: [UInt8]

        public var isConstructed: Bool { tag & 0x20 != 0 }
        /// 0 universal, 1 application, 2 context-specific, 3 private.
        public var tagClass: UInt8 { tag >> 6 }

        /// The elements inside a constructed element.
        public func children() throws -> [Element] {
            var reader = DERReader(content)
            var items: [Element] = []
            while !reader.isAtEnd { items.append(try reader.read()) }
            return items
        }

        /// The value of an INTEGER (or ENUMERATED) that fits in Int64.
        public func integer() throws -> Int64 {
            guard tag == 0x02 || tag == 0x0A, !content.isEmpty, content.count <= 8 else {
                throw WebAuthnError(.invalidCertificate, "DER element is not an INTEGER that fits in 64 bits")
            }
            var value: Int64 = content[0] & 0x80 != 0 ? -1 : 0
            for byte in content { value = value << 8 | Int64(byte) }
            return value
        }
    }

    private let bytes: [UInt8]
    private var offset = 0

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func read() throws -> Element {
        func fail(_ what: String) -> WebAuthnError { WebAuthnError(.invalidCertificate, "malformed DER: \(what)") }
        guard offset < bytes.count else { throw fail("element expected at the end of input") }
        let tag = bytes[offset]
        offset += 1
        var tagNumber = UInt(tag & 0x1F)
        if tagNumber == 0x1F {
            tagNumber = 0
            var more = true
            var count = 0
            while more {
                guard offset < bytes.count, count < 4 else { throw fail("tag number too long") }
                let byte = bytes[offset]
                offset += 1
                count += 1
                tagNumber = tagNumber << 7 | UInt(byte & 0x7F)
                more = byte & 0x80 != 0
            }
        }
        guard offset < bytes.count else { throw fail("length missing") }
        var length = Int(bytes[offset])
        offset += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 4, offset + count <= bytes.count else { throw fail("unsupported length form") }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[offset])
                offset += 1
            }
        }
        guard length <= bytes.count - offset else { throw fail("length \(length) runs past the input") }
        let content = Array(bytes[offset..<offset + length])
        offset += length
        return Element(tag: tag, tagNumber: tagNumber, content: content)
    }
}
