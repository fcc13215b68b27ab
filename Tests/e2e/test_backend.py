"""Latchkey as the passkey service of an existing backend, against the real binary: the backend
(backend.py) creates users through the admin API with its admin key, hands out enrollment tickets,
and verifies the sign-in tokens with PyJWT's PyJWKClient against `/.well-known/jwks.json`. With
`registration: tickets` nobody registers a username of their own choosing; a ticket registers one
passkey, once. Admin keys and user sessions never stand in for each other. On PostgreSQL, two
instances share users, tickets, admin keys and signing keys."""

from __future__ import annotations

import re
import sqlite3
import time
import urllib.parse

import jwt
import pytest
import requests

from backend import Backend, create_admin_key, latchkey_command
from conftest import REPO, free_port, served
from softauthn import b64url
from test_http_api import assert_ok, new_username
from test_postgres import postgres_url  # noqa: F401  (the fixture)

AUDIENCE = "shop-api"


def backend_for(server, key: str, admin_url: str | None = None, key_set_lifespan: float = 60) -> Backend:
    return Backend(admin_url or server.url, key, server.url + "/.well-known/jwks.json", issuer=server.origin, audience=AUDIENCE,
                   key_set_lifespan=key_set_lifespan)

# A rotated-in key signs this long after it is published; the tests' verifiers keep the key set for
# less, as a verifier honouring the server's Cache-Control keeps it for less than the default delay.
ACTIVATION = 3
KEY_SET_LIFESPAN = 2


@pytest.fixture(scope="module")
def tickets_server():
    yield from served("backend-tickets", {"LATCHKEY_REGISTRATION": "tickets", "LATCHKEY_TOKEN_AUDIENCE": AUDIENCE})


@pytest.fixture(scope="module")
def backend(tickets_server):
    return backend_for(tickets_server, create_admin_key(tickets_server, "shop"))


def enroll(server, backend: Backend, username: str, authenticator, via=None) -> dict:
    """Registers a passkey for `username` with a fresh ticket; returns the result reply."""
    ticket = backend.ticket(username)["ticket"]
    options = assert_ok(requests.post((via or server).url + "/attestation/options", json={"enrollmentTicket": ticket}, timeout=10))
    return assert_ok(requests.post(server.url + "/attestation/result", json=authenticator.create(options), timeout=10))


def test_open_sign_up_is_refused_and_a_made_user_registers_only_with_a_ticket_once(tickets_server, backend):
    mallory = requests.post(tickets_server.url + "/attestation/options", json={"username": "mallory"}, timeout=10)
    assert mallory.status_code == 403, mallory.text
    assert "needs an enrollment ticket" in mallory.json()["errorMessage"]

    username = new_username()
    made = backend.create_user(username, external_id="crm-" + username)
    assert (made["passkeys"], made["externalId"]) == (0, "crm-" + username)
    # The user exists, but nobody may register for them without a ticket.
    refused = requests.post(tickets_server.url + "/attestation/options", json={"username": username}, timeout=10)
    assert refused.status_code == 403, refused.text

    issued = backend.ticket(username, expires_in=300)
    assert issued["enrollmentURL"] == f"{tickets_server.origin}/#ticket={issued['ticket']}", "in the fragment, which no log keeps"
    authenticator = tickets_server.authenticator()
    options = assert_ok(requests.post(
        tickets_server.url + "/attestation/options", json={"username": username, "enrollmentTicket": issued["ticket"]}, timeout=10))
    result = assert_ok(requests.post(tickets_server.url + "/attestation/result", json=authenticator.create(options), timeout=10))
    assert result["username"] == username and result["sessionToken"]
    claims = backend.verify(result["idToken"])
    assert (claims["preferred_username"], claims["ext_id"], claims["sub"]) == (username, "crm-" + username, made["userHandle"])

    again = requests.post(tickets_server.url + "/attestation/options", json={"enrollmentTicket": issued["ticket"]}, timeout=10)
    assert again.status_code == 403 and "already used" in again.json()["errorMessage"], again.text
    shown = backend.admin("GET", f"/users/{username}").json()["user"]
    assert shown["passkeys"] == 1
    by_external = backend.admin("GET", "/users?" + urllib.parse.urlencode({"externalId": "crm-" + username})).json()["user"]
    assert by_external["username"] == username


