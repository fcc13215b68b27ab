/// The strict reading of request bodies: JSON readers disagree on text RFC 8259 leaves open or
/// forbids (a member name twice, a byte order mark, invalid UTF-8, bad escapes, trailing commas), and
/// a lenient one would read a body a proxy or log pipeline in front reads differently. Checked before
/// any decoder reads the body.
public enum StrictJSON {
    /// Throws unless `bytes` are one JSON text, in UTF-8 without a byte order mark, whose objects each
    /// name a member once and which nests at most 32 deep.
    public static func check(_ bytes: UnsafeRawBufferPointer) throws(StrictJSONProblem) {
        try StrictJSONReader.check(bytes.assumingMemoryBound(to: UInt8.self))
    }
}

/// Why ``StrictJSON`` refuses a text.
public enum StrictJSONProblem: Error, Equatable, Sendable {
    /// It is not one JSON text in UTF-8.
    case notJSON
    /// An object has a member of this name twice.
    case repeatedMember(String)
    /// Arrays and objects are nested deeper than this.
    case tooDeep(Int)
}
