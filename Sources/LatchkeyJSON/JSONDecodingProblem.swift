/// What a `DecodingError` says about a JSON document, in words that name the member:
/// `rp.id must be a string`, `user is missing`, `username must not be null`,
/// `excludeCredentials[0].id is not base64url`.
public enum JSONDecodingProblem {
    /// The message for `error`. `document` names the whole document in the messages about it
    /// (`request body is not valid JSON`); without it they read `not valid JSON`.
    public static func message(for error: DecodingError, document: String? = nil) -> String {
        let whole = document.map { $0 + " is " } ?? ""
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            // The member is there, as null (an absent one is keyNotFound).
            let member = path(context.codingPath)
            return member.isEmpty ? "\(whole)not a JSON object" : "\(member) must not be null"
        case .typeMismatch(let type, let context):
            let member = path(context.codingPath)
            return member.isEmpty ? "\(whole)not a JSON object" : "\(member) must be \(kindName(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "\(whole)not valid JSON" }
            return "\(path(context.codingPath)) \(context.debugDescription)"
        @unknown default:
            return document.map { "\($0) could not be decoded" } ?? "not readable"
        }
    }

    /// A coding path as JSON readers write it: `response.transports[0]`.
    public static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    private static func kindName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is any BinaryInteger.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is [Any].Type: "an array"
        default: "an object"
        }
    }
}
