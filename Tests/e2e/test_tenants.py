"""Several relying parties in one server (TENANTS.md): tenants made through `/admin/v1/tenants` with an operator key,
chosen by the request's host or a `/t/{tenant}/` path prefix, and kept apart on both stores: a passkey, session,
ticket, token or admin key of one tenant is refused by another, lists and events show only the tenant's own, and
two tenants with the same username are two people."""

from __future__ import annotations

import base64
import json
import subprocess
import time

import pytest
import requests
from cryptography.hazmat.primitives import serialization

from conftest import LATCHKEY_BIN, LatchkeyServer
from softauthn import SoftAuthenticator, b64url, b64url_decode
from test_app_attest import APP_ID, AppAttestKey, StandInCA
from test_device_keys import DeviceKey
from test_http_api import assert_ok
from test_postgres import postgres_url  # noqa: F401 (a fixture)


def cli(server: LatchkeyServer, *arguments: str) -> str:
    """Runs `latchkey ARGUMENTS` against the server's store; returns its standard output."""
    done = subprocess.run([str(LATCHKEY_BIN), *arguments], env=server.env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


class Tenant:
    """One tenant of a server, reached through its host (or, with `prefix`, through the path)."""

    def __init__(self, server: LatchkeyServer, tenant_id: str, *, prefix: bool = False):
        self.server, self.id = server, tenant_id
        self.host = f"{tenant_id}.localhost"
        self.origin = f"http://{self.host}:{server.port}"
        self.prefix = f"/t/{tenant_id}" if prefix else ""
        self.http = requests.Session()

    def url(self, path: str) -> str:
        return self.server.url + self.prefix + path

    def request(self, method: str, path: str, body=None, headers=None) -> requests.Response:
        sent = {"Host": f"{self.host}:{self.server.port}"}
        sent.update(headers or {})
        return self.http.request(method, self.url(path), json=body, headers=sent, timeout=15)

    def authenticator(self) -> SoftAuthenticator:
        return SoftAuthenticator(origin=self.origin, rp_id=self.host)

    def register(self, auth: SoftAuthenticator, username: str) -> dict:
        options = assert_ok(self.request("POST", "/attestation/options", {"username": username, "displayName": username}))
        return assert_ok(self.request("POST", "/attestation/result", auth.create(options)))

    def sign_in(self, auth: SoftAuthenticator, username: str | None = None, credential=None) -> requests.Response:
        options = assert_ok(self.request("POST", "/assertion/options", {"username": username} if username else {}))
        return self.request("POST", "/assertion/result", auth.get(options, credential))


def make_tenant(server: LatchkeyServer, operator: str, tenant_id: str, **members) -> dict:
    document = {"id": tenant_id, "rpID": f"{tenant_id}.localhost", "hosts": [f"{tenant_id}.localhost"],
                "origins": [f"http://{tenant_id}.localhost:{server.port}"], **members}
    reply = requests.post(server.url + "/admin/v1/tenants", json=document, headers={"Authorization": "Bearer " + operator}, timeout=15)
    assert reply.status_code == 201, reply.text
    return reply.json()["tenant"]


def token_claims(token: str) -> tuple[dict, dict]:
    header, payload = (json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))) for part in token.split(".")[:2])
    return header, payload


@pytest.fixture(params=["sqlite", "postgres"])
def store_env(request):
    """The environment of a server on each store: SQLite (the server's own file) and a new PostgreSQL database."""
    if request.param == "sqlite":
        return {}
    return {"LATCHKEY_DATABASE": request.getfixturevalue("postgres_url")}


def serve(name: str, env: dict) -> tuple[LatchkeyServer, str]:
    """A server and an operator key made before it started."""
    server = LatchkeyServer(name, env)
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    assert operator.startswith("lk_operator_")
    server.start()
    return server, operator


