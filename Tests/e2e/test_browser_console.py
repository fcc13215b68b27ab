"""The operator console on the admin listener, in Chromium with a virtual authenticator and over HTTP.

An operator enrolls from the link `latchkey operators add` prints, signs in with the passkey, sees the overview's
charts drawn from a seeded day of traffic, finds a user and removes their passkey (whose next sign-in is then
refused), and walks the main actions with the keyboard only; a screenshot of every view is saved (in
`$LATCHKEY_TEST_ARTIFACTS`, else the server's folder) and checked not to be blank. Over HTTP: the console's routes
refuse a user's session, an admin key (as a cookie or a bearer), a foreign origin and a change without the CSRF
token, and the console is absent from the main listener while the admin API has a listener of its own."""

from __future__ import annotations

import os
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
import requests

from conftest import LATCHKEY_BIN, LatchkeyServer, free_port
from softauthn import SoftAuthenticator, b64url_decode
from test_browser import driver, fresh_authenticator, page_scripts  # noqa: F401 (fixtures)
from test_http_api import assert_ok, register, sign_in
from test_tenants import cli, make_tenant

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

WAIT = 20
# An AAGUID the provider list names, so the provider mix has a name beside "unknown".
APPLE_PASSWORDS = bytes.fromhex("fbfc3007154e4ecc8c0b6e020557d7bd")


class Console:
    """A server with an admin listener, an admin key, and the console's URL on that listener."""

    def __init__(self):
        self.admin_port = free_port()
        self.server = LatchkeyServer("console", {"LATCHKEY_ADMIN_ADDRESS": f"127.0.0.1:{self.admin_port}"})
        self.origin = f"http://localhost:{self.admin_port}"
        self.admin_url = f"http://127.0.0.1:{self.admin_port}"
        self.admin_key = cli(self.server, "admin-keys", "create", "--name", "seed").split()[-1]
        self.server.start()

    def admin(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.admin_key}"}
        return requests.request(method, self.admin_url + path, headers=headers, timeout=15, **kwargs)

    def enrollment_link(self, name: str) -> str:
        printed = cli(self.server, "operators", "add", name)
        link = printed.splitlines()[-1]
        assert link.startswith(self.origin + "/console/#enroll=lk_ticket_"), printed
        return link


@pytest.fixture(scope="module")
def console():
    instance = Console()
    yield instance
    instance.server.stop()
    instance.server.cleanup()


