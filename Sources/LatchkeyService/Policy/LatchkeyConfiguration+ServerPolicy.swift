import Foundation
import LatchkeyConfiguration

extension LatchkeyConfiguration {
    /// The service's policy: ``ServerPolicy/conformance`` in conformance mode, else
    /// ``ServerPolicy/standard`` with the configured ceremony minimums and registration mode.
    public var serverPolicy: ServerPolicy {
        guard !conformanceMode else { return .conformance }
        var policy = ServerPolicy.standard
        policy.ceremonies = CeremonyPolicy(userVerification: userVerification, residentKey: residentKey)
        policy.newUsernameRegistration = registration == .tickets ? .ticketRequired : .open
        policy.addingKeysNeedsSignInWithin = reauthenticateAfter == 0 ? nil : TimeInterval(reauthenticateAfter)
        return policy
    }
}
