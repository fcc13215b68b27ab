"""Browser tests: Debian's Chromium, driven by selenium through the page in Public/, with a
WebDriver virtual authenticator standing in for the passkey."""

from __future__ import annotations

import os
import shutil
import uuid

import pytest
import requests

from conftest import served
from softauthn import b64url, b64url_decode, flip_byte

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = os.environ.get("LATCHKEY_E2E_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("LATCHKEY_E2E_CHROMEDRIVER", "/usr/bin/chromedriver")
STEP_TIMEOUT = 30


def _strip(b64: str) -> str:
    return b64.rstrip("=")


@pytest.fixture(scope="module")
def browser_server():
    yield from served("browser")


@pytest.fixture(scope="module")
def driver():
    if not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)):
        pytest.fail(f"Chromium ({CHROMIUM}) and chromedriver ({CHROMEDRIVER}) are needed: "
                    "apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1000,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    drv = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    drv.set_script_timeout(STEP_TIMEOUT)
    yield drv
    drv.quit()


def fresh_authenticator(drv) -> None:
    """Replace the current virtual authenticator (if any) by a new, empty one."""
    if drv.virtual_authenticator_id:
        drv.remove_virtual_authenticator()
    drv.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=VirtualAuthenticatorOptions.Protocol.CTAP2,
        transport=VirtualAuthenticatorOptions.Transport.INTERNAL,
        has_resident_key=True,
        has_user_verification=True,
        is_user_consenting=True,
        is_user_verified=True,
    ))


class Page:
    def __init__(self, drv, srv):
        self.d = drv
        self.srv = srv

    def open(self):
        self.d.delete_all_cookies()
        self.d.get(self.srv.origin + "/")
        self.d.delete_all_cookies()
        self.d.get(self.srv.origin + "/")
        WebDriverWait(self.d, STEP_TIMEOUT).until(
            lambda d: d.find_element(By.ID, "status").get_attribute("data-ready") == "true")
        return self

    def el(self, element_id):
        return self.d.find_element(By.ID, element_id)

    def fill(self, element_id, text):
        field = self.el(element_id)
        field.clear()
        field.send_keys(text)

    def click(self, button_id):
        """Click a button and wait until the page reports the outcome; returns (state, text)."""
        status = self.el("status")
        seq = int(status.get_attribute("data-seq"))
        button = self.el(button_id)
        assert button.is_displayed(), f"#{button_id} is not visible"
        button.click()
        try:
            WebDriverWait(self.d, STEP_TIMEOUT).until(
                lambda d: int(d.find_element(By.ID, "status").get_attribute("data-seq")) > seq)
        except TimeoutException:
            raise AssertionError(f"no outcome after clicking #{button_id}; status: "
                                 f"{self.el('status').text!r}")
        status = self.el("status")
        return status.get_attribute("data-state"), status.text

    def click_ok(self, button_id):
        state, text = self.click(button_id)
        assert state == "ok", f"#{button_id}: {text}"
        return text

    def whoami(self) -> str:
        return self.el("whoami").get_attribute("data-username")

    def session_cookie(self):
        return self.d.get_cookie("latchkey_session")

    def server_session(self):
        """GET /session with the browser's session cookie: (status code, JSON)."""
        cookie = self.session_cookie()
        cookies = {"latchkey_session": cookie["value"]} if cookie else {}
        r = requests.get(self.srv.url + "/session", cookies=cookies, timeout=10)
        return r.status_code, r.json()

    def assert_signed_in(self, username):
        assert self.whoami() == username
        assert self.el("whoami").text == f"Signed in as {username}"
        assert self.el("add-passkey").is_displayed() and self.el("signout").is_displayed()
        code, body = self.server_session()
        assert (code, body.get("username")) == (200, username), body
        cookie = self.session_cookie()
        assert cookie["httpOnly"] is True, cookie
        assert cookie.get("sameSite") == "Lax", cookie
        assert "latchkey_session" not in self.d.execute_script("return document.cookie")

    def assert_signed_out(self, old_cookie_value=None):
        assert self.whoami() == ""
        assert self.el("whoami").text == "Not signed in"
        assert self.el("signin-discoverable").is_displayed()
        code, body = self.server_session()
        assert code == 401 and body["status"] == "failed", body
        if old_cookie_value:
            r = requests.get(self.srv.url + "/session",
                             cookies={"latchkey_session": old_cookie_value}, timeout=10)
            assert r.status_code == 401, "the old session must be dead after sign-out"

    def sign_out(self):
        old = self.session_cookie()
        assert self.click_ok("signout") == "Signed out."
        self.assert_signed_out(old["value"] if old else None)