def test_sessions_and_admin_keys_never_stand_in_for_each_other(tickets_server, backend):
    username = new_username()
    backend.create_user(username)
    session = enroll(tickets_server, backend, username, tickets_server.authenticator())["sessionToken"]
    as_user = requests.get(f"{tickets_server.url}/admin/v1/users/{username}", headers={"Authorization": f"Bearer {session}"}, timeout=10)
    assert as_user.status_code == 401 and as_user.json()["status"] == "failed"
    as_admin = requests.get(tickets_server.url + "/credentials", headers=backend.headers, timeout=10)
    assert as_admin.status_code == 401
    assert requests.get(tickets_server.url + "/credentials", headers={"Authorization": f"Bearer {session}"}, timeout=10).ok

    # A revoked key fails at once; `list` never shows a key.
    key = create_admin_key(tickets_server, "short-lived")
    short = backend_for(tickets_server, key)
    assert short.admin("GET", f"/users/{username}").ok
    listed = latchkey_command(tickets_server, "admin-keys", "list").stdout
    assert "short-lived" in listed and key not in listed and key[len("lk_admin_"):][:12] not in listed
    latchkey_command(tickets_server, "admin-keys", "revoke", "short-lived")
    assert short.admin("GET", f"/users/{username}").status_code == 401
    unknown = latchkey_command(tickets_server, "admin-keys", "revoke", "short-lived", check=False)
    assert unknown.returncode == 65 and "no admin key named" in unknown.stderr


def test_the_backend_removes_passkeys_ends_sessions_and_deletes_users(tickets_server, backend):
    username = new_username()
    backend.create_user(username)
    authenticator = tickets_server.authenticator()
    registered = enroll(tickets_server, backend, username, authenticator)
    bearer = {"Authorization": f"Bearer {registered['sessionToken']}"}
    assert backend.admin("DELETE", f"/users/{username}/sessions").json()["ended"] == 1
    assert requests.get(tickets_server.url + "/session", headers=bearer, timeout=10).status_code == 401
    credentials = backend.admin("GET", f"/users/{username}/credentials").json()["credentials"]
    assert [c["id"] for c in credentials] == [registered["credentialId"]]
    assert backend.admin("DELETE", f"/users/{username}/credentials/{registered['credentialId']}").ok
    options = assert_ok(requests.post(tickets_server.url + "/assertion/options", json={}, timeout=10))
    refused = requests.post(tickets_server.url + "/assertion/result", json=authenticator.get(options), timeout=10)
    assert refused.status_code == 400 and refused.json()["reason"] == "unknownCredential"
    assert backend.admin("DELETE", f"/users/{username}").ok
    assert backend.admin("GET", f"/users/{username}").status_code == 404


