import LatchkeyService
import NIOCore
import WebAuthn

/// Reads a request body as one JSON object of a wire model. The body must be sent as
/// `application/json` (a type no cross-site HTML form can send); the transport has collected it within
/// ``HTTPLimits/maximumBodyBytes``. Every decoding failure becomes a 4xx ``APIError`` that names the
/// member and what was wrong.
enum WireDecoder {
    /// The whole body of a JSON request, for a handler that needs its bytes as well as its members.
    static func body(of request: Request) throws(APIError) -> ByteBuffer {
        let mediaType = request.headers[.contentType]?.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
        guard let mediaType, mediaType.trimmingOptionalWhitespace.equalsIgnoringASCIICase("application/json") else {
            throw APIError(.unsupportedMediaType, "Content-Type must be application/json, not \((request.headers[.contentType] ?? "none").debugDescription)")
        }
        return request.body
    }

    /// Decodes `buffer` (a request body, or JSON a request carries, named by `document` in the messages) as
    /// ``StrictJSONDocument`` reads it, in place.
    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer, document: String = "request body") throws -> T {
        do {
            return try buffer.withUnsafeReadableBytes { bytes in try StrictJSONDocument.decode(type, from: bytes, document: document) }
        } catch let refusal as ServiceError {
            throw APIError(refusal)
        }
    }
}

extension Request {
    /// The body as the wire model `type` (``WireDecoder``).
    func decode<T: Decodable>(as type: T.Type) throws -> T {
        try WireDecoder.decode(type, from: try WireDecoder.body(of: self))
    }
}
