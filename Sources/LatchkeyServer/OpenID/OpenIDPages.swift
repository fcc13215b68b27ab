import LatchkeyService
import NIOCore
import NIOHTTP1

/// The provider's pages: sign-in, consent, logout and errors. Each is one small HTML document with no inline script
/// or style (the security headers allow neither): `oidc.js` does the passkey sign-in and reads what it needs from the
/// `data-` attributes of `<main>`. Paths are relative, so a tenant's pages under `/t/{tenant}/` load its own files.
enum OpenIDPages {
    static func signIn(_ prompt: AuthorizationPrompt, rpName: String) -> Response {
        let hint = prompt.loginHint.map { " data-login-hint=\"\(escape($0))\"" } ?? ""
        return page(title: "Sign in to \(prompt.clientName)", rpName: rpName, main: """
            <main id="oidc" data-step="sign-in" data-continue="\(escape(prompt.endpoint + "?" + prompt.continueQuery))"\(hint)>
              <h1>Sign in to \(escape(prompt.clientName))</h1>
              <p>with your passkey for \(escape(rpName)).</p>
              <form id="oidc-sign-in">
                <label for="oidc-username">Username <span class="hint">(optional: leave it empty to pick a passkey)</span></label>
                <input id="oidc-username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false"
                  value="\(escape(prompt.loginHint ?? ""))">
                <button id="oidc-sign-in-button" type="submit">Sign in with a passkey</button>
              </form>
              <p id="oidc-status" role="status" aria-live="polite"></p>
            </main>
            """)
    }

    static func consent(_ prompt: AuthorizationPrompt, rpName: String) -> Response {
        let scopes = prompt.scopes.compactMap(describe).map { "<li>\(escape($0))</li>" }.joined()
        return page(title: "Allow \(prompt.clientName)?", rpName: rpName, main: """
            <main id="oidc" data-step="consent">
              <h1>Allow \(escape(prompt.clientName))?</h1>
              <p>You are signed in to \(escape(rpName)) as <strong>\(escape(prompt.username ?? ""))</strong>.
                \(escape(prompt.clientName)) asks to:</p>
              <ul>\(scopes)</ul>
              <p class="actions">
                <a id="oidc-allow" class="button" href="authorize?\(escape(prompt.continueQuery))">Allow</a>
                <a id="oidc-deny" class="button secondary" href="authorize?\(escape(prompt.declineQuery ?? ""))">Deny</a>
              </p>
            </main>
            """)
    }

    /// The device page's first step: the code the device shows.
    static func deviceCode(problem: String?, rpName: String) -> Response {
        let note = problem.map { "<p id=\"oidc-error\" class=\"note\" role=\"alert\">\(escape($0))</p>" } ?? ""
        return page(title: "Connect a device", rpName: rpName, status: problem == nil ? .ok : .badRequest, main: """
            <main id="oidc" data-step="device-code">
              <h1>Connect a device</h1>
              <p>Type the code your TV, console or command line shows, to sign it in to your \(escape(rpName)) account.</p>
              \(note)
              <form method="get" action="device">
                <label for="oidc-user-code">Code</label>
                <input id="oidc-user-code" name="user_code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false"
                  inputmode="text" placeholder="BCDF-GHJK" required>
                <button id="oidc-continue" type="submit">Continue</button>
              </form>
            </main>
            """)
    }

