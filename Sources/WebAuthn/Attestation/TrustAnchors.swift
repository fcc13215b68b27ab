import Foundation

/// Where attestation trust anchors come from: a folder of PEM files, metadata, or a test's own CA.
public protocol TrustAnchorSource: Sendable {
    /// The roots a statement of format `format` from authenticator model `aaguid` may chain to.
    func anchors(format: String, aaguid: [UInt8]) -> [X509Certificate]
}

/// A fixed set of trust anchors, shared by every format and model.
public struct TrustAnchors: TrustAnchorSource {
    public let certificates: [X509Certificate]

    public init(_ certificates: [X509Certificate]) {
        self.certificates = certificates
    }

    /// No anchors at all: nothing can be trusted.
    public static let empty = TrustAnchors([])

    public func anchors(format: String, aaguid: [UInt8]) -> [X509Certificate] { certificates }

    /// Every certificate in the `.pem` and `.crt` files of `directories` (missing folders are skipped).
    public static func load(directories: [String]) throws -> TrustAnchors {
        var certificates: [X509Certificate] = []
        for directory in directories {
            let url = URL(fileURLWithPath: directory)
            guard let files = try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil) else { continue }
            for file in files.sorted(by: { $0.lastPathComponent < $1.lastPathComponent })
            where ["pem", "crt"].contains(file.pathExtension.lowercased()) {
                let text = try String(contentsOf: file, encoding: .utf8)
                let blocks = PEM.certificates(in: text)
                guard !blocks.isEmpty else {
                    throw WebAuthnError(.invalidCertificate, "\(file.path) holds no PEM certificate")
                }
                for der in blocks { certificates.append(try X509Certificate(der: der)) }
            }
        }
        return TrustAnchors(certificates)
    }
}

/// Combines several anchor sources (for example the anchor folder and FIDO metadata).
public struct CombinedTrustAnchors: TrustAnchorSource {
    public let sources: [any TrustAnchorSource]

    public init(_ sources: [any TrustAnchorSource]) {
        self.sources = sources
    }

    public func anchors(format: String, aaguid: [UInt8]) -> [X509Certificate] {
        sources.flatMap { $0.anchors(format: format, aaguid: aaguid) }
    }
}
