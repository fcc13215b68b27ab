import Foundation
import LatchkeyConfiguration

/// One webhook receiver, from its configured URL. A URL's user information
/// (`https://user:password@host/path`) is sent as HTTP Basic authentication, never in the request
/// line, and the receiver is known by its ``name``, the URL with its password hidden: what its
/// deliveries record, the logs and the admin API show. So no password is stored with a delivery,
/// and a receiver whose password changes keeps its deliveries.
package struct WebhookReceiver: Sendable, Equatable {
    /// The configured URL, password included.
    package let url: String
    /// The URL with its password hidden (``LatchkeyConfiguration/webhookReceiverName(of:)``).
    package let name: String
    /// Where requests go: the URL without its user information.
    package let requestURL: String
    /// `Basic` and the base64 of `user:password` (percent-decoded), for a URL with user information.
    package let authorization: String?

    package init(url: String) {
        self.url = url
        name = LatchkeyConfiguration.webhookReceiverName(of: url)
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else {
            (requestURL, authorization) = (url, nil)
            return
        }
        let credentials = "\(components.user ?? ""):\(components.password ?? "")"
        authorization = "Basic " + Data(credentials.utf8).base64EncodedString()
        (components.user, components.password) = (nil, nil)
        requestURL = components.string ?? url
    }
}

/// Shown, logged and reflected by its name alone: its URL and authorization carry the password.
extension WebhookReceiver: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package var description: String { "WebhookReceiver(\(name))" }
    package var debugDescription: String { description }
    package var customMirror: Mirror { Mirror(self, children: ["name": name], displayStyle: .struct) }
}
