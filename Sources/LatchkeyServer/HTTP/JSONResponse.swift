import Foundation
import Hummingbird
import NIOCore
import WebAuthn

/// Builds the JSON replies of the API from wire models: `application/json`, never cached.
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    /// One encoder for every reply: JSONEncoder is thread-safe to share once configured.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }()

    /// `value` encoded as the body of a reply with `status`.
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: body(value)))
    }

    /// `value` encoded as a reply body, for replies written below the router too.
    static func body(_ value: some Encodable) -> ByteBuffer {
        // The hot replies write their own JSON; the cast is decided per reply type, not per byte.
        if let text = value as? any JSONTextEncodable {
            var json = JSONText()
            text.write(to: &json)
            return ByteBuffer(bytes: json.bytes)
        }
        let data = (try? encoder.encode(value)) ?? Data(#"{"status":"failed","errorMessage":"response encoding failed"}"#.utf8)
        return ByteBuffer(bytes: data)
    }

    /// `{"status":"ok","errorMessage":""}`.
    static func ok() -> Response { make(OKReply()) }

    /// `{"status":"failed","errorMessage":message}`.
    static func failed(_ message: String, status: HTTPResponse.Status) -> Response {
        make(FailureReply(errorMessage: message), status: status)
    }
}
