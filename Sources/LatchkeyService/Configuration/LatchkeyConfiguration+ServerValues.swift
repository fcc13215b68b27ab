import LatchkeyConfiguration
import LatchkeyStore
import WebAuthn

/// What the settings mean for the verification core and the listeners. Every value here was checked when the
/// configuration was loaded, so nothing is refused again.
extension LatchkeyConfiguration {
    /// The relying party the verification core works with: client data may carry a configured origin,
    /// an Android app's origin or a related origin, each matched exactly.
    public var relyingParty: RelyingParty {
        RelyingParty(
            id: rpID.value, name: rpName, origins: Set(origins + androidApps.map(\.origin) + relatedOrigins),
            crossOrigin: allowCrossOrigin ? .allow(topOrigins: Set(topOrigins)) : .forbid,
            userPresence: conformanceMode ? .optionalUnlessVerificationRequired : .required,
            backupEligibilityChanges: backupEligibilityChanges,
            syncedCredentials: syncedPasskeys,
            tokenBinding: conformanceMode ? .strict : .lenient,
            algorithms: COSEAlgorithm.verifiable + (allowSHA1 ? [.rs1] : []))
    }

    /// The attestation policy as a value.
    public var attestation: AttestationPolicy {
        AttestationPolicy(
            mode: attestationPolicy,
            allowedAAGUIDs: allowedAAGUIDs.isEmpty ? nil : Set(allowedAAGUIDs.map(\.bytes)),
            deniedAAGUIDs: Set(deniedAAGUIDs.map(\.bytes)),
            allowSHA1: allowSHA1)
    }

    /// The App Attest environments whose keys are accepted.
    package var appAttestEnvironments: Set<AppAttestEnvironment> {
        switch appAttestEnvironment {
        case .production: [.production]
        case .development: [.development]
        case .both: [.production, .development]
        }
    }

    /// The webhook receivers, from ``webhookURLs``.
    package var webhookReceivers: [WebhookReceiver] { webhookURLs.map(WebhookReceiver.init(url:)) }

    /// The outbox every process that writes events writes deliveries to: one per receiver, by its name.
    public var webhookOutbox: WebhookOutbox { WebhookOutbox(receivers: webhookReceivers.map(\.name)) }

    /// Cookies get the Secure attribute, and replies Strict-Transport-Security, when the relying party is served over HTTPS.
    package var usesHTTPS: Bool { origins.contains { $0.hasPrefix("https://") } }
}