def test_a_disabled_account_signs_in_with_neither_passkey_nor_device_key_until_enabled(tickets_server, backend):
    from test_device_keys import DeviceKey, enrol

    username = new_username()
    backend.create_user(username)
    authenticator = tickets_server.authenticator()
    bearer = {"Authorization": f"Bearer {enroll(tickets_server, backend, username, authenticator)['sessionToken']}"}
    key = DeviceKey()
    enrol(tickets_server.client(), bearer, key)

    def passkey_sign_in() -> requests.Response:
        options = assert_ok(requests.post(tickets_server.url + "/assertion/options", json={}, timeout=10))
        return requests.post(tickets_server.url + "/assertion/result", json=authenticator.get(options), timeout=10)

    def device_key_sign_in() -> requests.Response:
        options = assert_ok(requests.post(tickets_server.url + "/device-keys/sign-in/options", json={"keyId": key.key_id}, timeout=10))
        return requests.post(tickets_server.url + "/device-keys/sign-in", json={
            "keyId": key.key_id, "challenge": options["challenge"], "signature": key.sign(2, options["rpId"], options["challenge"])}, timeout=10)

    disabled = backend.admin("PATCH", f"/users/{username}", {"disabled": True})
    assert disabled.status_code == 200 and disabled.json()["user"]["disabled"] is True, disabled.text
    assert requests.get(tickets_server.url + "/session", headers=bearer, timeout=10).status_code == 401
    for refused in (passkey_sign_in(), device_key_sign_in()):
        assert refused.status_code == 403 and refused.json()["reason"] == "accountDisabled", refused.text
        assert "idToken" not in refused.json()
    refusals = backend.admin("GET", "/events?" + urllib.parse.urlencode({"user": username, "type": "sign_in.refused"})).json()["events"]
    assert sorted(event["detail"].startswith("device key") for event in refusals) == [False, True], refusals
    # No ticket is issued for a disabled account: it could never be used.
    refused_ticket = backend.admin("POST", f"/users/{urllib.parse.quote(username, safe='')}/enrollment-tickets")
    assert refused_ticket.status_code == 409 and refused_ticket.json()["reason"] == "accountDisabled", refused_ticket.text

    assert backend.admin("PATCH", f"/users/{username}", {"disabled": False}).json()["user"]["disabled"] is False
    for accepted in (passkey_sign_in(), device_key_sign_in()):
        assert backend.verify(assert_ok(accepted)["idToken"])["preferred_username"] == username.lower()


def test_the_backend_renames_a_user_who_keeps_passkeys_sessions_and_subject(tickets_server, backend):
    username, taken = new_username(), new_username()
    made = backend.create_user(username, external_id="crm-" + username)
    backend.create_user(taken, external_id="crm-" + taken)
    authenticator = tickets_server.authenticator()
    bearer = {"Authorization": f"Bearer {enroll(tickets_server, backend, username, authenticator)['sessionToken']}"}

    renamed = "Renamed-" + username
    reply = backend.admin("PATCH", f"/users/{username}", {"username": renamed, "displayName": "Ünï Code", "externalId": "crm-new-" + username})
    assert reply.status_code == 200, reply.text
    user = reply.json()["user"]
    assert (user["username"], user["displayName"], user["externalId"]) == (renamed.lower(), "Ünï Code", "crm-new-" + username)
    assert (user["userHandle"], user["passkeys"]) == (made["userHandle"], 1)
    assert backend.admin("GET", f"/users/{username}").status_code == 404
    assert assert_ok(requests.get(tickets_server.url + "/session", headers=bearer, timeout=10))["username"] == renamed.lower()
    options = assert_ok(requests.post(tickets_server.url + "/assertion/options", json={}, timeout=10))
    signed_in = assert_ok(requests.post(tickets_server.url + "/assertion/result", json=authenticator.get(options), timeout=10))
    claims = backend.verify(signed_in["idToken"])
    assert (claims["sub"], claims["preferred_username"], claims["ext_id"]) == (made["userHandle"], renamed.lower(), "crm-new-" + username)

    # Another user's names are refused and change nothing; a request that names nothing is a 400.
    for body, conflict in [({"username": taken}, "already registered"), ({"externalId": "crm-" + taken}, "belongs to another user")]:
        refused = backend.admin("PATCH", f"/users/{renamed}", {**body, "displayName": "Not applied"})
        assert refused.status_code == 409 and conflict in refused.json()["errorMessage"], refused.text
    empty = backend.admin("PATCH", f"/users/{renamed}", {"displayName": None})
    assert empty.status_code == 400 and "name what to change" in empty.json()["errorMessage"], empty.text
    assert backend.admin("GET", f"/users/{renamed}").json()["user"]["displayName"] == "Ünï Code"
    cleared = backend.admin("PATCH", f"/users/{renamed}", {"externalId": None})
    assert cleared.status_code == 200 and cleared.json()["user"]["externalId"] is None, cleared.text
    assert backend.admin("PATCH", f"/users/{renamed}", {"externalId": None}).ok, "changing nothing is no error"

    both = backend.admin("GET", "/events?" + urllib.parse.urlencode({"user": renamed, "userHandle": made["userHandle"]}))
    assert both.status_code == 400 and "not both" in both.json()["errorMessage"], both.text
    events = backend.admin("GET", "/events?" + urllib.parse.urlencode({"user": renamed, "type": "user.updated"})).json()["events"]
    assert [event["detail"] for event in events] == [
        "changed externalId", f'changed username (was "{username.lower()}"), displayName, externalId'], events
    assert all(event["actor"] == {"type": "admin", "name": "shop"} for event in events)


