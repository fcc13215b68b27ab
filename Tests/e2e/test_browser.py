"""Browser tests: Debian's Chromium, driven by selenium through the page in Public/, with a
WebDriver virtual authenticator standing in for the passkey.

Chromium's virtual authenticator answers a conditional (autofill) request at once: with the
passkey it holds, as a person picking it from the username field's autofill would, or with
NotAllowedError when it holds none. So every test runs with autofill hidden from the page (as in a
browser without it) except those marked `autofill`, which would otherwise be signed in by autofill
whenever the page is signed out. Likewise the automatic passkey upgrade (conditional create), which
the page offers after a sign-in where getClientCapabilities reports it, is hidden except in tests
marked `conditional_create`: this Chromium reports it, and its request then stays open."""

from __future__ import annotations

import os
import shutil
import time
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


HIDE_AUTOFILL_JS = "delete PublicKeyCredential.isConditionalMediationAvailable;"
HIDE_CONDITIONAL_CREATE_JS = "delete PublicKeyCredential.getClientCapabilities;"


@pytest.fixture(autouse=True)
def page_scripts(request, driver):
    """Scripts run in every document the test opens, before the page's own; removed afterwards.
    Autofill is hidden unless the test is marked `autofill`, conditional create unless it is marked
    `conditional_create`. Returns a function adding more."""
    identifiers = []

    def add(source: str) -> None:
        reply = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})
        identifiers.append(reply["identifier"])

    if request.node.get_closest_marker("autofill") is None:
        add(HIDE_AUTOFILL_JS)
    if request.node.get_closest_marker("conditional_create") is None:
        add(HIDE_CONDITIONAL_CREATE_JS)
    yield add
    for identifier in identifiers:
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier})


class AuthenticatorOptions(VirtualAuthenticatorOptions):
    """Selenium's options plus the WebAuthn Level 3 backup flags its options do not carry."""

    def __init__(self, synced: bool, **kwargs):
        super().__init__(**kwargs)
        self.synced = synced

    def to_dict(self):
        options = super().to_dict()
        options.update(defaultBackupEligibility=self.synced, defaultBackupState=self.synced)
        return options


