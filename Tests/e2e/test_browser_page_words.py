"""The page's words (issue 35, item 11), checked in Debian's Chromium through selenium with a
virtual authenticator (the fixtures and helpers of test_browser.py):

1. the server's messages (lower-case fragments: `user "alice" is not registered`) are shown as
   sentences beside the page's own: a capital first letter and a full stop, the words unchanged;
2. a sign-in the browser ends with NotAllowedError (cancelled, or no passkey here) is a plain
   sentence saying what to try next, without the exception's name;
3. an unnamed passkey of a provider the server does not know reads "Unnamed passkey", its
   provider "unknown" (not "Passkey" twice); a known provider names an unnamed passkey;
4. the display name field takes the 128 characters the server takes, not 64;
5. recent activity shows seconds, so events within one minute each have their own time."""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime

import pytest
import requests

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402

from test_browser_activity import activity, save_page, server_events  # noqa: E402
from test_browser import (  # noqa: E402,F401  (driver and page_scripts are fixtures used here)
    Page, browser_server, driver, fresh_authenticator, page_scripts, virtual_credentials)

NO_PASSKEY = ("No passkey was used: the request was cancelled, or no passkey for this site was available. "
              "Try again, or register one first if you have none yet.")


def sentence(message: str) -> str:
    """The server's fragment as the page shows it: first letter capitalised, a full stop."""
    return message[0].upper() + message[1:] + "."


def register(page: Page, username: str, display_name: str = "") -> str:
    page.fill("username", username)
    page.fill("displayName", display_name)
    return page.click_ok("register")


def status_error_name(page: Page) -> str:
    return page.el("status").get_attribute("data-error")


def test_server_messages_are_shown_as_sentences(driver, browser_server):
    """Point 1: capital and full stop added; the username and member names inside kept as they are."""
    srv = browser_server
    fresh_authenticator(driver)
    page = Page(driver, srv).open()

    unknown = "nobody-" + uuid.uuid4().hex[:10]
    refused = requests.post(srv.url + "/assertion/options", json={"username": unknown}, timeout=10)
    assert refused.status_code == 404, refused.text
    message = refused.json()["errorMessage"]
    assert message == f'user "{unknown}" is not registered', message
    page.fill("username", unknown)
    state, text = page.click("signin")
    assert (state, text) == ("error", f'User "{unknown}" is not registered.'), text
    assert text == sentence(message)

    # A message that starts with a member's name keeps its spelling (not "DisplayName"); the display
    # name fits the field (100 characters) but is 200 bytes of UTF-8, more than the server takes.
    too_long = "ü" * 100
    refused = requests.post(srv.url + "/attestation/options",
                            json={"username": "words-" + uuid.uuid4().hex[:10], "displayName": too_long}, timeout=10)
    assert refused.status_code == 400, refused.text
    message = refused.json()["errorMessage"]
    assert message.startswith("displayName is 200 bytes"), message
    page.fill("username", "words-" + uuid.uuid4().hex[:10])
    page.fill("displayName", too_long)
    state, text = page.click("register")
    assert (state, text) == ("error", message + "."), text
    page.assert_signed_out()

    # Signed in: a refused rename ("name is 200 bytes ...") reads "Name is 200 bytes ....".
    username = "words-" + uuid.uuid4().hex[:10]
    register(page, username)
    (cred_id,) = virtual_credentials(driver)
    refused = requests.patch(srv.url + f"/credentials/{cred_id}", json={"name": too_long},
                             cookies=page.cookies(), timeout=10)
    assert refused.status_code == 400, refused.text
    message = refused.json()["errorMessage"]
    assert message.startswith("name is 200 bytes"), message
    state, text = page.rename(cred_id, too_long)
    assert (state, text) == ("error", sentence(message)), text
    assert text.startswith("Name is 200 bytes") and text.endswith("allowed."), text
    page.sign_out()


def test_no_passkey_is_a_plain_sentence_without_the_exception_name(driver, browser_server):
    """Point 2: NotAllowedError (an empty authenticator) is words and what to try next; the name is
    kept on the status line's data-error, out of sight."""
    srv = browser_server
    fresh_authenticator(driver)  # empty: no passkey for this site
    page = Page(driver, srv).open()
    state, text = page.click("signin-discoverable")
    assert (state, text) == ("error", NO_PASSKEY), text
    assert "Error" not in text and "(" not in text, text
    assert status_error_name(page) == "NotAllowedError"

    # By username: the server knows the user, this authenticator holds none of its passkeys.
    owner = "words-" + uuid.uuid4().hex[:10]
    register(page, owner)
    assert status_error_name(page) == "", "an outcome that is not an error names none"
    page.sign_out()
    fresh_authenticator(driver)
    page.fill("username", owner)
    state, text = page.click("signin")
    assert (state, text) == ("error", NO_PASSKEY), text
    assert status_error_name(page) == "NotAllowedError"
    page.assert_signed_out()