def artifacts(console: Console) -> Path:
    folder = Path(os.environ.get("LATCHKEY_TEST_ARTIFACTS", "")) if os.environ.get("LATCHKEY_TEST_ARTIFACTS") \
        else Path(__file__).resolve().parents[2] / ".build" / "test-artifacts" / "console"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def png_colours(png: bytes) -> int:
    """How many distinct pixel values a screenshot has (8-bit RGB or RGBA, any filter): a blank page has one."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat, width, height, channels = 8, b"", 0, 0, 4
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        data = png[position + 8:position + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8, depth
            channels = {2: 3, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += data
        position += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    seen = set()
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, up_left = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - up_left
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 0xFF
        if row % 8 == 0:
            for x in range(0, width, 4):
                seen.add(bytes(line[x * channels:x * channels + 3]))
        previous = line
    return len(seen)


def screenshot(drv, console: Console, name: str) -> None:
    drv.execute_script("document.getElementById('toast').textContent = ''")
    png = drv.get_screenshot_as_png()
    (artifacts(console) / f"{name}.png").write_bytes(png)
    assert png_colours(png) > 8, f"the {name} screenshot is blank"


def visible(drv, view: str) -> None:
    WebDriverWait(drv, WAIT).until(lambda d: d.execute_script(f"return !document.getElementById('view-{view}').hidden"))


def toast(drv) -> str:
    WebDriverWait(drv, WAIT).until(lambda d: d.find_element(By.ID, "toast").text.strip() != "")
    return drv.find_element(By.ID, "toast").text


def seed_traffic(console: Console) -> dict:
    """A day of traffic: registrations on two providers, named and usernameless sign-ins, a refused one."""
    server = console.server
    people = {}
    for index, name in enumerate(["ana", "ben", "chloe", "dev", "victim"]):
        auth = SoftAuthenticator(origin=server.origin, aaguid=APPLE_PASSWORDS if index % 2 == 0 else bytes(16),
                                 backup_eligible=index % 2 == 0, backed_up=index % 2 == 0)
        client, _, cred, _ = register(server, auth, name)
        people[name] = (auth, b64url_decode(cred["id"]))
    for name in ["ana", "ben", "chloe", "ana"]:
        auth, _ = people[name]
        _, _, _, reply = sign_in(server, auth, name)
        assert_ok(reply)
    auth, _ = people["dev"]
    _, _, _, reply = sign_in(server, auth, None)
    assert_ok(reply)
    assert_ok(console.admin("PATCH", "/admin/v1/users/dev", json={"disabled": True}))
    _, _, _, refused = sign_in(server, auth, "dev")
    assert refused.status_code == 403, refused.text
    return people


def test_an_operator_enrolls_signs_in_sees_the_overview_and_removes_a_passkey(driver, console):  # noqa: F811
    people = seed_traffic(console)
    fresh_authenticator(driver)
    driver.set_window_size(1280, 1000)
    driver.get(console.enrollment_link("ops"))
    visible(driver, "enroll")
    screenshot(driver, console, "enroll")
    driver.find_element(By.ID, "enroll").click()
    visible(driver, "overview")
    WebDriverWait(driver, WAIT).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#charts section")) >= 6)
    assert "Signed in as ops" in driver.find_element(By.ID, "who").text

    # The charts are drawn from the day's traffic: bars for sign-ins, a named provider, the refusal's reason.
    sign_ins = driver.find_element(By.CSS_SELECTOR, "#charts section[aria-label='Sign-ins a day']")
    assert len(sign_ins.find_elements(By.CSS_SELECTOR, "svg rect")) >= 2, "succeeded and refused bars today"
    charts_text = driver.find_element(By.ID, "charts").get_attribute("textContent")
    assert "Apple Passwords" in charts_text and "account disabled" in charts_text and "accountDisabled" not in charts_text, charts_text[:2000]
    cards = driver.find_element(By.ID, "cards").text
    assert "Sign-ins" in cards and "Passkey adoption" in cards, cards
    stats = assert_ok(console.admin("GET", "/admin/v1/stats"))
    today = stats["days"][-1]
    assert today["signIns"]["succeeded"] == 5 and today["signIns"]["refused"] == 1, today
    assert today["registrations"] == 5 and today["registrationsByProvider"]["Apple Passwords"] == 3, today
    screenshot(driver, console, "overview")
    driver.set_window_size(390, 900)
    screenshot(driver, console, "overview-phone")
    driver.set_window_size(1280, 1000)
    # Dark mode follows the system's: the page turns dark, its charts stay drawn.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        background = driver.execute_script("return getComputedStyle(document.documentElement).backgroundColor")
        assert background == "rgb(17, 20, 24)", background
        screenshot(driver, console, "overview-dark")
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    # Signed out, the passkey signs the operator in again.
    driver.find_element(By.ID, "sign-out").click()
    visible(driver, "sign-in")
    screenshot(driver, console, "sign-in")
    driver.find_element(By.ID, "sign-in").click()
    visible(driver, "overview")

    # A user found by name, their passkey removed with a confirmation.
    driver.get(console.origin + "/console/#users")
    visible(driver, "users")
    WebDriverWait(driver, WAIT).until(lambda d: "victim" in d.find_element(By.ID, "user-list").text)
    query = driver.find_element(By.ID, "user-query")
    query.clear()
    query.send_keys("victim", Keys.ENTER)
    WebDriverWait(driver, WAIT).until(lambda d: "Passkeys" in d.find_element(By.ID, "user-detail").text)
    assert "a passkey" in driver.find_element(By.ID, "user-detail").text, "the session its registration began"
    screenshot(driver, console, "user")
    detail = driver.find_element(By.ID, "user-detail")
    remove = next(b for b in detail.find_elements(By.TAG_NAME, "button") if b.text == "Remove")
    remove.click()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.getElementById('confirm').open"))
    driver.find_element(By.ID, "confirm-ok").click()
    assert "Passkey removed" in toast(driver)
    WebDriverWait(driver, WAIT).until(lambda d: "No passkey" in d.find_element(By.ID, "user-detail").text)

    # The removed passkey signs in no more; the removal is the operator's event.
    auth, credential_id = people["victim"]
    _, _, _, refused = sign_in(console.server, auth, None, credential=auth.credentials[credential_id])
    assert refused.status_code in (400, 401, 404), refused.text
    events = assert_ok(console.admin("GET", "/admin/v1/events?user=victim&type=passkey.removed"))["events"]
    assert events and events[0]["actor"] == {"type": "operator", "name": "ops"}, events

    for view in ["events", "deliveries", "keys"]:
        driver.get(console.origin + f"/console/#{view}")
        visible(driver, view)
        WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, f"view-{view}").find_elements(By.CSS_SELECTOR, "table, .empty"))
        screenshot(driver, console, view)


def test_an_operator_creates_a_user_with_a_link_and_sees_where_events_came_from(driver, console):  # noqa: F811
    """The Users view makes a user and their one-time enrollment link in one step; the link's ticket registers
    that user. The events name the client's address and its device in words, the full user agent as the title."""
    fresh_authenticator(driver)
    driver.get(console.enrollment_link("onboarding"))
    visible(driver, "enroll")
    driver.find_element(By.ID, "enroll").click()
    visible(driver, "overview")
    driver.get(console.origin + "/console/#users")
    visible(driver, "users")
    driver.find_element(By.CSS_SELECTOR, "#new-user-panel summary").click()
    for field, value in [("new-username", "Newcomer"), ("new-display-name", "Nia <i>Newcomer</i>"), ("new-external-id", "crm-42")]:
        driver.find_element(By.ID, field).send_keys(value)
    driver.find_element(By.CSS_SELECTOR, "#new-user button[type=submit]").click()
    assert "newcomer is created" in toast(driver)
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#enrollment-link code"))
    link = driver.find_element(By.CSS_SELECTOR, "#enrollment-link code").text
    assert link.startswith(console.server.origin + "/#ticket=lk_ticket_"), link
    detail = driver.find_element(By.ID, "user-detail").text
    assert "Nia <i>Newcomer</i>" in detail and "crm-42" in detail and "No passkey" in detail, detail
    user = assert_ok(console.admin("GET", "/admin/v1/users/newcomer"))["user"]
    assert (user["displayName"], user["externalId"]) == ("Nia <i>Newcomer</i>", "crm-42"), user
    created = assert_ok(console.admin("GET", "/admin/v1/events?user=newcomer&type=user.created"))["events"]
    assert created and created[0]["actor"] == {"type": "operator", "name": "onboarding"}, created
    options = assert_ok(requests.post(console.server.url + "/attestation/options",
                                      json={"enrollmentTicket": link.split("#ticket=", 1)[1]}, timeout=10))
    assert options["user"]["name"] == "newcomer", options

    # Groups and a contact, set on the user's page: a contact of neither form is refused, and the toast says why.
    driver.find_element(By.ID, "user-groups").send_keys("staff, team:ops")
    driver.find_element(By.ID, "user-contact").send_keys("not a contact")
    driver.find_element(By.CSS_SELECTOR, "#user-profile button[type=submit]").click()
    assert "contact" in toast(driver)
    contact = driver.find_element(By.ID, "user-contact")
    contact.clear()
    contact.send_keys("nia@example.com")
    driver.find_element(By.CSS_SELECTOR, "#user-profile button[type=submit]").click()
    assert "saved" in toast(driver)
    user = assert_ok(console.admin("GET", "/admin/v1/users/newcomer"))["user"]
    assert user["groups"] == ["staff", "team:ops"] and user["contact"] == {"kind": "email", "value": "nia@example.com"}, user
    WebDriverWait(driver, WAIT).until(lambda d: "nia@example.com (email, not verified)" in d.find_element(By.ID, "user-detail").text)

    # A username that is taken: the form says so and keeps what was typed.
    driver.find_element(By.CSS_SELECTOR, "#new-user-panel summary").click()
    driver.find_element(By.ID, "new-username").send_keys("newcomer")
    driver.find_element(By.CSS_SELECTOR, "#new-user button[type=submit]").click()
    assert "already registered" in toast(driver)
    assert driver.find_element(By.ID, "new-username").get_attribute("value") == "newcomer"

    # Where events came from: the seeding client's address and its device in words; the user agent as the title.
    driver.get(console.origin + "/console/#events")
    visible(driver, "events")
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view-events td.client"))
    cells = driver.find_elements(By.CSS_SELECTOR, "#view-events td.client")
    words = {cell.text for cell in cells}
    assert any(text.startswith("127.0.0.1") and "Chrome on Linux" in text for text in words), words
    titles = {cell.get_attribute("title") for cell in cells}
    assert any("HeadlessChrome" in (title or "") for title in titles), titles