def test_a_nonce_sent_with_options_comes_back_in_the_token(tickets_server, backend):
    """The backend makes up a nonce for one login attempt; the token that attempt ends with carries it, so a token
    from another attempt is told apart. Without one the claim is absent; a bad one is a 400 naming it."""
    username = new_username()
    backend.create_user(username)
    authenticator = tickets_server.authenticator()
    ticket = backend.ticket(username)["ticket"]
    options = assert_ok(requests.post(tickets_server.url + "/attestation/options",
                                      json={"enrollmentTicket": ticket, "nonce": "reg-Ünï 1"}, timeout=10))
    registered = assert_ok(requests.post(tickets_server.url + "/attestation/result", json=authenticator.create(options), timeout=10))
    assert backend.verify(registered["idToken"])["nonce"] == "reg-Ünï 1"

    for body, expected in [({"nonce": "n-" + "x" * 254}, "n-" + "x" * 254), ({"username": username, "nonce": "second"}, "second"), ({}, None)]:
        options = assert_ok(requests.post(tickets_server.url + "/assertion/options", json=body, timeout=10))
        signed_in = assert_ok(requests.post(tickets_server.url + "/assertion/result", json=authenticator.get(options), timeout=10))
        assert backend.verify(signed_in["idToken"]).get("nonce") == expected, body

    for nonce, problem in [("", "nonce is blank"), ("x" * 257, "nonce is 257 bytes of UTF-8; at most 256 are allowed"),
                           ("a\u0000b", "nonce contains the control character U+0000"), (7, "nonce")]:
        refused = requests.post(tickets_server.url + "/assertion/options", json={"nonce": nonce}, timeout=10)
        assert refused.status_code == 400 and problem in refused.json()["errorMessage"], refused.text


def test_without_sign_in_tokens_the_backend_reads_the_session(server_factory):
    """`signInTokens: false`: registrations and sign-ins answer without an `idToken`, and the session token says who
    signed in, through `GET /session`."""
    server = server_factory("backend-no-tokens", {"LATCHKEY_SIGN_IN_TOKENS": "false"})
    username = new_username()
    authenticator = server.authenticator()
    options = assert_ok(requests.post(server.url + "/attestation/options", json={"username": username, "displayName": "No Token"}, timeout=10))
    registered = assert_ok(requests.post(server.url + "/attestation/result", json=authenticator.create(options), timeout=10))
    assert "idToken" not in registered and registered["sessionToken"]
    options = assert_ok(requests.post(server.url + "/assertion/options", json={}, timeout=10))
    signed_in = assert_ok(requests.post(server.url + "/assertion/result", json=authenticator.get(options), timeout=10))
    assert "idToken" not in signed_in
    session = requests.get(server.url + "/session", headers={"Authorization": f"Bearer {signed_in['sessionToken']}"}, timeout=10)
    assert session.status_code == 200 and session.json()["username"] == username.lower()


