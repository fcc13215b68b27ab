import Foundation
import Hummingbird
import WebAuthn

/// Builds the JSON replies of the API: every one carries `status` and `errorMessage`.
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    /// `{"status":"ok","errorMessage":""}` merged with `members`.
    static func ok(_ members: [String: JSONValue] = [:], status: HTTPResponse.Status = .ok) -> Response {
        var body = members
        body["status"] = .string("ok")
        body["errorMessage"] = .string("")
        return make(.object(body), status: status)
    }

    /// `{"status":"failed","errorMessage":message}`.
    static func failed(_ message: String, status: HTTPResponse.Status) -> Response {
        make(.object(["status": .string("failed"), "errorMessage": .string(message)]), status: status)
    }

    static func make(_ value: JSONValue, status: HTTPResponse.Status) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data(#"{"status":"failed","errorMessage":"response encoding failed"}"#.utf8)
        return Response(
            status: status,
            headers: [.contentType: contentType, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
