import Hummingbird
import LatchkeyStore
import WebAuthn

/// The parts of a `PublicKeyCredential` JSON body both result endpoints share (WebAuthn §5.1,
/// `toJSON()`, and the conformance API's ServerPublicKeyCredential).
struct CredentialJSON {
    let id: [UInt8]
    let response: RequestJSON
    let clientDataJSON: [UInt8]
    /// `clientExtensionResults`, or the conformance API's `getClientExtensionResults`.
    let clientExtensionResults: RequestJSON?

    /// Reads the request body and parses it as a credential.
    static func read(_ request: Request) async throws -> CredentialJSON {
        try await CredentialJSON(RequestJSON.read(request))
    }

    init(_ body: RequestJSON) throws {
        id = try body.requiredBytes("id")
        if let rawId = try body.optionalBytes("rawId"), rawId != id {
            throw APIError.badRequest("rawId does not match id")
        }
        let type = try body.requiredString("type")
        guard type == "public-key" else {
            throw APIError.badRequest("type is \"\(type)\"; expected \"public-key\"")
        }
        response = try body.requiredObject("response")
        clientDataJSON = try response.requiredBytes("clientDataJSON")
        clientExtensionResults = try body.optionalObject("clientExtensionResults") ?? body.optionalObject("getClientExtensionResults")
    }
}

extension CredentialRecord {
    /// A `PublicKeyCredentialDescriptor` for allow and exclude lists.
    var descriptor: JSONValue {
        var members: [String: JSONValue] = ["type": .string("public-key"), "id": .string(Base64URL.encode(id))]
        if !transports.isEmpty { members["transports"] = .array(transports.map(JSONValue.string)) }
        return .object(members)
    }
}
