import LatchkeyJSON

/// Parsed `clientDataJSON` (WebAuthn §5.8.1). Unknown members are ignored; read members may appear once.
public struct CollectedClientData: Sendable {
    /// `webauthn.create` or `webauthn.get`.
    public enum CeremonyType: String, Sendable {
        case create = "webauthn.create"
        case get = "webauthn.get"
    }

    /// The raw bytes; their SHA-256 is the `clientDataHash` signatures cover.
    public let bytes: [UInt8]
    public let type: String
    /// The challenge exactly as the client wrote it (base64url).
    public let challenge: String
    /// ``challenge`` decoded, once; nil when it is not base64url (a check then refuses it).
    public let challengeBytes: [UInt8]?
    public let origin: String
    public let crossOrigin: Bool
    public let topOrigin: String?
    /// `tokenBinding.status` when present.
    public let tokenBindingStatus: String?
    /// True when `tokenBinding` is present but is not an object (old Edge wrote a string).
    public let tokenBindingIsMalformed: Bool

    public init(_ bytes: [UInt8]) throws {
        self.bytes = bytes
        guard !bytes.isEmpty else {
            throw WebAuthnError(.malformedClientData, "clientDataJSON is empty")
        }
        let object = try Self.members(of: bytes)

        func string(_ name: String) throws -> String {
            guard let member = object[name] else {
                throw WebAuthnError(.malformedClientData, "clientDataJSON.\(name) is missing")
            }
            guard case .string(let text) = member else {
                throw WebAuthnError(.malformedClientData, "clientDataJSON.\(name) is \(member.kindName), not a string")
            }
            guard !text.isEmpty else {
                throw WebAuthnError(.malformedClientData, "clientDataJSON.\(name) is empty")
            }
            return text
        }
        type = try string("type")
        challenge = try string("challenge")
        challengeBytes = Base64URL.decode(challenge)
        origin = try string("origin")

        switch object["crossOrigin"] {
        case nil, .null?: crossOrigin = false
        case .bool(let flag)?: crossOrigin = flag
        case let other?: throw WebAuthnError(.malformedClientData, "clientDataJSON.crossOrigin is \(other.kindName), not a boolean")
        }
        switch object["topOrigin"] {
        case nil, .null?: topOrigin = nil
        case .string(let text)?: topOrigin = text
        case let other?: throw WebAuthnError(.malformedClientData, "clientDataJSON.topOrigin is \(other.kindName), not a string")
        }
        switch object["tokenBinding"] {
        case nil, .null?:
            tokenBindingStatus = nil
            tokenBindingIsMalformed = false
        case .object(let status)?:
            guard let status else {
                throw WebAuthnError(.invalidTokenBinding, "clientDataJSON.tokenBinding has no string status")
            }
            tokenBindingStatus = status
            tokenBindingIsMalformed = false
        default:
            // Some old clients (Edge 2018) wrote a string here; WebAuthn Level 3 reserves the member
            // and gives the relying party nothing to check; ``TokenBindingPolicy`` decides.
            tokenBindingStatus = nil
            tokenBindingIsMalformed = true
        }
    }

    /// The members this type reads; all others are checked and skipped.
    static let readMembers: Set<String> = ["type", "challenge", "origin", "crossOrigin", "topOrigin", "tokenBinding"]

    /// The object `bytes` hold, as far as ``readMembers`` go; throws ``WebAuthnError/Code/malformedClientData`` when
    /// they are not one strict JSON object.
    private static func members(of bytes: [UInt8]) throws -> [String: StrictJSONReader.Value] {
        do throws(StrictJSONReader.Failure) {
            return try StrictJSONReader.members(of: bytes, reading: readMembers)
        } catch {
            switch error {
            case .notJSON:
                throw WebAuthnError(.malformedClientData, "clientDataJSON is not valid JSON")
            case .notAnObject:
                throw WebAuthnError(.malformedClientData, "clientDataJSON is not a JSON object")
            case .duplicate(let name):
                throw WebAuthnError(.malformedClientData, "clientDataJSON has the member \"\(name)\" more than once")
            case .tooDeep:
                throw WebAuthnError(.malformedClientData, "clientDataJSON nests arrays and objects more than \(StrictJSONReader.maximumDepth) deep")
            }
        }
    }
}
