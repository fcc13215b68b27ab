"""CORS in real Chromium: a page on another origin, which the relying party lists in `origins` and
`corsOrigins`, registers a passkey and reads its passkeys through Latchkey's API with fetch
(preflights and all), while a page on an origin that is not listed cannot read a single reply.

The pages are blank documents from a small Python server on another port: `http://localhost:PORT`
is another origin of the same RP ID (so the browser runs the ceremony there), and, as Chromium
resolves every `*.localhost` name to the loopback address, `http://evil.localhost:PORT` is one
more origin on this machine."""
from __future__ import annotations

import http.server
import threading

import pytest

from conftest import LatchkeyServer, free_port
from test_browser import STEP_TIMEOUT, driver, fresh_authenticator, page_scripts  # noqa: F401  (fixtures)
from test_http_api import new_username

# Registers `username` from this page through Latchkey at `api` (options, create, result), then
# lists the passkeys with the session token as a bearer token. Every step reports what it got.
REGISTER_ACROSS_ORIGINS_JS = """
const [api, username, done] = arguments;
const steps = {};
(async () => {
  const post = (path, body) => fetch(api + path, {
    method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify(body)});
  const optionsReply = await post('/attestation/options', {username, displayName: username});
  steps.options = optionsReply.status;
  const options = await optionsReply.json();
  const credential = await navigator.credentials.create(
    {publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options)});
  const resultReply = await post('/attestation/result', credential.toJSON());
  steps.result = resultReply.status;
  const result = await resultReply.json();
  steps.resultStatus = result.status;
  const listReply = await fetch(api + '/credentials', {
    headers: {'Authorization': 'Bearer ' + result.sessionToken}});
  steps.list = listReply.status;
  steps.listed = (await listReply.json()).credentials.map(c => c.id);
  steps.credentialId = credential.id;
})().then(() => done(steps), error => done(Object.assign(steps, {error: error.name + ': ' + error.message})));
"""

# One request from this page; whether the page could read its reply, and if so its status.
READ_ONE_REPLY_JS = """
const [url, method, done] = arguments;
fetch(url, {method, credentials: 'include', headers: {'Content-Type': 'application/json'},
            body: method === 'POST' ? '{}' : undefined})
  .then(reply => done({status: reply.status}), error => done({error: error.name}));
"""


class BlankPages(http.server.BaseHTTPRequestHandler):
    """An empty HTML document at every path, with no policy of its own."""

    def do_GET(self):  # noqa: N802  (the standard library's name)
        body = b"<!doctype html><title>another origin</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def page_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), BlankPages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def cors_server(page_server):
    srv = LatchkeyServer("cors")
    shop = f"http://localhost:{page_server}"
    srv.env.update({"LATCHKEY_ORIGINS": f"{srv.origin},{shop}", "LATCHKEY_CORS_ORIGINS": shop})
    srv.start()
    yield srv
    srv.stop()
    srv.cleanup()


def test_a_configured_origin_uses_the_api_and_another_cannot(driver, cors_server, page_server):
    shop, evil = f"http://localhost:{page_server}", f"http://evil.localhost:{page_server}"
    srv, api = cors_server, cors_server.origin
    fresh_authenticator(driver)

    driver.get(shop + "/")
    username = new_username()
    steps = driver.execute_async_script(REGISTER_ACROSS_ORIGINS_JS, api, username)
    assert "error" not in steps, steps
    assert steps["options"] == 200 and steps["result"] == 200 and steps["resultStatus"] == "ok", steps
    assert steps["list"] == 200 and steps["listed"] == [steps["credentialId"]], steps

    # A page on an origin Latchkey does not list: the browser keeps every reply from it, and the
    # server refuses its state-changing requests outright (the preflight itself gets no CORS).
    driver.get(evil + "/")
    for path, method in [("/assertion/options", "POST"), ("/session", "GET"), ("/openapi.json", "GET")]:
        got = driver.execute_async_script(READ_ONE_REPLY_JS, api + path, method)
        assert got == {"error": "TypeError"}, (path, got)
    # The shop's page still can.
    driver.get(shop + "/")
    got = driver.execute_async_script(READ_ONE_REPLY_JS, api + "/assertion/options", "POST")
    assert got == {"status": 200}, got
    srv.assert_alive()
