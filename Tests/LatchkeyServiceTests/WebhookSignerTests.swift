import Foundation
import Testing

@testable import LatchkeyService

/// Webhook signatures as the Standard Webhooks specification defines them, checked against the
/// value its reference library (`standardwebhooks` on PyPI) computes for the same inputs.
struct WebhookSignerTests {
    @Test func signsAsTheStandardWebhooksReferenceDoes() throws {
        let signer = try WebhookSigner(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signature = try signer.signature(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Array(#"{"test": 2432232314}"#.utf8))
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        // Any other id, time or body signs differently.
        #expect(try signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_331, body: Array(#"{"test": 2432232314}"#.utf8)) != signature)
    }

    /// While a secret is rotated out, a signature under each: the current one first.
    @Test func signsWithThePreviousSecretToo() throws {
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let current = try WebhookSigner(secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString())
        let previous = try WebhookSigner(secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let both = try WebhookSigner(secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString(), previous: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signatures = [current, previous].map { try? $0.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body) }
        #expect(try both.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body)
            == signatures.compactMap { $0 }.joined(separator: " "))
        #expect(signatures[1] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test(arguments: [
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_"),
        ("whsec_not base64!", "base64"),
        ("whsec_c2hvcnQ=", "24 to 64 bytes"),
    ])
    func refusesSecretsNotInTheStandardForm(secret: String, problem: String) {
        #expect {
            try WebhookSigner(secret: secret)
        } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test func backoffDoublesFromFiveSecondsToAnHourWithJitter() {
        for (attempts, base) in [(1, 5.0), (2, 10.0), (5, 80.0), (20, 3_600.0)] {
            let delay = WebhookDispatcher.backoff(afterAttempts: attempts)
            #expect(delay >= base * 0.8 && delay <= base * 1.2, "after \(attempts) failures")
        }
    }
}