def test_two_tenants_keep_everything_apart(store_env):
    server, operator = serve("tenants", store_env)
    try:
        shop_made = make_tenant(server, operator, "shop", rpName="Shop")
        assert (shop_made["id"], shop_made["rpID"], shop_made["hosts"]) == ("shop", "shop.localhost", ["shop.localhost"])
        make_tenant(server, operator, "bank")
        shop, bank = Tenant(server, "shop"), Tenant(server, "bank")
        shop_admin = {"Authorization": "Bearer " + cli(server, "admin-keys", "create", "--tenant", "shop", "--name", "backend")}
        bank_admin = {"Authorization": "Bearer " + cli(server, "admin-keys", "create", "--tenant", "bank", "--name", "backend")}

        # The same username in two tenants is two people, each with their own passkey.
        shop_auth, bank_auth = shop.authenticator(), bank.authenticator()
        at_shop = shop.register(shop_auth, "alice")
        at_bank = bank.register(bank_auth, "alice")
        _, shop_claims = token_claims(at_shop["idToken"])
        _, bank_claims = token_claims(at_bank["idToken"])
        assert shop_claims["sub"] != bank_claims["sub"]
        assert (shop_claims["iss"], shop_claims["aud"]) == (shop.origin, "shop.localhost")
        signed_in = assert_ok(shop.sign_in(shop_auth, "alice"))
        assert signed_in["username"] == "alice"

        # A passkey of one tenant does not sign in to the other, named or usernameless, even with the RP ID it was
        # made for (the other tenant's RP ID is checked first, then the passkey is unknown there).
        shop_credential = next(iter(shop_auth.credentials.values()))
        foreign = SoftAuthenticator(origin=bank.origin, rp_id="bank.localhost", credentials={shop_credential.id: shop_credential})
        for username in ("alice", None):
            refused = bank.sign_in(foreign, username, shop_credential)
            assert 400 <= refused.status_code < 500, refused.text
        # The shop's page and API at the shop's host only: its origin is not the bank's.
        wrong_origin = bank.sign_in(shop_auth, None, shop_credential)
        assert 400 <= wrong_origin.status_code < 500, wrong_origin.text

        # A session of one tenant is not a session of the other, by cookie or bearer token.
        # (The sign-in replaced the registration's session, whose cookie it carried.)
        bearer = {"Authorization": "Bearer " + signed_in["sessionToken"]}
        assert shop.request("GET", "/session", headers=bearer).status_code == 200
        assert bank.request("GET", "/session", headers=bearer).status_code == 401
        assert requests.get(server.url + "/session", headers=bearer, timeout=10).status_code == 401, "nor the default tenant's"

        # The token: signed with the tenant's own key, which only its key set publishes.
        shop_kid = token_claims(at_shop["idToken"])[0]["kid"]
        shop_keys = {key["kid"] for key in assert_ok_keys(shop.request("GET", "/.well-known/jwks.json"))}
        bank_keys = {key["kid"] for key in assert_ok_keys(bank.request("GET", "/.well-known/jwks.json"))}
        assert shop_kid in shop_keys and shop_kid not in bank_keys and not shop_keys & bank_keys
        # Rotating the shop's key adds one to the shop's key set only.
        rotated = cli(server, "signing-keys", "rotate", "--tenant", "shop", "--activate-in", "0")
        assert "is published now" in rotated, rotated
        shop_rotated = [key["kid"] for key in assert_ok_keys(shop.request("GET", "/.well-known/jwks.json"))]
        assert len(shop_rotated) == len(shop_keys) + 1 and set(shop_rotated) > shop_keys, shop_rotated
        assert {key["kid"] for key in assert_ok_keys(bank.request("GET", "/.well-known/jwks.json"))} == bank_keys

        # Admin keys are their tenant's: lists, events and changes show and reach only its own.
        shop_users = assert_ok(shop.request("GET", "/admin/v1/users", headers=shop_admin))["users"]
        assert [user["userHandle"] for user in shop_users] == [shop_claims["sub"]]
        assert shop.request("GET", "/admin/v1/users", headers=bank_admin).status_code == 401
        assert bank.request("GET", "/admin/v1/users", headers=shop_admin).status_code == 401
        assert requests.get(server.url + "/admin/v1/users", headers=shop_admin, timeout=10).status_code == 401
        bank_events = assert_ok(bank.request("GET", "/admin/v1/events?limit=100", headers=bank_admin))["events"]
        assert bank_events and all(event.get("user", {}).get("userHandle") in (None, bank_claims["sub"]) for event in bank_events)
        assert bank.request("DELETE", "/admin/v1/users/alice/sessions", headers=shop_admin).status_code == 401

        # An enrollment ticket is its tenant's.
        ticket = shop.request("POST", "/admin/v1/users/alice/enrollment-tickets", headers=shop_admin)
        assert ticket.status_code == 201, ticket.text
        spent_elsewhere = bank.request("POST", "/attestation/options", {"enrollmentTicket": ticket.json()["ticket"]})
        assert 400 <= spent_elsewhere.status_code < 500, spent_elsewhere.text

        # Operator keys manage tenants and nothing else; admin keys cannot manage tenants.
        assert requests.get(server.url + "/admin/v1/tenants", headers=shop_admin, timeout=10).status_code == 401
        assert shop.request("GET", "/admin/v1/users", headers={"Authorization": "Bearer " + operator}).status_code == 401

        # The path prefix reaches the same tenant from any host.
        by_path = Tenant(server, "shop", prefix=True)
        assert by_path.request("GET", "/session", headers=bearer).status_code == 200
        unknown = requests.get(server.url + "/t/nowhere/session", timeout=10)
        assert unknown.status_code == 404 and unknown.json()["status"] == "failed", unknown.text

        # Removing a tenant removes what it kept: its passkey and session are gone, its host is the default's again.
        removed = requests.delete(server.url + "/admin/v1/tenants/shop", headers={"Authorization": "Bearer " + operator}, timeout=10)
        assert_ok(removed)
        assert shop.request("GET", "/session", headers=bearer).status_code == 401
        assert requests.get(server.url + "/admin/v1/tenants/shop", headers={"Authorization": "Bearer " + operator},
                            timeout=10).status_code == 404
        again = make_tenant(server, operator, "shop")
        assert again["id"] == "shop"
        assert shop.request("POST", "/assertion/options", {"username": "alice"}).status_code == 404, "a new tenant has no alice"
    finally:
        server.stop()
        server.cleanup()