def test_an_id_token_verifies_with_pyjwt_and_stops_verifying_after_exp(server_factory):
    server = server_factory("backend-short-tokens", {"LATCHKEY_TOKEN_LIFETIME": "30", "LATCHKEY_TOKEN_AUDIENCE": AUDIENCE})
    backend = backend_for(server, create_admin_key(server, "shop"))
    username = new_username()
    backend.create_user(username, external_id="crm-7")
    authenticator = server.authenticator()
    enroll(server, backend, username, authenticator)
    options = assert_ok(requests.post(server.url + "/assertion/options", json={}, timeout=10))
    assertion = authenticator.get(options)
    signed_in = assert_ok(requests.post(server.url + "/assertion/result", json=assertion, timeout=10))

    claims = backend.verify(signed_in["idToken"])
    header = jwt.get_unverified_header(signed_in["idToken"])
    assert (header["alg"], header["typ"]) == ("ES256", "JWT")
    assert claims["iss"] == server.origin and claims["aud"] == AUDIENCE
    assert claims["exp"] - claims["iat"] == 30 and claims["auth_time"] == claims["iat"]
    assert abs(claims["iat"] - time.time()) < 30
    assert claims["cred"] == assertion["id"] and claims["ext_id"] == "crm-7" and claims["preferred_username"] == username
    assert claims["amr"] == ["pop", "user", "mfa"] and len(claims["jti"]) >= 16
    keys = requests.get(server.url + "/.well-known/jwks.json", timeout=10).json()["keys"]
    assert [(k["kty"], k["crv"], k["alg"], k["use"], k["kid"]) for k in keys] == [("EC", "P-256", "ES256", "sig", header["kid"])]

    # What a verifier must refuse: another audience or issuer, a changed claim.
    with pytest.raises(jwt.InvalidAudienceError):
        jwt.decode(signed_in["idToken"], backend.jwks.get_signing_key_from_jwt(signed_in["idToken"]).key,
                   algorithms=["ES256"], audience="another-api", issuer=server.origin)
    with pytest.raises(jwt.InvalidIssuerError):
        jwt.decode(signed_in["idToken"], backend.jwks.get_signing_key_from_jwt(signed_in["idToken"]).key,
                   algorithms=["ES256"], audience=AUDIENCE, issuer="https://evil.example")
    head, body, signature = signed_in["idToken"].split(".")
    forged = b64url(jwt.utils.base64url_decode(body).replace(username.encode(), b"mallory"))
    with pytest.raises(jwt.InvalidSignatureError):
        backend.verify(".".join((head, forged, signature)))

    # And after exp, the same token no longer verifies.
    time.sleep(max(0.0, claims["exp"] - time.time()) + 1.5)
    with pytest.raises(jwt.ExpiredSignatureError):
        backend.verify(signed_in["idToken"])


def test_after_a_rotation_old_and_new_tokens_verify(server_factory):
    server = server_factory("backend-rotation", {"LATCHKEY_TOKEN_AUDIENCE": AUDIENCE})
    backend = backend_for(server, create_admin_key(server, "shop"), key_set_lifespan=KEY_SET_LIFESPAN)
    username = new_username()
    backend.create_user(username)
    authenticator = server.authenticator()
    old = enroll(server, backend, username, authenticator)["idToken"]
    backend.verify(old)

    old_kid = jwt.get_unverified_header(old)["kid"]
    rotated = latchkey_command(server, "signing-keys", "rotate", "--activate-in", str(ACTIVATION))
    assert "is published now and signs from" in rotated.stdout, rotated.stdout + rotated.stderr
    keys = requests.get(server.url + "/.well-known/jwks.json", timeout=10).json()["keys"]
    assert [key["kid"] for key in keys][1:] == [old_kid], "the new key is published at once, first; the old one stays"
    # Until its time comes the old key still signs.
    still_old = sign_in_token(server, authenticator)
    assert jwt.get_unverified_header(still_old)["kid"] == old_kid
    new = wait_for_new_key(server, authenticator, old_kid)
    assert jwt.get_unverified_header(new)["kid"] == keys[0]["kid"]
    assert backend.verify(new)["preferred_username"] == username
    assert backend.verify(old)["preferred_username"] == username


def sign_in_token(server, authenticator, via=None) -> str:
    """Signs in usernameless (options from `via`, the result to `server`); returns the idToken."""
    options = assert_ok(requests.post((via or server).url + "/assertion/options", json={}, timeout=10))
    return assert_ok(requests.post(server.url + "/assertion/result", json=authenticator.get(options), timeout=10))["idToken"]


