"""Papercuts a newcomer found on the page, checked in Debian's Chromium through selenium with a
virtual authenticator (the fixtures and helpers of test_browser.py):

1. the outcome of an action is shown next to the control that caused it, not at the card's foot;
2. the page's own messages have no "Error: " prefix;
3. a passkey request the browser refuses is a sentence for a person, never the browser's own
   message (Chromium's carries a W3C link) or its error name;
4. Remove is not offered on the only passkey (the server would refuse it, 409);
5. the signed-in user's display name is shown, with the username beside it;
6. the page has a favicon, served from Public/."""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET

import pytest
import requests

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

from test_browser_activity import save_page  # noqa: E402
from test_browser import (  # noqa: E402,F401  (driver and page_scripts are fixtures used here)
    Page, browser_server, driver, fresh_authenticator, page_scripts, virtual_credentials)

NO_PASSKEY = "No passkey was used: the request was cancelled, or no passkey for this site was available."

# Chromium's message for a refused request (the one the newcomer saw), with its link.
RAW_MESSAGE = ("The operation either timed out or was not allowed. "
               "See: https://www.w3.org/TR/webauthn-2/#sctn-privacy-considerations-client.")

# Makes the next modal navigator.credentials.create/get fail with the DOMException named in
# sessionStorage 'failNext', carrying Chromium's raw message.
FAIL_NEXT_JS = """
(() => {
  for (const name of ['create', 'get']) {
    const real = navigator.credentials[name].bind(navigator.credentials);
    navigator.credentials[name] = (options) => {
      const fail = sessionStorage.getItem('failNext');
      if (!fail || options.mediation === 'conditional') return real(options);
      sessionStorage.removeItem('failNext');
      return Promise.reject(new DOMException(%s, fail));
    };
  }
})();
""" % repr(RAW_MESSAGE)

STATUS_WHERE_JS = """
const status = document.getElementById('status');
const box = status.getBoundingClientRect();
const previous = status.previousElementSibling;
const item = status.closest('#passkeys > li');
return {
  parent: status.parentElement.id || status.parentElement.tagName.toLowerCase(),
  previous: previous ? previous.id : null,
  item: item ? item.dataset.credentialId : null,
  top: box.top, bottom: box.bottom, viewport: window.innerHeight,
};
"""


def status_where(page: Page) -> dict:
    return page.d.execute_script(STATUS_WHERE_JS)


def gap_below(page: Page, element) -> float:
    """Pixels from the bottom of `element` down to the top of the status line."""
    return page.d.execute_script(
        "return document.getElementById('status').getBoundingClientRect().top"
        " - arguments[0].getBoundingClientRect().bottom;", element)


def assert_status_near(page: Page, element, what: str, within: float = 48) -> dict:
    """The status line is shown, in the window, just below `element`."""
    where = status_where(page)
    assert page.el("status").is_displayed(), where
    assert 0 <= where["top"] and where["bottom"] <= where["viewport"], (what, where)
    gap = gap_below(page, element)
    assert 0 <= gap <= within, (what, gap, where)
    assert where["parent"] != "main", ("the status line is not left at the card's foot", where)
    return where


def remove_button(page: Page, credential_id: str):
    return page.item(credential_id).find_element(By.CSS_SELECTOR, "button.remove")


    assert path.stat().st_size > 0
    print(f"screenshot: {path}")


def register(page: Page, username: str, display_name: str = "") -> str:
    page.fill("username", username)
    page.fill("displayName", display_name)
    return page.click_ok("register")


