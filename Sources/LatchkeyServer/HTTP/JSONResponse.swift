import Foundation
import HTTPTypes
import LatchkeyJSON
import LatchkeyService
import NIOCore
import NIOHTTP1
import WebAuthn

/// Builds the JSON replies of the API from wire models: `application/json`, never cached.
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    /// One encoder for every reply, keeping members in their declared order: the same value is the same bytes in
    /// every reply and every process (a webhook delivery sent again after a restart signs the same body).
    private static let encoder = OrderedJSONEncoder()

    /// `value` encoded as the body of a reply with `status`.
    static func make(_ value: some Encodable, status: HTTPResponseStatus = .ok) -> Response {
        Response(status: status, headers: headers, body: body(value))
    }

    /// The headers of every JSON reply.
    static let headers: HTTPHeaders = [HTTPField.Name.contentType.rawName: contentType, HTTPField.Name.cacheControl.rawName: "no-store"]

    /// `body` in the ``Reply`` envelope, as the reply with `status`.
    static func make(_ body: some ReplyBody, status: HTTPResponseStatus = .ok) -> Response {
        make(Reply(body), status: status)
    }

    /// `value` encoded as a reply body, for replies written below the router too.
    static func body(_ value: some Encodable) -> ByteBuffer {
        // The hot replies write their own JSON; the cast is decided per reply type, not per byte.
        if let text = value as? any JSONTextEncodable {
            var json = JSONText()
            text.write(to: &json)
            return ByteBuffer(bytes: json.bytes)
        }
        let bytes = (try? encoder.encode(value)) ?? Array(#"{"status":"failed","errorMessage":"response encoding failed"}"#.utf8)
        return ByteBuffer(bytes: bytes)
    }

    /// `{"status":"ok","errorMessage":""}`.
    static func ok() -> Response { make(OKReply()) }

    /// `{"status":"failed","errorMessage":message}`.
    static func failed(_ message: String, status: HTTPResponseStatus) -> Response {
        make(FailureReply(errorMessage: message), status: status)
    }
}