    /// The device page's question, asked every time: a device code can be sent by someone else (RFC 8628 §5.4).
    static func deviceConfirmation(_ confirmation: DeviceConfirmation, rpName: String) -> Response {
        let scopes = confirmation.scopes.compactMap(describe).map { "<li>\(escape($0))</li>" }.joined()
        let fields = """
            <input type="hidden" name="user_code" value="\(escape(confirmation.userCode))">
            <input type="hidden" name="answer" value="\(escape(confirmation.answerToken))">
            """
        return page(title: "Sign in \(confirmation.clientName) on your device?", rpName: rpName, main: """
            <main id="oidc" data-step="device-confirm">
              <h1>Sign in \(escape(confirmation.clientName)) on your device?</h1>
              <p>You are signed in to \(escape(rpName)) as <strong>\(escape(confirmation.username))</strong>. A device showing
                the code <strong id="oidc-user-code">\(escape(confirmation.userCode))</strong> asks to use your account through
                \(escape(confirmation.clientName)), and to:</p>
              <ul>\(scopes)</ul>
              <p class="note">Go on only if you started this yourself, on a device in front of you. Someone who sent you this code
                would get into your account.</p>
              <form method="post" action="device" class="actions">
                \(fields)
                <button id="oidc-approve" type="submit" name="decision" value="approve">Sign in the device</button>
                <button id="oidc-deny" class="secondary" type="submit" name="decision" value="deny">Deny</button>
              </form>
            </main>
            """)
    }

    static func deviceDecided(approved: Bool, clientName: String, rpName: String) -> Response {
        let heading = approved ? "Your device is signed in" : "The device was denied"
        let text = approved
            ? "\(clientName) on your device is signed in to your \(rpName) account. You can close this page."
            : "\(clientName) on that device did not get into your account. You can close this page."
        return page(title: heading, rpName: rpName, main: """
            <main id="oidc" data-step="device-\(approved ? "approved" : "denied")">
              <h1>\(escape(heading))</h1>
              <p>\(escape(text))</p>
            </main>
            """)
    }

    static func confirmLogout(reason: String?, rpName: String) -> Response {
        let note = reason.map { "<p class=\"note\">The app that sent you here could not be checked (\(escape($0))), so you are not sent back to it.</p>" } ?? ""
        return page(title: "Sign out of \(rpName)?", rpName: rpName, main: """
            <main id="oidc" data-step="logout">
              <h1>Sign out of \(escape(rpName))?</h1>
              \(note)
              <form method="post" action="logout">
                <input type="hidden" name="confirm" value="yes">
                <button id="oidc-sign-out" type="submit">Sign out</button>
              </form>
            </main>
            """)
    }

    static func signedOut(rpName: String) -> Response {
        page(title: "Signed out", rpName: rpName, main: """
            <main id="oidc" data-step="signed-out">
              <h1>You are signed out of \(escape(rpName))</h1>
              <p>You can close this page.</p>
            </main>
            """)
    }

    static func error(_ message: String, rpName: String, status: HTTPResponseStatus) -> Response {
        page(title: "This sign-in cannot go on", rpName: rpName, status: status, main: """
            <main id="oidc" data-step="error">
              <h1>This sign-in cannot go on</h1>
              <p id="oidc-error">\(escape(message))</p>
              <p>Go back to the app you came from and try again; if it keeps happening, tell its administrator.</p>
            </main>
            """)
    }

    /// What a scope lets the client have, in words; nil for `openid` itself.
    private static func describe(_ scope: String) -> String? {
        switch scope {
        case "openid": "know who you are (an identifier of your account)"
        case "profile": "see your username and display name"
        case "email": "see the email address your account was created with, if it has one"
        case "phone": "see the phone number your account was created with, if it has one"
        // `groups` releases nothing yet: accounts have no groups.
        case "offline_access": "stay signed in when you are away"
        default: nil
        }
    }

    private static func page(title: String, rpName: String, status: HTTPResponseStatus = .ok, main: String) -> Response {
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <meta name="color-scheme" content="light dark">
              <title>\(escape(title)) · \(escape(rpName))</title>
              <link rel="stylesheet" href="../style.css">
              <link rel="icon" href="../favicon.svg">
              <script src="../webauthn-json.js" defer></script>
              <script src="../oidc.js" defer></script>
            </head>
            <body class="oidc">
            \(main)
            </body>
            </html>

            """
        return Response(
            status: status,
            headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"],
            body: ByteBuffer(string: html))
    }

    /// `text` safe in HTML text and in a double-quoted attribute.
    static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
