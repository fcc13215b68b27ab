import Foundation
import Testing
import WebAuthn
@testable import LatchkeyConfiguration

/// The keys behind the domain association files (Apple and Android apps, related origins, passkey
/// endpoints), the origins they add, and a configuration with several problems reporting them all.
extension ConfigurationTests {
    static let fingerprint = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
    static let fingerprintBytes = (0..<32).map { UInt8($0 * 7 % 256) }

    @Test(arguments: [
        // Apple app IDs: a 10-character upper-case team ID, then a bundle ID.
        (["LATCHKEY_APPLE_APP_IDS": "abcde12345.com.example.app"], #"appleAppIDs (LATCHKEY_APPLE_APP_IDS): "abcde12345.com.example.app": the team ID "abcde12345" is not 10 upper-case letters or digits"#),
        (["LATCHKEY_APPLE_APP_IDS": "ABCDE12345"], #"appleAppIDs (LATCHKEY_APPLE_APP_IDS): "ABCDE12345" is not TEAMID.bundle.id"#),
        (["LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com..app"], #"appleAppIDs (LATCHKEY_APPLE_APP_IDS): "ABCDE12345.com..app": the bundle ID "com..app" is not dot-separated parts of letters, digits and hyphens"#),
        (["LATCHKEY_APPLE_APP_LINKS": "ABCDE12345.com.example/app"], #"appleAppLinks (LATCHKEY_APPLE_APP_LINKS): "ABCDE12345.com.example/app": the bundle ID "com.example/app" is not dot-separated parts of letters, digits and hyphens"#),
        // Android apps: PACKAGE@FINGERPRINT.
        (["LATCHKEY_ANDROID_APPS": "com.example.app"], #"androidApps (LATCHKEY_ANDROID_APPS): "com.example.app" is not PACKAGE@SHA256_FINGERPRINT"#),
        (["LATCHKEY_ANDROID_APPS": "example@\(fingerprint)"], #"androidApps (LATCHKEY_ANDROID_APPS): "example@\#(fingerprint)": the package name "example" is not two or more dot-separated parts of letters, digits and _, each starting with a letter"#),
        (["LATCHKEY_ANDROID_APPS": "com.1example@\(fingerprint)"], #"androidApps (LATCHKEY_ANDROID_APPS): "com.1example@\#(fingerprint)": the package name "com.1example" is not two or more dot-separated parts of letters, digits and _, each starting with a letter"#),
        (["LATCHKEY_ANDROID_APPS": "com.example.app@\(fingerprint.dropLast(3))"], #"androidApps (LATCHKEY_ANDROID_APPS): "com.example.app@\#(fingerprint.dropLast(3))": the fingerprint "\#(fingerprint.dropLast(3))" is not 32 hex bytes separated by colons (the SHA-256 of the signing certificate)"#),
        (["LATCHKEY_ANDROID_APPS": "com.example.app@" + String(repeating: "GG:", count: 31) + "GG"], #"androidApps (LATCHKEY_ANDROID_APPS): "com.example.app@\#(String(repeating: "GG:", count: 31))GG": the fingerprint "\#(String(repeating: "GG:", count: 31))GG" is not 32 hex bytes separated by colons (the SHA-256 of the signing certificate)"#),
        // Origins: exact, https, the RP ID a registrable suffix of the host; Android hashes of 32 bytes.
        (["LATCHKEY_ORIGINS": "android:apk-key-hash:AAAA"], #"origins (LATCHKEY_ORIGINS): "android:apk-key-hash:AAAA" is not android:apk-key-hash: and a SHA-256 fingerprint (32 bytes) in base64url without padding"#),
        (["LATCHKEY_ORIGINS": "http://LOCALHOST:8080"], #"origins (LATCHKEY_ORIGINS): "http://LOCALHOST:8080" would never match: browsers send this origin as "http://localhost:8080""#),
        (["LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "https://example.com:443"], #"origins (LATCHKEY_ORIGINS): "https://example.com:443" would never match: browsers send this origin as "https://example.com""#),
        (["LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "https://notexample.com"], #"origins (LATCHKEY_ORIGINS): the host of "https://notexample.com" is not example.com or a subdomain of it, so passkeys for RP ID example.com cannot be used there"#),
        (["LATCHKEY_RP_ID": "com", "LATCHKEY_ORIGINS": "https://example.com"], #"rpID (LATCHKEY_RP_ID): "com" is not a valid RP ID: it is a single label (an RP ID is a domain such as example.com, or localhost)"#),
        // Related origins: other domains by design, but web origins over https.
        (["LATCHKEY_RELATED_ORIGINS": "http://example.co.uk"], #"relatedOrigins (LATCHKEY_RELATED_ORIGINS): "http://example.co.uk" must use https (plain http is only allowed for localhost)"#),
        (["LATCHKEY_RELATED_ORIGINS": "https://example.co.uk/login"], #"relatedOrigins (LATCHKEY_RELATED_ORIGINS): "https://example.co.uk/login" is not an origin like https://example.com[:port]"#),
        // CORS origins: web origins the relying party already accepts.
        (["LATCHKEY_CORS_ORIGINS": "https://shop.example"], #"corsOrigins (LATCHKEY_CORS_ORIGINS): "https://shop.example" is not one of origins or relatedOrigins"#),
        (["LATCHKEY_RELATED_ORIGINS": "https://shop.example", "LATCHKEY_CORS_ORIGINS": "https://shop.example/"], #"corsOrigins (LATCHKEY_CORS_ORIGINS): "https://shop.example/" is not an origin like https://example.com[:port]"#),
        // Passkey endpoints: absolute https URLs.
        (["LATCHKEY_PASSKEY_ENROLL_URL": "/account/passkeys"], #"passkeyEnrollURL (LATCHKEY_PASSKEY_ENROLL_URL): "/account/passkeys" is not an absolute URL like https://example.com/account/passkeys"#),
        (["LATCHKEY_PASSKEY_MANAGE_URL": "http://example.com/account"], #"passkeyManageURL (LATCHKEY_PASSKEY_MANAGE_URL): "http://example.com/account" must use https (plain http is only allowed for localhost)"#),
        (["LATCHKEY_PASSKEY_MANAGE_URL": "ftp://example.com/account"], #"passkeyManageURL (LATCHKEY_PASSKEY_MANAGE_URL): "ftp://example.com/account" is not an absolute URL like https://example.com/account/passkeys"#),
    ])
    func domainAssociationValuesAreChecked(environment: [String: String], message: String) {
        #expect(error(environment) == message)
    }

    @Test func goodDomainAssociationValuesAreAccepted() throws {
        let configuration = try load([
            "LATCHKEY_RP_ID": "example.com",
            "LATCHKEY_ORIGINS": "https://example.com,https://login.example.com:8443,android:apk-key-hash:" + Base64URL.encode(Self.fingerprintBytes),
            "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app,0123456789.com.example-2.App",
            "LATCHKEY_ANDROID_APPS": "com.example.app@\(Self.fingerprint),com.example.app@\(Self.fingerprint.lowercased()),com.example_2.a1@\(Self.fingerprint)",
            "LATCHKEY_RELATED_ORIGINS": "https://example.co.uk,https://example.de:8443,http://shop.localhost:3000",
            "LATCHKEY_PASSKEY_ENROLL_URL": "https://example.com/account/passkeys?add=1",
            "LATCHKEY_PASSKEY_MANAGE_URL": "http://localhost:8080/account",
        ])
        #expect(configuration.androidApps.count == 3)
        #expect(configuration.relatedOrigins.count == 3)
        #expect(configuration.passkeyEnrollURL == "https://example.com/account/passkeys?add=1")
    }

    @Test func androidAndRelatedOriginsAreAcceptedInClientData() throws {
        let configuration = try load([
            "LATCHKEY_ANDROID_APPS": "com.example.app@\(Self.fingerprint.lowercased())",
            "LATCHKEY_RELATED_ORIGINS": "https://example.co.uk",
        ])
        // The base64url of the 32 bytes, without padding (43 characters).
        let android = "android:apk-key-hash:" + Base64URL.encode(Self.fingerprintBytes)
        #expect(android.count == "android:apk-key-hash:".count + 43)
        #expect(configuration.relyingParty.origins == ["http://localhost:8080", android, "https://example.co.uk"])
        #expect(try load([:]).relyingParty.origins == ["http://localhost:8080"])
    }

    @Test func everyProblemIsListedNotOnlyTheFirst() {
        let message = error([
            "LATCHKEY_PORT": "0",
            "LATCHKEY_APPLE_APP_IDS": "abcde12345.com.example.app,ABCDE12345.com.example.app,team.app",
            "LATCHKEY_ANDROID_APPS": "com.example.app@00:11",
            "LATCHKEY_RELATED_ORIGINS": "http://example.co.uk",
            "LATCHKEY_PASSKEY_ENROLL_URL": "account/passkeys",
            "LATCHKEY_CONFORMANCE_MODE": "maybe",
        ])
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines.count == 7, "\(message)")
        // In the order of the keys, each naming its key and variable; good items are not reported.
        #expect(lines.map { String($0.prefix { $0 != " " }) }
            == ["port", "appleAppIDs", "appleAppIDs", "androidApps", "relatedOrigins", "passkeyEnrollURL", "conformanceMode"])
        #expect(lines.contains { $0.contains("(LATCHKEY_APPLE_APP_IDS)") && $0.contains("\"abcde12345.com.example.app\"") })
        #expect(lines.contains { $0.contains("(LATCHKEY_APPLE_APP_IDS)") && $0.contains("\"team.app\"") })
        #expect(!message.contains("\"ABCDE12345.com.example.app\""))
        #expect(lines.contains { $0.hasPrefix("conformanceMode (LATCHKEY_CONFORMANCE_MODE): \"maybe\"") })
    }

    @Test func everyProblemOfTheFileIsListedToo() throws {
        let file = try temporaryFile(#"{"prot": 1, "port": "80", "relatedOrigins": ["http://example.co.uk"], "rpID": "Example.com", "origins": ["https://example.org"]}"#)
        let lines = error(["LATCHKEY_CONFIG": file]).split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("\(file): unknown configuration key \"prot\"") })
        #expect(lines.contains("port (file \(file)): must be a whole number"))
        #expect(lines.contains { $0.hasPrefix("rpID (file \(file)): \"Example.com\"") })
        #expect(lines.contains { $0.hasPrefix("relatedOrigins (file \(file)): \"http://example.co.uk\" must use https") })
        // The origins are not also blamed for the RP ID that is wrong.
        #expect(!lines.contains { $0.hasPrefix("origins") })
    }
}
