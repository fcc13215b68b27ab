import Foundation

/// Where attestation trust anchors come from: a folder of PEM files, metadata, or a test's own CA.
public protocol TrustAnchorSource: Sendable {
    /// The roots a statement of format `format` from authenticator model `aaguid` may chain to.
    func anchors(format: String, aaguid: [UInt8]) -> [X509Certificate]
}

/// A fixed set of trust anchors: some for every format, some for one format only (the Apple root
/// for `apple`, the Google hardware roots for `android-key`), so a vendor's root cannot vouch for
/// statements of another format.
public struct TrustAnchors: TrustAnchorSource {
    /// Anchors for statements of every format.
    public let certificates: [X509Certificate]
    /// Anchors for statements of one format, by `fmt`.
    public let certificatesByFormat: [String: [X509Certificate]]

    public init(_ certificates: [X509Certificate], byFormat: [String: [X509Certificate]] = [:]) {
        self.certificates = certificates
        self.certificatesByFormat = byFormat
    }

    /// No anchors at all: nothing can be trusted.
    public static let empty = TrustAnchors([])

    /// How many certificates there are in all.
    public var count: Int { certificates.count + certificatesByFormat.values.reduce(0) { $0 + $1.count } }

    public func anchors(format: String, aaguid: [UInt8]) -> [X509Certificate] {
        certificates + (certificatesByFormat[format] ?? [])
    }

    /// Reads `.pem` and `.crt` files: those directly in a folder of `directories` anchor every format;
    /// those in a subfolder named after a format (`apple/`, `android-key/`) anchor that format only.
    /// Missing folders are skipped.
    public static func load(directories: [String]) throws -> TrustAnchors {
        var general: [X509Certificate] = []
        var byFormat: [String: [X509Certificate]] = [:]
        for directory in directories {
            let url = URL(fileURLWithPath: directory)
            general += try certificates(in: url)
            let entries = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
            for entry in entries where (try? entry.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                byFormat[entry.lastPathComponent, default: []] += try certificates(in: entry)
            }
        }
        return TrustAnchors(general, byFormat: byFormat)
    }

    /// The certificates in the PEM files directly inside `folder`.
    private static func certificates(in folder: URL) throws -> [X509Certificate] {
        guard let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var certificates: [X509Certificate] = []
        for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent })
        where ["pem", "crt"].contains(file.pathExtension.lowercased()) {
            let text = try String(contentsOf: file, encoding: .utf8)
            let blocks = PEM.certificates(in: text)
            guard !blocks.isEmpty else {
                throw WebAuthnError(.invalidCertificate, "\(file.path) holds no PEM certificate")
            }
            for der in blocks { certificates.append(try X509Certificate(der: der)) }
        }
        return certificates
    }
}