def test_unnamed_passkeys_read_well_whether_or_not_their_provider_is_known(driver, browser_server, server_factory,
                                                                           tmp_path):
    """Point 3. Chromium's virtual authenticator sends an AAGUID no provider list names, so the
    server names its passkeys "Passkey", provider "Passkey"."""
    srv = browser_server
    fresh_authenticator(driver)
    page = Page(driver, srv).open()
    username = "unnamed-" + uuid.uuid4().hex[:10]
    register(page, username, "Unnamed Person")
    (first_id,) = virtual_credentials(driver)
    (listed,) = page.server_credentials()["credentials"]
    assert (listed["name"], listed["authenticatorName"]) == ("Passkey", "Passkey"), listed
    aaguid = listed["aaguid"]

    (shown,) = page.passkeys()
    assert (shown["name"], shown["provider"]) == ("Unnamed passkey", "unknown"), shown
    # The activity does not name it "Passkey" either.
    assert activity(page)[0]["text"] == "Passkey added", activity(page)

    # Renaming starts from an empty field, not from "Passkey" or "Unnamed passkey".
    item = page.item(first_id)
    item.find_element(By.CSS_SELECTOR, "button.rename").click()
    assert item.find_element(By.CSS_SELECTOR, ".rename-input").get_attribute("value") == ""
    item.find_element(By.CSS_SELECTOR, "button.rename-cancel").click()

    # A second unnamed passkey; the first is removed by its words.
    fresh_authenticator(driver)
    assert page.click_ok("add-passkey").startswith("Added another passkey")
    (second_id,) = virtual_credentials(driver)
    assert [(p["name"], p["provider"]) for p in page.passkeys()] == [("Unnamed passkey", "unknown")] * 2
    item = page.item(first_id)
    item.find_element(By.CSS_SELECTOR, "button.remove").click()
    question = item.find_element(By.CSS_SELECTOR, ".remove-question").text
    assert question.startswith("Remove this unnamed passkey?"), question
    state, text = page.click(item.find_element(By.CSS_SELECTOR, "button.remove-yes"))
    assert (state, text) == ("ok", "Removed the unnamed passkey."), text

    # Named by the person: the name, and the provider still unknown.
    state, text = page.rename(second_id, "Work laptop")
    assert state == "ok", text
    assert [(p["name"], p["provider"]) for p in page.passkeys()] == [("Work laptop", "unknown")]
    fresh_authenticator(driver)
    page.click_ok("add-passkey")
    save_page(driver, tmp_path / "latchkey-page-words-passkeys.png")
    print(f"screenshot: {tmp_path / 'latchkey-page-words-passkeys.png'}")
    page.sign_out()

    # A server whose provider list names this AAGUID: an unnamed passkey is named after its provider.
    names = tmp_path / "provider-names.json"
    names.write_text(json.dumps({aaguid: "Test Provider"}))
    named = server_factory("browser-provider-names", {"LATCHKEY_AUTHENTICATOR_NAMES": str(names)})
    fresh_authenticator(driver)
    page = Page(driver, named).open()
    register(page, "provider-" + uuid.uuid4().hex[:10])
    (listed,) = page.server_credentials()["credentials"]
    assert (listed["name"], listed["authenticatorName"]) == ("Test Provider", "Test Provider"), listed
    assert [(p["name"], p["provider"]) for p in page.passkeys()] == [("Test Provider", "Test Provider")]
    assert activity(page)[0]["text"] == "Passkey added — Test Provider", activity(page)
    page.sign_out()


def test_display_name_takes_the_128_characters_the_server_takes(driver, browser_server):
    """Point 4: the server's limit is 128 bytes of UTF-8 (UserNames.maximumDisplayNameBytes)."""
    srv = browser_server
    for length, code in ((128, 200), (129, 400)):
        r = requests.post(srv.url + "/attestation/options",
                          json={"username": "long-" + uuid.uuid4().hex[:10], "displayName": "a" * length}, timeout=10)
        assert r.status_code == code, (length, r.text)

    fresh_authenticator(driver)
    page = Page(driver, srv).open()
    assert page.el("displayName").get_attribute("maxlength") == "128"
    display_name = ("Ada Lovelace, Countess of Lovelace, " * 4)[:128]
    page.fill("displayName", display_name + "overflow")
    assert page.el("displayName").get_attribute("value") == display_name, "the field stops at 128 characters"
    username = "long-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.click_ok("register")
    page.assert_signed_in(username)
    code, session = page.server_session()
    assert (code, session["displayName"]) == (200, display_name), session
    assert page.el("display-name").text == display_name
    page.sign_out()


def test_recent_activity_within_one_minute_shows_distinct_times(driver, browser_server):
    """Point 5: five renames a second apart each show their own time (with seconds), in local time."""
    srv = browser_server
    fresh_authenticator(driver)
    page = Page(driver, srv).open()
    username = "seconds-" + uuid.uuid4().hex[:10]
    register(page, username)
    (cred_id,) = virtual_credentials(driver)
    for n in range(5):
        if n:
            time.sleep(1.1)
        r = requests.patch(srv.url + f"/credentials/{cred_id}", json={"name": f"Name {n}"},
                           cookies=page.cookies(), timeout=10)
        assert r.status_code == 200, r.text
    page.reload()
    renames = [a for a in activity(page) if a["type"] == "passkey.renamed"]
    assert len(renames) == 5, renames
    texts = [a["timeText"] for a in renames]
    assert len(set(texts)) == 5, texts
    events = {e["id"]: e for e in server_events(page)["events"]}
    for item in renames:
        seconds = datetime.fromisoformat(events[item["id"]]["time"].replace("Z", "+00:00")).second
        assert f":{seconds:02d}" in item["timeText"], item
    page.sign_out()