def test_the_apps_view_lists_the_openid_clients_and_removes_one(driver, console):  # noqa: F811
    """The Apps view: the tenant's OpenID clients as the admin API made them (names as text), and one removed with a
    confirmation, which the admin API then no longer has."""
    made = console.admin("POST", "/admin/v1/oauth-clients", json={"name": "Grafana <b>ops</b>", "redirectURIs": ["https://grafana.example/login/generic_oauth"]})
    assert made.status_code == 201, made.text
    client = made.json()["client"]
    tv = console.admin("POST", "/admin/v1/oauth-clients", json={"name": "Lobby TV", "public": True, "redirectURIs": [], "deviceAuthorization": True})
    assert tv.status_code == 201, tv.text
    fresh_authenticator(driver)
    driver.get(console.enrollment_link("apps"))
    visible(driver, "enroll")
    driver.find_element(By.ID, "enroll").click()
    visible(driver, "overview")
    driver.get(console.origin + "/console/#apps")
    visible(driver, "apps")
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#app-list tbody tr"))
    rows = driver.find_elements(By.CSS_SELECTOR, "#app-list tbody tr")
    row = next(r for r in rows if client["clientID"] in r.text)
    assert "Grafana <b>ops</b>" in row.text and "confidential" in row.text and "https://grafana.example/login/generic_oauth" in row.text
    assert client["clientSecret"] not in driver.page_source
    device_row = next(r for r in rows if tv.json()["client"]["clientID"] in r.text)
    assert "public" in device_row.text and "devices" in device_row.text and "(devices only)" in device_row.text
    row.find_element(By.CSS_SELECTOR, "button.danger").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.getElementById('confirm').open"))
    driver.find_element(By.ID, "confirm-ok").click()
    assert "removed" in toast(driver)
    assert console.admin("GET", f"/admin/v1/oauth-clients/{client['clientID']}").status_code == 404

    # A new app registered from the view: its secret shown once, then listed without it.
    driver.find_element(By.CSS_SELECTOR, "#new-app-panel summary").click()
    driver.find_element(By.ID, "new-app-name").send_keys("Wiki")
    driver.find_element(By.ID, "new-app-redirects").send_keys("https://wiki.example/callback\nhttps://wiki.example/other")
    driver.find_element(By.CSS_SELECTOR, "#new-app input[name=offline]").click()
    driver.find_element(By.CSS_SELECTOR, "#new-app button[type=submit]").click()
    assert "registered" in toast(driver)
    secret = driver.find_element(By.ID, "app-client-secret").text
    assert secret.startswith("lk_secret_")
    listed = console.admin("GET", "/admin/v1/oauth-clients").json()["clients"]
    wiki = next(c for c in listed if c["name"] == "Wiki")
    assert wiki["redirectURIs"] == ["https://wiki.example/callback", "https://wiki.example/other"] and "offline_access" in wiki["scopes"]
    assert wiki["public"] is False and "clientSecret" not in wiki
    WebDriverWait(driver, WAIT).until(lambda d: any(wiki["clientID"] in r.text for r in d.find_elements(By.CSS_SELECTOR, "#app-list tbody tr")))


