"""Apache with Debian's mod_auth_openidc protecting a page, Latchkey the provider: Chromium (a virtual authenticator
holding the person's passkey) opens the page, lands on Latchkey's sign-in page, signs in with the passkey, comes
back and sees the claims Apache got (`OIDC_CLAIM_*`, echoed by a server-side include). Two tenants, each the
issuer of its own Apache site: a passkey of one tenant signs in on its site, and does not on the other's. On SQLite and
on PostgreSQL."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import LatchkeyServer, free_port
from test_browser import STEP_TIMEOUT, driver, fresh_authenticator, page_scripts  # noqa: F401 (fixtures)
from test_browser_tenants import TenantPage, tenant_site
from test_postgres import SERVER_URL, SKIPPED, psql, with_database
from test_tenants import cli, make_tenant

APACHE = os.environ.get("LATCHKEY_E2E_APACHE", "/usr/sbin/apache2")
MODULES = Path("/usr/lib/apache2/modules")

CLAIMS_PAGE = """<!doctype html>
<title>Protected</title>
<p id="user"><!--#echo var="OIDC_CLAIM_preferred_username" --></p>
<p id="name"><!--#echo var="OIDC_CLAIM_name" --></p>
<p id="amr"><!--#echo var="OIDC_CLAIM_amr" --></p>
<p id="acr"><!--#echo var="OIDC_CLAIM_acr" --></p>
<p id="iss"><!--#echo var="OIDC_CLAIM_iss" --></p>
"""


class ApacheSite:
    """One Apache process whose /protected/ only a signed-in person of `issuer` may read."""

    def __init__(self, issuer: str, metadata_url: str, client_id: str, secret: str, port: int, host: str = "localhost"):
        self.port = port
        self.origin = f"http://{host}:{port}"
        self.redirect_uri = f"{self.origin}/protected/redirect_uri"
        self.dir = Path(tempfile.mkdtemp(prefix="latchkey-e2e-apache-"))
        root = self.dir / "htdocs" / "protected"
        root.mkdir(parents=True)
        (root / "index.shtml").write_text(CLAIMS_PAGE)
        for path in [self.dir, self.dir / "htdocs", root]:
            path.chmod(0o755)
        (root / "index.shtml").chmod(0o644)
        running_as_root = os.geteuid() == 0
        modules = ["mpm_event", "authn_core", "authz_core", "authz_user", "mime", "include", "dir", "auth_openidc"]
        config = "\n".join([
            *(f"LoadModule {name}_module {MODULES}/mod_{name}.so" for name in modules),
            f"ServerRoot {self.dir}",
            "TypesConfig /etc/mime.types",
            "ServerName localhost",
            f"Listen 127.0.0.1:{port}",
            f"PidFile {self.dir}/httpd.pid",
            f"DefaultRuntimeDir {self.dir}",
            f"Mutex file:{self.dir} default",
            f"ErrorLog {self.dir}/error.log",
            "LogLevel warn auth_openidc:info",
            *(["User nobody", "Group nogroup"] if running_as_root else []),
            f"DocumentRoot {self.dir}/htdocs",
            "DirectoryIndex index.shtml",
            "AddType text/html .shtml",
            "AddOutputFilter INCLUDES .shtml",
            f"OIDCProviderMetadataURL {metadata_url}",
            f"OIDCClientID {client_id}",
            f"OIDCClientSecret {secret}",
            f"OIDCRedirectURI {self.redirect_uri}",
            f"OIDCCryptoPassphrase {uuid.uuid4().hex}",
            'OIDCScope "openid profile"',
            "OIDCPKCEMethod S256",
            "OIDCProviderTokenEndpointAuth client_secret_basic",
            "OIDCStateInputHeaders none",
            "<Location /protected/>",
            "  AuthType openid-connect",
            "  Require valid-user",
            "  Options +Includes",
            "</Location>",
            "",
        ])
        (self.dir / "httpd.conf").write_text(config)
        self.proc = subprocess.Popen([APACHE, "-f", str(self.dir / "httpd.conf"), "-DFOREGROUND"], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.dir / "stderr.log", "wb"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("apache2 exited during startup:\n" + self.logs())
            try:
                requests.get(f"http://127.0.0.1:{port}/", timeout=2)
                return
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError("apache2 did not start:\n" + self.logs())

    def logs(self) -> str:
        return "\n".join(path.read_text(errors="replace")[-4000:] for path in (self.dir / "stderr.log", self.dir / "error.log") if path.exists())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgres"])
def two_tenant_sites(request):
    """A server with tenants `north` and `south` (by host: north.localhost, south.localhost), each the issuer of its
    own Apache site (on localhost, ports of their own)."""
    if not (Path(APACHE).exists() and (MODULES / "mod_auth_openidc.so").exists()):
        pytest.fail("Apache and mod_auth_openidc are needed: apt-get install apache2 libapache2-mod-auth-openidc")
    env, database = {}, None
    if request.param == "postgres":
        if SKIPPED:
            pytest.skip("LATCHKEY_TEST_SKIP_POSTGRES is set")
        if not SERVER_URL:
            pytest.fail("the PostgreSQL run needs a server: run it with `scripts/test`, or set LATCHKEY_TEST_POSTGRES_URL")
        database = "latchkey_e2e_apache_" + uuid.uuid4().hex[:12]
        psql(SERVER_URL, f"CREATE DATABASE {database}")
        env["LATCHKEY_DATABASE"] = with_database(SERVER_URL, database)
    server = LatchkeyServer(f"apache-openid-{request.param}", env)
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    server.start()
    sites = {}
    try:
        for tenant in ("north", "south"):
            issuer = f"http://{tenant}.localhost:{server.port}"
            make_tenant(server, operator, tenant, tokenIssuer=issuer)
            key = cli(server, "admin-keys", "create", "--tenant", tenant, "--name", "apache")
            port = free_port()
            # The admin API is the tenant's on its host.
            reply = requests.post(server.url + "/admin/v1/oauth-clients", timeout=15,
                                  headers={"Authorization": f"Bearer {key}", "Host": f"{tenant}.localhost:{server.port}"},
                                  json={"name": f"{tenant} intranet", "redirectURIs": [f"http://localhost:{port}/protected/redirect_uri"]})
            assert reply.status_code == 201, reply.text
            client = reply.json()["client"]
            sites[tenant] = (issuer, ApacheSite(issuer, f"{issuer}/.well-known/openid-configuration", client["clientID"],
                                                client["clientSecret"], port))
        yield server, sites
    finally:
        for _, site in sites.values():
            site.stop()
        server.stop()
        server.cleanup()
        if database:
            psql(SERVER_URL, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def sign_in_through_apache(drv, site: ApacheSite) -> None:
    drv.get(site.origin + "/protected/")
    WebDriverWait(drv, STEP_TIMEOUT).until(lambda d: d.find_elements(By.ID, "oidc-sign-in-button"))
    drv.find_element(By.ID, "oidc-sign-in-button").click()


def test_apache_with_mod_auth_openidc_signs_people_in_per_tenant(driver, two_tenant_sites):  # noqa: F811
    server, sites = two_tenant_sites
    north_issuer, north_site = sites["north"]
    south_issuer, south_site = sites["south"]

    # A person of the north tenant, with a passkey made on the north's own page.
    fresh_authenticator(driver)
    page = TenantPage(driver, tenant_site(server, "north")).open()
    username = "intranet-" + uuid.uuid4().hex[:8]
    page.fill("username", username)
    page.fill("displayName", "Intranet Person")
    page.click_ok("register")
    page.sign_out()
    driver.delete_all_cookies()

    # The north's Apache: to Latchkey's page, a passkey, back with the claims.
    sign_in_through_apache(driver, north_site)
    try:
        WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.current_url.startswith(north_site.origin + "/protected/")
                                                  and d.find_elements(By.ID, "user"))
    except Exception:
        raise AssertionError(f"at {driver.current_url}: {driver.page_source[:1500]}\n{north_site.logs()}")
    assert driver.find_element(By.ID, "user").text == username
    assert driver.find_element(By.ID, "name").text == "Intranet Person"
    assert driver.find_element(By.ID, "iss").text == north_issuer
    assert "hwk" in driver.find_element(By.ID, "amr").text and driver.find_element(By.ID, "acr").text == "phrh"

    # The south's Apache: its issuer's page finds no passkey of its own (the north's is for another RP ID), and
    # the browser never reaches the south's protected page.
    sign_in_through_apache(driver, south_site)
    WebDriverWait(driver, STEP_TIMEOUT).until(lambda d: d.find_element(By.ID, "oidc-status").get_attribute("data-kind") == "error")
    assert driver.current_url.startswith(south_issuer + "/oidc/authorize")
    assert not driver.find_elements(By.ID, "user")
