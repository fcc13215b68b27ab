import Foundation
import WebAuthn

/// The relying party the verification targets check against: every RP ID and origin the vectors in
/// `Tests/Vectors/vectors/` expect, so that each seed verifies to its last step and mutations start
/// deep in the ceremony rather than at the RP ID or origin check.
public enum FuzzRelyingParty {
    public static let rpIDs = [
        "localhost", "example.org", "example.com", "webauthn.io", "dev.dontneeda.pw", "dev2.dontneeda.pw",
        "demo.yubico.com", "duo.test", "simplewebauthn.dev", "try-webauthn.appspot.com",
        "webauthntest.azurewebsites.net", "6cc3c9e7967a.ngrok.io", "pwl.ngrok.io", "authress.io",
        "d2urpypvrhb05x.amplifyapp.com", "netpassport.io", "portal.fxon.com",
    ]

    public static let origins: Set<String> = [
        "http://localhost:5000", "http://localhost:8000", "https://localhost:44329", "https://localhost:8443",
        "https://example.org", "https://example.com", "https://webauthn.io", "https://dev.dontneeda.pw",
        "https://dev2.dontneeda.pw:5000", "https://demo.yubico.com", "https://api-duo1.duo.test",
        "https://webauthntest.azurewebsites.net", "https://6cc3c9e7967a.ngrok.io",
        "https://devicemanagement-duo1.pwl.ngrok.io", "https://login.authress.io",
        "https://dev.d2urpypvrhb05x.amplifyapp.com", "https://dev.netpassport.io", "https://portal.fxon.com",
        "android:apk-key-hash:gx7sq_pxhxhrIQdLyfG0pxKwiJ7hOk2DJQ4xvKd438Q",
    ]

    /// The top origin the W3C cross-origin vectors name.
    public static let topOrigins: Set<String> = ["https://example.com"]

    /// The relying party with the policies an input's settings choose.
    public static func make(
        allowCrossOrigin: Bool, strictTokenBinding: Bool, userPresenceOptional: Bool,
        signCount: SignCountPolicy = .refuseRegression, backupEligibilityChanges: BackupEligibilityChanges = .accepted
    ) -> RelyingParty {
        RelyingParty(
            id: rpIDs[0], name: "Fuzz RP", origins: origins, additionalRPIDs: Array(rpIDs.dropFirst()),
            crossOrigin: allowCrossOrigin ? .allow(topOrigins: topOrigins) : .forbid,
            userPresence: userPresenceOptional ? .optionalUnlessVerificationRequired : .required,
            signCount: signCount, backupEligibilityChanges: backupEligibilityChanges,
            tokenBinding: strictTokenBinding ? .strict : .lenient,
            algorithms: COSEAlgorithm.verifiable + [.rs1])
    }

    /// The challenge a server would look up for `clientDataJSON`: the one it names, so a mutated
    /// challenge is not refused before the interesting checks; a fixed one when it names none.
    public static func challenge(in clientDataJSON: [UInt8]) -> [UInt8] {
        (try? CollectedClientData(clientDataJSON)).flatMap { Base64URL.decode($0.challenge) } ?? Array("fuzz".utf8)
    }

    /// The folder of the vectors' trust anchors: `LATCHKEY_FUZZ_ROOTS`, else `Tests/Vectors/roots/`
    /// of the checkout this file belongs to.
    public static var rootsDirectory: String {
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_FUZZ_ROOTS"] { return path }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/Vectors/roots").path
    }

    /// Every trust anchor of the vectors, for every format; exits when the folder holds none.
    public static func loadAnchors() -> TrustAnchors {
        let anchors = (try? TrustAnchors.load(directories: [rootsDirectory])) ?? .empty
        guard anchors.count > 0 else {
            FileHandle.standardError.write(Data("fuzz: no trust anchors in \(rootsDirectory) (set LATCHKEY_FUZZ_ROOTS)\n".utf8))
            exit(2)
        }
        return anchors
    }
}