def test_outcomes_show_beside_their_controls_in_plain_words(driver, browser_server, page_scripts, tmp_path):
    """Points 1, 2 and 3 on the signed-out page."""
    page_scripts(FAIL_NEXT_JS)
    fresh_authenticator(driver)  # empty: this site has no passkey on it
    page = Page(driver, browser_server).open()
    page.assert_signed_out()

    # The page's own message, right under the form's buttons, without "Error: ".
    page.fill("username", "")
    state, text = page.click("signin")
    assert (state, text) == ("error", "Enter a username first."), text
    where = assert_status_near(page, page.el("account-form-actions"), "sign in without a username")
    assert (where["parent"], where["previous"]) == ("account-form", "account-form-actions"), where
    page.fill("username", "   ")
    state, text = page.click("register")
    assert (state, text) == ("error", "Enter a username first."), text

    # No passkey for this site: a sentence, without the browser's message and its link, or its
    # error name (kept for support questions on the status line's data-error).
    state, text = page.click("signin-discoverable")
    assert state == "error" and text.startswith(NO_PASSKEY), text
    assert "w3.org" not in text and "http" not in text and "Error" not in text, text
    assert page.el("status").get_attribute("data-error") == "NotAllowedError"
    assert_status_near(page, page.el("signin-discoverable"), "sign in with a passkey")
    save_page(driver, tmp_path / "latchkey-papercuts-no-passkey.png")

    # The same by username: the server knows the user, this authenticator has none of its passkeys.
    owner = "papercut-" + uuid.uuid4().hex[:10]
    register(page, owner)
    page.sign_out()
    fresh_authenticator(driver)
    page.fill("username", owner)
    state, text = page.click("signin")
    assert state == "error" and text.startswith(NO_PASSKEY) and "w3.org" not in text, text
    assert_status_near(page, page.el("account-form-actions"), "sign in by username")

    # Other refusals, each with its own sentence and never the raw message.
    sentences = {
        ("signin-discoverable", "AbortError"): "The passkey request was cancelled.",
        ("signin-discoverable", "SecurityError"): "This browser does not allow passkeys on this address.",
        ("register", "NotAllowedError"): "No passkey was created: the request was cancelled or timed out. Try again",
        ("register", "InvalidStateError"): "This authenticator already holds a passkey for this account.",
        ("register", "UnknownError"): "The browser could not finish the passkey request.",
    }
    for (button, name), sentence in sentences.items():
        driver.execute_script("sessionStorage.setItem('failNext', arguments[0])", name)
        if button == "register":
            page.fill("username", "refused-" + uuid.uuid4().hex[:10])
        state, text = page.click(button)
        assert state == "error" and text.startswith(sentence) and name not in text, (name, text)
        assert page.el("status").get_attribute("data-error") == name, name
        assert "w3.org" not in text and "timed out or was not allowed" not in text, (name, text)
        assert not text.startswith(("Error", "DOMException", name)), (name, text)
        near = "account-form-actions" if button == "register" else button
        assert_status_near(page, page.el(near), f"{name} on #{button}")
    page.assert_signed_out()