def test_an_operator_picks_a_tenant_and_manages_its_users(driver, console):  # noqa: F811
    """The tenant picker: a tenant's users, made and listed through the console, are that tenant's only."""
    operator = cli(console.server, "admin-keys", "create", "--operator", "--name", "tenants")
    made = requests.post(console.admin_url + "/admin/v1/tenants", headers={"Authorization": f"Bearer {operator}"}, timeout=15, json={
        "id": "shop", "rpID": "shop.localhost", "rpName": "The Shop", "hosts": ["shop.localhost"],
        "origins": [f"http://shop.localhost:{console.server.port}"]})
    assert made.status_code == 201, made.text
    shop_key = cli(console.server, "admin-keys", "create", "--tenant", "shop", "--name", "shop").split()[-1]
    assert console.admin("POST", "/admin/v1/users", json={"username": "regular"}).status_code in (201, 409)
    fresh_authenticator(driver)
    driver.get(console.enrollment_link("picker"))
    visible(driver, "enroll")
    driver.find_element(By.ID, "enroll").click()
    visible(driver, "overview")
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "tenant-choice").is_displayed())
    options = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#tenant-picker option")]
    assert options[0].endswith("(default)") and "The Shop (shop)" in options, options

    from selenium.webdriver.support.ui import Select
    Select(driver.find_element(By.ID, "tenant-picker")).select_by_value("shop")
    driver.get(console.origin + "/console/#users")
    visible(driver, "users")
    WebDriverWait(driver, WAIT).until(lambda d: "No users yet" in d.find_element(By.ID, "user-list").text)
    driver.execute_script("document.getElementById('new-user-panel').open = true")
    driver.find_element(By.ID, "new-username").clear()
    driver.find_element(By.ID, "new-username").send_keys("shopper")
    driver.find_element(By.CSS_SELECTOR, "#new-user button[type=submit]").click()
    assert toast(driver).startswith("shopper is created")
    link = WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.CSS_SELECTOR, "#enrollment-link code")).text
    assert link.startswith(f"http://shop.localhost:{console.server.port}/#ticket=lk_ticket_"), "the shop's own page"
    shop_user = requests.get(console.admin_url + "/t/shop/admin/v1/users/shopper", headers={"Authorization": f"Bearer {shop_key}"}, timeout=15)
    assert shop_user.status_code == 200, shop_user.text
    assert console.admin("GET", "/admin/v1/users/shopper").status_code == 404, "the default tenant has no such user"
    created = requests.get(console.admin_url + "/t/shop/admin/v1/events?type=user.created", headers={"Authorization": f"Bearer {shop_key}"}, timeout=15)
    assert created.json()["events"][0]["actor"] == {"type": "operator", "name": "picker"}, created.text

    # Back to the default tenant: its users, without the shop's.
    Select(driver.find_element(By.ID, "tenant-picker")).select_by_value("")
    visible(driver, "users")
    WebDriverWait(driver, WAIT).until(lambda d: "regular" in d.find_element(By.ID, "user-list").text)
    assert "shopper" not in driver.find_element(By.ID, "user-list").text
    driver.execute_script("sessionStorage.removeItem('tenant')")


