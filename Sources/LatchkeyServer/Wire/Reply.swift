import LatchkeyJSON
import WebAuthn

/// The envelope of a successful reply: `{"status":"ok","errorMessage":"", ...the body's members}`, as the
/// conformance API has every reply.
struct Reply<Body: Encodable & Sendable>: Encodable, Sendable {
    let body: Body

    init(_ body: Body) {
        self.body = body
    }

    private enum Envelope: String, CodingKey {
        case status
        case errorMessage
    }

    func encode(to encoder: any Encoder) throws {
        var envelope = encoder.container(keyedBy: Envelope.self)
        try envelope.encode("ok", forKey: .status)
        try envelope.encode("", forKey: .errorMessage)
        // The body's members follow in the same object.
        try body.encode(to: encoder)
    }
}

/// The members of a successful reply, which ``JSONResponse`` sends inside the ``Reply`` envelope.
protocol ReplyBody: Encodable, Sendable {}

/// A reply body whose members are written by hand (the ceremonies' hot replies), into the object its envelope opened.
protocol JSONTextMembers: Encodable {
    func writeMembers(to json: inout JSONText)
}

extension Reply: JSONTextEncodable where Body: JSONTextMembers {
    func write(to json: inout JSONText) {
        json.object { json in
            json.member("status", "ok")
            json.member("errorMessage", "")
            body.writeMembers(to: &json)
        }
    }
}