def assert_ok_keys(reply: requests.Response) -> list:
    assert reply.status_code == 200, reply.text
    return reply.json()["keys"]


def test_an_invalid_tenant_is_refused_naming_each_member(store_env):
    server, operator = serve("tenants-invalid", store_env)
    try:
        headers = {"Authorization": "Bearer " + operator}
        bad = requests.post(server.url + "/admin/v1/tenants", headers=headers, timeout=10, json={
            "id": "shop", "rpID": "shop.localhost", "origins": ["https://evil.test"], "port": 9000, "userVerification": "always"})
        assert bad.status_code == 400, bad.text
        message = bad.json()["errorMessage"]
        for named in ("port (tenant shop)", "origins (tenant shop)", "userVerification (tenant shop)"):
            assert named in message, message
        assert requests.post(server.url + "/admin/v1/tenants", headers=headers, json={"id": "Shop!", "rpID": "x.localhost"},
                             timeout=10).status_code == 400
        assert requests.post(server.url + "/admin/v1/tenants", headers=headers, json={"id": "default", "rpID": "x.localhost"},
                             timeout=10).status_code == 400
        assert requests.get(server.url + "/admin/v1/tenants", timeout=10).status_code == 401
        assert assert_ok(requests.get(server.url + "/admin/v1/tenants", headers=headers, timeout=10))["tenants"] == []

        make_tenant(server, operator, "shop")
        taken = requests.post(server.url + "/admin/v1/tenants", headers=headers, timeout=10, json={
            "id": "other", "rpID": "other.localhost", "hosts": ["shop.localhost"]})
        assert taken.status_code == 409, taken.text
        changed = requests.patch(server.url + "/admin/v1/tenants/shop", headers=headers, json={"rpName": "The Shop"}, timeout=10)
        assert assert_ok(changed)["tenant"]["rpName"] == "The Shop"
        renamed = requests.patch(server.url + "/admin/v1/tenants/shop", headers=headers, json={"id": "other"}, timeout=10)
        assert renamed.status_code == 400, renamed.text
        # The default tenant's own host (its RP ID) is not another tenant's to take.
        default_host = requests.post(server.url + "/admin/v1/tenants", headers=headers, timeout=10, json={
            "id": "thief", "rpID": "thief.localhost", "hosts": ["localhost"]})
        assert default_host.status_code == 409, default_host.text

        # A tenant with no host is reached through the path prefix (API clients on a shared host).
        hostless = requests.patch(server.url + "/admin/v1/tenants/shop", headers=headers, json={"hosts": None}, timeout=10)
        assert assert_ok(hostless)["tenant"]["hosts"] == []
        options = requests.post(server.url + "/t/shop/attestation/options", json={"username": "carol"}, timeout=10)
        assert assert_ok(options)["rp"]["id"] == "shop.localhost"
    finally:
        server.stop()
        server.cleanup()


