"""The provider's sign-in page in Chromium with a virtual authenticator: an app sends the browser to the
authorization endpoint, the page signs the person in with their passkey (usernameless through the account picker,
or with the username `login_hint` named) and the browser lands on the app's redirect URI with a code, which the
app (authlib) exchanges for tokens naming that person. A browser already signed in goes straight back."""

from __future__ import annotations

import base64
import functools
import hashlib
import http.server
import json
import secrets
import threading
import urllib.parse
import uuid

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from backend import create_admin_key
from conftest import served
from test_browser import STEP_TIMEOUT, Page, driver, fresh_authenticator, page_scripts  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def openid_server():
    yield from served("browser-openid")


class App:
    """A web app registered as a public client, its redirect URI a path of the provider's origin (which answers 404:
    what matters is the URL the browser lands on)."""

    def __init__(self, server):
        self.server = server
        self.issuer = server.origin
        self.metadata = requests.get(server.url + "/.well-known/openid-configuration", timeout=15).json()
        key = create_admin_key(server, "browser-openid-" + uuid.uuid4().hex[:6])
        self.redirect_uri = server.origin + "/app/callback"
        reply = requests.post(server.url + "/admin/v1/oauth-clients", headers={"Authorization": f"Bearer {key}"}, timeout=15, json={
            "name": "Team Wiki", "public": True, "redirectURIs": [self.redirect_uri]})
        assert reply.status_code == 201, reply.text
        self.client_id = reply.json()["client"]["clientID"]
        self.oauth = OAuth2Session(self.client_id, scope="openid profile", redirect_uri=self.redirect_uri,
                                   token_endpoint_auth_method="none", code_challenge_method="S256")

    def start(self, **extra) -> tuple[str, str]:
        """The authorization URL to send the browser to, and the code verifier."""
        verifier = secrets.token_urlsafe(48)
        url, _ = self.oauth.create_authorization_url(self.metadata["authorization_endpoint"], code_verifier=verifier, **extra)
        return url, verifier

    def finish(self, landed: str, verifier: str) -> dict:
        """Exchanges the code the browser landed with; returns the ID token's claims."""
        token = self.oauth.fetch_token(self.metadata["token_endpoint"].replace(self.server.origin, self.server.url),
                                       authorization_response=landed, code_verifier=verifier)
        keys = JsonWebKey.import_key_set(requests.get(self.server.url + "/.well-known/jwks.json", timeout=15).json())
        claims = JsonWebToken(["ES256"]).decode(token["id_token"], key=keys)
        claims.validate()
        assert claims["iss"] == self.issuer and claims["aud"] == self.client_id
        return claims


def lands_on_app(drv, app: App) -> str:
    WebDriverWait(drv, STEP_TIMEOUT).until(lambda d: d.current_url.startswith(app.redirect_uri))
    return drv.current_url


def test_an_app_signs_a_person_in_with_their_passkey_through_the_page(driver, openid_server):  # noqa: F811
    app = App(openid_server)
    # A person with a passkey, made on the relying party's own page, then signed out.
    page = Page(driver, openid_server).open()
    fresh_authenticator(driver)
    username = "wiki-" + uuid.uuid4().hex[:8]
    page.fill("username", username)
    page.fill("displayName", "Wiki Person")
    page.click_ok("register")
    page.sign_out()

    # Usernameless: the page's button, the authenticator's account picker, back to the app with a code.
    url, verifier = app.start()
    driver.get(url)
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-sign-in-button"))
    assert "Sign in to Team Wiki" in driver.title
    driver.find_element(By.ID, "oidc-sign-in-button").click()
    landed = lands_on_app(driver, app)
    received = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(landed).query))
    assert received["iss"] == app.issuer
    claims = app.finish(landed, verifier)
    assert claims["preferred_username"] == username and claims["name"] == "Wiki Person"
    assert "user" in claims["amr"]

    # Signed in now: the next authorization goes straight back, no page.
    url, verifier = app.start()
    driver.get(url)
    assert app.finish(lands_on_app(driver, app), verifier)["sub"] == claims["sub"]

    # prompt=login asks again; login_hint fills the username, and the keyboard alone signs in.
    url, verifier = app.start(prompt="login", login_hint=username)
    driver.get(url)
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-username"))
    field = driver.find_element(By.ID, "oidc-username")
    assert field.get_attribute("value") == username
    field.submit()
    again = app.finish(lands_on_app(driver, app), verifier)
    assert again["sub"] == claims["sub"] and again["auth_time"] >= claims["auth_time"]


def test_the_page_says_why_a_sign_in_failed(driver, openid_server):  # noqa: F811
    app = App(openid_server)
    fresh_authenticator(driver)  # no passkey for this site
    driver.delete_all_cookies()
    url, _ = app.start(login_hint="nobody-" + uuid.uuid4().hex[:6])
    driver.get(url)
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-sign-in-button"))
    driver.find_element(By.ID, "oidc-sign-in-button").click()
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_element(By.ID, "oidc-status").get_attribute("data-kind") == "error")
    assert not driver.current_url.startswith(app.redirect_uri)
    assert driver.find_element(By.ID, "oidc-sign-in-button").is_enabled()


