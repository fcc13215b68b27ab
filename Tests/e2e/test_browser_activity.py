"""The page's "Recent activity": the signed-in user's security events (GET /account/events) as
sentences, newest first, refreshed with the passkey list, hidden when signed out, paged with
"Show more". The events a person makes on the page (register, rename, add, remove, sign out, sign
in) are also the admin API's and reach a webhook receiver that verifies them with standardwebhooks. Debian's Chromium through selenium with a virtual authenticator, as in
test_browser.py, whose fixtures (autofill and conditional create hidden from the page) and page
helpers this uses."""

from __future__ import annotations

import base64
import uuid

import pytest
import requests

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from backend import create_admin_key  # noqa: E402
from conftest import served  # noqa: E402
from test_browser import (  # noqa: E402,F401  (driver and page_scripts are fixtures used here)
    STEP_TIMEOUT, Page, browser_server, driver, fresh_authenticator, page_scripts, signs_in_with,
    virtual_credentials)
from test_device_keys import DeviceKey, enrol  # noqa: E402
from webhook_receiver import running_receiver, webhook_env  # noqa: E402

# A name with characters the server's `renamed to "..."` detail escapes, and one it does not.
NEW_NAME = 'Work "laptop" \\ ü'


def activity(page: Page) -> list:
    """The Recent activity list as shown: one dict per item, in page order."""
    return page.d.execute_script("""
        return [...document.querySelectorAll('#activity > li')].map((li) => ({
          type: li.dataset.type,
          id: li.dataset.eventId,
          text: li.querySelector('.activity-text').textContent,
          time: li.querySelector('.activity-time').getAttribute('datetime'),
          timeText: li.querySelector('.activity-time').textContent,
          client: li.querySelector('.activity-client').textContent,
          meta: li.querySelector('.activity-meta').innerText,
        }));""")


