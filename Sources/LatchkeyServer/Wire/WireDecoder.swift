import Foundation
import Hummingbird
import LatchkeyService
import NIOCore
import WebAuthn

/// Reads a request body as one JSON object of a wire model. The body must be sent as
/// `application/json` (a type no cross-site HTML form can send) and fit in
/// ``HTTPLimits/maximumBodyBytes``; every decoding failure becomes a 4xx ``APIError`` that names the
/// member and what was wrong.
public struct WireDecoder: RequestDecoder {
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        try Self.decode(type, from: try await Self.body(of: request))
    }

    /// The whole body of a JSON request, for a handler that needs its bytes as well as its members.
    static func body(of request: Request) async throws -> ByteBuffer {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" else {
            throw APIError(.unsupportedMediaType, "Content-Type must be application/json, not \((request.headers[.contentType] ?? "none").debugDescription)")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: HTTPLimits.maximumBodyBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            // The rest of the body is not worth reading: the connection closes after the reply.
            throw APIError(
                .contentTooLarge, "request body is larger than \(HTTPLimits.maximumBodyBytes / 1024) KiB", headers: [.connection: "close"])
        } catch {
            throw APIError.badRequest("request body could not be read completely")
        }
        return buffer
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
