"""The page's automatic passkey upgrade (WebAuthn Level 3 conditional create) in Debian's Chromium.

After a sign-in, where `PublicKeyCredential.getClientCapabilities()` reports `conditionalCreate`,
the page asks `/attestation/options` with `"mediation":"conditional"` for the signed-in user and
calls `navigator.credentials.create({mediation: "conditional"})`, quietly.

This Chromium reports `conditionalCreate: true`, but its request never ends with the virtual
authenticator: the browser waits for a password manager entry that a test profile does not have.
So one test runs the real thing (the request is asked for, stays open quietly, and gives way to
every action), and the others stand in for the browser's decision: getClientCapabilities reports
what the test says, and a conditional create is held open until the test refuses it or accepts it
(accepting passes the options on to the virtual authenticator as a modal create). Nothing is stubbed
on the server."""

from __future__ import annotations

import time
import uuid

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from test_browser import (STEP_TIMEOUT, Page, browser_server, driver, fresh_authenticator,  # noqa: F401
                          page_scripts, recorded, server_allow_list, signs_in_with, virtual_credentials)

pytestmark = pytest.mark.conditional_create


def capabilities_js(conditional_create: bool) -> str:
    return ("PublicKeyCredential.getClientCapabilities = async () => "
            f"({{conditionalCreate: {'true' if conditional_create else 'false'}, conditionalGet: false}});")


# Records the page's /attestation/ requests (path and body) and the server's replies in
# sessionStorage under 'attestation'.
ATTESTATION_SPY_JS = """
(() => {
  const log = (entry) => {
    const entries = JSON.parse(sessionStorage.getItem('attestation') || '[]');
    entries.push(entry);
    sessionStorage.setItem('attestation', JSON.stringify(entries));
  };
  const realFetch = window.fetch.bind(window);
  window.fetch = async (path, init) => {
    const watched = String(path).startsWith('/attestation/');
    if (watched) log({path: String(path), request: init && init.body ? JSON.parse(init.body) : null});
    const response = await realFetch(path, init);
    if (watched) {
      let reply = null;
      try { reply = await response.clone().json(); } catch (e) { reply = null; }
      log({path: String(path), http: response.status, status: reply && reply.status});
    }
    return response;
  };
})();
"""

# Holds a conditional create open, as a browser does until its password manager decides, until
# the test calls window.__refuseUpgrade() or window.__acceptUpgrade(). Logged in order.
PENDING_UPGRADE_JS = """
(() => {
  const log = (entry) => {
    const entries = JSON.parse(sessionStorage.getItem('upgrade') || '[]');
    entries.push(entry);
    sessionStorage.setItem('upgrade', JSON.stringify(entries));
  };
  const realCreate = navigator.credentials.create.bind(navigator.credentials);
  navigator.credentials.create = (options) => {
    if (options.mediation !== 'conditional') { log('modal create'); return realCreate(options); }
    log('conditional pending');
    return new Promise((resolve, reject) => {
      const signal = options.signal;
      if (signal) signal.addEventListener('abort', () => { log('conditional aborted'); reject(signal.reason); });
      window.__refuseUpgrade = () => {
        log('refused');
        reject(new DOMException('No saved password for this user.', 'NotAllowedError'));
      };
      window.__acceptUpgrade = () => { log('accepted'); realCreate({publicKey: options.publicKey}).then(resolve, reject); };
    });
  };
})();
"""


def upgrade_state(drv):
    return drv.execute_script("return document.body.dataset.upgrade || null")


def wait_upgrade_state(drv, state: str) -> None:
    WebDriverWait(drv, STEP_TIMEOUT).until(lambda d: upgrade_state(d) == state,
                                           f"the upgrade never reached {state!r} (now {upgrade_state(drv)!r})")


def conditional_requests(entries):
    return [e for e in entries if e.get("request") and e["request"].get("mediation") == "conditional"]


