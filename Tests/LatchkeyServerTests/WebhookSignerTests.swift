import Foundation
import Testing

@testable import LatchkeyServer

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
