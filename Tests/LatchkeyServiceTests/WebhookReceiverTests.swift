import Testing

@testable import LatchkeyService

/// A receiver URL's credentials go in an `Authorization` header, not the request line, and never
/// into the name its deliveries are stored under.
struct WebhookReceiverTests {
    @Test(arguments: [
        // URL, name, request URL, authorization (base64 of the decoded `user:password`).
        ("https://hooks.example/latchkey", "https://hooks.example/latchkey", "https://hooks.example/latchkey", nil),
        ("https://latchkey:hunter2@hooks.example/latchkey", "https://latchkey:<redacted>@hooks.example/latchkey",
         "https://hooks.example/latchkey", "Basic bGF0Y2hrZXk6aHVudGVyMg=="),
        // Percent-encoded user information is sent decoded: `l@tch:p:ss/word`.
        ("https://l%40tch:p%3Ass%2Fword@hooks.example:8443/a?b=c", "https://l%40tch:<redacted>@hooks.example:8443/a?b=c",
         "https://hooks.example:8443/a?b=c", "Basic bEB0Y2g6cDpzcy93b3Jk"),
        // A user without a password is sent as one with an empty password, and is not hidden.
        ("https://token@hooks.example/", "https://token@hooks.example/", "https://hooks.example/", "Basic dG9rZW46"),
        // A password in the query is the receiver's to read: it stays in the request, hidden in the name.
        ("https://hooks.example/in?password=hunter2", "https://hooks.example/in?password=<redacted>",
         "https://hooks.example/in?password=hunter2", nil),
    ] as [(String, String, String, String?)])
    func credentialsBecomeAnAuthorizationHeader(url: String, name: String, requestURL: String, authorization: String?) {
        let receiver = WebhookReceiver(url: url)
        #expect(receiver.name == name && receiver.requestURL == requestURL && receiver.authorization == authorization)
        #expect(WebhookReceiver(url: name).name == name, "a name is its own name, as the dispatcher relies on")
    }

    @Test func aNewPasswordKeepsTheName() {
        #expect(WebhookReceiver(url: "https://u:old@hooks.example/").name == WebhookReceiver(url: "https://u:new@hooks.example/").name)
    }
}
