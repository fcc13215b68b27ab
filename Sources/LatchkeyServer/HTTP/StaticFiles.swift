import Foundation
import HTTPTypes
import LatchkeyConfiguration
import LatchkeyService
import NIOCore
import NIOHTTP1
import WebAuthn

/// The page's files (`Public/`), read once at start and served from memory, so no path a request names ever
/// reaches the file system. `/` and a folder's path serve its `index.html`. Each file has a strong `ETag` (from
/// its SHA-256) and its `Last-Modified`; `If-None-Match` and `If-Modified-Since` get a 304, and
/// `Cache-Control: no-cache` has browsers ask again, so a new release's script is picked up at once.
struct StaticFiles: Sendable {
    struct File: Sendable {
        let body: ByteBuffer
        let headers: HTTPHeaders
        let eTag: String
        let lastModified: Date
    }

    /// By the path a request names, percent-decoded: `/app.js`, `/` for `/index.html`.
    private let files: [String: File]

    /// The most bytes read from the folder; past it, start-up fails rather than filling memory.
    static let maximumBytes = 64 * 1024 * 1024

    /// Reads every file under `folder` but those in its subfolders named in `excluding`; a folder that does not
    /// exist serves nothing.
    init(folder: String, excluding: Set<String> = []) throws {
        var files: [String: File] = [:]
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey, .contentModificationDateKey], options: [.skipsHiddenFiles])
        else {
            self.files = [:]
            return
        }
        var total = 0
        for case let url as URL in walker {
            let values = try url.resourceValues(forKeys: [.isRegularFileKey, .contentModificationDateKey])
            guard values.isRegularFile == true else { continue }
            let relative = url.standardizedFileURL.path.dropFirst(root.path.count)
            let path = relative.hasPrefix("/") ? String(relative) : "/" + relative
            let segments = path.split(separator: "/")
            if segments.count > 1, excluding.contains(String(segments[0])) { continue }
            let bytes = try Array(Data(contentsOf: url))
            total += bytes.count
            guard total <= Self.maximumBytes else {
                throw ConfigurationError("publicDirectory holds more than \(Self.maximumBytes / 1024 / 1024) MiB: it is served from memory")
            }
            let file = Self.file(bytes, named: url.lastPathComponent, modified: values.contentModificationDate ?? Date())
            files[path] = file
            if url.lastPathComponent == "index.html" {
                let folderPath = String(path.dropLast("index.html".count))
                files[folderPath] = file
                if folderPath.count > 1 { files[String(folderPath.dropLast())] = file }
            }
        }
        self.files = files
    }

    private init(files: [String: File]) {
        self.files = files
    }

    /// These files and, at the same paths, those of `paths` that `other` serves: the console's page loads the script
    /// it shares with the site's page (`/webauthn-json.js`) from its own folder, on its own origin.
    func adding(_ paths: [String], from other: StaticFiles) -> StaticFiles {
        var files = files
        for path in paths {
            if let file = other.files[path] { files[path] = file }
        }
        return StaticFiles(files: files)
    }

    private static func file(_ bytes: [UInt8], named name: String, modified: Date) -> File {
        let eTag = "\"" + Hex.lowercase(Array(Digest.sha256(bytes).prefix(16))) + "\""
        let lastModified = Date(timeIntervalSince1970: modified.timeIntervalSince1970.rounded(.down))
        let headers: HTTPHeaders = [
            HTTPField.Name.contentType.rawName: mediaType(of: name), HTTPField.Name.eTag.rawName: eTag,
            HTTPField.Name.lastModified.rawName: HTTPDate.string(lastModified), HTTPField.Name.cacheControl.rawName: "no-cache",
        ]
        return File(body: ByteBuffer(bytes: bytes), headers: headers, eTag: eTag, lastModified: lastModified)
    }

    /// The file served at `path` (as sent, percent-encoded), if there is one.
    func file(at path: String) -> File? {
        let decoded = path.contains("%") ? path.removingPercentEncodingStrictly() : path
        return decoded.flatMap { files[$0] }
    }

    /// The reply to GET or HEAD of `file`: the file, or 304 when the client's copy is current.
    static func reply(_ file: File, to request: Request) -> Response {
        if let tags = request.headers[.ifNoneMatch] {
            let matches = tags.split(separator: ",").contains { tag in
                let tag = tag.trimmingOptionalWhitespace
                return tag == "*" || tag == file.eTag || tag == "W/" + file.eTag
            }
            if matches { return Response(status: .notModified, headers: file.headers) }
        } else if let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse), file.lastModified <= since {
            return Response(status: .notModified, headers: file.headers)
        }
        return Response(status: .ok, headers: file.headers, body: file.body)
    }

    private static func mediaType(of name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        case "webmanifest": "application/manifest+json"
        default: "application/octet-stream"
        }
    }
}

/// Dates as HTTP writes them (RFC 9110 §5.6.7, IMF-fixdate).
enum HTTPDate {
    // Used under `lock` only: a formatter is not safe to use from two threads at once.
    private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }()
    private static let lock = NSLock()

    static func string(_ date: Date) -> String {
        lock.withLock { formatter.string(from: date) }
    }

    static func parse(_ text: String) -> Date? {
        lock.withLock { formatter.date(from: text) }
    }
}
