"""Cross-site requests, names, cookies, sessions and conformance-mode rules, against the real server."""

from __future__ import annotations

import json

import requests

from softauthn import SoftAuthenticator
from test_http_api import (assert_failed, assert_ok, attestation_options, cookie_header, new_username,
                           register, set_cookies, sign_in)


def test_cross_site_posts_are_refused(server):
    client = server.client()
    body = {"username": new_username(), "displayName": "X"}
    r = client.post("/attestation/options", body, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and "Origin" in r.json()["errorMessage"]
    r = client.post("/attestation/options", body, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    # What an HTML form on another site can send: a text/plain body.
    r = client.post("/assertion/result", raw=json.dumps({"id": "x"}).encode(), headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and "application/json" in r.json()["errorMessage"]
    # The page's own origin, and clients that send no Origin (apps, curl), are served.
    assert_ok(client.post("/attestation/options", body, headers={"Origin": server.origin, "Sec-Fetch-Site": "same-origin"}))
    server.assert_alive()


def test_names_are_bounded_in_bytes_and_free_of_control_characters(server):
    client = server.client()
    for bad in ["a" * 65, "z" + "\u0301" * 8000, "line\nbreak", "nul\u0000byte", "\u2028", "   "]:
        r = client.post("/attestation/options", {"username": bad, "displayName": "X"})
        assert_failed(r, server, codes=(400,))
    r = client.post("/attestation/options", {"username": new_username(), "displayName": "d" * 129})
    assert_failed(r, server, codes=(400,))
    # Unicode names are fine, and compared in NFC: the decomposed spelling is the same user.
    auth = server.authenticator()
    composed = "jos\u00e9-" + new_username()
    register(server, auth, composed)
    decomposed = composed.replace("\u00e9", "e\u0301")
    r = server.client().post("/attestation/options", {"username": decomposed, "displayName": "X"})
    assert r.status_code == 403, "the NFD spelling must find the existing NFC user"
    # The fullwidth spelling is the same user too; the name with an invisible character is refused, not a second account.
    plain = new_username()
    register(server, auth, plain)
    fullwidth = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in plain.upper())
    assert server.client().post("/attestation/options", {"username": fullwidth}).status_code == 403
    joined = assert_failed(server.client().post("/attestation/options", {"username": plain + "\u2060"}), server, codes=(400,))
    assert joined["errorMessage"] == "username contains the invisible character U+2060", joined


def test_unknown_transports_are_dropped(server):
    auth = server.authenticator()
    username = new_username()
    register(server, auth, username, transports=["usb", "usb", "evil,internal", "x" * 5000, "nfc"])
    options = assert_ok(server.client().post("/assertion/options", {"username": username}))
    assert options["allowCredentials"][0]["transports"] == ["usb", "nfc"]


def test_get_on_post_endpoints_is_405_and_headers_are_set(server):
    r = requests.get(server.url + "/attestation/options", timeout=5)
    assert r.status_code == 405 and r.json()["status"] == "failed"
    assert r.headers["Allow"] == "POST, OPTIONS"
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"], "error replies carry the headers too"
    page = requests.get(server.url + "/", timeout=5)
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert page.headers["X-Content-Type-Options"] == "nosniff"


def test_paths_that_could_confuse_the_file_system_are_refused_by_name(server):
    """Sent as they are (http.client does not normalise): a NUL, another control character, an undecodable escape
    or a dot segment is a 400 saying which, never a file served under another name or a reply cut short."""
    import http.client
    from urllib.parse import urlsplit

    address = urlsplit(server.url)
    for path, problem in [
        ("/app.js%00.html", "the path holds the control character U+0000"), ("/.%00./", "the path holds the control character U+0000"),
        ("/%00", "the path holds the control character U+0000"), ("/index.html%0A", "the path holds the control character U+000A"),
        ("/%FF", "the path is not percent-encoded UTF-8"), ("/../Config/latchkey.json", 'the path has a "." or ".." segment'),
        ("/./app.js", 'the path has a "." or ".." segment'), ("/%2e%2e/Config/latchkey.json", 'the path has a "." or ".." segment'),
    ]:
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=5)
        connection.request("GET", path)
        reply = connection.getresponse()
        body = json.loads(reply.read())
        connection.close()
        assert (reply.status, body["status"], body["errorMessage"]) == (400, "failed", problem), (path, reply.status, body)
    served = requests.get(server.url + "/app.js", timeout=5)
    assert served.status_code == 200 and "javascript" in served.headers["Content-Type"]


def test_an_http_1_0_request_without_keep_alive_ends_its_connection_with_the_reply(server):
    """A health checker speaking HTTP/1.0 reads to the end of the connection: it must end with the reply, not
    requestTimeout (10 s) later. With keep-alive asked for, it stays open for the next request."""
    import socket
    import time
    from urllib.parse import urlsplit

    address = urlsplit(server.url)

    def read_until_closed(request: bytes, wait: float) -> tuple[bytes, bool, float]:
        with socket.create_connection((address.hostname, address.port), timeout=wait) as connection:
            start, data = time.monotonic(), b""
            connection.sendall(request)
            try:
                while chunk := connection.recv(65536):
                    data += chunk
            except socket.timeout:
                return data, False, time.monotonic() - start
            return data, True, time.monotonic() - start

    for path in ["/healthz", "/app.js", "/no/such/path"]:
        data, closed, took = read_until_closed(f"GET {path} HTTP/1.0\r\n\r\n".encode(), 5)
        assert closed and took < 2, (path, took)
        assert data.split(b"\r\n")[0].split(b" ")[1] in (b"200", b"404"), data[:100]
    data, closed, _ = read_until_closed(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", 1)
    assert not closed and data.startswith(b"HTTP/1.1 200"), data[:100]
    # HTTP/1.1 asking to close, in any case or in a list of options, is closed with the reply too.
    for option in [b"close", b"Close", b"CLOSE", b"keep-alive, close", b"close, foo"]:
        data, closed, took = read_until_closed(b"GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: " + option + b"\r\n\r\n", 5)
        assert closed and took < 2 and data.startswith(b"HTTP/1.1 200"), (option, took, data[:100])


def test_connect_gets_its_status_and_the_connection_ends(server):
    """SwiftNIO sends a reply to CONNECT without a body or a length, so a client can only read it to the end of
    the connection: that must come with the reply (not requestTimeout later), and a known path says 405."""
    import socket
    import time
    from urllib.parse import urlsplit

    address = urlsplit(server.url)
    for target, status in [(b"/attestation/options", b"405"), (b"/no/such/path", b"404"), (b"example.com:443", b"404")]:
        with socket.create_connection((address.hostname, address.port), timeout=5) as connection:
            start, data = time.monotonic(), b""
            connection.sendall(b"CONNECT " + target + b" HTTP/1.1\r\nHost: example.com\r\n\r\n")
            while chunk := connection.recv(65536):
                data += chunk
            took = time.monotonic() - start
        assert data.split(b"\r\n")[0].split(b" ")[1] == status and took < 2, (target, took, data[:200])
        if status == b"405":
            assert b"\r\nAllow: POST, OPTIONS\r\n" in data, data


def test_the_page_and_the_api_carry_the_browser_security_headers(server):
    for path in ("/", "/app.js", "/session", "/no/such/path", "/openapi.json"):
        headers = requests.get(server.url + path, timeout=5).headers
        policy = dict(directive.strip().split(" ", 1) for directive in headers["Content-Security-Policy"].split(";"))
        assert policy["default-src"] == "'self'" and policy["script-src"] == "'self'" and policy["style-src"] == "'self'", path
        assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'" and policy["frame-ancestors"] == "'none'", path
        assert "unsafe-inline" not in headers["Content-Security-Policy"] and "unsafe-eval" not in headers["Content-Security-Policy"]
        assert headers["X-Frame-Options"] == "DENY", path
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "no-referrer", path
        assert headers["Cross-Origin-Opener-Policy"] == "same-origin", path
        permissions = headers["Permissions-Policy"]
        assert "publickey-credentials-get=(self)" in permissions and "publickey-credentials-create=(self)" in permissions
        assert "camera=()" in permissions and "microphone=()" in permissions, permissions
        assert "Strict-Transport-Security" not in headers, "HSTS only when the origins are https"
    # Nothing inline in the page that the policy would block.
    page = requests.get(server.url + "/", timeout=5).text
    assert "<script>" not in page and "<style" not in page and " style=" not in page and " on" + "click=" not in page


def test_no_cors_headers_outside_conformance_mode(server):
    for origin in ("https://evil.example", server.origin):
        preflight = requests.options(server.url + "/assertion/options", timeout=5, headers={
            "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
        read = requests.get(server.url + "/session", headers={"Origin": origin}, timeout=5)
        for reply in (preflight, read):
            assert not [name for name in reply.headers if name.lower().startswith("access-control-")], (origin, reply.headers)


def test_a_new_sign_in_ends_the_session_the_client_had(server):
    auth = server.authenticator()
    username = new_username()
    client, _, _, first = register(server, auth, username)
    old_token = first["sessionToken"]
    _, _, _, r = sign_in(server, auth, username, client=client)
    new_token = assert_ok(r)["sessionToken"]
    assert new_token != old_token
    headers = {"Authorization": f"Bearer {old_token}"}
    assert requests.get(server.url + "/session", headers=headers, timeout=5).status_code == 401
    assert requests.get(server.url + "/session", headers={"Authorization": f"Bearer {new_token}"}, timeout=5).status_code == 200


def test_logout_ends_both_the_bearer_and_the_cookie_session(server):
    auth = server.authenticator()
    username = new_username()
    client, _, _, first = register(server, auth, username)
    _, _, _, r = sign_in(server, auth, username)  # a second, independent session
    other_token = assert_ok(r)["sessionToken"]
    assert_ok(client.post("/session/logout", headers={"Authorization": f"Bearer {other_token}"}))
    assert client.get("/session").status_code == 401, "the cookie session must end too"
    assert requests.get(server.url + "/session", headers={"Authorization": f"Bearer {other_token}"}, timeout=5).status_code == 401


def test_https_deployments_use_host_prefixed_secure_cookies(server_factory):
    server = server_factory("https", {"LATCHKEY_RP_ID": "example.com", "LATCHKEY_ORIGINS": "https://example.com"})
    r = server.client().post("/assertion/options", {})
    assert_ok(r)
    cookie = cookie_header(r, "__Host-latchkey_signin")
    assert "Secure" in cookie and "Path=/" in cookie and "Domain" not in cookie
    assert r.headers["Strict-Transport-Security"] == "max-age=63072000"
    # The session cookie of a registration too, HttpOnly and SameSite.
    auth = SoftAuthenticator(origin="https://example.com", rp_id="example.com")
    client = server.client()
    options = attestation_options(client, new_username())
    registered = client.post("/attestation/result", auth.create(options))
    assert_ok(registered)
    for name in ("__Host-latchkey_session", "__Host-latchkey_registration"):
        cookie = cookie_header(registered, name)
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie, cookie
    assert not [c for c in set_cookies(registered) if c.startswith("latchkey_")], "no cookie without the prefix"


def test_conformance_mode_applies_level_2_token_binding_rules_and_answers_preflights(conformance_server):
    server = conformance_server
    preflight = requests.options(server.url + "/attestation/options", timeout=5, headers={
        "Origin": "https://tool.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    assert preflight.headers.get("Access-Control-Allow-Origin") == "https://tool.example"
    assert preflight.headers.get("Access-Control-Allow-Credentials") == "true"
    # A failure answered to the tool's origin keeps its status, message and CORS headers.
    failed = requests.post(server.url + "/assertion/options", json={"username": "nobody-" + new_username()},
                           headers={"Origin": "https://tool.example"}, timeout=5)
    assert failed.status_code == 404, failed.text
    assert failed.json()["errorMessage"].startswith("user "), failed.text
    assert failed.headers.get("Access-Control-Allow-Origin") == "https://tool.example"
    missing = requests.post(server.url + "/attestation/result", json={"type": "public-key"},
                            headers={"Origin": "https://tool.example"}, timeout=5)
    assert missing.status_code == 400 and "id is missing" in missing.json()["errorMessage"], missing.text

    auth = server.authenticator()
    for token_binding, accepted in [("unused", False), ({"status": "bananas"}, False),
                                    ({"status": "not-supported"}, True), ({"status": "supported"}, True)]:
        client = server.client()
        options = attestation_options(client, new_username())
        credential = auth.create(options, client_extra={"tokenBinding": token_binding})
        r = client.post("/attestation/result", credential)
        if accepted:
            assert_ok(r)
        else:
            body = assert_failed(r, server, codes=(400,))
            assert "tokenBinding" in body["errorMessage"]


def test_a_registration_and_a_sign_in_can_run_side_by_side(server):
    """One browser profile, two tabs: options for a sign-in must not break a pending registration."""
    auth = server.authenticator()
    signed_up = new_username()
    register(server, auth, signed_up)
    client = server.client()
    registration = attestation_options(client, new_username())
    sign_in_options = assert_ok(client.post("/assertion/options", {"username": signed_up}))
    assert_ok(client.post("/attestation/result", auth.create(registration)))
    assert_ok(client.post("/assertion/result", auth.get(sign_in_options)))



def test_a_body_in_too_many_chunks_ends_its_connection(server):
    """The body limit counts bytes, but every chunk costs the server more than its bytes: 60,000 chunks of one
    byte stalled a request for seconds. Beyond 4,096 pieces the connection closes; a body in fewer is read."""
    import socket
    from urllib.parse import urlsplit

    address = urlsplit(server.url)

    def send_chunked(chunks: int) -> bytes:
        body = b"1\r\n \r\n" * chunks + b"2\r\n{}\r\n0\r\n\r\n"
        head = (b"POST /assertion/options HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        with socket.create_connection((address.hostname, address.port), timeout=10) as connection:
            try:
                connection.sendall(head + body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            data = b""
            try:
                while chunk := connection.recv(65536):
                    data += chunk
            except ConnectionResetError:
                pass
            return data

    assert send_chunked(4_000).startswith(b"HTTP/1.1 200"), "a body in 4,001 pieces is read"
    assert not send_chunked(6_000).startswith(b"HTTP/1.1 200"), "a body in 6,001 pieces is not"
    server.assert_alive()


def test_a_request_names_one_valid_host_or_is_refused(server):
    """RFC 9112 §3.2: an HTTP/1.1 request without Host, any request with two, or with an empty or invalid one, is
    answered 400 (a proxy in front and Latchkey must never read two different hosts, and so two tenants, from one
    request); an absolute-form target is served with its own host (§3.2.2); HTTP/1.0 may leave Host out."""
    import json
    import socket
    from urllib.parse import urlsplit

    address = urlsplit(server.url)

    def exchange(head: bytes) -> tuple[bytes, bytes]:
        with socket.create_connection((address.hostname, address.port), timeout=15) as connection:
            connection.sendall(head)
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
        status_line, _, rest = data.partition(b"\r\n")
        return status_line.split(b" ")[1], rest.partition(b"\r\n\r\n")[2]

    refused = {
        b"GET /session HTTP/1.1\r\nConnection: close\r\n\r\n": "no Host field",
        b"GET /session HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\nConnection: close\r\n\r\n": "2 Host fields",
        b"GET /session HTTP/1.0\r\nHost: a.example\r\nHost: b.example\r\n\r\n": "2 Host fields",
        b"GET /session HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n": "is empty",
        b"GET /session HTTP/1.1\r\nHost: a.example, b.example\r\nConnection: close\r\n\r\n": "not a valid host",
        b"GET /session HTTP/1.1\r\nHost: user@localhost\r\nConnection: close\r\n\r\n": "not a valid host",
        b"GET http://user@localhost/session HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n": "target's host",
    }
    for head, words in refused.items():
        status, body = exchange(head)
        assert status == b"400" and words in json.loads(body)["errorMessage"], (head, status, body)
    status, body = exchange(b"GET /healthz HTTP/1.0\r\n\r\n")
    assert status == b"200", body
    # The absolute form's host is the one routed: the default tenant's here, whatever Host says.
    status, body = exchange(f"GET http://localhost:{address.port}/session HTTP/1.1\r\nHost: stranger.example\r\nConnection: close\r\n\r\n".encode())
    assert status == b"401", (status, body)
    server.assert_alive()