def server_allow_list(srv, username):
    r = requests.post(srv.url + "/assertion/options", json={"username": username}, timeout=10)
    assert r.status_code == 200, r.text
    return sorted(d["id"] for d in r.json()["allowCredentials"])


def virtual_credentials(drv):
    return {_strip(c.id): c for c in drv.get_credentials()}


def test_passkey_journey_through_the_page(driver, browser_server):
    srv = browser_server
    page = Page(driver, srv).open()
    fresh_authenticator(driver)
    page.assert_signed_out()
    username = "browser-" + uuid.uuid4().hex[:10]

    # 1. Register.
    page.fill("username", username)
    page.fill("displayName", "Browser Person")
    text = page.click_ok("register")
    assert username in text
    page.assert_signed_in(username)
    creds = virtual_credentials(driver)
    assert len(creds) == 1
    (first_id,) = creds
    assert creds[first_id].is_resident_credential and creds[first_id].rp_id == "localhost"
    assert server_allow_list(srv, username) == [first_id]
    assert first_id in text
    driver.save_screenshot(str(srv.workdir.parent / "latchkey-e2e-signed-in.png"))

    # 2. Sign out, sign in with the username.
    page.sign_out()
    count_before = creds[first_id].sign_count
    page.fill("username", username)
    text = page.click_ok("signin")
    assert username in text and first_id in text
    page.assert_signed_in(username)
    assert virtual_credentials(driver)[first_id].sign_count > count_before

    # 3. Sign out, sign in without a username (discoverable credential).
    page.sign_out()
    page.fill("username", "")
    text = page.click_ok("signin-discoverable")
    assert username in text and first_id in text
    page.assert_signed_in(username)

    # 4. While signed in, add a passkey on another authenticator.
    fresh_authenticator(driver)
    text = page.click_ok("add-passkey")
    page.assert_signed_in(username)
    creds2 = virtual_credentials(driver)
    assert len(creds2) == 1
    (second_id,) = creds2
    assert second_id != first_id and second_id in text
    assert server_allow_list(srv, username) == sorted([first_id, second_id])
    # Same account, same user handle on both authenticators.
    assert creds2[second_id].user_handle == creds[first_id].user_handle

    # 5. Sign in with the second passkey, with and without the username.
    page.sign_out()
    page.fill("username", username)
    text = page.click_ok("signin")
    assert second_id in text
    page.assert_signed_in(username)
    page.sign_out()
    text = page.click_ok("signin-discoverable")
    assert second_id in text
    page.assert_signed_in(username)
    page.sign_out()


def test_page_shows_server_errors(driver, browser_server):
    srv = browser_server
    page = Page(driver, srv).open()
    fresh_authenticator(driver)
    unknown = "nobody-" + uuid.uuid4().hex[:10]
    expected = requests.post(srv.url + "/assertion/options", json={"username": unknown}, timeout=10)
    assert expected.status_code == 404
    page.fill("username", unknown)
    state, text = page.click("signin")
    assert state == "error"
    assert text == expected.json()["errorMessage"]
    page.assert_signed_out()

    # A second passkey for an existing username without its session is refused (403).
    owner = "taken-" + uuid.uuid4().hex[:10]
    page.fill("username", owner)
    page.fill("displayName", "Owner")
    page.click_ok("register")
    page.sign_out()
    fresh_authenticator(driver)
    page.fill("username", owner)
    page.fill("displayName", "Intruder")
    state, text = page.click("register")
    assert state == "error" and text.strip(), text
    page.assert_signed_out()
    assert len(server_allow_list(srv, owner)) == 1

    # Sign-in with no passkey on the authenticator: the browser's DOMException is shown.
    page.fill("username", owner)
    driver.set_script_timeout(STEP_TIMEOUT)
    state, text = page.click("signin")
    assert state == "error" and "NotAllowedError" in text, text


# Real assertions from the browser: fetch /assertion/options for arguments[0], then get one
# assertion ("once"), two over the same challenge ("twice"), or one over a registration challenge
# ("registration-challenge").
ASSERTIONS_JS = """
const [username, mode] = arguments;
const done = arguments[arguments.length - 1];
const post = async (path, body) => (await fetch(path, {
  method: 'POST', credentials: 'same-origin',
  headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body),
})).json();
(async () => {
  const json = await post('/assertion/options', {username});
  delete json.status; delete json.errorMessage;
  if (mode === 'registration-challenge') {
    // A challenge the server issued for a registration, answered by a sign-in.
    json.challenge = (await post('/attestation/options', {username: 'other-' + username, displayName: 'Other'})).challenge;
  }
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(json);
  const first = await navigator.credentials.get({publicKey});
  const second = mode === 'twice' ? await navigator.credentials.get({publicKey}) : null;
  done({ok: true, challenge: json.challenge, first: first.toJSON(), second: second && second.toJSON()});
})().catch((e) => done({ok: false, error: String(e)}));
"""


