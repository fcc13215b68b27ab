import HTTPTypes
import NIOHTTP1

/// Routes read and write headers by swift-http-types' field names (`request.headers[.origin]`), never by a string
/// spelled at every use; names compare without regard to case, as HTTP's do, and replies write them as spelled.
extension HTTPHeaders {
    /// The first value of the header `name`; setting replaces every value (nil removes the header).
    subscript(_ name: HTTPField.Name) -> String? {
        get { first(name: name.rawName) }
        set {
            if let newValue { replaceOrAdd(name: name.rawName, value: newValue) } else { remove(name: name.rawName) }
        }
    }

    /// Every value of the header `name`, in order, as its fields carry them (a list in one field is one value).
    subscript(values name: HTTPField.Name) -> [String] {
        self[name.rawName]
    }

    /// Adds a value of `name` after the ones there are.
    mutating func append(_ name: HTTPField.Name, _ value: String) {
        add(name: name.rawName, value: value)
    }
}

extension HTTPField.Name {
    /// `Host`, which swift-http-types leaves to `HTTPRequest.authority` (HTTP/2's `:authority`); HTTP/1.1 carries it
    /// as a field, which RequestHost settles.
    static let hostField = Self(known: "Host")

    /// A name spelled in this code (`X-Request-ID`), valid by construction: a misspelt one stops the server as it
    /// starts, and every test with it.
    init(known name: String) {
        guard let made = Self(name) else { preconditionFailure("\(name.debugDescription) is not an HTTP field name") }
        self = made
    }
}
