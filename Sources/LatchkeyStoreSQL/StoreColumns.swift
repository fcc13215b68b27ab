/// The columns of `users` and `credentials` in the order both backends' row readers expect, so a
/// migration that adds a column names it once. `prefix` is a table alias and a dot, or empty.
public enum StoreColumns {
    /// The six columns of `users`.
    public static func users(_ prefix: String = "") -> String {
        ["handle", "username", "display_name", "created_at", "external_id", "disabled"].map { prefix + $0 }.joined(separator: ", ")
    }

    /// The twenty columns of `credentials`.
    public static func credentials(_ prefix: String = "") -> String {
        [
            "id", "user_handle", "public_key", "algorithm", "sign_count", "transports", "aaguid",
            "attestation_format", "attestation_type", "backup_eligible", "backed_up", "resident_key",
            "user_verified", "created_at", "last_used_at", "attestation_trusted", "trust_path", "cred_protect",
            "sign_count_regressions", "name",
        ].map { prefix + $0 }.joined(separator: ", ")
    }
}

extension StoreColumns {
    /// The eleven columns of `pending_ceremonies`.
    public static func ceremonies(_ prefix: String = "") -> String {
        [
            "challenge_hash", "kind", "user_handle", "username", "display_name", "user_verification", "binding_hash",
            "expires_at", "enrollment_ticket_hash", "conditional", "nonce",
        ].map { prefix + $0 }.joined(separator: ", ")
    }
}

extension StoreColumns {
    /// The thirteen columns of `oauth_clients` (its tenant aside).
    public static func oauthClients(_ prefix: String = "") -> String {
        [
            "client_id", "name", "secret_hash", "redirect_uris", "post_logout_redirect_uris", "scopes", "consent",
            "access_token_lifetime", "refresh_token_lifetime", "created_at", "updated_at", "allowed_groups", "device_authorization",
        ].map { prefix + $0 }.joined(separator: ", ")
    }

    /// The twenty-one columns of `oauth_grants` (its tenant aside).
    public static func oauthGrants(_ prefix: String = "") -> String {
        [
            "id", "client_id", "user_handle", "scopes", "redirect_uri", "nonce", "code_challenge", "auth_time", "methods", "code_hash",
            "code_expires_at", "code_used_at", "access_hash", "access_expires_at", "refresh_hash", "refresh_expires_at", "revoked_at",
            "created_at", "expires_at", "revision", "spent_refresh_hashes",
        ].map { prefix + $0 }.joined(separator: ", ")
    }

    /// The eleven columns of `oauth_device_authorizations` (its tenant aside).
    public static func oauthDeviceAuthorizations(_ prefix: String = "") -> String {
        [
            "grant_id", "device_code_hash", "user_code_hash", "client_id", "scopes", "created_at", "expires_at", "interval", "polled_at",
            "decision", "user_handle",
        ].map { prefix + $0 }.joined(separator: ", ")
    }
}
