import Foundation
import Hummingbird
import WebAuthn

/// A JSON request body with typed accessors whose errors name the member and what was wrong.
struct RequestJSON {
    /// The largest body the API reads.
    static let maximumBodySize = 256 * 1024

    let members: [String: JSONValue]
    /// The dotted path of this object inside the body, for messages (`response.`).
    let path: String

    init(members: [String: JSONValue], path: String = "") {
        self.members = members
        self.path = path
    }

    /// Reads and parses the request body, which must be one JSON object sent as `application/json`
    /// (a type no cross-site HTML form can send).
    static func read(_ request: Request) async throws -> RequestJSON {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" else {
            throw APIError(.unsupportedMediaType, "Content-Type must be application/json, not \((request.headers[.contentType] ?? "none").debugDescription)")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodySize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw APIError(.contentTooLarge, "request body is larger than \(maximumBodySize / 1024) KiB")
        } catch {
            throw APIError.badRequest("request body could not be read completely")
        }
        guard buffer.readableBytes > 0 else {
            throw APIError.badRequest("request body is empty; a JSON object is required")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError.badRequest("request body is not valid JSON")
        }
        guard case .object(let members) = value else {
            throw APIError.badRequest("request body is \(value.kindName), not a JSON object")
        }
        return RequestJSON(members: members)
    }

    private func name(_ key: String) -> String { path + key }

    /// A member that may be absent or null, but must be a string when present.
    func optionalString(_ key: String) throws -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw APIError.badRequest("\(name(key)) is \(other.kindName), not a string")
        }
    }

    func requiredString(_ key: String) throws -> String {
        guard let text = try optionalString(key) else {
            throw APIError.badRequest("\(name(key)) is missing")
        }
        guard !text.isEmpty else { throw APIError.badRequest("\(name(key)) is empty") }
        return text
    }

    /// A required, non-empty base64url member, decoded.
    func requiredBytes(_ key: String) throws -> [UInt8] {
        let text = try requiredString(key)
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw APIError.badRequest("\(name(key)) is not base64url")
        }
        return bytes
    }

    /// An optional base64url member; an empty string counts as absent.
    func optionalBytes(_ key: String) throws -> [UInt8]? {
        guard let text = try optionalString(key), !text.isEmpty else { return nil }
        guard let bytes = Base64URL.decode(text) else {
            throw APIError.badRequest("\(name(key)) is not base64url")
        }
        return bytes
    }

    func optionalObject(_ key: String) throws -> RequestJSON? {
        switch members[key] {
        case nil, .null?: return nil
        case .object(let nested)?: return RequestJSON(members: nested, path: name(key) + ".")
        case let other?: throw APIError.badRequest("\(name(key)) is \(other.kindName), not an object")
        }
    }

    func requiredObject(_ key: String) throws -> RequestJSON {
        guard let object = try optionalObject(key) else { throw APIError.badRequest("\(name(key)) is missing") }
        return object
    }

    func optionalStringArray(_ key: String) throws -> [String]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            let strings = items.compactMap(\.stringValue)
            guard strings.count == items.count else { throw APIError.badRequest("\(name(key)) must hold only strings") }
            return strings
        case let other?: throw APIError.badRequest("\(name(key)) is \(other.kindName), not an array")
        }
    }

    /// A member that must be one of `UserVerificationRequirement`'s values when present.
    func optionalUserVerification(_ key: String) throws -> UserVerificationRequirement? {
        guard let text = try optionalString(key) else { return nil }
        guard let requirement = UserVerificationRequirement(rawValue: text) else {
            throw APIError.badRequest("\(name(key)) \"\(text)\" is not required, preferred or discouraged")
        }
        return requirement
    }

    /// The member as it was sent, for echoing.
    func raw(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }
}