def test_each_host_gets_its_tenants_well_known_files_and_an_unknown_host_is_refused():
    server = LatchkeyServer("tenants-hosts", {"LATCHKEY_HOSTS": "localhost,127.0.0.1", "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.default"})
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    server.start()
    try:
        make_tenant(server, operator, "shop", appleAppIDs=["VWXYZ67890.com.example.shop"])
        shop = Tenant(server, "shop")
        site = shop.request("GET", "/.well-known/apple-app-site-association")
        assert site.status_code == 200 and site.json()["webcredentials"]["apps"] == ["VWXYZ67890.com.example.shop"], site.text
        default = requests.get(server.url + "/.well-known/apple-app-site-association", headers={"Host": "localhost"}, timeout=10)
        assert default.json()["webcredentials"]["apps"] == ["ABCDE12345.com.example.default"]
        stranger = requests.get(server.url + "/.well-known/apple-app-site-association", headers={"Host": "stranger.example"}, timeout=10)
        assert stranger.status_code == 421 and "stranger.example" in stranger.json()["errorMessage"], stranger.text
        for path in ("/healthz", "/readyz"):
            probe = requests.get(server.url + path, headers={"Host": "10.0.0.7:8080"}, timeout=10)
            assert probe.status_code == 200, f"a load balancer's probe by address: {probe.text}"
    finally:
        server.stop()
        server.cleanup()


def test_a_tenant_made_through_one_instance_is_served_by_the_other(postgres_url, server_factory):  # noqa: F811
    first = server_factory("tenants-1", {"LATCHKEY_DATABASE": postgres_url})
    second = server_factory("tenants-2", {"LATCHKEY_DATABASE": postgres_url})
    operator = cli(first, "admin-keys", "create", "--operator", "--name", "ops")
    make_tenant(first, operator, "shop", origins=[f"http://shop.localhost:{first.port}", f"http://shop.localhost:{second.port}"])
    made = time.monotonic()
    shop_on_second = Tenant(second, "shop")
    while shop_on_second.request("GET", "/.well-known/jwks.json").json()["keys"] == \
            requests.get(second.url + "/.well-known/jwks.json", timeout=10).json()["keys"]:
        assert time.monotonic() - made < 5, "the second instance did not serve the new tenant within 5 s"
        time.sleep(0.1)
    # What one instance registers, the other signs in.
    shop_on_first = Tenant(first, "shop")
    auth = shop_on_first.authenticator()
    shop_on_first.register(auth, "alice")
    auth.origin = shop_on_second.origin
    assert assert_ok(shop_on_second.sign_in(auth, "alice"))["username"] == "alice"


def test_each_tenants_webhooks_go_to_its_own_receivers_signed_with_its_own_secret():
    from webhook_receiver import Receiver, new_secret, webhook_env

    default_secret, shop_secret = new_secret(), new_secret()
    default_receiver, shop_receiver = Receiver(default_secret).start(), Receiver(shop_secret).start()
    server = LatchkeyServer("tenants-webhooks", {**webhook_env(default_receiver, default_secret), "LATCHKEY_METRICS_TOKEN": "scrape"})
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    server.start()
    try:
        made = make_tenant(server, operator, "shop", webhookURLs=[shop_receiver.url], webhookSecret=shop_secret)
        assert made["webhookSecret"] == "<redacted>", "a tenant's secret is never shown"
        shop = Tenant(server, "shop")
        shop.register(shop.authenticator(), "alice")
        # The receiver verifies each delivery with its own secret: the shop's are signed with the shop's.
        shop_receiver.wait_for(lambda r: "passkey.registered" in [p["type"] for p in r.payloads()], 30, "the shop's registration")
        default_receiver.wait_for(lambda r: "tenant.created" in [p["type"] for p in r.payloads()], 30, "the operator's change")
        assert "tenant.created" not in [p["type"] for p in shop_receiver.payloads()]
        assert not {"passkey.registered", "user.created"} & {p["type"] for p in default_receiver.payloads()}
        # What the command line records for the shop reaches the shop's receivers too.
        cli(server, "admin-keys", "create", "--tenant", "shop", "--name", "from-the-shell")
        cli(server, "signing-keys", "rotate", "--tenant", "shop", "--activate-in", "0")
        shop_receiver.wait_for(lambda r: {"admin_key.created", "signing_key.rotated"} <= {p["type"] for p in r.payloads()}, 30,
                               "the shop's events recorded by the command line")

        # A receiver failing leaves the shop's deliveries pending; once the shop drops its receivers they are dead,
        # where its admin sees them, not pending for ever.
        shop_receiver.status = 503
        shop.register(shop.authenticator(), "bob")
        shop_admin = {"Authorization": "Bearer " + cli(server, "admin-keys", "create", "--tenant", "shop", "--name", "backend")}

        def deliveries(state: str) -> list:
            return assert_ok(shop.request("GET", f"/admin/v1/webhook-deliveries?state={state}", headers=shop_admin))["deliveries"]

        deadline = time.monotonic() + 30
        while not deliveries("pending") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert deliveries("pending"), "bob's registration waits for the failing receiver"
        dropped = requests.patch(server.url + "/admin/v1/tenants/shop", json={"webhookURLs": None, "webhookSecret": None},
                                 headers={"Authorization": "Bearer " + operator}, timeout=10)
        assert_ok(dropped)
        deadline = time.monotonic() + 30
        while deliveries("pending") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not deliveries("pending") and deliveries("dead"), (deliveries("pending"), deliveries("dead"))
        metrics = requests.get(server.url + "/metrics", headers={"Authorization": "Bearer scrape"}, timeout=10).text
        assert 'latchkey_webhook_outbox_depth{tenant="shop"}' in metrics and 'latchkey_webhook_outbox_depth{tenant="default"}' in metrics
        assert any(line.startswith("latchkey_webhook_deliveries_total{") and 'tenant="shop"' in line and 'outcome="dead"' in line
                   for line in metrics.splitlines()), metrics
    finally:
        server.stop()
        server.cleanup()
        default_receiver.stop()
        shop_receiver.stop()