def focused(drv) -> str:
    return drv.execute_script("const e = document.activeElement; return (e.id || '') + '|' + (e.textContent || '').trim().slice(0, 40)")


def tab_to(drv, wanted: str, limit: int = 60) -> None:
    """Presses Tab until the focused element's id or text is `wanted`."""
    for _ in range(limit):
        ActionChains(drv).send_keys(Keys.TAB).perform()
        identifier, text = focused(drv).split("|", 1)
        if wanted in (identifier, text):
            return
    raise AssertionError(f"Tab never reached {wanted!r}; last {focused(drv)!r}")


def test_the_main_actions_work_from_the_keyboard_alone(driver, console):  # noqa: F811
    fresh_authenticator(driver)
    driver.get(console.enrollment_link("keys"))
    visible(driver, "enroll")
    driver.find_element(By.TAG_NAME, "body").click()
    tab_to(driver, "enroll")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    visible(driver, "overview")
    # Overview's range, then a user found and their sessions ended, then the keys: Tab and Enter only.
    tab_to(driver, "7 days")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    WebDriverWait(driver, WAIT).until(
        lambda d: d.find_element(By.CSS_SELECTOR, ".range button[data-days='7']").get_attribute("aria-pressed") == "true")
    tab_to(driver, "Users")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    visible(driver, "users")
    tab_to(driver, "user-query")
    ActionChains(driver).send_keys("ana", Keys.ENTER).perform()
    WebDriverWait(driver, WAIT).until(lambda d: "End sessions" in d.find_element(By.ID, "user-detail").text)
    tab_to(driver, "End sessions")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.getElementById('confirm').open"))
    assert focused(driver).startswith("confirm-ok"), focused(driver)
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    assert "sessions ended" in toast(driver)
    tab_to(driver, "Keys")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    visible(driver, "keys")
    tab_to(driver, "Rotate signing key")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.getElementById('confirm').open"))
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    WebDriverWait(driver, WAIT).until(lambda d: not d.execute_script("return document.getElementById('confirm').open"))
    rotations = assert_ok(console.admin("GET", "/admin/v1/events?type=signing_key.rotated"))["events"]
    assert not any(e["actor"].get("type") == "operator" for e in rotations), "Escape cancels: nothing rotated"


