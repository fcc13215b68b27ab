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

    /// Decodes `buffer` (a request body, or JSON a request carries, named by `document` in the messages) after
    /// reading it strictly, turning `DecodingError`s into messages that name the member.
    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer, document: String = "request body") throws -> T {
        guard buffer.readableBytes > 0 else {
            throw APIError.badRequest("\(document) is empty; a JSON object is required")
        }
        do {
            // The body is decoded in place: no copy of its bytes.
            return try buffer.withUnsafeReadableBytes { bytes in
                guard let base = bytes.baseAddress else { throw APIError.badRequest("\(document) is empty") }
                try checkStrictly(bytes, document: document)
                return try JSONDecoder().decode(
                    type, from: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
            }
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // The strict reading found JSON; Foundation reports a number its member cannot hold (30.5 for a whole
            // number, one past Int64) as "not valid JSON", naming no member.
            throw APIError.badRequest(
                "\(document) is JSON, but a number in it does not fit its member: a fraction or an out-of-range value where a whole number belongs")
        } catch let error as DecodingError {
            throw APIError.badRequest(JSONDecodingProblem.message(for: error, document: document))
        }
    }

    /// The JSON as ``StrictJSON`` reads it: what a more lenient decoder would take and a proxy in front might
    /// read otherwise (a member sent twice, a byte order mark, a bad escape) is refused before it is decoded.
    private static func checkStrictly(_ bytes: UnsafeRawBufferPointer, document: String) throws(APIError) {
        do throws(StrictJSONProblem) {
            try StrictJSON.check(bytes)
        } catch {
            switch error {
            case .notJSON:
                throw APIError.badRequest("\(document) is not valid JSON")
            case .repeatedMember(let name):
                throw APIError.badRequest("\(document) has the member \(name.debugDescription) more than once in one object")
            case .tooDeep(let depth):
                throw APIError.badRequest("\(document) nests arrays and objects more than \(depth) deep")
            }
        }
    }
}