def test_real_browser_assertion_replay_and_tamper(driver, browser_server):
    srv = browser_server
    page = Page(driver, srv).open()
    fresh_authenticator(driver)
    username = "replay-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.fill("displayName", "Replay Target")
    page.click_ok("register")
    page.sign_out()
    (cred_id,) = virtual_credentials(driver)

    got = driver.execute_async_script(ASSERTIONS_JS, username, "once")
    assert got["ok"], got
    assertion = got["first"]
    assert assertion["id"] == cred_id
    assert b64url_decode(assertion["response"]["clientDataJSON"]).find(
        got["challenge"].encode()) > 0

    first = requests.post(srv.url + "/assertion/result", json=assertion, timeout=10)
    assert first.status_code == 200, first.text
    assert first.json()["username"] == username and first.json()["credentialId"] == cred_id
    replay = requests.post(srv.url + "/assertion/result", json=assertion, timeout=10)
    assert 400 <= replay.status_code < 500, replay.text
    assert replay.json()["status"] == "failed" and replay.json()["errorMessage"]

    got = driver.execute_async_script(ASSERTIONS_JS, username, "once")
    assert got["ok"], got
    tampered = got["first"]
    sig = b64url_decode(tampered["response"]["signature"])
    tampered["response"]["signature"] = b64url(flip_byte(sig))
    r = requests.post(srv.url + "/assertion/result", json=tampered, timeout=10)
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["status"] == "failed" and r.json()["errorMessage"]
    assert "latchkey_session" not in r.cookies
    srv.assert_alive()


def test_real_browser_reused_and_cross_ceremony_challenges(driver, browser_server):
    srv = browser_server
    page = Page(driver, srv).open()
    fresh_authenticator(driver)
    username = "challenge-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.fill("displayName", "Challenge Target")
    page.click_ok("register")
    page.sign_out()

    # Two genuine assertions over one challenge: the first spends it, the second is refused.
    got = driver.execute_async_script(ASSERTIONS_JS, username, "twice")
    assert got["ok"], got
    assert got["first"]["response"]["signature"] != got["second"]["response"]["signature"]
    first = requests.post(srv.url + "/assertion/result", json=got["first"], timeout=10)
    assert first.status_code == 200, first.text
    reused = requests.post(srv.url + "/assertion/result", json=got["second"], timeout=10)
    assert 400 <= reused.status_code < 500, reused.text
    assert "already used" in reused.json()["errorMessage"]

    # A genuine assertion over a registration challenge: refused as the wrong ceremony.
    got = driver.execute_async_script(ASSERTIONS_JS, username, "registration-challenge")
    assert got["ok"], got
    r = requests.post(srv.url + "/assertion/result", json=got["first"], timeout=10)
    assert 400 <= r.status_code < 500, r.text
    assert "registration" in r.json()["errorMessage"], r.text
    srv.assert_alive()


HIDE_JSON_HELPERS_JS = """
delete PublicKeyCredential.parseCreationOptionsFromJSON;
delete PublicKeyCredential.parseRequestOptionsFromJSON;
delete PublicKeyCredential.prototype.toJSON;
window.__jsonHelpersHidden = true;
"""


def test_page_without_webauthn_json_helpers(driver, browser_server):
    """The hand-written base64url fallback in app.js, as used by browsers without the L3 helpers."""
    srv = browser_server
    script = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                    {"source": HIDE_JSON_HELPERS_JS})
    try:
        page = Page(driver, srv).open()
        assert driver.execute_script(
            "return window.__jsonHelpersHidden === true"
            " && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'undefined'"
            " && typeof PublicKeyCredential.prototype.toJSON === 'undefined'")
        fresh_authenticator(driver)
        username = "fallback-" + uuid.uuid4().hex[:10]
        page.fill("username", username)
        page.fill("displayName", "No Helpers")
        page.click_ok("register")
        page.assert_signed_in(username)
        (cred_id,) = virtual_credentials(driver)
        assert server_allow_list(srv, username) == [cred_id]
        page.sign_out()
        page.fill("username", username)
        assert cred_id in page.click_ok("signin")
        page.assert_signed_in(username)
        page.sign_out()
        assert cred_id in page.click_ok("signin-discoverable")
        page.assert_signed_in(username)
        page.sign_out()
    finally:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                               {"identifier": script["identifier"]})