def test_signed_in_outcomes_remove_and_display_name(driver, browser_server, tmp_path):
    """Points 1, 2, 3 (InvalidStateError from the real authenticator), 4 and 5 when signed in."""
    fresh_authenticator(driver)
    page = Page(driver, browser_server).open()
    username = "greet-" + uuid.uuid4().hex[:10]
    display_name = "Ada <b>Lovelace</b>"
    register(page, username, display_name)
    page.assert_signed_in(username)

    # 5. The display name greets the person; the username is beside it; both as text, not markup.
    assert page.el("greeting").is_displayed()
    assert page.el("display-name").text == display_name
    assert page.el("greeting").text == f"Hello, {display_name}"
    assert driver.find_elements(By.CSS_SELECTOR, "#greeting *:not(#display-name)") == []
    assert driver.find_elements(By.CSS_SELECTOR, "#display-name *") == []
    assert page.el("whoami").text == f"Signed in as {username}"
    code, session = page.server_session()
    assert (code, session["displayName"]) == (200, display_name), session

    # 1. A sign-in's outcome moves to where the signed-in view starts: under its actions.
    assert page.status_seq() > 0
    where = assert_status_near(page, page.el("signed-in-actions"), "register")
    assert where["previous"] == "signed-in-actions", where

    # 3. Adding a passkey on the authenticator that already holds one: Chromium says
    #    InvalidStateError; the page says so in words (the name only in data-error), beside the button.
    state, text = page.click("add-passkey")
    assert state == "error" and text.startswith("This authenticator already holds a passkey"), text
    assert "InvalidStateError" not in text and "Error" not in text, text
    assert page.el("status").get_attribute("data-error") == "InvalidStateError"
    assert_status_near(page, page.el("signed-in-actions"), "add a passkey twice")

    # 4. The only passkey: Remove is not offered, and the item says why.
    (first_id,) = virtual_credentials(driver)
    remove = remove_button(page, first_id)
    assert not remove.is_enabled(), "Remove must not be offered on the only passkey"
    assert "only passkey" in remove.get_attribute("title"), remove.get_attribute("title")
    hint = page.item(first_id).find_element(By.CSS_SELECTOR, ".only-passkey")
    assert hint.is_displayed() and "only passkey" in hint.text, hint.text
    remove.click()  # a disabled button does nothing
    assert not page.item(first_id).find_element(By.CSS_SELECTOR, ".remove-confirm").is_displayed()
    # Actions re-enable the buttons; Remove on the only passkey stays disabled.
    state, text = page.rename(first_id, "Laptop")
    assert state == "ok", text
    assert not remove_button(page, first_id).is_enabled()

    # 1 and 2. A rename's outcome shows in the passkey's item; the page's own message has no prefix.
    where = status_where(page)
    assert where["item"] == first_id and page.el("status").is_displayed(), where
    state, text = page.rename(first_id, "   ")
    assert (state, text) == ("error", "Enter a name for the passkey."), text
    where = status_where(page)
    assert where["item"] == first_id, where
    save_page(driver, tmp_path / "latchkey-papercuts-only-passkey.png")

    # 4. With two passkeys, both can be removed.
    fresh_authenticator(driver)
    assert page.click_ok("add-passkey").startswith("Added another passkey")
    (second_id,) = virtual_credentials(driver)
    assert [p["id"] for p in page.passkeys()] == [first_id, second_id]
    for credential_id in (first_id, second_id):
        remove = remove_button(page, credential_id)
        assert remove.is_displayed() and remove.is_enabled(), credential_id
        assert not remove.get_attribute("title"), remove.get_attribute("title")
        assert not page.item(credential_id).find_element(By.CSS_SELECTOR, ".only-passkey").is_displayed()
    save_page(driver, tmp_path / "latchkey-papercuts-two-passkeys.png")

    # Removing one: the outcome is shown above the list (its item is gone), and the last passkey
    # is no longer removable.
    state, text = page.remove(first_id)
    assert (state, text) == ("ok", "Removed the passkey “Laptop”."), text
    where = assert_status_near(page, page.el("passkeys-heading"), "remove")
    assert where["previous"] == "passkeys-heading", where
    assert [p["id"] for p in page.passkeys()] == [second_id]
    assert not remove_button(page, second_id).is_enabled()

    # Signing out: the outcome is at the top of the signed-out view, where the button was.
    page.sign_out()
    where = status_where(page)
    assert where["parent"] == "signed-out-panel" and page.el("status").is_displayed(), where
    assert not page.el("greeting").is_displayed() and page.el("display-name").text == ""


def test_no_greeting_line_when_the_display_name_is_the_username(driver, browser_server):
    fresh_authenticator(driver)
    page = Page(driver, browser_server).open()
    username = "plain-" + uuid.uuid4().hex[:10]
    register(page, username)  # no display name: the page sends the username
    code, session = page.server_session()
    assert session["displayName"] == username, session
    page.assert_signed_in(username)
    assert not page.el("greeting").is_displayed()
    page.sign_out()


def test_favicon(driver, browser_server):
    srv = browser_server
    page = Page(driver, srv).open()
    links = driver.find_elements(By.CSS_SELECTOR, 'link[rel="icon"]')
    assert len(links) == 1
    href = links[0].get_attribute("href")  # resolved against the page
    assert href == srv.origin + "/favicon.svg", href
    assert links[0].get_attribute("type") == "image/svg+xml"

    r = requests.get(srv.url + "/favicon.svg", timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers.get("Content-Type", "").split(";")[0].strip() == "image/svg+xml", r.headers
    root = ET.fromstring(r.content)
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    # Drawn here: no external resources (only the SVG namespace names a URL).
    assert r.text.count("http") == 1, r.text
    # The browser can load and draw it under the server's Content-Security-Policy.
    size = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const image = new Image();
        image.onload = () => done([image.naturalWidth, image.naturalHeight]);
        image.onerror = () => done(null);
        image.src = '/favicon.svg';""")
    assert size == [32, 32], size
    assert page.el("status").get_attribute("data-ready") == "true"
