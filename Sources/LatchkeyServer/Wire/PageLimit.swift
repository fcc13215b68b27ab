import LatchkeyService

/// The `limit` of a paged list (security events, webhook deliveries, users).
enum PageLimit {
    /// The most a page holds.
    static let maximum = 200

    /// `limit` from the query: a whole number from 1 to ``maximum``; `defaultLimit` when absent or empty.
    static func parse(_ parameters: Parameters, default defaultLimit: Int) throws(APIError) -> Int {
        guard let text = parameters.get("limit"), !text.isEmpty else { return defaultLimit }
        guard let limit = Int(text), (1...maximum).contains(limit) else {
            throw APIError.badRequest("limit is a whole number from 1 to \(maximum)")
        }
        return limit
    }
}