def server_events(page: Page, cursor: str | None = None) -> dict:
    """GET /account/events with the browser's session cookie."""
    params = {"cursor": cursor} if cursor else {}
    r = requests.get(page.srv.url + "/account/events", params=params, cookies=page.cookies(), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def save_page(drv, path) -> None:
    """A screenshot of the whole page, below the window's fold too."""
    size = drv.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = drv.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
    path.write_bytes(base64.b64decode(shot["data"]))


@pytest.fixture(scope="module")
def receiver():
    yield from running_receiver()


@pytest.fixture(scope="module")
def hooked_server(receiver):
    """A server that also POSTs every event to a receiver verifying them with standardwebhooks."""
    yield from served("browser-activity", webhook_env(receiver, receiver.secret))


def test_recent_activity_follows_register_rename_remove_sign_out_and_sign_in(driver, hooked_server, receiver, tmp_path):
    srv = hooked_server
    page = Page(driver, srv).open()
    fresh_authenticator(driver)
    assert not page.el("activity-panel").is_displayed()
    username = "activity-" + uuid.uuid4().hex[:10]

    # Register: the account and its passkey, newest first.
    page.fill("username", username)
    page.fill("displayName", "Activity Person")
    page.click_ok("register")
    page.assert_signed_in(username)
    (cred_id,) = virtual_credentials(driver)
    assert page.el("activity-panel").is_displayed()
    shown = activity(page)
    assert [a["type"] for a in shown] == ["passkey.registered", "user.created"], shown
    provider = page.passkeys()[0]["provider"]
    # A provider the server does not name (Chromium's virtual authenticator) is left out.
    assert shown[0]["text"] == ("Passkey added" if provider == "unknown" else f"Passkey added — {provider}"), shown[0]
    assert shown[1]["text"] == "Account created", shown[1]

    # Rename: shown at once, with the new name as typed.
    state, text = page.rename(cred_id, NEW_NAME)
    assert state == "ok", text
    shown = activity(page)
    assert [a["type"] for a in shown] == ["passkey.renamed", "passkey.registered", "user.created"], shown
    assert shown[0]["text"] == f"Passkey renamed to “{NEW_NAME}”", shown[0]

    # A second passkey (another authenticator), then the renamed first one removed.
    fresh_authenticator(driver)
    assert page.click_ok("add-passkey").startswith("Added another passkey")
    (second_id,) = virtual_credentials(driver)
    second_name = page.passkeys()[1]["name"]
    state, text = page.remove(cred_id)
    assert state == "ok", text
    shown = activity(page)
    assert [a["type"] for a in shown] == [
        "passkey.removed", "passkey.registered", "passkey.renamed", "passkey.registered", "user.created"], shown
    cred_id = second_id

    # Signed out, the section is hidden and emptied.
    page.sign_out()
    assert not page.el("activity-panel").is_displayed()
    assert activity(page) == []
    assert page.el("activity").get_attribute("data-count") == "0"

    # Sign in again.
    page.fill("username", username)
    signs_in_with(driver, page, "signin", cred_id)
    page.assert_signed_in(username)
    assert page.el("activity-panel").is_displayed()

    shown = activity(page)
    expected = ["sign_in.succeeded", "session.ended", "passkey.removed", "passkey.registered", "passkey.renamed",
                "passkey.registered", "user.created"]
    assert [a["type"] for a in shown] == expected, shown
    by_type = {a["type"]: a for a in shown}
    signed_in = "Signed in" if second_name == "Unnamed passkey" else f"Signed in with {second_name}"
    assert by_type["sign_in.succeeded"]["text"] == signed_in
    assert by_type["session.ended"]["text"] == "Signed out"
    assert NEW_NAME in by_type["passkey.renamed"]["text"]
    assert not page.el("activity-more").is_displayed(), "one page: no Show more"
    assert not page.el("activity-error").is_displayed()

    # Every item is the server's event: same order, time and client address, shown in local time.
    reply = server_events(page)
    assert "nextCursor" not in reply, reply
    assert [a["id"] for a in shown] == [e["id"] for e in reply["events"]]
    for item, event in zip(shown, reply["events"]):
        assert item["time"] == event["time"], (item, event)
        assert item["timeText"] and item["timeText"] != event["time"], item
        address = event["client"]["address"]
        assert address and item["client"] == f"from {address}", (item, event)
        assert address in item["meta"] and item["timeText"] in item["meta"], item
    # The same events in the admin API, and at the receiver, each signature verified.
    admin = {"Authorization": f"Bearer {create_admin_key(srv, 'activity-' + uuid.uuid4().hex[:6])}"}
    listed = requests.get(srv.url + "/admin/v1/events", params={"user": username}, headers=admin, timeout=10).json()["events"]
    assert [e["id"] for e in listed] == [a["id"] for a in shown]
    receiver.wait_for(lambda r: {a["id"] for a in shown} <= set(r.ids()), 30, "the page's events")
    delivered = [p for p in receiver.payloads() if p["data"].get("user", {}).get("username") == username]
    assert [p["type"] for p in delivered] == list(reversed(expected)) and receiver.refused == []

    # Server strings reach the page as text, never as markup.
    assert driver.find_elements(By.CSS_SELECTOR, "#activity .activity-text *") == []

    path = tmp_path / "latchkey-e2e-activity.png"
    save_page(driver, path)
    assert path.stat().st_size > 0
    print(f"screenshot: {path}")
    page.sign_out()


def test_show_more_pages_through_older_activity(driver, browser_server):
    srv = browser_server
    page = Page(driver, srv).open()
    fresh_authenticator(driver)
    username = "more-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.click_ok("register")
    (cred_id,) = virtual_credentials(driver)

    # 21 renames elsewhere (another tab, say): 23 events, more than the page's 20.
    for n in range(21):
        r = requests.patch(srv.url + f"/credentials/{cred_id}", json={"name": f"Name {n}"},
                           cookies=page.cookies(), timeout=10)
        assert r.status_code == 200, r.text
    page.reload()
    page.assert_signed_in(username)
    first = server_events(page)
    assert first["nextCursor"], first
    shown = activity(page)
    assert [a["id"] for a in shown] == [e["id"] for e in first["events"]]
    assert len(shown) == 20 and shown[0]["text"] == "Passkey renamed to “Name 20”", shown[0]

    more = page.el("activity-more")
    assert more.is_displayed() and more.text == "Show more"
    more.click()
    WebDriverWait(driver, STEP_TIMEOUT).until(
        lambda d: page.el("activity").get_attribute("data-count") == "23")
    rest = server_events(page, first["nextCursor"])
    assert [a["id"] for a in activity(page)] == [e["id"] for e in first["events"] + rest["events"]]
    assert [a["type"] for a in activity(page)[-3:]] == ["passkey.renamed", "passkey.registered", "user.created"]
    assert not page.el("activity-more").is_displayed()

    # The next refresh of the view shows the newest page again.
    state, text = page.rename(cred_id, "Final name")
    assert state == "ok", text
    shown = activity(page)
    assert len(shown) == 20 and shown[0]["text"] == "Passkey renamed to “Final name”", shown[0]
    assert page.el("activity-more").is_displayed()
    page.sign_out()


def test_device_key_renames_and_revoked_links_read_as_sentences(driver, browser_server):
    """Changes made elsewhere (the app renaming its device key, the backend revoking a link) read
    as sentences too, with the admin key named."""
    srv = browser_server
    page = Page(driver, srv).open()
    fresh_authenticator(driver)
    username = "renames-" + uuid.uuid4().hex[:10]
    page.fill("username", username)
    page.click_ok("register")
    page.assert_signed_in(username)

    app = srv.client()
    app.http.cookies.set("latchkey_session", page.cookies()["latchkey_session"])
    key = DeviceKey()
    enrol(app, {}, key)
    for name in (NEW_NAME, ""):
        assert app.patch(f"/device-keys/{key.key_id}", {"name": name}).status_code == 200
    key_name = "links-" + uuid.uuid4().hex[:6]
    admin = {"Authorization": f"Bearer {create_admin_key(srv, key_name)}"}
    tickets = srv.url + f"/admin/v1/users/{username}/enrollment-tickets"
    for _ in range(2):
        assert requests.post(tickets, headers=admin, timeout=10).status_code == 201
    assert requests.delete(tickets, headers=admin, timeout=10).json()["revoked"] == 2
    assert requests.post(tickets, headers=admin, timeout=10).status_code == 201
    assert requests.delete(tickets, headers=admin, timeout=10).json()["revoked"] == 1
    assert requests.delete(tickets, headers=admin, timeout=10).json()["revoked"] == 0

    page.reload()
    page.assert_signed_in(username)
    shown = activity(page)
    assert [(a["type"], a["text"]) for a in shown[:8]] == [
        ("enrollment_ticket.revoked", "Enrollment link revoked"),
        ("enrollment_ticket.issued", "Enrollment link issued (valid for 600 seconds)"),
        ("enrollment_ticket.revoked", "2 enrollment links revoked"),
        ("enrollment_ticket.issued", "Enrollment link issued (valid for 600 seconds)"),
        ("enrollment_ticket.issued", "Enrollment link issued (valid for 600 seconds)"),
        ("device_key.renamed", "Device key name removed"),
        ("device_key.renamed", f"Device key renamed to “{NEW_NAME}”"),
        ("device_key.enrolled", "Device key added"),
    ], shown
    assert all(f"by admin key “{key_name}”" in a["meta"] for a in shown[:5]), shown[:5]
    page.sign_out()