# ---- over HTTP: what the console refuses ----------------------------------------------------------------------


def operator_session(console: Console, name: str) -> tuple[requests.Session, str]:
    """An operator enrolled over HTTP with a software passkey (user verification on): the session and CSRF token."""
    ticket = console.enrollment_link(name).split("#enroll=", 1)[1]
    http = requests.Session()
    origin = {"Origin": console.origin}
    options = assert_ok(http.post(console.admin_url + "/console/api/enroll/options", json={"enrollmentTicket": ticket}, headers=origin))
    auth = SoftAuthenticator(origin=console.origin)
    credential = auth.create(options)
    result = assert_ok(http.post(console.admin_url + "/console/api/enroll/result", json=credential, headers=origin))
    assert result["operator"] == name and "sessionToken" not in result, result
    session = assert_ok(http.get(console.admin_url + "/console/api/session"))
    return http, session["csrfToken"]


def test_the_console_refuses_what_is_not_an_operators_page(console):
    url = console.admin_url
    origin = console.origin
    # A user's session, as the console's cookie or as a bearer token: no operator's.
    auth = SoftAuthenticator(origin=console.server.origin)
    client, _, _, registered = register(console.server, auth, "plainuser")
    user_token = registered["sessionToken"]
    for cookies, headers in [({"latchkey_console_session": user_token}, {}), ({}, {"Authorization": f"Bearer {user_token}"}),
                             ({"latchkey_session": user_token}, {})]:
        r = requests.get(url + "/console/api/v1/stats", cookies=cookies, headers=headers, timeout=10)
        assert r.status_code == 401, (cookies, headers, r.text)
    # An admin key is for /admin/v1, not the console, whichever way it is sent.
    for cookies, headers in [({"latchkey_console_session": console.admin_key}, {}), ({}, {"Authorization": f"Bearer {console.admin_key}"})]:
        r = requests.get(url + "/console/api/v1/stats", cookies=cookies, headers=headers, timeout=10)
        assert r.status_code == 401, r.text

    http, csrf = operator_session(console, "guard")
    assert_ok(http.get(url + "/console/api/v1/stats"))
    change = url + "/console/api/v1/users/plainuser"
    body = {"displayName": "Renamed"}
    refusals = [
        ({"Origin": origin}, "CSRF token"),
        ({"Origin": origin, "X-Latchkey-CSRF": "not-the-token"}, "not this session"),
        ({"X-Latchkey-CSRF": csrf}, "no Origin"),
        ({"Origin": "http://evil.localhost", "X-Latchkey-CSRF": csrf}, "its own page only"),
        ({"Origin": origin, "X-Latchkey-CSRF": csrf, "Sec-Fetch-Site": "cross-site"}, "its own page only"),
    ]
    for headers, message in refusals:
        r = http.patch(change, json=body, headers=headers, timeout=10)
        assert r.status_code == 403 and message in r.json()["errorMessage"], (headers, r.text)
    assert assert_ok(console.admin("GET", "/admin/v1/users/plainuser"))["user"]["displayName"] != "Renamed", "nothing changed"
    r = http.get(url + "/console/api/v1/stats", headers={"Sec-Fetch-Site": "same-site"}, timeout=10)
    assert r.status_code == 403, "a sibling site's page reads nothing either"
    done = http.patch(change, json=body, headers={"Origin": origin, "X-Latchkey-CSRF": csrf}, timeout=10)
    assert_ok(done)
    events = assert_ok(console.admin("GET", "/admin/v1/events?user=plainuser&type=user.updated"))["events"]
    assert events[0]["actor"] == {"type": "operator", "name": "guard"}, events

    # The operator's session is no user's, and no admin key: the main listener and the admin API refuse it.
    operator_token = http.cookies.get("latchkey_console_session")
    assert operator_token
    assert requests.get(console.server.url + "/session", headers={"Authorization": f"Bearer {operator_token}"}, timeout=10).status_code == 401
    assert requests.get(url + "/admin/v1/stats", headers={"Authorization": f"Bearer {operator_token}"}, timeout=10).status_code == 401
    # An operator removed at the command line is signed out at once.
    leaver, leaver_csrf = operator_session(console, "leaver")
    assert "leaver\t1 passkey" in cli(console.server, "operators", "list")
    assert cli(console.server, "operators", "remove", "leaver") == "operator leaver removed"
    assert leaver.get(url + "/console/api/v1/stats", timeout=10).status_code == 401
    assert "leaver" not in cli(console.server, "operators", "list")

    # Signed out, the session is gone.
    assert_ok(http.delete(url + "/console/api/session", headers={"Origin": origin, "X-Latchkey-CSRF": csrf}, timeout=10))
    assert requests.get(url + "/console/api/v1/stats", cookies={"latchkey_console_session": operator_token}, timeout=10).status_code == 401

    # The main listener has no console while the admin API has a listener of its own.
    for path in ["/console/", "/console/console.js", "/console/api/session", "/console/api/v1/stats"]:
        assert requests.get(console.server.url + path, timeout=10).status_code == 404, path
    assert requests.get(url + "/console/console.js", timeout=10).status_code == 200
    # The WebAuthn JSON script is one file, which the site's page and the console's both load.
    shared = requests.get(url + "/console/webauthn-json.js", timeout=10)
    assert shared.status_code == 200 and shared.headers["Content-Type"].startswith("text/javascript"), shared.headers
    assert shared.content == requests.get(console.server.url + "/webauthn-json.js", timeout=10).content