def test_a_stored_tenant_the_configuration_no_longer_admits_is_refused_saying_why():
    import sqlite3

    server, operator = serve("tenants-stale", {})
    try:
        make_tenant(server, operator, "shop")
        # As if the server's configuration had changed under the stored settings: a member it refuses.
        with sqlite3.connect(server.database) as db:
            db.execute("UPDATE tenants SET settings = ? WHERE id = 'shop'", (b'{"rpID":"shop.localhost","origins":["https://evil.test"]}',))
            db.execute("UPDATE tenant_directory SET revision = revision + 1")
        shop = Tenant(server, "shop")
        deadline = time.monotonic() + 5
        while (reply := shop.request("GET", "/session")).status_code != 503:
            assert time.monotonic() < deadline, f"still served: {reply.status_code} {reply.text}"
            time.sleep(0.1)
        assert "settings are no longer valid" in reply.json()["errorMessage"], reply.text
        listed = requests.get(server.url + "/admin/v1/tenants/shop", headers={"Authorization": "Bearer " + operator}, timeout=10)
        assert any("origins (tenant shop)" in problem for problem in assert_ok(listed)["tenant"]["problems"]), listed.text
    finally:
        server.stop()
        server.cleanup()


def test_device_keys_and_app_attest_keys_are_their_tenants_own(store_env, tmp_path):
    """The rest of the matrix: an app's device key and its App Attest key, each made in one tenant, are unknown to
    another tenant listing the same app, and a session of one lists nothing of the other's. App Attest is the tenants'
    own choice: the server's own `appAttest` stays off."""
    ca = StandInCA()
    (tmp_path / "root.pem").write_bytes(ca.root.public_bytes(serialization.Encoding.PEM))
    server, operator = serve("tenants-apps", {**store_env, "LATCHKEY_APP_ATTEST_TEST_ROOTS": str(tmp_path), "LATCHKEY_METRICS_TOKEN": "scrape"})
    try:
        for tenant_id in ("shop", "bank"):
            make_tenant(server, operator, tenant_id, appleAppIDs=[APP_ID], appAttest="optional", appAttestEnvironment="both")
        shop, bank = Tenant(server, "shop"), Tenant(server, "bank")
        registered = shop.register(shop.authenticator(), "alice")
        bank.register(bank.authenticator(), "alice")
        bearer = {"Authorization": "Bearer " + registered["sessionToken"]}

        # A device key enrolled in the shop signs in there, and is unknown to the bank (and to the default tenant).
        key = DeviceKey()
        options = assert_ok(shop.request("POST", "/device-keys/options", {}, headers=bearer))
        enrolled = shop.request("POST", "/device-keys", {
            "challenge": options["challenge"], "publicKey": b64url(key.point), "name": "iPhone",
            "signature": key.sign(1, options["rpId"], options["challenge"])}, headers=bearer)
        assert enrolled.status_code == 201, enrolled.text

        def device_sign_in(tenant: Tenant) -> requests.Response:
            options = tenant.request("POST", "/device-keys/sign-in/options", {"keyId": key.key_id})
            if options.status_code != 200:
                return options
            challenge = options.json()["challenge"]
            return tenant.request("POST", "/device-keys/sign-in", {
                "keyId": key.key_id, "challenge": challenge, "signature": key.sign(2, options.json()["rpId"], challenge)})

        assert assert_ok(device_sign_in(shop))["username"] == "alice"
        for elsewhere in (bank, Tenant(server, "default")):
            refused = device_sign_in(elsewhere)
            assert 400 <= refused.status_code < 500 and refused.json()["status"] == "failed", refused.text
        assert bank.request("GET", "/device-keys", headers=bearer).status_code == 401

        # An App Attest key attested through the shop asserts there, and is unknown to the bank, the same app ID notwithstanding.
        app_key = AppAttestKey(ca)
        issued = assert_ok(shop.request("POST", "/app-attest/challenge"))["challenge"]
        attested = shop.request("POST", "/app-attest/keys", {
            "keyId": b64url(app_key.key_id), "challenge": issued,
            "attestationObject": b64url(app_key.attestation(b64url_decode(issued)))})
        assert attested.status_code == 201, attested.text

        def assertion(tenant: Tenant) -> requests.Response:
            client_data = json.dumps({"appAttestChallenge": assert_ok(tenant.request("POST", "/app-attest/challenge"))["challenge"]}).encode()
            return tenant.request("POST", "/app-attest/assertions", {
                "keyId": b64url(app_key.key_id), "assertion": b64url(app_key.assertion(client_data)), "clientData": b64url(client_data)})

        assert assert_ok(assertion(shop))["appId"] == APP_ID
        refused = assertion(bank)
        assert refused.status_code == 400 and refused.json()["reason"] == "unknownAppAttestKey", refused.text

        # Metrics carry the tenant: each tenant's requests and ceremonies are its own series; the default tenant's
        # have no tenant label, as a single-tenant server's.
        scraped = requests.get(server.url + "/metrics", headers={"Authorization": "Bearer scrape"}, timeout=10)
        assert scraped.status_code == 200, scraped.text
        lines = scraped.text.splitlines()

        def series(prefix: str, *labels: str) -> list[str]:
            return [line for line in lines if line.startswith(prefix) and all(label in line for label in labels)]

        for tenant_id in ("shop", "bank"):
            registered_here = series("latchkey_ceremonies_total{", 'ceremony="registration-result"', 'outcome="ok"', f'tenant="{tenant_id}"')
            assert [line.rsplit(" ", 1)[1] for line in registered_here] == ["1"], registered_here
        assert series("hb_requests{", 'http_route="/app-attest/assertions"', 'http_response_status_code="200"', 'tenant="shop"')
        assert series("hb_requests{", 'http_route="/app-attest/assertions"', 'http_response_status_code="400"', 'tenant="bank"')
        default_requests = series("hb_requests{", 'http_route="/device-keys/sign-in/options"')
        assert default_requests and any("tenant=" not in line for line in default_requests), default_requests
    finally:
        server.stop()
        server.cleanup()



def test_a_tenant_may_not_take_the_servers_own_addresses():
    """An IP address is how operators, backends and load balancers reach the server, and no name a passkey can be
    bound to; the console's host is the operators'. A tenant listing one would take the server's own traffic there
    (its admin API, metrics, JWKS and console), so neither is accepted, and the server keeps answering at them."""
    server, operator = serve("tenants-own-hosts", {})
    try:
        headers = {"Authorization": "Bearer " + operator}
        for host, status, words in [("127.0.0.1", 400, "is an IP address"), ("10.0.0.7", 400, "is an IP address"),
                                    ("console.localhost", 409, "the server's own")]:
            document = {"id": "grab", "rpID": "grab.localhost", "hosts": [host], "origins": [f"http://grab.localhost:{server.port}"]}
            reply = requests.post(server.url + "/admin/v1/tenants", json=document, headers=headers, timeout=15)
            assert reply.status_code == status and words in reply.json()["errorMessage"], (host, reply.text)
        listed = requests.get(server.url + "/admin/v1/tenants", headers={**headers, "Host": f"127.0.0.1:{server.port}"}, timeout=15)
        assert listed.status_code == 200 and listed.json()["tenants"] == [], listed.text
    finally:
        server.stop()
        server.cleanup()