def register_and_sign_in_again(driver, page, prefix: str) -> tuple[str, str, int]:
    """Registers a new user, signs out and signs in with the username; returns the username, the
    passkey's ID and the status sequence number of the sign-in's outcome."""
    username = prefix + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.click_ok("register")
    (cred_id,) = virtual_credentials(driver)
    page.sign_out()
    page.fill("username", username)
    text = signs_in_with(driver, page, "signin", cred_id)
    assert text == f"Signed in as {username}.", text
    page.assert_signed_in(username)
    return username, cred_id, page.status_seq()


def assert_quiet(page, seq: int, username: str) -> None:
    """Nothing new on the status line since the sign-in's outcome."""
    assert page.status_seq() == seq
    assert page.el("status").get_attribute("data-state") == "ok"
    assert page.el("status").text == f"Signed in as {username}."


def test_no_upgrade_where_the_browser_does_not_offer_it(driver, browser_server, page_scripts):
    page_scripts(capabilities_js(False))
    page_scripts(ATTESTATION_SPY_JS)
    page_scripts(PENDING_UPGRADE_JS)
    fresh_authenticator(driver)
    page = Page(driver, browser_server).open()
    assert upgrade_state(driver) == "unsupported"
    recorded(driver, "attestation")
    username, _, seq = register_and_sign_in_again(driver, page, "no-upgrade-")
    time.sleep(1)
    assert upgrade_state(driver) == "unsupported"
    entries = recorded(driver, "attestation")
    # The registration's own requests only: no conditional options, no conditional create.
    assert [e["path"] for e in entries if "request" in e] == ["/attestation/options", "/attestation/result"], entries
    assert conditional_requests(entries) == []
    assert recorded(driver, "upgrade") == ["modal create"]
    assert_quiet(page, seq, username)
    page.sign_out()


def test_upgrade_is_asked_after_a_sign_in_and_a_refusal_stays_quiet(driver, browser_server, page_scripts):
    page_scripts(capabilities_js(True))
    page_scripts(ATTESTATION_SPY_JS)
    page_scripts(PENDING_UPGRADE_JS)
    fresh_authenticator(driver)
    page = Page(driver, browser_server).open()
    assert upgrade_state(driver) == "idle"
    recorded(driver, "attestation")
    username = "refused-" + uuid.uuid4().hex[:10]

    # A registration has just made a passkey: no upgrade after it.
    page.fill("username", username)
    page.click_ok("register")
    (cred_id,) = virtual_credentials(driver)
    assert upgrade_state(driver) == "idle"
    assert conditional_requests(recorded(driver, "attestation")) == []
    assert recorded(driver, "upgrade") == ["modal create"]

    # After a sign-in the page asks for the conditional options and the browser's decision.
    page.sign_out()
    page.fill("username", username)
    signs_in_with(driver, page, "signin", cred_id)
    seq = page.status_seq()
    wait_upgrade_state(driver, "pending")
    entries = recorded(driver, "attestation")
    assert [e["request"] for e in entries if "request" in e] == [{"username": username, "mediation": "conditional"}]
    assert [(e["http"], e["status"]) for e in entries if "http" in e] == [(200, "ok")], entries
    assert recorded(driver, "upgrade") == ["conditional pending"]
    assert_quiet(page, seq, username)

    # The browser refuses (no password manager entry): nothing on the page changes.
    driver.execute_script("window.__refuseUpgrade()")
    wait_upgrade_state(driver, "ended")
    assert recorded(driver, "upgrade") == ["refused"]
    assert recorded(driver, "attestation") == [], "a refused upgrade posts no result"
    assert_quiet(page, seq, username)
    assert [p["id"] for p in page.passkeys()] == [cred_id]
    assert server_allow_list(browser_server, username) == [cred_id]

    # The browser has answered for this user in this tab: not asked again at the next sign-in.
    page.sign_out()
    signs_in_with(driver, page, "signin-discoverable", cred_id)
    seq = page.status_seq()
    time.sleep(1)
    assert upgrade_state(driver) == "ended"
    assert conditional_requests(recorded(driver, "attestation")) == []
    assert recorded(driver, "upgrade") == []
    assert_quiet(page, seq, username)
    page.sign_out()