def wait_for_new_key(server, authenticator, old_kid: str, via=None) -> str:
    """Signs in until a token is signed by another key than `old_kid` (the new key's activation,
    then the instances' rereading of the keys every few seconds); returns that token."""
    deadline = time.monotonic() + 20
    while True:
        token = sign_in_token(server, authenticator, via)
        if jwt.get_unverified_header(token)["kid"] != old_kid:
            return token
        assert time.monotonic() < deadline, "no instance signs with the rotated-in key"
        time.sleep(0.5)


def test_a_separate_admin_listener_keeps_the_admin_api_off_the_public_one(server_factory):
    admin_port = free_port()
    server = server_factory("backend-admin-listener", {"LATCHKEY_ADMIN_ADDRESS": f"127.0.0.1:{admin_port}"})
    key = create_admin_key(server, "shop")
    public = requests.post(server.url + "/admin/v1/users", json={"username": "alice"}, headers={"Authorization": f"Bearer {key}"}, timeout=10)
    assert public.status_code == 404, public.text
    backend = backend_for(server, key, admin_url=f"http://127.0.0.1:{admin_port}")
    assert backend.create_user("alice")["username"] == "alice"
    assert requests.get(f"http://127.0.0.1:{admin_port}/admin/v1/users/alice", timeout=10).status_code == 401
    assert requests.get(f"http://127.0.0.1:{admin_port}/session", timeout=10).status_code == 404


def test_two_instances_on_postgresql_share_users_tickets_keys_and_signing_keys(server_factory, postgres_url):
    env = {"LATCHKEY_DATABASE": postgres_url, "LATCHKEY_ORIGINS": "http://localhost", "LATCHKEY_REGISTRATION": "tickets",
           "LATCHKEY_TOKEN_AUDIENCE": AUDIENCE}
    a, b = server_factory("backend-a", env), server_factory("backend-b", env)
    key = create_admin_key(a, "shop")
    on_a = Backend(a.url, key, a.url + "/.well-known/jwks.json", issuer="http://localhost", audience=AUDIENCE,
                   key_set_lifespan=KEY_SET_LIFESPAN)
    on_b = Backend(b.url, key, b.url + "/.well-known/jwks.json", issuer="http://localhost", audience=AUDIENCE,
                   key_set_lifespan=KEY_SET_LIFESPAN)
    from softauthn import SoftAuthenticator
    authenticator = SoftAuthenticator(origin="http://localhost", rp_id="localhost")

    # A user made on A, a ticket issued on A, spent through B (options) and A (result), once.
    username = new_username()
    on_a.create_user(username, external_id="crm-" + username)
    assert on_b.admin("GET", f"/users/{username}").json()["user"]["externalId"] == "crm-" + username
    ticket = on_a.ticket(username)["ticket"]
    options = assert_ok(requests.post(b.url + "/attestation/options", json={"enrollmentTicket": ticket}, timeout=10))
    registered = assert_ok(requests.post(a.url + "/attestation/result", json=authenticator.create(options), timeout=10))
    again = requests.post(b.url + "/attestation/options", json={"enrollmentTicket": ticket}, timeout=10)
    assert again.status_code == 403 and "already used" in again.json()["errorMessage"]

    # One signing key for both: a token from either verifies against the other's key set.
    on_b.verify(registered["idToken"])
    options = assert_ok(requests.post(a.url + "/assertion/options", json={}, timeout=10))
    from_b = assert_ok(requests.post(b.url + "/assertion/result", json=authenticator.get(options), timeout=10))["idToken"]
    assert on_a.verify(from_b)["preferred_username"] == username
    old_kid = jwt.get_unverified_header(from_b)["kid"]
    latchkey_command(b, "signing-keys", "rotate", "--activate-in", str(ACTIVATION))
    for signer in (a, b):
        new = wait_for_new_key(signer, authenticator, old_kid, via=a if signer is b else b)
        assert on_a.verify(new) and on_b.verify(new)
    assert on_a.verify(from_b)

    # A key revoked is refused by both at once.
    assert on_a.admin("GET", f"/users/{username}").ok and on_b.admin("GET", f"/users/{username}").ok
    latchkey_command(a, "admin-keys", "revoke", "shop")
    assert on_a.admin("GET", f"/users/{username}").status_code == 401
    assert on_b.admin("GET", f"/users/{username}").status_code == 401


