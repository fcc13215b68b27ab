import Foundation

/// `POST /admin/v1/users` body.
package struct CreateUserRequest: Decodable, Sendable {
    package var username: String
    package var displayName: String?
    package var externalId: String?
}

/// `PATCH /admin/v1/users/{username}` body: the members present change; `"externalId": null` removes it.
package struct UpdateUserRequest: Decodable, Sendable {
    package var username: String?
    package var displayName: String?
    /// nil: unchanged; `.some(nil)`: removed.
    package var externalId: String??
    /// `true` disables the account (no sign-in, session or new key), `false` enables it again.
    package var disabled: Bool?

    package enum CodingKeys: String, CodingKey { case username, displayName, externalId, disabled }

    /// A change of the members given.
    package init(username: String? = nil, displayName: String? = nil, externalId: String?? = nil, disabled: Bool? = nil) {
        (self.username, self.displayName, self.externalId, self.disabled) = (username, displayName, externalId, disabled)
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        username = try container.decodeIfPresent(String.self, forKey: .username)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled)
        if container.contains(.externalId) {
            externalId = .some(try container.decodeNil(forKey: .externalId) ? nil : container.decode(String.self, forKey: .externalId))
        }
    }
}

/// `PUT /admin/v1/users/{username}/groups` body: the user's groups from now on (`[]`: none).
package struct UserGroupsRequest: Decodable, Sendable {
    package var groups: [String]
}

/// `PUT /admin/v1/users/{username}/contact` body: an email address or an E.164 phone number, or null to remove it. The
/// member is required, so an empty body removes nothing.
package struct UserContactRequest: Decodable, Sendable {
    package var contact: String?

    enum CodingKeys: String, CodingKey { case contact }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.contact) else {
            throw DecodingError.keyNotFound(
                CodingKeys.contact, .init(codingPath: [], debugDescription: "contact is missing: send a contact, or null to remove it"))
        }
        contact = try container.decodeNil(forKey: .contact) ? nil : container.decode(String.self, forKey: .contact)
    }
}