def test_the_console_is_on_the_main_listener_when_the_admin_api_is_at_an_origin_of_its_own():
    server = LatchkeyServer("console-main").start()
    try:
        # Its own host (console.localhost, which resolves to loopback), so the site's pages share none of its cookies;
        # the site's hosts do not serve it.
        own = {"Host": f"console.localhost:{server.port}"}
        page = requests.get(server.url + "/console/", headers=own, timeout=10)
        assert page.status_code == 200 and "Latchkey console" in page.text
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
        assert requests.get(server.url + "/console/api/session", headers=own, timeout=10).status_code == 401
        assert requests.get(server.url + "/console/", timeout=10).status_code == 404
        console_origin = f"http://console.localhost:{server.port}"
        printed = cli(server, "operators", "add", "ops")
        assert f"{console_origin}/console/#enroll=lk_ticket_" in printed, printed
        ticket = printed.splitlines()[-1].split("#enroll=", 1)[1]
        http = requests.Session()
        headers = {"Origin": console_origin, "Host": f"console.localhost:{server.port}"}
        options = assert_ok(http.post(server.url + "/console/api/enroll/options", json={"enrollmentTicket": ticket}, headers=headers))
        assert options["rp"]["id"] == "console.localhost", options
        credential = SoftAuthenticator(origin=console_origin, rp_id="console.localhost").create(options)
        assert_ok(http.post(server.url + "/console/api/enroll/result", json=credential, headers=headers))
        assert_ok(http.get(server.url + "/console/api/v1/stats", headers={"Host": f"console.localhost:{server.port}"}))
    finally:
        server.stop()
        server.cleanup()


