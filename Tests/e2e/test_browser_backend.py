"""The backend flow through the real page in Chromium: a backend (backend.py) makes "alice" with its
own account ID and hands her an enrollment link; the page at `/#ticket=...` registers her passkey
with the WebAuthn virtual authenticator; she signs in usernameless; the backend verifies each
sign-in token with PyJWT's PyJWKClient against `/.well-known/jwks.json` (audience and issuer
checked); after a signing key rotation, old and new tokens verify. The server refuses open sign-up
(`registration: tickets`)."""

from __future__ import annotations

import time
import uuid

import jwt
import pytest
import requests
from selenium.webdriver.support.ui import WebDriverWait

from backend import Backend, create_admin_key, latchkey_command
from conftest import served
from test_browser import STEP_TIMEOUT, Page, driver, fresh_authenticator, page_scripts, virtual_credentials  # noqa: F401
from test_backend import ACTIVATION, KEY_SET_LIFESPAN

AUDIENCE = "alice-shop-api"

# Keeps every ceremony result the page receives, so the test can hand its idToken to the backend.
RECORD_RESULTS_JS = """
window.__latchkeyResults = [];
const originalFetch = window.fetch.bind(window);
window.fetch = async (path, init) => {
  const response = await originalFetch(path, init);
  if (String(path).endsWith('/result')) {
    response.clone().json().then((body) => window.__latchkeyResults.push(body), () => {});
  }
  return response;
};
"""


@pytest.fixture(scope="module")
def shop_server():
    yield from served("browser-backend", {"LATCHKEY_REGISTRATION": "tickets", "LATCHKEY_TOKEN_AUDIENCE": AUDIENCE})


def last_result(drv) -> dict:
    WebDriverWait(drv, STEP_TIMEOUT).until(lambda d: d.execute_script("return window.__latchkeyResults.length") > 0)
    return drv.execute_script("return window.__latchkeyResults[window.__latchkeyResults.length - 1]")


def test_a_backend_enrolls_alice_through_a_link_and_trusts_her_tokens(driver, shop_server, page_scripts):  # noqa: F811
    page_scripts(RECORD_RESULTS_JS)
    backend = Backend(shop_server.url, create_admin_key(shop_server, "shop"), shop_server.url + "/.well-known/jwks.json",
                      issuer=shop_server.origin, audience=AUDIENCE, key_set_lifespan=KEY_SET_LIFESPAN)
    alice = "alice-" + uuid.uuid4().hex[:8]
    made = backend.create_user(alice, external_id="shop-customer-1001")

    # Open sign-up is closed: the page cannot register a name of its own.
    page = Page(driver, shop_server).open()
    fresh_authenticator(driver)
    page.fill("username", "mallory")
    state, text = page.click("register")
    assert state == "error" and "needs an enrollment ticket" in text, text
    assert virtual_credentials(driver) == {}

    # The enrollment link: the ticket leaves the address bar, the page offers to create the passkey.
    link = backend.ticket(alice)["enrollmentURL"]
    assert link.startswith(shop_server.origin + "/#ticket=lk_ticket_")
    driver.get(link)
    page.wait_ready()
    assert "ticket" not in driver.current_url
    assert page.el("enroll-panel").is_displayed()
    text = page.click_ok("enroll")
    assert text == f"Created a passkey for {alice}. You are signed in.", text
    page.assert_signed_in(alice)
    assert not page.el("enroll-panel").is_displayed()
    credential_id = next(iter(virtual_credentials(driver)))
    registered = backend.verify(last_result(driver)["idToken"])
    assert (registered["sub"], registered["ext_id"], registered["cred"]) == (made["userHandle"], "shop-customer-1001", credential_id)

    # The same link does not work twice.
    driver.get(link)
    page.wait_ready()
    state, text = page.click("enroll")
    assert state == "error" and "already used" in text, text
    assert len(virtual_credentials(driver)) == 1

    # Usernameless sign-in; the backend trusts the token it gets.
    page.sign_out()
    page.click_ok("signin-discoverable")
    page.assert_signed_in(alice)
    first = last_result(driver)["idToken"]
    claims = backend.verify(first)
    assert claims["preferred_username"] == alice and claims["aud"] == AUDIENCE and claims["iss"] == shop_server.origin
    assert claims["amr"] == ["pop", "user", "mfa"], "the virtual authenticator verified the user"
    assert claims["cred"] == credential_id and claims["ext_id"] == "shop-customer-1001"

    # A rotation: the next sign-ins are signed by the new key, and both tokens verify.
    old_kid = jwt.get_unverified_header(first)["kid"]
    latchkey_command(shop_server, "signing-keys", "rotate", "--activate-in", str(ACTIVATION))
    new_kid = requests.get(shop_server.url + "/.well-known/jwks.json", timeout=10).json()["keys"][0]["kid"]
    assert new_kid != old_kid
    deadline = time.monotonic() + 20
    while True:
        page.sign_out()
        page.click_ok("signin-discoverable")
        second = last_result(driver)["idToken"]
        if jwt.get_unverified_header(second)["kid"] == new_kid:
            break
        assert time.monotonic() < deadline, "the page's sign-ins are never signed by the new key"
        time.sleep(1)
    assert backend.verify(second)["preferred_username"] == alice
    assert backend.verify(first)["preferred_username"] == alice