def fresh_authenticator(drv, synced: bool = False) -> None:
    """Replace the current virtual authenticator (if any) by a new, empty one; `synced` makes
    its passkeys backup eligible and backed up, as a synced passkey provider's are."""
    if drv.virtual_authenticator_id:
        drv.remove_virtual_authenticator()
    drv.add_virtual_authenticator(AuthenticatorOptions(
        synced,
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
        self.wait_ready()
        return self

    def reload(self):
        """Load the page again, keeping the cookies."""
        self.d.refresh()
        self.wait_ready()
        return self

    def wait_ready(self):
        WebDriverWait(self.d, STEP_TIMEOUT).until(
            lambda d: d.find_element(By.ID, "status").get_attribute("data-ready") == "true")

    def el(self, element_id):
        return self.d.find_element(By.ID, element_id)

    def fill(self, element_id, text):
        field = self.el(element_id)
        field.clear()
        field.send_keys(text)

    def status_seq(self) -> int:
        return int(self.el("status").get_attribute("data-seq"))

    def wait_outcome(self, after_seq: int, what: str):
        """Wait until the page reports an outcome newer than `after_seq`; returns (state, text)."""
        try:
            WebDriverWait(self.d, STEP_TIMEOUT).until(lambda d: self.status_seq() > after_seq)
        except TimeoutException:
            raise AssertionError(f"no outcome after {what}; status: {self.el('status').text!r}")
        status = self.el("status")
        return status.get_attribute("data-state"), status.text

    def click(self, button):
        """Click a button (an id or an element) and wait until the page reports the outcome;
        returns (state, text)."""
        seq = self.status_seq()
        element = self.el(button) if isinstance(button, str) else button
        name = f"#{button}" if isinstance(button, str) else element.text
        assert element.is_displayed(), f"{name} is not visible"
        element.click()
        return self.wait_outcome(seq, f"clicking {name}")

    def click_ok(self, button):
        state, text = self.click(button)
        assert state == "ok", f"{button}: {text}"
        return text

    # -- the signed-in view -------------------------------------------------------------

    def passkeys(self) -> list:
        """The passkey list as shown: one dict per item, in page order."""
        return self.d.execute_script("""
            return [...document.querySelectorAll('#passkeys > li')].map((li) => {
              const part = (name) => li.querySelector(name);
              return {
                id: li.dataset.credentialId,
                name: part('.passkey-name').textContent,
                provider: part('.passkey-provider').textContent,
                synced: part('.synced').checkVisibility(),
                created: part('.passkey-created').getAttribute('datetime'),
                createdText: part('.passkey-created').textContent,
                lastUsed: part('.passkey-last-used').getAttribute('datetime'),
                lastUsedText: part('.passkey-last-used').textContent,
              };
            });""")

    def item(self, credential_id):
        return self.d.find_element(By.CSS_SELECTOR, f'#passkeys > li[data-credential-id="{credential_id}"]')

    def rename(self, credential_id, name):
        item = self.item(credential_id)
        item.find_element(By.CSS_SELECTOR, "button.rename").click()
        field = item.find_element(By.CSS_SELECTOR, ".rename-input")
        assert field.is_displayed()
        field.clear()
        field.send_keys(name)
        return self.click(item.find_element(By.CSS_SELECTOR, "button.rename-save"))

    def remove(self, credential_id):
        item = self.item(credential_id)
        item.find_element(By.CSS_SELECTOR, "button.remove").click()
        question = item.find_element(By.CSS_SELECTOR, ".remove-question")
        assert question.is_displayed() and "Remove" in question.text, question.text
        return self.click(item.find_element(By.CSS_SELECTOR, "button.remove-yes"))

    def server_credentials(self):
        """GET /credentials with the browser's session cookie."""
        r = requests.get(self.srv.url + "/credentials", cookies=self.cookies(), timeout=10)
        assert r.status_code == 200, r.text
        return r.json()

    def cookies(self):
        cookie = self.session_cookie()
        return {"latchkey_session": cookie["value"]} if cookie else {}

    def whoami(self) -> str:
        return self.el("whoami").get_attribute("data-username")

    def session_cookie(self):
        return self.d.get_cookie("latchkey_session")

    def server_session(self):
        """GET /session with the browser's session cookie: (status code, JSON)."""
        r = requests.get(self.srv.url + "/session", cookies=self.cookies(), timeout=10)
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


def server_sentence(message: str) -> str:
    """The server's errorMessage (a lower-case fragment) as the page shows it: a sentence."""
    return message[0].upper() + message[1:] + "."


def server_allow_list(srv, username):
    r = requests.post(srv.url + "/assertion/options", json={"username": username}, timeout=10)
    assert r.status_code == 200, r.text
    return sorted(d["id"] for d in r.json()["allowCredentials"])


def virtual_credentials(drv):
    return {_strip(c.id): c for c in drv.get_credentials()}


def signs_in_with(drv, page: "Page", button: str, cred_id: str) -> str:
    """Clicks a sign-in button and checks that passkey `cred_id` of the current authenticator
    signed (its counter moved) and that the message does not show the raw credential ID."""
    before = virtual_credentials(drv)[cred_id].sign_count
    text = page.click_ok(button)
    assert virtual_credentials(drv)[cred_id].sign_count > before, text
    assert cred_id not in text, text
    return text


def put_credential(drv, credential: dict, **changes) -> None:
    """Store a passkey (as virtual_credentials_cdp returns it) in the current authenticator."""
    drv.execute_cdp_cmd("WebAuthn.addCredential", {"authenticatorId": drv.virtual_authenticator_id,
                                                   "credential": dict(credential, **changes)})


def virtual_credentials_cdp(drv):
    """The virtual authenticator's passkeys with their user name and display name (CDP shows
    those; WebDriver does not), keyed by base64url id."""
    reply = drv.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": drv.virtual_authenticator_id})
    return {b64url(b64url_decode(c["credentialId"])): c for c in reply["credentials"]}


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
    assert first_id not in text, "messages carry no raw credential IDs"
    driver.save_screenshot(str(srv.workdir.parent / "latchkey-e2e-signed-in.png"))

    # 2. Sign out, sign in with the username.
    page.sign_out()
    count_before = creds[first_id].sign_count
    page.fill("username", username)
    text = page.click_ok("signin")
    assert username in text and first_id not in text
    page.assert_signed_in(username)
    assert virtual_credentials(driver)[first_id].sign_count > count_before

    # 3. Sign out, sign in without a username (discoverable credential): the page sent only the
    # username and display name, so the server's defaults made the passkey discoverable.
    page.sign_out()
    page.fill("username", "")
    count_before = virtual_credentials(driver)[first_id].sign_count
    text = page.click_ok("signin-discoverable")
    assert username in text
    page.assert_signed_in(username)
    assert virtual_credentials(driver)[first_id].sign_count > count_before

    # 4. While signed in, add a passkey on another authenticator.
    fresh_authenticator(driver)
    text = page.click_ok("add-passkey")
    page.assert_signed_in(username)
    creds2 = virtual_credentials(driver)
    assert len(creds2) == 1
    (second_id,) = creds2
    assert second_id != first_id and second_id not in text
    assert server_allow_list(srv, username) == sorted([first_id, second_id])
    # Same account, same user handle on both authenticators.
    assert creds2[second_id].user_handle == creds[first_id].user_handle

    # 5. Sign in with the second passkey, with and without the username.
    page.sign_out()
    page.fill("username", username)
    for button in ["signin", "signin-discoverable"]:
        count_before = virtual_credentials(driver)[second_id].sign_count
        page.click_ok(button)
        page.assert_signed_in(username)
        assert virtual_credentials(driver)[second_id].sign_count > count_before, button
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
    assert text == server_sentence(expected.json()["errorMessage"])
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

    # Sign-in with no passkey on the authenticator: the browser's DOMException is said in words (its
    # name is on the status line's data-error, not in them).
    page.fill("username", owner)
    driver.set_script_timeout(STEP_TIMEOUT)
    state, text = page.click("signin")
    assert state == "error" and text.startswith("No passkey was used") and "NotAllowedError" not in text, text
    assert page.el("status").get_attribute("data-error") == "NotAllowedError"


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
delete PublicKeyCredential.signalUnknownCredential;
delete PublicKeyCredential.signalAllAcceptedCredentials;
delete PublicKeyCredential.signalCurrentUserDetails;
window.__jsonHelpersHidden = true;
"""


def test_page_without_webauthn_json_helpers_or_signals(driver, browser_server, page_scripts):
    """The hand-written base64url fallback in app.js, as used by browsers without the L3 helpers,
    and management without the Signal API (the page must then simply not signal)."""
    srv = browser_server
    page_scripts(HIDE_JSON_HELPERS_JS)
    page = Page(driver, srv).open()
    assert driver.execute_script(
        "return window.__jsonHelpersHidden === true"
        " && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'undefined'"
        " && typeof PublicKeyCredential.prototype.toJSON === 'undefined'"
        " && typeof PublicKeyCredential.signalAllAcceptedCredentials === 'undefined'")
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
    signs_in_with(driver, page, "signin", cred_id)
    page.assert_signed_in(username)
    page.sign_out()
    signs_in_with(driver, page, "signin-discoverable", cred_id)
    page.assert_signed_in(username)

    # Management without the Signal API: add, rename, remove all work and nothing is signalled.
    fresh_authenticator(driver)
    page.click_ok("add-passkey")
    (second_id,) = virtual_credentials(driver)
    state, text = page.rename(second_id, "Without signals")
    assert state == "ok", text
    state, text = page.remove(cred_id)
    assert state == "ok", text
    assert [(p["id"], p["name"]) for p in page.passkeys()] == [(second_id, "Without signals")]
    assert server_allow_list(srv, username) == [second_id]
    assert list(virtual_credentials(driver)) == [second_id]
    page.sign_out()


# Records the page's calls to the Signal API in sessionStorage (so they outlive a reload), then
# passes them on to Chromium.
SIGNAL_SPY_JS = """
for (const name of ['signalUnknownCredential', 'signalAllAcceptedCredentials', 'signalCurrentUserDetails']) {
  const real = PublicKeyCredential[name];
  if (typeof real !== 'function') continue;
  PublicKeyCredential[name] = function (details) {
    const calls = JSON.parse(sessionStorage.getItem('signals') || '[]');
    calls.push({name, details});
    sessionStorage.setItem('signals', JSON.stringify(calls));
    return real.call(PublicKeyCredential, details);
  };
}
"""

# Records what the page passes to navigator.credentials.create and .get, then passes it on.
CEREMONY_SPY_JS = """
for (const name of ['create', 'get']) {
  const real = navigator.credentials[name].bind(navigator.credentials);
  navigator.credentials[name] = (options) => {
    const calls = JSON.parse(sessionStorage.getItem('ceremonies') || '[]');
    calls.push({name, mediation: options.mediation || null,
                attestation: options.publicKey.attestation || null});
    sessionStorage.setItem('ceremonies', JSON.stringify(calls));
    return real(options);
  };
}
"""


# Records Content-Security-Policy violations (the server sends `default-src 'self'`).
CSP_SPY_JS = """
document.addEventListener('securitypolicyviolation', (event) => {
  const violations = JSON.parse(sessionStorage.getItem('csp') || '[]');
  violations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
  sessionStorage.setItem('csp', JSON.stringify(violations));
});
"""


def recorded(drv, key):
    """What a spy recorded, and forget it."""
    return drv.execute_script(
        f"const v = JSON.parse(sessionStorage.getItem('{key}') || '[]');"
        f" sessionStorage.removeItem('{key}'); return v;")


def test_signed_in_page_manages_passkeys(driver, browser_server, page_scripts):
    srv = browser_server
    page_scripts(SIGNAL_SPY_JS)
    page_scripts(CSP_SPY_JS)
    fresh_authenticator(driver, synced=True)
    page = Page(driver, srv).open()
    username = "manage-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.fill("displayName", "Manage Person")
    page.click_ok("register")
    page.assert_signed_in(username)
    (first_id,) = virtual_credentials(driver)
    first_key = virtual_credentials_cdp(driver)[first_id]

    # 1. The list shows what the server holds: name, provider, synced, created, never used.
    listed = page.server_credentials()
    user_handle = listed["userHandle"]
    (server_first,) = listed["credentials"]
    assert server_first["id"] == first_id and server_first["backedUp"] is True, server_first
    (shown,) = page.passkeys()
    assert shown["id"] == first_id
    if server_first["authenticatorName"] == "Passkey":
        # A provider the server does not name (Chromium's virtual authenticator): not "Passkey" twice.
        assert (shown["name"], shown["provider"]) == ("Unnamed passkey", "unknown"), shown
    else:
        assert shown["name"] == server_first["name"] and shown["name"]
        assert shown["provider"] == server_first["authenticatorName"] and shown["provider"]
    assert shown["synced"] is True
    assert shown["created"] == server_first["createdAt"] and shown["createdText"]
    if server_first["lastUsedAt"] is None:
        assert (shown["lastUsed"], shown["lastUsedText"]) == (None, "never")
    else:
        assert shown["lastUsed"] == server_first["lastUsedAt"]

    # 2. Rename: shown, kept by the server across a reload and a new session, and the browser
    #    hears the account's passkeys and user details.
    recorded(driver, "signals")
    state, text = page.rename(first_id, "Work laptop")
    assert (state, text) == ("ok", "Renamed the passkey to “Work laptop”."), text
    assert [p["name"] for p in page.passkeys()] == ["Work laptop"]
    signals = recorded(driver, "signals")
    assert {"name": "signalAllAcceptedCredentials", "details": {
        "rpId": "localhost", "userId": user_handle, "allAcceptedCredentialIds": [first_id]}} in signals, signals
    assert {"name": "signalCurrentUserDetails", "details": {
        "rpId": "localhost", "userId": user_handle, "name": username, "displayName": "Manage Person"}} in signals, signals
    page.reload()
    page.assert_signed_in(username)
    assert [p["name"] for p in page.passkeys()] == ["Work laptop"]
    page.sign_out()
    page.fill("username", username)
    page.click_ok("signin")
    (shown,) = page.passkeys()
    assert shown["name"] == "Work laptop"
    (server_first,) = page.server_credentials()["credentials"]
    assert server_first["name"] == "Work laptop" and server_first["lastUsedAt"]
    assert shown["lastUsed"] == server_first["lastUsedAt"] and shown["lastUsedText"] != "never"

    # 3. A name the server refuses: its message is shown and nothing changes.
    too_long = "ü" * 100  # 100 characters, 200 UTF-8 bytes
    expected = requests.patch(srv.url + f"/credentials/{first_id}", json={"name": too_long},
                              cookies=page.cookies(), timeout=10)
    assert expected.status_code == 400, expected.text
    state, text = page.rename(first_id, too_long)
    assert (state, text) == ("error", server_sentence(expected.json()["errorMessage"]))
    assert [p["name"] for p in page.passkeys()] == ["Work laptop"]

    # 4. The only passkey cannot be removed: the page does not offer it (Remove is disabled and
    #    says why), and the server refuses it anyway (409).
    remove = page.item(first_id).find_element(By.CSS_SELECTOR, "button.remove")
    assert not remove.is_enabled() and "only passkey" in remove.get_attribute("title"), remove.get_attribute("title")
    refused = requests.delete(srv.url + f"/credentials/{first_id}", cookies=page.cookies(), timeout=10)
    assert refused.status_code == 409 and refused.json()["errorMessage"].startswith("this is your only passkey"), refused.text
    assert [p["id"] for p in page.passkeys()] == [first_id]
    assert server_allow_list(srv, username) == [first_id]

    # 5. Add a passkey on another (not synced) authenticator.
    fresh_authenticator(driver, synced=False)
    text = page.click_ok("add-passkey")
    (second_id,) = virtual_credentials(driver)
    assert "Added another passkey" in text and second_id not in text
    shown = page.passkeys()
    assert [p["id"] for p in shown] == [first_id, second_id]
    assert [p["synced"] for p in shown] == [True, False]
    assert sorted(server_allow_list(srv, username)) == sorted([first_id, second_id])

    # 6. Renaming tells the browser the current user details: the authenticator's copy of the
    #    second passkey, made out of date on purpose, is brought up to date.
    second_key = virtual_credentials_cdp(driver)[second_id]
    driver.execute_cdp_cmd("WebAuthn.removeCredential", {
        "authenticatorId": driver.virtual_authenticator_id, "credentialId": second_key["credentialId"]})
    put_credential(driver, second_key, userName="old-name", userDisplayName="Old Name")
    state, text = page.rename(second_id, "Security key")
    assert state == "ok", text
    second_key = virtual_credentials_cdp(driver)[second_id]
    assert (second_key["userName"], second_key["userDisplayName"]) == (username, "Manage Person"), second_key

    # 7. Remove the first passkey while the browser holds it: gone from the page and the server,
    #    and the browser, told which passkeys the account still accepts, drops it.
    fresh_authenticator(driver)
    put_credential(driver, first_key)
    assert list(virtual_credentials(driver)) == [first_id]
    recorded(driver, "signals")
    state, text = page.remove(first_id)
    assert (state, text) == ("ok", "Removed the passkey “Work laptop”."), text
    assert [(p["id"], p["name"]) for p in page.passkeys()] == [(second_id, "Security key")]
    assert server_allow_list(srv, username) == [second_id]
    assert {"name": "signalAllAcceptedCredentials", "details": {
        "rpId": "localhost", "userId": user_handle, "allAcceptedCredentialIds": [second_id]}} in recorded(driver, "signals")
    assert virtual_credentials(driver) == {}
    put_credential(driver, second_key)

    # 8. Sign out; sign in with the remaining passkey.
    page.sign_out()
    signs_in_with(driver, page, "signin-discoverable", second_id)
    page.assert_signed_in(username)

    # 9. Delete the account: asked first, then everything is gone and the username is free.
    page.el("delete-account").click()
    question = page.el("delete-account-question")
    assert question.is_displayed() and username in question.text and "1 passkey" in question.text, question.text
    page.el("delete-account-no").click()
    assert not page.el("delete-account-confirm").is_displayed()
    page.assert_signed_in(username)
    old_cookie = page.session_cookie()["value"]
    page.el("delete-account").click()
    text = page.click_ok("delete-account-yes")
    assert username in text, text
    page.assert_signed_out(old_cookie)
    gone = requests.post(srv.url + "/assertion/options", json={"username": username}, timeout=10)
    assert gone.status_code == 404, gone.text
    assert virtual_credentials(driver) == {}, "the browser was told none of the account's passkeys work"
    fresh_authenticator(driver)
    page.fill("username", username)
    page.fill("displayName", "Manage Person Again")
    page.click_ok("register")
    page.assert_signed_in(username)
    page.sign_out()
    assert recorded(driver, "csp") == [], "the page must live within the server's Content-Security-Policy"


def registered_on_a_fresh_authenticator(drv, srv, prefix: str) -> tuple["Page", str, str]:
    """A new virtual authenticator, the page opened, and a new username registered there: the page, the username and
    the passkey's credential ID."""
    fresh_authenticator(drv)
    page = Page(drv, srv).open()
    username = prefix + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.click_ok("register")
    (cred_id,) = virtual_credentials(drv)
    return page, username, cred_id


def test_sign_in_with_a_passkey_the_server_forgot(driver, browser_server, page_scripts):
    srv = browser_server
    page_scripts(SIGNAL_SPY_JS)
    page, _, cred_id = registered_on_a_fresh_authenticator(driver, srv, "forgotten-")
    # The account is deleted elsewhere (another device, a script): the browser is not told.
    r = requests.delete(srv.url + "/account", cookies=page.cookies(), timeout=10)
    assert r.status_code == 200, r.text
    page.reload()
    page.assert_signed_out()
    recorded(driver, "signals")

    state, text = page.click("signin-discoverable")
    assert state == "error" and "not registered here" in text and "told to forget it" in text, text
    assert recorded(driver, "signals") == [{"name": "signalUnknownCredential",
                                            "details": {"rpId": "localhost", "credentialId": cred_id}}]
    assert virtual_credentials(driver) == {}, "Chromium forgets a passkey signalled as unknown"
    page.assert_signed_out()


def test_page_asks_for_the_attestation_the_server_asks_for(driver, browser_server, server_factory,
                                                           page_scripts):
    page_scripts(CEREMONY_SPY_JS)
    # Default policy: the server asks for none, and the page passes that on.
    fresh_authenticator(driver)
    page = Page(driver, browser_server).open()
    page.fill("username", "attest-none-" + uuid.uuid4().hex[:8])
    page.click_ok("register")
    assert [c["attestation"] for c in recorded(driver, "ceremonies")] == ["none"]
    assert page.server_credentials()["credentials"][0]["attestationFormat"] == "none"
    page.sign_out()

    # trusted-only: the server asks for direct attestation, the page passes it on, and the
    # authenticator's statement reaches the server. Chromium's virtual authenticator attests with
    # a self-signed batch certificate no trust anchor vouches for, so the server refuses it, and
    # the page says why.
    srv = server_factory("browser-trusted-only", {"LATCHKEY_ATTESTATION_POLICY": "trusted-only"})
    fresh_authenticator(driver)
    page = Page(driver, srv).open()
    asked = requests.post(srv.url + "/attestation/options", json={"username": "probe"}, timeout=10).json()
    assert asked["attestation"] == "direct"
    page.fill("username", "attest-direct-" + uuid.uuid4().hex[:8])
    state, text = page.click("register")
    assert [c["attestation"] for c in recorded(driver, "ceremonies")] == ["direct"]
    assert state == "error" and "trust anchor" in text, text
    page.assert_signed_out()


def test_adding_a_passkey_long_after_signing_in_confirms_with_a_sign_in_first(driver, server_factory):
    """With reauthenticateAfter, "Add a passkey" on an older session signs in again first (the server answered 403
    reauthenticationRequired), then creates the passkey. Chromium's one virtual authenticator holds the passkey
    that signed in, which the server excludes, so that create is refused for it; with another authenticator, the
    next click adds one under the new session."""
    srv = server_factory("browser-reauthenticate", {"LATCHKEY_REAUTHENTICATE_AFTER": "2"})
    page, username, first_id = registered_on_a_fresh_authenticator(driver, srv, "reauth-")
    first_session = page.session_cookie()["value"]
    time.sleep(2.5)

    before = virtual_credentials(driver)[first_id].sign_count
    state, text = page.click("add-passkey")
    assert state == "error" and text.startswith("This authenticator already holds a passkey for this account."), text
    assert virtual_credentials(driver)[first_id].sign_count > before, "the page signed in again first"
    assert page.session_cookie()["value"] != first_session
    page.assert_signed_in(username)

    fresh_authenticator(driver)
    page.click_ok("add-passkey")
    assert len(page.server_credentials()["credentials"]) == 2


def conditional_mediation_available(drv) -> bool:
    return drv.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const pkc = window.PublicKeyCredential;
        if (!pkc || typeof pkc.isConditionalMediationAvailable !== 'function') { done(false); return; }
        pkc.isConditionalMediationAvailable().then((v) => done(Boolean(v)), () => done(false));""")


def autofill_state(drv):
    return drv.execute_script("return document.body.dataset.autofill || null")


@pytest.mark.autofill
def test_autofill_sign_in(driver, browser_server, page_scripts):
    srv = browser_server
    page_scripts(CEREMONY_SPY_JS)
    page_scripts(SIGNAL_SPY_JS)
    fresh_authenticator(driver)  # empty before the page's first autofill request
    page = Page(driver, srv).open()
    if not conditional_mediation_available(driver):
        pytest.skip("this Chromium has no conditional mediation (isConditionalMediationAvailable)")
    assert page.el("username").get_attribute("autocomplete") == "username webauthn"
    assert page.el("autofill-hint").is_displayed()
    # The empty authenticator ends the request with NotAllowedError: quietly, no error shown.
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: autofill_state(d) == "ended")
    assert page.el("status").get_attribute("data-state") == "idle"
    # (Page.open loads the page twice; each load asks.)
    assert {c["mediation"] for c in recorded(driver, "ceremonies")} == {"conditional"}

    username = "autofill-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.click_ok("register")
    (cred_id,) = virtual_credentials(driver)
    count_before = virtual_credentials(driver)[cred_id].sign_count
    old_cookie = page.session_cookie()["value"]

    # Signed out, the page asks for autofill again; the authenticator answers it.
    recorded(driver, "ceremonies")
    seq = page.status_seq()
    page.el("signout").click()
    # Two outcomes: "Signed out.", then the autofill sign-in.
    state, text = page.wait_outcome(seq + 1, "signing out and the autofill sign-in")
    assert (state, text) == ("ok", f"Signed in as {username}."), text
    assert [c["mediation"] for c in recorded(driver, "ceremonies")] == ["conditional"]
    page.assert_signed_in(username)
    assert page.session_cookie()["value"] != old_cookie
    assert virtual_credentials(driver)[cred_id].sign_count > count_before

    # The account is deleted elsewhere; autofill then offers a passkey the server does not know:
    # the page says so, the browser forgets it, and autofill does not try again by itself.
    r = requests.delete(srv.url + "/account", cookies=page.cookies(), timeout=10)
    assert r.status_code == 200, r.text
    recorded(driver, "signals")
    page.reload()
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: page.el("status").get_attribute("data-state") == "error")
    assert "not registered here" in page.el("status").text, page.el("status").text
    assert recorded(driver, "signals") == [{"name": "signalUnknownCredential",
                                            "details": {"rpId": "localhost", "credentialId": cred_id}}]
    assert virtual_credentials(driver) == {}
    page.assert_signed_out()


# A browser keeps a conditional request open until the person picks a passkey; Chromium's virtual
# authenticator answers it at once. This holds conditional requests open as a browser does, until
# the page aborts them or the test "picks" (window.__pickAutofill passes the request on to
# Chromium's real conditional request). Every call is logged in order.
PENDING_AUTOFILL_JS = """
(() => {
  const log = (entry) => {
    const entries = JSON.parse(sessionStorage.getItem('autofill') || '[]');
    entries.push(entry);
    sessionStorage.setItem('autofill', JSON.stringify(entries));
  };
  const realGet = navigator.credentials.get.bind(navigator.credentials);
  const realCreate = navigator.credentials.create.bind(navigator.credentials);
  navigator.credentials.create = (options) => { log('modal create'); return realCreate(options); };
  navigator.credentials.get = (options) => {
    if (options.mediation !== 'conditional') { log('modal get'); return realGet(options); }
    log('conditional pending');
    return new Promise((resolve, reject) => {
      if (options.signal.aborted) { log('conditional aborted'); reject(options.signal.reason); return; }
      options.signal.addEventListener('abort', () => { log('conditional aborted'); reject(options.signal.reason); });
      window.__pickAutofill = () => { log('picked'); realGet(options).then(resolve, reject); };
    });
  };
})();
"""


@pytest.mark.autofill
def test_pending_autofill_gives_way_to_the_buttons(driver, server_factory, page_scripts):
    # Challenges live 2 s here, so the page must renew its autofill request to keep it usable.
    srv = server_factory("browser-autofill", {"LATCHKEY_CHALLENGE_TIMEOUT": "2"})
    page_scripts(PENDING_AUTOFILL_JS)
    fresh_authenticator(driver)
    page = Page(driver, srv).open()
    if not conditional_mediation_available(driver):
        pytest.skip("this Chromium has no conditional mediation (isConditionalMediationAvailable)")
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: autofill_state(d) == "pending")
    assert set(recorded(driver, "autofill")) == {"conditional pending"}  # Page.open loads twice

    # A modal request replaces the pending one: aborted first, then the modal one.
    username = "pending-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.click_ok("register")
    assert recorded(driver, "autofill") == ["conditional aborted", "modal create"]
    (cred_id,) = virtual_credentials(driver)

    page.sign_out()
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: autofill_state(d) == "pending")
    page.fill("username", username)
    signs_in_with(driver, page, "signin", cred_id)
    assert recorded(driver, "autofill") == ["conditional pending", "conditional aborted", "modal get"]

    page.sign_out()
    signs_in_with(driver, page, "signin-discoverable", cred_id)
    assert recorded(driver, "autofill") == ["conditional pending", "conditional aborted", "modal get"]

    # Left alone, the request is renewed before its challenge expires, and picking still works.
    page.sign_out()
    recorded(driver, "autofill")
    WebDriverWait(driver, STEP_TIMEOUT).until(
        lambda d: d.execute_script("return sessionStorage.getItem('autofill') || ''").count("conditional pending") >= 2)
    seq = page.status_seq()
    driver.execute_script("window.__pickAutofill()")
    state, text = page.wait_outcome(seq, "picking the autofill passkey")
    assert (state, text) == ("ok", f"Signed in as {username}."), text
    log = recorded(driver, "autofill")
    assert log[-1] == "picked" and "conditional aborted" in log, log
    page.assert_signed_in(username)
    page.sign_out()