README_SNIPPET = "<!-- readme-verify-token"


def test_the_readme_snippet_verifies_a_real_token(server_factory):
    """The README's token-verifying Python block, run as written against a real server's token:
    only its issuer URL (the local server's, `scripts/run`'s) is replaced by the test server's origin: its audience is
    the local server's RP ID, `localhost`, as the test server's is."""
    text = (REPO / "docs" / "BACKEND.md").read_text(encoding="utf-8")
    assert text.count(README_SNIPPET) == 1
    block = re.match(r"[^\n]*-->\n```python\n(.*?)\n```\n", text.split(README_SNIPPET, 1)[1], re.DOTALL)
    assert block, "the marker must be followed directly by a ```python block"
    server = server_factory("backend-readme", {})
    code = block.group(1).replace('"http://localhost:8080"', repr(server.origin), 1)
    namespace: dict = {}
    exec(compile(code, "docs/BACKEND.md", "exec"), namespace)  # noqa: S102 (our own documentation)

    backend = backend_for(server, create_admin_key(server, "shop"))
    username = new_username()
    backend.create_user(username, external_id="crm-1001")
    token = enroll(server, backend, username, server.authenticator())["idToken"]
    assert namespace["signed_in_account"](token) == "crm-1001"
    head, body, signature = token.split(".")
    with pytest.raises(jwt.InvalidTokenError):
        namespace["signed_in_account"](".".join((head, body, signature[::-1])))


UNADDRESSABLE = ["../bob", "alice/..", "a/./b", "./x", "x/.", "..", ".", "a/../../b"]


def test_every_username_that_can_be_made_is_reached_by_every_admin_route(tickets_server, backend, server_factory):
    """A name with a "." or ".." segment (`../bob`) could be made but no /admin/v1/users/{username} route could
    name it (found by an attacker, under open sign-up too): such names are refused everywhere a name is given."""
    for name in UNADDRESSABLE:
        refused = backend.admin("POST", "/users", {"username": name})
        assert refused.status_code == 400 and "which a URL path cannot carry" in refused.json()["errorMessage"], (name, refused.text)
    kept = backend.create_user(new_username())["username"]
    renamed = backend.admin("PATCH", f"/users/{kept}", {"username": "team/../" + kept})
    assert renamed.status_code == 400 and "between slashes" in renamed.json()["errorMessage"], renamed.text
    open_server = server_factory("open-sign-up-names")
    for name in ("../bob", "x/."):
        options = requests.post(open_server.url + "/attestation/options", json={"username": name}, timeout=10)
        assert options.status_code == 400 and "which a URL path cannot carry" in options.json()["errorMessage"], options.text

    # Slashes are fine otherwise, and each such account is reached by every route that names a user.
    suffix = new_username()
    for name in [f"team/{suffix}", f"/{suffix}", f"{suffix}//x", f"{suffix}/...", f".{suffix}", f"{suffix}/.hidden"]:
        backend.create_user(name)
        path = "/users/" + urllib.parse.quote(name, safe="")
        for method, route, body, status in [
            ("GET", "", None, 200), ("PATCH", "", {"displayName": "Slashed"}, 200), ("GET", "/credentials", None, 200),
            ("POST", "/enrollment-tickets", None, 201), ("DELETE", "/enrollment-tickets", None, 200),
            ("DELETE", "/sessions", None, 200), ("DELETE", "", None, 200),
        ]:
            reply = backend.admin(method, path + route, body)
            assert reply.status_code == status, (name, method, route, reply.text)
        gone = backend.admin("GET", path)
        assert gone.status_code == 404, (name, gone.text)


