"""Chromium on two tenants' origins (`shop.localhost` and `bank.localhost`, which Chromium serves from loopback):
the page registers and signs in on each, each passkey is made for its tenant's RP ID, and a tenant's page can
sign in only with its own passkey: with the bank's passkey gone from the authenticator, the bank's page finds
none, though the shop's is still there and still signs in to the shop."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import requests
from selenium.webdriver.common.by import By

from test_browser import Page, driver, fresh_authenticator, page_scripts, virtual_credentials  # noqa: F401 (fixtures)
from test_tenants import cli, make_tenant
from conftest import LatchkeyServer


class TenantPage(Page):
    """The page at a tenant's origin; the server is asked about its session at that tenant's host."""

    def server_session(self):
        r = requests.get(self.srv.url + "/session", cookies=self.cookies(), headers={"Host": self.srv.host}, timeout=10)
        return r.status_code, r.json()


def tenant_site(server: LatchkeyServer, tenant_id: str):
    host = f"{tenant_id}.localhost:{server.port}"
    return SimpleNamespace(origin=f"http://{host}", url=server.url, host=host)


@pytest.fixture
def two_tenants():
    server = LatchkeyServer("browser-tenants")
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    server.start()
    for tenant_id in ("shop", "bank"):
        make_tenant(server, operator, tenant_id, rpName=f"The {tenant_id.title()} <b>Ltd</b>")
    yield tenant_site(server, "shop"), tenant_site(server, "bank")
    server.stop()
    server.cleanup()


# Notes every fetch the page makes and how it was answered, in sessionStorage (it outlives a reload).
RECORD_FETCHES_JS = """
(() => {
  const real = window.fetch.bind(window);
  window.fetch = async (resource, init) => {
    const response = await real(resource, init);
    const seen = JSON.parse(sessionStorage.getItem('fetches') || '[]');
    seen.push([(init && init.method) || 'GET', String(resource), response.status]);
    sessionStorage.setItem('fetches', JSON.stringify(seen));
    return response;
  };
})();
"""


def fetches(driver) -> list:
    """The page's fetches so far, [method, path, status] each; forgets them."""
    seen = driver.execute_script("const s = sessionStorage.getItem('fetches') || '[]'; sessionStorage.removeItem('fetches'); return JSON.parse(s);")
    return [tuple(entry) for entry in seen]


def test_each_tenants_page_is_named_after_its_tenant_and_asks_nothing_that_fails_when_signed_out(
        driver, two_tenants, page_scripts):  # noqa: F811
    """A signed-out page load, and a sign-out, ask GET /site (never a 401) and not GET /session, so the
    browser's console shows no failed request; each tenant's page shows its own `rpName`, as text."""
    page_scripts(RECORD_FETCHES_JS)
    shop_site, bank_site = two_tenants
    fresh_authenticator(driver)
    shop = TenantPage(driver, shop_site).open()
    assert shop.el("site-name").text == "The Shop <b>Ltd</b>"
    assert driver.title == "The Shop <b>Ltd</b> – passkeys"
    assert driver.find_elements(By.CSS_SELECTOR, "#site-name *") == []
    loaded = fetches(driver)
    assert ("GET", "/site", 200) in loaded and all(status < 400 for _, _, status in loaded), loaded
    assert not any(path == "/session" for _, path, _ in loaded), loaded

    shop.fill("username", "carol")
    shop.click_ok("register")
    shop.assert_signed_in("carol")
    shop.reload()
    shop.assert_signed_in("carol")  # signed in: /site says so, and /session says who
    assert ("GET", "/session", 200) in fetches(driver)
    shop.sign_out()
    signed_out = fetches(driver)
    assert all(status < 400 for _, _, status in signed_out), signed_out

    bank = TenantPage(driver, bank_site).open()
    assert bank.el("site-name").text == "The Bank <b>Ltd</b>"


def test_each_tenants_page_registers_and_signs_in_with_its_own_passkey_only(driver, two_tenants):  # noqa: F811
    shop_site, bank_site = two_tenants
    fresh_authenticator(driver)
    shop = TenantPage(driver, shop_site).open()
    shop.fill("username", "alice")
    shop.fill("displayName", "Alice at the shop")
    shop.click_ok("register")
    shop.assert_signed_in("alice")
    bank = TenantPage(driver, bank_site).open()
    bank.assert_signed_out()
    bank.fill("username", "alice")
    bank.fill("displayName", "Alice at the bank")
    bank.click_ok("register")
    bank.assert_signed_in("alice")

    credentials = virtual_credentials(driver)
    by_rp = {credential.rp_id: credential_id for credential_id, credential in credentials.items()}
    assert set(by_rp) == {"shop.localhost", "bank.localhost"}, credentials
    shop_id, bank_id = by_rp["shop.localhost"], by_rp["bank.localhost"]
    assert credentials[shop_id].user_handle != credentials[bank_id].user_handle, "two tenants' alices are two people"

    # Usernameless sign-in on the bank's page uses the bank's passkey, never the shop's.
    bank.sign_out()
    shop_count = credentials[shop_id].sign_count
    bank.click_ok("signin-discoverable")
    bank.assert_signed_in("alice")
    after = virtual_credentials(driver)
    assert after[bank_id].sign_count > credentials[bank_id].sign_count and after[shop_id].sign_count == shop_count

    # Without its own passkey the bank's page finds none: the shop's is not the bank's.
    bank.sign_out()
    driver.remove_credential(next(c.id for c in driver.get_credentials() if c.rp_id == "bank.localhost"))
    state, text = bank.click("signin-discoverable")
    assert state != "ok", text
    bank.assert_signed_out()
    shop = TenantPage(driver, shop_site).open()
    shop.click_ok("signin-discoverable")
    shop.assert_signed_in("alice")
