import Foundation
import WebAuthn

/// Reads a JSON document a request sent (its body, or JSON it carries, such as App Attest client data) as one
/// object of an input type: strictly first (``StrictJSON``), so that nothing a more lenient reader would take
/// is read otherwise here than by a proxy in front, then decoded, every failure a ``ServiceError`` naming the
/// member and what was wrong.
package enum StrictJSONDocument {
    /// `bytes` as a `T`; `document` names them in the messages (`request body`).
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, document: String = "request body") throws -> T {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw ServiceError.invalid("\(document) is empty; a JSON object is required")
        }
        do {
            try checkStrictly(bytes, document: document)
            // Decoded in place: no copy of the bytes.
            return try JSONDecoder().decode(
                type, from: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // The strict reading found JSON; Foundation reports a number its member cannot hold (30.5 for a whole
            // number, one past Int64) as "not valid JSON", naming no member.
            throw ServiceError.invalid(
                "\(document) is JSON, but a number in it does not fit its member: a fraction or an out-of-range value where a whole number belongs")
        } catch let error as DecodingError {
            throw ServiceError.invalid(JSONDecodingProblem.message(for: error, document: document))
        }
    }

    /// `bytes` as a `T`, as ``decode(_:from:document:)-(_,UnsafeRawBufferPointer,_)`` reads them.
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], document: String) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0, document: document) }
    }

    /// What a more lenient decoder would take (a member sent twice, a byte order mark, a bad escape) is refused
    /// before it is decoded.
    private static func checkStrictly(_ bytes: UnsafeRawBufferPointer, document: String) throws(ServiceError) {
        do throws(StrictJSONProblem) {
            try StrictJSON.check(bytes)
        } catch {
            switch error {
            case .notJSON:
                throw ServiceError.invalid("\(document) is not valid JSON")
            case .repeatedMember(let name):
                throw ServiceError.invalid("\(document) has the member \(name.debugDescription) more than once in one object")
            case .tooDeep(let depth):
                throw ServiceError.invalid("\(document) nests arrays and objects more than \(depth) deep")
            }
        }
    }
}