def test_accounts_kept_under_an_unaddressable_name_are_listed_and_renamed_at_the_command_line(server_factory):
    server = server_factory("unaddressable-names", {"LATCHKEY_REGISTRATION": "tickets"})
    backend = backend_for(server, create_admin_key(server, "names"))
    none = latchkey_command(server, "users", "unaddressable")
    assert none.stdout == "" and "every username can be addressed by the admin API" in none.stderr, none
    made = backend.create_user(new_username())
    # An account an earlier version let be made: its row as that version wrote it.
    with sqlite3.connect(server.env["LATCHKEY_DATABASE"]) as database:
        database.execute("UPDATE users SET username = ?, display_name = ? WHERE username = ?", ("../legacy", "../legacy", made["username"]))
    assert backend.admin("GET", "/users/" + urllib.parse.quote("../legacy", safe="")).status_code == 400

    listed = latchkey_command(server, "users", "unaddressable", check=False)
    assert listed.returncode == 1 and listed.stdout == "../legacy\n", listed
    assert "latchkey users rename OLD NEW" in listed.stderr
    refused = latchkey_command(server, "users", "rename", "../legacy", "../still-bad", check=False)
    assert refused.returncode == 65 and "between slashes" in refused.stderr, refused
    done = latchkey_command(server, "users", "rename", "../legacy", "Legacy")
    assert done.stdout.strip() == 'account "../legacy" is now "legacy"'
    user = backend.admin("GET", "/users/legacy").json()["user"]
    assert (user["userHandle"], user["displayName"]) == (made["userHandle"], "Legacy")
    events = backend.admin("GET", "/events?type=user.updated&user=legacy").json()["events"]
    assert [(e["detail"], e["actor"]) for e in events] == [('changed username (was "../legacy")', {"type": "system", "name": "cli"})]
    assert latchkey_command(server, "users", "unaddressable").returncode == 0


def test_an_account_kept_under_a_name_refused_today_still_adds_a_passkey_by_ticket_and_by_session(server_factory):
    """Options re-checked the holder's name with today's rules: a ticket the admin API issued (201) for `lg/..`
    was then refused at /attestation/options (found by a black-box probe)."""
    server = server_factory("kept-names", {"LATCHKEY_REGISTRATION": "tickets", "LATCHKEY_TOKEN_AUDIENCE": AUDIENCE})
    backend = backend_for(server, create_admin_key(server, "kept"))
    made = backend.create_user(new_username())
    # A ticket issued while the account had a name the path carries; then the name an earlier version let be kept.
    ticket = backend.ticket(made["username"])["ticket"]
    with sqlite3.connect(server.env["LATCHKEY_DATABASE"]) as database:
        database.execute("UPDATE users SET username = ?, display_name = ? WHERE username = ?", ("lg/..", "LG", made["username"]))
    authenticator = server.authenticator()
    options = assert_ok(requests.post(server.url + "/attestation/options", json={"enrollmentTicket": ticket}, timeout=10))
    assert options["user"]["name"] == "lg/.." and options["user"]["id"] == made["userHandle"], options
    registered = assert_ok(requests.post(server.url + "/attestation/result", json=authenticator.create(options), timeout=10))
    assert registered["username"] == "lg/..", registered
    # Signed in, the account adds another passkey naming itself as kept.
    bearer = {"Authorization": f"Bearer {registered['sessionToken']}"}
    again = assert_ok(requests.post(server.url + "/attestation/options", json={"username": "lg/.."}, headers=bearer, timeout=10))
    assert again["user"]["id"] == made["userHandle"] and len(again["excludeCredentials"]) == 1, again
    # A name today's rules refuse that no account is kept under is still refused, from a session too.
    other = requests.post(server.url + "/attestation/options", json={"username": "zz/.."}, headers=bearer, timeout=10)
    assert other.status_code == 400 and "between slashes" in other.json()["errorMessage"], other.text