def test_a_console_origin_the_site_uses_is_refused():
    server = LatchkeyServer("console-shared-origin")
    for origin in (server.origin, ""):
        env = dict(server.env, LATCHKEY_CONSOLE_ORIGIN=origin)
        checked = subprocess.run([str(LATCHKEY_BIN), "check-config"], env=env, capture_output=True, text=True, timeout=60)
        if origin:
            assert checked.returncode == 78 and "the console needs an origin of its own" in checked.stderr, checked.stderr
        else:
            assert checked.returncode == 0, checked.stderr
            refused = subprocess.run([str(LATCHKEY_BIN), "operators", "add", "ops"], env=env, capture_output=True, text=True, timeout=60)
            assert refused.returncode == 78 and "no console" in refused.stderr, refused.stderr
    server.cleanup()


def test_without_an_admin_listener_the_consoles_host_serves_the_console_only_and_no_other_host_serves_it():
    """OPERATIONS.md: the console's origin is its own also on the main listener. Its host serves the console (and the
    server's probes), never the site; the site's hosts never serve the console; and with the default tenant's `hosts`
    set, the console's host still reaches it (it was refused 421 as a host no tenant lists)."""
    server = LatchkeyServer("console-main-listener", {"LATCHKEY_HOSTS": "localhost,127.0.0.1"})
    link = cli(server, "operators", "add", "ops").splitlines()[-1]
    assert link.startswith(f"http://console.localhost:{server.port}/console/#enroll=lk_ticket_"), link
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    server.start()
    try:
        make_tenant(server, operator, "shop")
        def get(host: str, path: str) -> requests.Response:
            return requests.get(server.url + path, headers={"Host": f"{host}:{server.port}"}, timeout=15)

        page = get("console.localhost", "/console/")
        assert page.status_code == 200 and "<html" in page.text.lower(), page.text[:200]
        assert get("console.localhost", "/healthz").status_code == 200
        for host, path in [("console.localhost", "/session"), ("console.localhost", "/"), ("localhost", "/console/"),
                           ("localhost", "/console/api/session")]:
            refused = get(host, path)
            assert refused.status_code == 404 and "console" in refused.json()["errorMessage"], (host, path, refused.text)
        assert get("localhost", "/session").status_code == 401, "the site is served on its own host"
        # The console's API for a tenant its picker chose: on the console's host, through the tenant's path prefix
        # (it asks for the operator's session); on any other host, refused.
        chosen = get("console.localhost", "/t/shop/console/api/v1/stats")
        assert chosen.status_code == 401 and "operator" in chosen.json()["errorMessage"], chosen.text
        for host in ["localhost", "shop.localhost"]:
            refused = get(host, "/t/shop/console/api/v1/stats")
            assert refused.status_code == 404 and "console" in refused.json()["errorMessage"], (host, refused.text)
        assert get("console.localhost", "/t/shop/session").status_code == 404, "the console's host serves no tenant's site"
    finally:
        server.stop()
        server.cleanup()