def test_upgrade_adds_a_passkey_without_a_click(driver, browser_server, page_scripts):
    page_scripts(capabilities_js(True))
    page_scripts(ATTESTATION_SPY_JS)
    page_scripts(PENDING_UPGRADE_JS)
    fresh_authenticator(driver)
    page = Page(driver, browser_server).open()
    username, first_id, seq = register_and_sign_in_again(driver, page, "upgraded-")
    wait_upgrade_state(driver, "pending")
    recorded(driver, "attestation")

    # The password manager (another, empty authenticator here) makes the passkey by itself.
    fresh_authenticator(driver)
    driver.execute_script("window.__acceptUpgrade()")
    state, text = page.wait_outcome(seq, "the automatic passkey upgrade")
    assert (state, text) == ("ok", "A passkey was added for you."), text
    assert upgrade_state(driver) == "added"
    (second_id,) = virtual_credentials(driver)
    entries = recorded(driver, "attestation")
    assert [(e["path"], e.get("http"), e.get("status")) for e in entries if "http" in e] == [
        ("/attestation/result", 200, "ok")], entries
    assert [p["id"] for p in page.passkeys()] == [first_id, second_id]
    assert server_allow_list(browser_server, username) == sorted([first_id, second_id])
    page.assert_signed_in(username)
    # (the registration's create was modal)
    assert recorded(driver, "upgrade") == ["modal create", "conditional pending", "accepted"]

    # Signed in again with the new passkey: the upgrade is not offered twice.
    page.sign_out()
    signs_in_with(driver, page, "signin-discoverable", second_id)
    time.sleep(1)
    assert recorded(driver, "upgrade") == []
    assert upgrade_state(driver) == "added"
    page.sign_out()


def test_chromium_conditional_create_stays_open_quietly_and_gives_way(driver, browser_server, page_scripts):
    """No stand-in: this Chromium's own getClientCapabilities and conditional create."""
    page_scripts(ATTESTATION_SPY_JS)
    fresh_authenticator(driver)
    page = Page(driver, browser_server).open()
    capabilities = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        if (typeof PublicKeyCredential.getClientCapabilities !== 'function') { done(null); return; }
        PublicKeyCredential.getClientCapabilities().then(done, () => done(null));""")
    if not (capabilities and capabilities.get("conditionalCreate") is True):
        assert upgrade_state(driver) == "unsupported"
        pytest.skip(f"this Chromium does not report conditionalCreate: {capabilities}")
    assert upgrade_state(driver) == "idle"

    username, first_id, seq = register_and_sign_in_again(driver, page, "chromium-upgrade-")
    wait_upgrade_state(driver, "pending")
    entries = recorded(driver, "attestation")
    assert [e["request"] for e in entries if "request" in e][-1] == {"username": username, "mediation": "conditional"}
    assert [(e["http"], e["status"]) for e in entries if "http" in e][-1] == (200, "ok"), entries
    # Chromium waits for its password manager: the request stays open, and the page stays quiet.
    time.sleep(3)
    assert upgrade_state(driver) == "pending"
    assert_quiet(page, seq, username)
    assert [p["id"] for p in page.passkeys()] == [first_id]

    # A modal ceremony the person asks for: the conditional request is withdrawn first.
    fresh_authenticator(driver)
    text = page.click_ok("add-passkey")
    assert "Added another passkey" in text, text
    assert upgrade_state(driver) == "withdrawn"
    (second_id,) = virtual_credentials(driver)
    assert [p["id"] for p in page.passkeys()] == [first_id, second_id]

    # Withdrawn is not an answer: the next sign-in asks again; signing out withdraws it again.
    page.sign_out()
    assert upgrade_state(driver) == "withdrawn"
    recorded(driver, "attestation")
    signs_in_with(driver, page, "signin-discoverable", second_id)
    wait_upgrade_state(driver, "pending")
    assert len(conditional_requests(recorded(driver, "attestation"))) == 1
    page.sign_out()
    assert upgrade_state(driver) == "withdrawn"
