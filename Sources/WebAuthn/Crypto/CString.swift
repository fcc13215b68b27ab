extension String {
    /// The text of a NUL-terminated C buffer filled by OpenSSL, up to the first NUL.
    init(cStringBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
