import LatchkeyJSON
import WebAuthn

/// Reads a JSON document a request sent (its body, or JSON it carries, such as App Attest client data) as one
/// object of an input type, in one pass (``StrictJSONDecoder``): nothing a more lenient reader would take is
/// read otherwise here than by a proxy in front, and every failure is a ``ServiceError`` naming the member and
/// what was wrong.
package enum StrictJSONDocument {
    /// `bytes` as a `T`; `document` names them in the messages (`request body`).
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, document: String = "request body") throws -> T {
        guard bytes.count > 0 else {
            throw ServiceError.invalid("\(document) is empty; a JSON object is required")
        }
        do {
            return try StrictJSONDecoder.decode(type, from: bytes)
        } catch let problem as StrictJSONProblem {
            throw refusal(problem, document: document)
        } catch let error as DecodingError {
            throw ServiceError.invalid(JSONDecodingProblem.message(for: error, document: document))
        }
    }

    /// `bytes` as a `T`, as ``decode(_:from:document:)-(_,UnsafeRawBufferPointer,_)`` reads them.
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], document: String) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0, document: document) }
    }

    /// What a more lenient decoder would take (a member sent twice, a byte order mark, a bad escape), in words.
    private static func refusal(_ problem: StrictJSONProblem, document: String) -> ServiceError {
        switch problem {
        case .notJSON:
            ServiceError.invalid("\(document) is not valid JSON")
        case .repeatedMember(let name):
            ServiceError.invalid("\(document) has the member \(name.debugDescription) more than once in one object")
        case .tooDeep(let depth):
            ServiceError.invalid("\(document) nests arrays and objects more than \(depth) deep")
        }
    }
}