def test_a_person_approves_a_device_on_the_device_page(driver, openid_server):  # noqa: F811
    """RFC 8628 in a browser: the person types the code a TV shows, signs in with their passkey on the way, and
    approves; the TV's next poll gets tokens naming them."""
    key = create_admin_key(openid_server, "browser-device-" + uuid.uuid4().hex[:6])
    reply = requests.post(openid_server.url + "/admin/v1/oauth-clients", headers={"Authorization": f"Bearer {key}"}, timeout=15, json={
        "name": "Living Room TV", "public": True, "redirectURIs": [], "deviceAuthorization": True})
    assert reply.status_code == 201, reply.text
    client_id = reply.json()["client"]["clientID"]
    started = requests.post(openid_server.url + "/oidc/device_authorization", timeout=15,
                            data={"client_id": client_id, "scope": "openid profile"}).json()

    page = Page(driver, openid_server).open()
    fresh_authenticator(driver)
    username = "tv-" + uuid.uuid4().hex[:8]
    page.fill("username", username)
    page.fill("displayName", "TV Person")
    page.click_ok("register")
    page.sign_out()

    driver.get(started["verification_uri"])
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-user-code"))
    field = driver.find_element(By.ID, "oidc-user-code")
    field.send_keys(started["user_code"].replace("-", "").lower())
    field.submit()
    # Not signed in: the passkey first, then back to the same code.
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-sign-in-button"))
    driver.find_element(By.ID, "oidc-sign-in-button").click()
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-approve"))
    assert driver.find_element(By.ID, "oidc-user-code").text == started["user_code"]
    assert "Living Room TV" in driver.title
    driver.find_element(By.ID, "oidc-approve").click()
    WebDriverWait(driver, STEP_TIMEOUT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, 'main[data-step="device-approved"]'))

    token = requests.post(openid_server.url + "/oidc/token", timeout=15, data={
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": started["device_code"], "client_id": client_id})
    assert token.status_code == 200, token.text
    keys = JsonWebKey.import_key_set(requests.get(openid_server.url + "/.well-known/jwks.json", timeout=15).json())
    claims = JsonWebToken(["ES256"]).decode(token.json()["id_token"], key=keys)
    claims.validate()
    assert claims["preferred_username"] == username and claims["aud"] == client_id

    # Signing out through the provider's own confirmation page (a form posted from the page, as browsers post it).
    driver.get(openid_server.origin + "/oidc/logout")
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-sign-out"))
    driver.find_element(By.ID, "oidc-sign-out").click()
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_elements(By.CSS_SELECTOR, 'main[data-step="signed-out"]'))
    assert not any(cookie["name"] == "latchkey_session" for cookie in driver.get_cookies())


SPA_CALLBACK = """<!doctype html>
<html><head><meta charset="utf-8"><title>SPA</title></head><body><pre id="result">working</pre>
<script>
// A single-page app's callback on its own origin: it redeems the code from the page, with its PKCE verifier (which a
// real app keeps in sessionStorage; this test page carries it in `state`).
(async () => {
  const query = new URLSearchParams(location.search);
  const settings = JSON.parse(atob(query.get('state')));
  const reply = await fetch(settings.token, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: query.get('code'), redirect_uri: settings.redirect,
                                client_id: settings.client, code_verifier: settings.verifier }),
  });
  const tokens = await reply.json();
  const info = await fetch(settings.userinfo, { headers: { Authorization: 'Bearer ' + tokens.access_token } });
  document.getElementById('result').textContent = JSON.stringify({ status: reply.status, tokens, userinfo: await info.json() });
})().catch((error) => { document.getElementById('result').textContent = 'failed: ' + error; });
</script></body></html>
"""


@pytest.fixture
def spa_origin():
    """A single-page app's origin: another port on this machine, serving its callback page."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            body = SPA_CALLBACK.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Page))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_single_page_app_on_another_origin_redeems_its_code_from_the_page(driver, openid_server, spa_origin):  # noqa: F811
    """Chromium runs the app's own JavaScript on its own origin: after the passkey sign-in it lands there and redeems
    the code at the token endpoint and reads userinfo with fetch, which CORS lets it read."""
    key = create_admin_key(openid_server, "browser-spa-" + uuid.uuid4().hex[:6])
    redirect = spa_origin + "/callback"
    made = requests.post(openid_server.url + "/admin/v1/oauth-clients", headers={"Authorization": f"Bearer {key}"}, timeout=15, json={
        "name": "Notes SPA", "public": True, "redirectURIs": [redirect]})
    assert made.status_code == 201, made.text
    client_id = made.json()["client"]["clientID"]
    page = Page(driver, openid_server).open()
    fresh_authenticator(driver)
    username = "spa-" + uuid.uuid4().hex[:8]
    page.fill("username", username)
    page.fill("displayName", "SPA Person")
    page.click_ok("register")

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state = base64.b64encode(json.dumps({
        "token": openid_server.origin + "/oidc/token", "userinfo": openid_server.origin + "/oidc/userinfo", "redirect": redirect,
        "client": client_id, "verifier": verifier}).encode()).decode()
    driver.get(openid_server.origin + "/oidc/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": redirect, "scope": "openid profile", "state": state,
        "code_challenge": challenge, "code_challenge_method": "S256"}))
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.current_url.startswith(redirect))
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_element(By.ID, "result").text != "working")
    result = driver.find_element(By.ID, "result").text
    assert not result.startswith("failed"), result
    reply = json.loads(result)
    assert reply["status"] == 200 and reply["tokens"]["id_token"]
    assert reply["userinfo"]["preferred_username"] == username
