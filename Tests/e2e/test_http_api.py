"""End-to-end tests of the Latchkey HTTP API (docs/HTTP-API.md) against the real server binary,
with a software authenticator (softauthn.py) standing in for the browser and the passkey."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import threading
import time
import uuid

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import ec

from conftest import (APPLE_APP_IDS, LATCHKEY_BIN, REPO, LatchkeyServer, free_port,
                      require_binary)
from softauthn import (Raw, b64url, b64url_decode, cbor_encode, cose_ec2_public_key)

B64URL = re.compile(r"^[A-Za-z0-9_-]+$")
CREATION_ONLY = ("rp", "user", "pubKeyCredParams", "excludeCredentials", "authenticatorSelection",
                 "attestation")
REQUEST_ONLY = ("userVerification", "allowCredentials", "rpId")


# ---------------------------------------------------------------------------------------------
# helpers


def new_username() -> str:
    return "user-" + uuid.uuid4().hex[:12]


def body_of(resp: requests.Response) -> dict:
    try:
        body = resp.json()
    except ValueError:
        raise AssertionError(f"reply is not JSON: {resp.status_code} {resp.text[:500]!r}")
    assert isinstance(body, dict), f"reply is not a JSON object: {body!r}"
    return body


def assert_ok(resp: requests.Response) -> dict:
    assert resp.status_code == 200, f"expected 200, got {resp.status_code}: {resp.text[:800]}"
    body = body_of(resp)
    assert body.get("status") == "ok", body
    assert body.get("errorMessage") == "", body
    return body


def assert_failed(resp: requests.Response, server: LatchkeyServer, codes=None) -> dict:
    assert 400 <= resp.status_code < 500, \
        f"expected a 4xx, got {resp.status_code}: {resp.text[:800]}"
    if codes is not None:
        assert resp.status_code in codes, \
            f"expected one of {codes}, got {resp.status_code}: {resp.text[:800]}"
    body = body_of(resp)
    assert body.get("status") == "failed", body
    assert isinstance(body.get("errorMessage"), str) and body["errorMessage"].strip(), body
    server.assert_alive()
    return body


def set_cookies(resp: requests.Response) -> list[str]:
    return list(resp.raw.headers.getlist("Set-Cookie"))


def cookie_header(resp: requests.Response, name: str) -> str:
    found = [c for c in set_cookies(resp) if c.split("=", 1)[0].strip() == name]
    assert found, f"no Set-Cookie {name}: {set_cookies(resp)}"
    return found[-1]


def attestation_options(client, username: str, display_name: str | None = None, **extra) -> dict:
    body = {"username": username, "displayName": display_name or username.title()}
    body.update(extra)
    return assert_ok(client.post("/attestation/options", body))


def assertion_options(client, username: str | None = None, **extra) -> dict:
    body = dict(extra)
    if username is not None:
        body["username"] = username
    return assert_ok(client.post("/assertion/options", body))


def register(server, auth, username: str | None = None, client=None, fmt: str = "none",
             options_extra: dict | None = None, **create_kw):
    """A full, successful registration. Returns (client, options, credential JSON, result)."""
    client = client or server.client()
    username = username or new_username()
    options = attestation_options(client, username, **(options_extra or {}))
    cred = auth.create(options, fmt=fmt, **create_kw)
    result = assert_ok(client.post("/attestation/result", cred))
    return client, options, cred, result


def sign_in(server, auth, username: str | None = None, client=None, credential=None, **get_kw):
    client = client or server.client()
    options = assertion_options(client, username)
    assertion = auth.get(options, credential, **get_kw)
    return client, options, assertion, client.post("/assertion/result", assertion)


def allowed_ids(options: dict) -> list[str]:
    return [d["id"] for d in options.get("allowCredentials", [])]


def registered(server, username: str) -> bool:
    r = server.client().post("/assertion/options", {"username": username})
    if r.status_code == 404:
        return False
    assert_ok(r)
    return True


@pytest.fixture(scope="module")
def alice(server):
    """A registered user with one discoverable credential (authenticator without a counter)."""
    auth = server.authenticator()
    username = new_username()
    client, options, cred, result = register(server, auth, username)
    credential = auth.credentials[b64url_decode(cred["id"])]
    return {"auth": auth, "username": username, "credential": credential, "options": options,
            "result": result}


# ---------------------------------------------------------------------------------------------
# /attestation/options


def test_attestation_options_shape(server):
    client = server.client()
    username = new_username()
    r = client.post("/attestation/options", {"username": username, "displayName": "Ada Lovelace"})
    opts = assert_ok(r)
    assert "publicKey" not in opts, "options must sit at the top level, not under publicKey"
    assert isinstance(opts["rp"]["name"], str) and opts["rp"]["name"]
    assert opts["rp"]["id"] == "localhost"
    assert opts["user"]["name"] == username
    assert opts["user"]["displayName"] == "Ada Lovelace"
    assert B64URL.match(opts["user"]["id"]), opts["user"]["id"]
    assert 1 <= len(b64url_decode(opts["user"]["id"])) <= 64
    assert B64URL.match(opts["challenge"]), opts["challenge"]
    assert 16 <= len(b64url_decode(opts["challenge"])) <= 64
    assert {"type": "public-key", "alg": -7} in [
        {"type": p.get("type"), "alg": p.get("alg")} for p in opts["pubKeyCredParams"]]
    assert isinstance(opts["timeout"], (int, float)) and opts["timeout"] > 0
    assert opts.get("excludeCredentials", []) == []
    for key in REQUEST_ONLY:
        assert key not in opts, f"creation options must not carry {key}"
    cookie_header(r, "latchkey_registration")


def test_attestation_options_fresh_challenge_and_stable_shape(server):
    client = server.client()
    username = new_username()
    first = attestation_options(client, username)
    second = attestation_options(client, username)
    third = attestation_options(server.client(), new_username())
    assert len({first["challenge"], second["challenge"], third["challenge"]}) == 3
    assert first["user"]["name"] == second["user"]["name"] == username


def test_attestation_options_carry_the_effective_members(server):
    # The client asks for less than the defaults (resident key required): it gets the defaults.
    selection = {"requireResidentKey": False, "userVerification": "discouraged",
                 "authenticatorAttachment": "cross-platform"}
    opts = attestation_options(server.client(), new_username(), "Echo Test",
                               authenticatorSelection=selection, attestation="direct",
                               extensions={"example.extension": True})
    assert opts["authenticatorSelection"] == {"requireResidentKey": True, "residentKey": "required",
                                              "userVerification": "preferred",
                                              "authenticatorAttachment": "cross-platform"}
    assert opts["attestation"] == "direct"
    assert opts["extensions"] == {"example.extension": True}
    opts2 = attestation_options(server.client(), new_username(), attestation="none",
                                authenticatorSelection={"residentKey": "required",
                                                        "userVerification": "required"})
    assert opts2["attestation"] == "none"
    assert opts2["authenticatorSelection"] == {"residentKey": "required", "requireResidentKey": True,
                                               "userVerification": "required"}


@pytest.mark.parametrize("raw", [
    pytest.param(b'{"username": "x", "displayName": ', id="malformed-json"),
    pytest.param(b"", id="empty-body"),
    pytest.param(b"[]", id="array-body"),
    pytest.param(b'"alice"', id="string-body"),
    pytest.param(b"null", id="null-body"),
    pytest.param(b'{"displayName": "No Name"}', id="missing-username"),
    pytest.param(b'{"username": "", "displayName": "Empty"}', id="empty-username"),
    pytest.param(b'{"username": 42, "displayName": "Number"}', id="username-number"),
    pytest.param(b'{"username": ["a"], "displayName": "Array"}', id="username-array"),
    pytest.param(b'{"username": "valid-name", "displayName": 7}', id="displayName-number"),
    pytest.param(b'{"username": "valid-name", "displayName": "x", "authenticatorSelection": "yes"}',
                 id="authenticatorSelection-string"),
    pytest.param(b'\xff\xfe{"username": "x"}', id="not-utf8"),
])
def test_attestation_options_bad_requests(server, raw):
    assert_failed(server.client().post("/attestation/options", raw=raw), server, codes=(400,))


# ---------------------------------------------------------------------------------------------
# /assertion/options


def test_assertion_options_for_user(server):
    auth = server.authenticator()
    username = new_username()
    register(server, auth, username)
    (cred2_id,) = [c.id for c in auth.credentials.values()]
    client = server.client()
    r = client.post("/assertion/options", {"username": username, "userVerification": "required",
                                           "extensions": {"example.extension": True}})
    opts = assert_ok(r)
    assert "publicKey" not in opts
    assert [(d["type"], d["id"]) for d in opts["allowCredentials"]] == [("public-key", cred2_id)]
    assert opts["userVerification"] == "required"
    assert opts["extensions"] == {"example.extension": True}
    assert opts["rpId"] == "localhost"
    assert isinstance(opts["timeout"], (int, float)) and opts["timeout"] > 0
    assert B64URL.match(opts["challenge"]) and 16 <= len(b64url_decode(opts["challenge"])) <= 64
    for key in CREATION_ONLY:
        assert key not in opts, f"request options must not carry {key}"
    cookie_header(r, "latchkey_signin")
    again = assert_ok(client.post("/assertion/options", {"username": username,
                                                         "userVerification": "discouraged"}))
    assert again["challenge"] != opts["challenge"]
    assert again["userVerification"] == "preferred", "a client cannot ask for less than the server's minimum"


def test_assertion_options_without_username(server, alice):
    first = assertion_options(server.client())
    second = assertion_options(server.client(), userVerification="required")
    assert first.get("allowCredentials", []) == []
    assert second.get("allowCredentials", []) == []
    assert second["userVerification"] == "required"
    assert first["challenge"] != second["challenge"]
    assert first["rpId"] == "localhost"


def test_assertion_options_unknown_username(server):
    r = server.client().post("/assertion/options", {"username": new_username()})
    assert_failed(r, server, codes=(404,))


@pytest.mark.parametrize("raw", [
    pytest.param(b'{"username": ', id="malformed-json"),
    pytest.param(b"[1,2]", id="array-body"),
    pytest.param(b'{"username": 12}', id="username-number"),
    pytest.param(b'{"username": {"a": 1}}', id="username-object"),
    pytest.param(b'{"userVerification": 3}', id="userVerification-number"),
])
def test_assertion_options_bad_requests(server, raw):
    assert_failed(server.client().post("/assertion/options", raw=raw), server, codes=(400,))


# ---------------------------------------------------------------------------------------------
# Registration and sign-in, the happy paths


@pytest.mark.parametrize("fmt", ["none", "packed"])
def test_register_then_sign_in(server, fmt):
    auth = server.authenticator()
    username = new_username()
    client = server.client()
    options = attestation_options(client, username, "Grace Hopper")
    cred = auth.create(options, fmt=fmt)
    cred["someUnknownMember"] = {"ignored": True}  # unknown members are ignored
    r = client.post("/attestation/result", cred)
    result = assert_ok(r)
    assert result["username"] == username
    assert result["credentialId"] == cred["id"]
    assert isinstance(result["sessionToken"], str) and result["sessionToken"]

    session_cookie = cookie_header(r, "latchkey_session")
    lowered = session_cookie.lower()
    assert "httponly" in lowered, session_cookie
    assert "samesite=lax" in lowered.replace(" ", ""), session_cookie
    assert client.cookie("latchkey_session")
    assert assert_ok(client.get("/session"))["username"] == username

    # Sign in from another "device" (a client without cookies).
    other = server.client()
    options = assertion_options(other, username)
    assert allowed_ids(options) == [cred["id"]]
    r = other.post("/assertion/result", auth.get(options))
    signed = assert_ok(r)
    assert signed["username"] == username
    assert signed["credentialId"] == cred["id"]
    assert signed["sessionToken"] and signed["sessionToken"] != result["sessionToken"]
    cookie_header(r, "latchkey_session")
    assert assert_ok(other.get("/session"))["username"] == username


def test_sign_in_with_signature_counter(server):
    auth = server.authenticator(counter_step=1)
    username = new_username()
    register(server, auth, username, sign_count=1)
    (credential,) = auth.credentials.values()
    for _ in range(2):
        assert_ok(sign_in(server, auth, username)[3])
    assert credential.sign_count == 3
    # Counter regression, then a counter that did not increase: both refused.
    assert_failed(sign_in(server, auth, username, sign_count=2)[3], server, codes=(400,))
    assert_failed(sign_in(server, auth, username, sign_count=3)[3], server, codes=(400,))
    # A counter that moves on is accepted again.
    assert_ok(sign_in(server, auth, username, sign_count=10)[3])


def test_authenticator_without_counter_may_stay_at_zero(server):
    auth = server.authenticator(counter_step=0)
    username = new_username()
    register(server, auth, username)
    for _ in range(3):
        assert_ok(sign_in(server, auth, username)[3])


def test_usernameless_sign_in(server):
    auth = server.authenticator()
    username = new_username()
    _, reg_options, cred, _ = register(server, auth, username)
    client = server.client()
    options = assertion_options(client)
    assertion = auth.get(options)
    assert assertion["response"]["userHandle"] == reg_options["user"]["id"]
    r = client.post("/assertion/result", assertion)
    result = assert_ok(r)
    assert result["username"] == username
    assert result["credentialId"] == cred["id"]
    assert assert_ok(client.get("/session"))["username"] == username


def test_usernameless_sign_in_needs_matching_user_handle(server):
    auth_a, auth_b = server.authenticator(), server.authenticator()
    user_a, user_b = new_username(), new_username()
    _, opts_a, cred_a, _ = register(server, auth_a, user_a)
    _, opts_b, _, _ = register(server, auth_b, user_b)
    assert opts_a["user"]["id"] != opts_b["user"]["id"]

    cases = {
        "missing": None,
        "empty": "",
        "other-user": opts_b["user"]["id"],
        "random": b64url(os.urandom(16)),
        "not-base64url": "!!not*base64!!",
        "number": 12345,
    }
    for name, handle in cases.items():
        client = server.client()
        options = assertion_options(client)
        r = client.post("/assertion/result", auth_a.get(options, user_handle=handle))
        assert 400 <= r.status_code < 500, f"userHandle {name}: {r.status_code} {r.text}"
        assert_failed(r, server)
        assert client.get("/session").status_code == 401
    # The credential itself is fine.
    client = server.client()
    r = client.post("/assertion/result", auth_a.get(assertion_options(client)))
    assert assert_ok(r)["username"] == user_a


def test_sign_in_with_credential_not_allowed_for_user(server, alice):
    auth_b = server.authenticator()
    user_b = new_username()
    register(server, auth_b, user_b)
    (cred_b,) = auth_b.credentials.values()
    client = server.client()
    options = assertion_options(client, alice["username"])
    assert cred_b.id not in allowed_ids(options)
    r = client.post("/assertion/result", auth_b.get(options, cred_b))
    assert_failed(r, server)
    assert client.get("/session").status_code == 401


def test_sign_in_with_unknown_credential(server, alice):
    stranger = server.authenticator()
    fake_options = {"challenge": "x", "user": {"id": b64url(b"nobody"), "name": "nobody"}}
    stranger.create(fake_options)  # made locally, never registered
    (unknown,) = stranger.credentials.values()
    client = server.client()
    options = assertion_options(client)
    r = client.post("/assertion/result", stranger.get(options, unknown))
    assert_failed(r, server)


# ---------------------------------------------------------------------------------------------
# Sessions


def test_session_cookie_bearer_and_logout(server):
    auth = server.authenticator()
    username = new_username()
    client, _, _, result = register(server, auth, username)
    token = result["sessionToken"]

    anonymous = server.client()
    bearer = {"Authorization": f"Bearer {token}"}
    assert assert_ok(anonymous.get("/session", headers=bearer))["username"] == username
    assert assert_ok(client.get("/session"))["username"] == username

    r = client.post("/session/logout")
    assert_ok(r)
    assert_failed(client.get("/session"), server, codes=(401,))
    assert_failed(anonymous.get("/session", headers=bearer), server, codes=(401,))

    # A sign-in session ended through the Bearer token.
    _, _, _, r = sign_in(server, auth, username)
    token2 = assert_ok(r)["sessionToken"]
    h2 = {"Authorization": f"Bearer {token2}"}
    assert assert_ok(anonymous.get("/session", headers=h2))["username"] == username
    assert_ok(anonymous.post("/session/logout", headers=h2))
    assert_failed(anonymous.get("/session", headers=h2), server, codes=(401,))


@pytest.mark.parametrize("headers,cookies", [
    pytest.param({}, {}, id="nothing"),
    pytest.param({"Authorization": "Bearer not-a-real-token"}, {}, id="bad-bearer"),
    pytest.param({"Authorization": "Bearer "}, {}, id="empty-bearer"),
    pytest.param({"Authorization": "Basic dXNlcjpwYXNz"}, {}, id="basic-auth"),
    pytest.param({}, {"latchkey_session": "forged"}, id="forged-cookie"),
    pytest.param({}, {"latchkey_session": ""}, id="empty-cookie"),
])
def test_session_without_valid_session(server, headers, cookies):
    r = requests.get(server.url + "/session", headers=headers, cookies=cookies, timeout=10)
    assert_failed(r, server, codes=(401,))


# ---------------------------------------------------------------------------------------------
# A second passkey for an existing username


def add_passkey(server, auth, username, client=None, headers=None):
    client = client or server.client()
    r = client.post("/attestation/options", {"username": username, "displayName": username},
                    headers=headers)
    if r.status_code != 200:
        return r, None, None
    options = assert_ok(r)
    cred = auth.create(options)
    return client.post("/attestation/result", cred, headers=headers), options, cred


def test_second_passkey_needs_the_users_session(server):
    auth1 = server.authenticator()
    username = new_username()
    owner, first_options, cred1, result = register(server, auth1, username)

    # No session at all: 403 (at options or at result), and nothing is added.
    r, _, _ = add_passkey(server, server.authenticator(), username)
    assert_failed(r, server, codes=(403,))
    # Somebody else's session: 403 too.
    intruder, _, _, _ = register(server, server.authenticator(), new_username())
    r, _, _ = add_passkey(server, server.authenticator(), username, client=intruder)
    assert_failed(r, server, codes=(403,))
    assert allowed_ids(assertion_options(server.client(), username)) == [cred1["id"]]

    # With the owner's cookie.
    auth2 = server.authenticator()
    r, opts2, cred2 = add_passkey(server, auth2, username, client=owner)
    added = assert_ok(r)
    assert added["username"] == username and added["credentialId"] == cred2["id"]
    assert opts2["user"]["id"] == first_options["user"]["id"], "same account, same user handle"
    assert [d["id"] for d in opts2.get("excludeCredentials", [])] == [cred1["id"]]

    # With the owner's Bearer token and no cookies.
    auth3 = server.authenticator()
    r, _, cred3 = add_passkey(server, auth3, username,
                              headers={"Authorization": f"Bearer {result['sessionToken']}"})
    assert_ok(r)
    assert sorted(allowed_ids(assertion_options(server.client(), username))) == \
        sorted([cred1["id"], cred2["id"], cred3["id"]])

    # The added passkeys sign in, with and without a username.
    _, _, _, r = sign_in(server, auth2, username)
    assert assert_ok(r)["credentialId"] == cred2["id"]
    client = server.client()
    r = client.post("/assertion/result", auth3.get(assertion_options(client)))
    assert assert_ok(r)["username"] == username


def test_conformance_mode_excludes_and_allows_second_registration(conformance_server):
    srv = conformance_server
    auth = srv.authenticator()
    username = new_username()
    _, _, cred1, _ = register(srv, auth, username)
    client = srv.client()
    opts = attestation_options(client, username)
    assert [(d["type"], d["id"]) for d in opts["excludeCredentials"]] == [("public-key", cred1["id"])]
    cred2 = auth.create(opts, fmt="packed")
    assert_ok(client.post("/attestation/result", cred2))
    assert sorted(allowed_ids(assertion_options(srv.client(), username))) == \
        sorted([cred1["id"], cred2["id"]])


def test_same_credential_id_twice_is_409(conformance_server):
    srv = conformance_server
    auth = srv.authenticator()
    _, _, cred, _ = register(srv, auth, new_username())
    cred_id = b64url_decode(cred["id"])
    other_user = new_username()
    client = srv.client()
    opts = attestation_options(client, other_user)
    r = client.post("/attestation/result", auth.create(opts, credential_id=cred_id, store=False))
    assert_failed(r, srv, codes=(409,))
    assert not registered(srv, other_user)


def _post_concurrently(clients, path, bodies):
    barrier = threading.Barrier(len(bodies))
    replies: list = [None] * len(bodies)

    def post(i):
        barrier.wait()
        replies[i] = clients[i].post(path, bodies[i], timeout=30)

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(r is not None for r in replies), "a request did not finish"
    return replies


@pytest.mark.parametrize("racers", [2, 5])
def test_racing_first_registrations(server, racers):
    username = new_username()
    clients = [server.client() for _ in range(racers)]
    auths = [server.authenticator() for _ in range(racers)]
    creds = [auth.create(attestation_options(client, username))
             for client, auth in zip(clients, auths)]
    replies = _post_concurrently(clients, "/attestation/result", creds)
    codes = sorted(r.status_code for r in replies)
    assert codes == [200] + [409] * (racers - 1), [(r.status_code, r.text) for r in replies]
    winner = next(i for i in range(racers) if replies[i].status_code == 200)
    for i in range(racers):
        if i != winner:
            assert_failed(replies[i], server, codes=(409,))
            assert clients[i].get("/session").status_code == 401
    assert assert_ok(replies[winner])["credentialId"] == creds[winner]["id"]
    assert allowed_ids(assertion_options(server.client(), username)) == [creds[winner]["id"]]


def test_concurrent_replay_of_one_assertion(server, alice):
    options = assertion_options(server.client(), alice["username"])
    assertion = alice["auth"].get(options, alice["credential"])
    clients = [server.client() for _ in range(5)]
    replies = _post_concurrently(clients, "/assertion/result", [assertion] * 5)
    codes = sorted(r.status_code for r in replies)
    assert codes == [200, 400, 400, 400, 400], [(r.status_code, r.text) for r in replies]
    assert sum(1 for c in clients if c.get("/session").status_code == 200) == 1


# ---------------------------------------------------------------------------------------------
# /attestation/result: malformed and hostile input


def _set(path, value):
    def mutate(cred):
        target = cred
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _drop(path):
    def mutate(cred):
        target = cred
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


STRUCTURAL_ATTESTATION = {
    "id-number": _set(["id"], 12345),
    "id-missing": _drop(["id"]),
    "id-empty": _set(["id"], ""),
    "id-not-base64url": _set(["id"], "not*base64url!"),
    "type-missing": _drop(["type"]),
    "type-wrong": _set(["type"], "private-key"),
    "type-number": _set(["type"], 1),
    "response-missing": _drop(["response"]),
    "response-string": _set(["response"], "response"),
    "response-array": _set(["response"], []),
    "clientDataJSON-missing": _drop(["response", "clientDataJSON"]),
    "clientDataJSON-number": _set(["response", "clientDataJSON"], 7),
    "clientDataJSON-empty": _set(["response", "clientDataJSON"], ""),
    "clientDataJSON-not-base64url": _set(["response", "clientDataJSON"], "@@@@"),
    "clientDataJSON-not-json": _set(["response", "clientDataJSON"], b64url(b"this is not json")),
    "clientDataJSON-json-array": _set(["response", "clientDataJSON"], b64url(b"[1,2,3]")),
    "attestationObject-missing": _drop(["response", "attestationObject"]),
    "attestationObject-number": _set(["response", "attestationObject"], 99),
    "attestationObject-empty": _set(["response", "attestationObject"], ""),
    "attestationObject-not-base64url": _set(["response", "attestationObject"], "%%%="),
    "attestationObject-not-cbor-map": _set(["response", "attestationObject"],
                                           b64url(cbor_encode([1, 2, 3]))),
    "attestationObject-truncated-cbor": _set(["response", "attestationObject"],
                                             b64url(bytes.fromhex("a363666d74646e6f6e65"))),
}


@pytest.mark.parametrize("name", list(STRUCTURAL_ATTESTATION))
def test_attestation_result_structural_errors(server, name):
    auth = server.authenticator()
    username = new_username()
    client = server.client()
    cred = auth.create(attestation_options(client, username))
    STRUCTURAL_ATTESTATION[name](cred)
    assert_failed(client.post("/attestation/result", cred), server, codes=(400,))
    assert client.get("/session").status_code == 401
    assert not registered(server, username)


@pytest.mark.parametrize("raw", [
    pytest.param(b'{"id": "abc", "response": {', id="malformed-json"),
    pytest.param(b"", id="empty-body"),
    pytest.param(b"[]", id="array-body"),
    pytest.param(b"42", id="number-body"),
    pytest.param(b"{}", id="empty-object"),
])
@pytest.mark.parametrize("path", ["/attestation/result", "/assertion/result"])
def test_result_endpoints_reject_garbage_bodies(server, path, raw):
    assert_failed(server.client().post(path, raw=raw), server, codes=(400,))


_A_KEY = ec.generate_private_key(ec.SECP256R1())
_A_COSE_KEY = cose_ec2_public_key(_A_KEY.public_key())
_A_POINT = (_A_KEY.public_key().public_numbers().x.to_bytes(32, "big"),
            _A_KEY.public_key().public_numbers().y.to_bytes(32, "big"))

VERIFICATION_ATTESTATION = {
    "wrong-challenge": dict(challenge=b64url(os.urandom(32))),
    "wrong-origin": dict(origin="https://evil.example.com"),
    "origin-other-port": dict(origin="http://localhost:1"),
    "origin-missing": dict(client_drop=("origin",)),
    "challenge-missing": dict(client_drop=("challenge",)),
    "type-webauthn.get": dict(client_type="webauthn.get"),
    "type-missing": dict(client_drop=("type",)),
    "wrong-rp-id-hash": dict(rp_id="evil.example.com"),
    "up-not-set": dict(up=False, uv=False),
    "at-not-set": dict(at=False),
    "trailing-bytes-in-authData": dict(trailing_auth_data=b"\x00\x01\x02"),
    "packed-bad-signature": dict(fmt="packed", tamper_signature=True),
    "packed-alg-mismatch": dict(fmt="packed", packed_alg=-257),
    "packed-empty-attStmt": dict(fmt="packed", att_stmt={}),
    "none-with-attStmt": dict(fmt="none", att_stmt={"alg": -7, "sig": b"\x30\x00"}),
    "unknown-fmt": dict(fmt="no-such-format"),
    "cross-origin-true": dict(cross_origin=True,
                              client_extra={"topOrigin": "https://evil.example.com"}),
    "bs-without-be": dict(be=False, bs=True),
    "credential-id-too-long": dict(credential_id=os.urandom(1024)),
    "cose-key-truncated": dict(cose_key=_A_COSE_KEY[:-10]),
    "cose-key-point-not-on-curve": dict(cose_key=cbor_encode(
        {1: 2, 3: -7, -1: 1, -2: b"\x01" * 32, -3: b"\x02" * 32})),
    "cose-key-claims-rs256": dict(cose_key=cbor_encode(
        {1: 2, 3: -257, -1: 1, -2: _A_POINT[0], -3: _A_POINT[1]})),
    "cose-key-unknown-kty": dict(cose_key=cbor_encode({1: 99, 3: -7})),
    "cose-key-with-private-d": dict(cose_key=cbor_encode(
        {1: 2, 3: -7, -1: 1, -2: _A_POINT[0], -3: _A_POINT[1], -4: b"\x07" * 32})),
    "cose-key-map-bomb": dict(cose_key=bytes.fromhex("BA10000000")),
    "attStmt-not-a-map": dict(fmt="none", att_stmt=[1, 2]),
    "packed-x5c-garbage": dict(fmt="packed", att_stmt={"alg": -7, "sig": b"\x30\x00",
                                                       "x5c": [b"not a certificate"]}),
    "packed-alg-string": dict(fmt="packed", att_stmt={"alg": "ES256", "sig": b"\x30\x00"}),
    "packed-sig-text": dict(fmt="packed", att_stmt={"alg": -7, "sig": "signature"}),
}


@pytest.mark.parametrize("name", list(VERIFICATION_ATTESTATION))
def test_attestation_result_verification_failures(server, name):
    auth = server.authenticator()
    username = new_username()
    client = server.client()
    options = attestation_options(client, username)
    kw = dict(VERIFICATION_ATTESTATION[name])
    cred = auth.create(options, **kw)
    assert_failed(client.post("/attestation/result", cred), server, codes=(400,))
    assert client.get("/session").status_code == 401
    assert not registered(server, username)


def test_a_public_key_carrying_its_private_scalar_is_refused_by_name(server):
    """A COSE key with `d` (-4) comes from a broken or hostile authenticator: a 400 that says so."""
    auth = server.authenticator()
    client = server.client()
    username = new_username()
    options = attestation_options(client, username)
    private_key = ec.generate_private_key(ec.SECP256R1())
    numbers = private_key.private_numbers()
    point = (numbers.public_numbers.x.to_bytes(32, "big"), numbers.public_numbers.y.to_bytes(32, "big"))
    cose_key = cbor_encode({1: 2, 3: -7, -1: 1, -2: point[0], -3: point[1], -4: numbers.private_value.to_bytes(32, "big")})
    cred = auth.create(options, cose_key=cose_key, private_key=private_key)
    failure = assert_failed(client.post("/attestation/result", cred), server, codes=(400,))
    assert "private key member d (-4)" in failure["errorMessage"], failure
    assert not registered(server, username)


def test_attestation_packed_signature_over_other_client_data(server):
    """packed self attestation whose signature covers a different clientDataJSON."""
    auth = server.authenticator()
    client = server.client()
    username = new_username()
    options = attestation_options(client, username)
    good = auth.create(options, fmt="packed")
    other = auth.create(options, fmt="packed", client_extra={"note": "other"},
                        private_key=auth.credentials[b64url_decode(good["id"])].private_key,
                        credential_id=b64url_decode(good["id"]))
    # attestationObject from one, clientDataJSON from the other.
    good["response"]["clientDataJSON"] = other["response"]["clientDataJSON"]
    # Both carry the same challenge/origin/type, so only the signature is wrong.
    assert_failed(client.post("/attestation/result", good), server, codes=(400,))
    assert not registered(server, username)


def test_attestation_uv_required_but_not_set(server):
    auth = server.authenticator()
    client = server.client()
    username = new_username()
    options = attestation_options(client, username,
                                  authenticatorSelection={"userVerification": "required"})
    assert_failed(client.post("/attestation/result", auth.create(options, uv=False)), server,
                  codes=(400,))
    assert not registered(server, username)
    # UV set: accepted.
    options = attestation_options(client, username,
                                  authenticatorSelection={"userVerification": "required"})
    assert_ok(client.post("/attestation/result", auth.create(options, uv=True)))


def test_attestation_replay(server):
    auth = server.authenticator()
    client = server.client()
    username = new_username()
    cred = auth.create(attestation_options(client, username))
    assert_ok(client.post("/attestation/result", cred))
    assert_failed(client.post("/attestation/result", cred), server)
    assert_failed(server.client().post("/attestation/result", cred), server)
    assert allowed_ids(assertion_options(server.client(), username)) == [cred["id"]]


def test_attestation_with_assertion_challenge(server, alice):
    client = server.client()
    username = new_username()
    attestation_options(client, username)  # a pending registration exists for this client
    get_options = assertion_options(client, alice["username"])
    fake = {"challenge": get_options["challenge"],
            "user": {"id": b64url(os.urandom(16)), "name": username}}
    cred = server.authenticator().create(fake)
    assert_failed(client.post("/attestation/result", cred), server, codes=(400,))
    assert not registered(server, username)


def test_attestation_ceremony_cookie_must_match(server):
    auth = server.authenticator()
    user_a, user_b = new_username(), new_username()
    client_a, client_b = server.client(), server.client()
    opts_a = attestation_options(client_a, user_a)
    attestation_options(client_b, user_b)
    # client_b's ceremony cookie with client_a's challenge.
    cred = auth.create(opts_a)
    assert_failed(client_b.post("/attestation/result", cred), server, codes=(400,))
    assert not registered(server, user_a)


def test_attestation_body_too_large(server):
    client = server.client()
    cred = server.authenticator().create(attestation_options(client, new_username()))
    cred["padding"] = "A" * (300 * 1024)
    assert_failed(client.post("/attestation/result", cred), server, codes=(413,))


# ---------------------------------------------------------------------------------------------
# /assertion/result: malformed and hostile input


STRUCTURAL_ASSERTION = {
    "id-number": _set(["id"], 12345),
    "id-missing": _drop(["id"]),
    "id-empty": _set(["id"], ""),
    "id-not-base64url": _set(["id"], "***"),
    "type-wrong": _set(["type"], "password"),
    "type-missing": _drop(["type"]),
    "response-missing": _drop(["response"]),
    "response-string": _set(["response"], "x"),
    "response-number": _set(["response"], 5),
    "clientDataJSON-missing": _drop(["response", "clientDataJSON"]),
    "clientDataJSON-number": _set(["response", "clientDataJSON"], 1),
    "clientDataJSON-empty": _set(["response", "clientDataJSON"], ""),
    "clientDataJSON-not-base64url": _set(["response", "clientDataJSON"], "a b c"),
    "authenticatorData-missing": _drop(["response", "authenticatorData"]),
    "authenticatorData-number": _set(["response", "authenticatorData"], 0),
    "authenticatorData-empty": _set(["response", "authenticatorData"], ""),
    "authenticatorData-not-base64url": _set(["response", "authenticatorData"], "=="),
    "authenticatorData-too-short": _set(["response", "authenticatorData"], b64url(b"\x00" * 20)),
    "signature-missing": _drop(["response", "signature"]),
    "signature-number": _set(["response", "signature"], 3.5),
    "signature-empty": _set(["response", "signature"], ""),
    "signature-not-base64url": _set(["response", "signature"], "+/+/"),
    "signature-not-der": _set(["response", "signature"], b64url(b"\x01" * 64)),
    "userHandle-number": _set(["response", "userHandle"], 1),
    "userHandle-object": _set(["response", "userHandle"], {"id": "x"}),
}


@pytest.mark.parametrize("name", list(STRUCTURAL_ASSERTION))
def test_assertion_result_structural_errors(server, alice, name):
    client = server.client()
    options = assertion_options(client, alice["username"])
    assertion = alice["auth"].get(options, alice["credential"])
    STRUCTURAL_ASSERTION[name](assertion)
    assert_failed(client.post("/assertion/result", assertion), server, codes=(400,))
    assert client.get("/session").status_code == 401


VERIFICATION_ASSERTION = {
    "wrong-challenge": dict(challenge=b64url(os.urandom(32))),
    "wrong-origin": dict(origin="https://evil.example.com"),
    "origin-missing": dict(client_drop=("origin",)),
    "type-webauthn.create": dict(client_type="webauthn.create"),
    "wrong-rp-id-hash": dict(rp_id="evil.example.com"),
    "tampered-signature": dict(tamper_signature=True),
    "signed-by-other-key": dict(sign_with=ec.generate_private_key(ec.SECP256R1())),
    "signature-over-authData-only": dict(signed_data=lambda ad, ch: ad),
    "up-not-set": dict(up=False, uv=False),
    "trailing-bytes-in-authData": dict(trailing_auth_data=b"\xff"),
    "cross-origin-true": dict(cross_origin=True),
    "origin-other-port": dict(origin="http://localhost:1"),
    "bs-without-be": dict(be=False, bs=True),
}


@pytest.mark.parametrize("name", list(VERIFICATION_ASSERTION))
def test_assertion_result_verification_failures(server, alice, name):
    client = server.client()
    options = assertion_options(client, alice["username"])
    assertion = alice["auth"].get(options, alice["credential"], **VERIFICATION_ASSERTION[name])
    assert_failed(client.post("/assertion/result", assertion), server, codes=(400,))
    assert client.get("/session").status_code == 401


def test_assertion_clientdata_tampered_after_signing(server, alice):
    client = server.client()
    options = assertion_options(client, alice["username"])
    assertion = alice["auth"].get(options, alice["credential"])
    cdj = json.loads(b64url_decode(assertion["response"]["clientDataJSON"]))
    cdj["extra"] = "changed after signing"
    assertion["response"]["clientDataJSON"] = b64url(json.dumps(cdj).encode())
    assert_failed(client.post("/assertion/result", assertion), server, codes=(400,))


def test_assertion_uv_required_but_not_set(server, alice):
    client = server.client()
    options = assertion_options(client, alice["username"], userVerification="required")
    assert options["userVerification"] == "required"
    r = client.post("/assertion/result", alice["auth"].get(options, alice["credential"], uv=False))
    assert_failed(r, server, codes=(400,))
    # The same with UV: accepted.
    options = assertion_options(client, alice["username"], userVerification="required")
    assert_ok(client.post("/assertion/result", alice["auth"].get(options, alice["credential"])))


def test_assertion_replay(server, alice):
    client = server.client()
    options = assertion_options(client, alice["username"])
    assertion = alice["auth"].get(options, alice["credential"])
    assert_ok(client.post("/assertion/result", assertion))
    assert_failed(client.post("/assertion/result", assertion), server, codes=(400,))
    fresh = server.client()
    assert_failed(fresh.post("/assertion/result", assertion), server, codes=(400,))
    assert fresh.get("/session").status_code == 401


def test_assertion_with_registration_challenge(server, alice):
    client = server.client()
    reg_options = attestation_options(client, new_username())
    assertion = alice["auth"].get({"challenge": reg_options["challenge"]}, alice["credential"])
    assert_failed(client.post("/assertion/result", assertion), server, codes=(400,))
    assert client.get("/session").status_code == 401


def test_assertion_ceremony_cookie_must_match(server, alice):
    client_a, client_b = server.client(), server.client()
    opts_a = assertion_options(client_a, alice["username"])
    assertion_options(client_b, alice["username"])
    assertion = alice["auth"].get(opts_a, alice["credential"])
    assert_failed(client_b.post("/assertion/result", assertion), server, codes=(400,))
    assert client_b.get("/session").status_code == 401


def test_overlapping_sign_ins_in_one_client_each_succeed(server, alice):
    """A client that keeps cookies (a browser, iOS's URLSession) may have several sign-ins under way:
    an AutoFill request and the one a button starts. Each challenge is answered with the cookie the
    later options left, and each succeeds; the fifth one back has left the cookie and is refused."""
    client = server.client()
    first, second = assertion_options(client, alice["username"]), assertion_options(client, alice["username"])
    assert client.cookie("latchkey_signin").count(".") == 1, "the cookie holds both bindings"
    r = client.post("/assertion/result", alice["auth"].get(first, alice["credential"]))
    assert r.status_code == 200, r.text
    r = client.post("/assertion/result", alice["auth"].get(second, alice["credential"]))
    assert r.status_code == 200, r.text

    oldest = assertion_options(client, alice["username"])
    for _ in range(4):
        assertion_options(client, alice["username"])
    assert client.cookie("latchkey_signin").count(".") == 3, "at most four bindings"
    r = client.post("/assertion/result", alice["auth"].get(oldest, alice["credential"]))
    assert_failed(r, server, codes=(400,))
    assert "cookie does not belong to this challenge" in r.json()["errorMessage"], r.text


def test_assertion_challenge_bound_to_user(server, alice):
    """A challenge issued for one username cannot sign in another user's credential."""
    auth_b = server.authenticator()
    user_b = new_username()
    register(server, auth_b, user_b)
    (cred_b,) = auth_b.credentials.values()
    client = server.client()
    options = assertion_options(client, alice["username"])
    r = client.post("/assertion/result", auth_b.get(options, cred_b))
    assert_failed(r, server, codes=(400,))


# ---------------------------------------------------------------------------------------------
# Expired challenges


def test_expired_challenges(short_timeout_server):
    srv = short_timeout_server
    auth = srv.authenticator()
    username = new_username()
    # Control: answered at once, the registration works.
    register(srv, auth, username)

    client = srv.client()
    late_user = new_username()
    cred = auth.create(attestation_options(client, late_user))
    time.sleep(2.5)
    assert_failed(client.post("/attestation/result", cred), srv, codes=(400,))
    assert not registered(srv, late_user)

    # Control for sign-in, then a late one.
    assert_ok(sign_in(srv, auth, username)[3])
    client = srv.client()
    assertion = auth.get(assertion_options(client, username))
    time.sleep(2.5)
    assert_failed(client.post("/assertion/result", assertion), srv, codes=(400,))
    assert client.get("/session").status_code == 401


# ---------------------------------------------------------------------------------------------
# CBOR bombs: tiny bodies that announce huge items


BOMBS = {
    "array-2^28": bytes.fromhex("9A10000000"),
    "map-2^28": bytes.fromhex("BA10000000"),
    "bytes-2^28": bytes.fromhex("5A10000000"),
    "array-2^32-64bit": bytes.fromhex("9B0000000100000000"),
    "authData-bytes-2^31": cbor_encode({"fmt": "none", "attStmt": {},
                                        "authData": Raw(bytes.fromhex("5A80000000"))}),
    "indefinite-nesting": b"\x9f" * 20000,
    "deep-nesting": b"\x81" * 40000 + b"\x00",  # within the 64 KiB body limit once in base64
}


@pytest.mark.parametrize("name", list(BOMBS))
def test_cbor_bomb_attestation_object(server, name):
    client = server.client()
    username = new_username()
    options = attestation_options(client, username)
    auth = server.authenticator()
    cred = auth.create(options)  # valid clientDataJSON for this challenge
    cred["response"]["attestationObject"] = b64url(BOMBS[name])
    if name == "array-2^28":
        assert cred["response"]["attestationObject"] == "mhAAAAA"
    rss_before = server.vm_rss_kib()
    started = time.monotonic()
    r = client.post("/attestation/result", cred, timeout=10)
    elapsed = time.monotonic() - started
    rss_after = server.vm_rss_kib()
    assert_failed(r, server, codes=(400,))
    assert elapsed < 1.0, f"took {elapsed:.2f}s"
    growth_mib = (rss_after - rss_before) / 1024
    assert growth_mib <= 20, f"VmRSS grew by {growth_mib:.1f} MiB ({rss_before} -> {rss_after} KiB)"
    assert not registered(server, username)


# ---------------------------------------------------------------------------------------------
# Apple app site association, static files


def test_apple_app_site_association(server):
    r = requests.get(server.url + "/.well-known/apple-app-site-association", timeout=10)
    assert r.status_code == 200, r.text
    assert r.headers.get("Content-Type", "").split(";")[0].strip() == "application/json"
    body = r.json()
    assert body["webcredentials"]["apps"] == APPLE_APP_IDS.split(",")


def test_static_page_is_served(server):
    r = requests.get(server.url + "/", timeout=10)
    assert r.status_code == 200
    assert r.headers.get("Content-Type", "").startswith("text/html")
    for element_id in ("username", "displayName", "register", "signin", "signin-discoverable",
                       "add-passkey", "signout", "status", "whoami"):
        assert f'id="{element_id}"' in r.text
    js = requests.get(server.url + "/app.js", timeout=10)
    assert js.status_code == 200 and "javascript" in js.headers.get("Content-Type", "")
    assert js.content == (REPO / "Public" / "app.js").read_bytes()
    css = requests.get(server.url + "/style.css", timeout=10)
    assert css.status_code == 200 and css.headers.get("Content-Type", "").startswith("text/css")


@pytest.mark.parametrize("path", ["/../Package.swift", "/%2e%2e/Package.swift",
                                  "/..%2fPackage.swift", "/%2e%2e%2fPackage.swift",
                                  "/../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd"])
def test_static_files_do_not_escape_public(server, path):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("GET", path)  # sent verbatim, no dot-segment normalisation
        resp = conn.getresponse()
        data = resp.read()
    finally:
        conn.close()
    assert resp.status < 500, (resp.status, data[:200])
    assert b"swift-tools-version" not in data and b"root:x:0:0" not in data, (resp.status, data[:200])
    server.assert_alive()


# ---------------------------------------------------------------------------------------------
# More behaviour: user verification levels, unicode, methods, JSON depth, sessions, origins


def test_assertion_uv_discouraged_accepts_uv_clear(server, alice):
    client = server.client()
    options = assertion_options(client, alice["username"], userVerification="discouraged")
    r = client.post("/assertion/result", alice["auth"].get(options, alice["credential"], uv=False))
    assert assert_ok(r)["username"] == alice["username"]


def test_unicode_username_round_trip(server):
    auth = server.authenticator()
    username = "zoë-Ωμέγα-🙂-" + uuid.uuid4().hex[:6]
    display = "Zoë «Ωmega» 🙂"
    client = server.client()
    options = attestation_options(client, username, display)
    assert options["user"]["name"] == username and options["user"]["displayName"] == display
    result = assert_ok(client.post("/attestation/result", auth.create(options)))
    # The account is kept under the case-folded name (Ω becomes ω). Each word keeps to one script:
    # Latin and Greek letters in one word ("Ωmega") would be refused as a look-alike.
    assert result["username"] == username.lower()
    assert assert_ok(client.get("/session"))["username"] == username.lower()
    _, _, _, r = sign_in(server, auth, username)
    assert assert_ok(r)["username"] == username.lower()


@pytest.mark.parametrize("method,path", [
    ("GET", "/attestation/options"), ("GET", "/attestation/result"),
    ("GET", "/assertion/options"), ("PUT", "/assertion/result"),
    ("DELETE", "/session"), ("GET", "/session/logout"),
])
def test_wrong_methods_are_client_errors(server, method, path):
    r = requests.request(method, server.url + path, timeout=10)
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:300])
    server.assert_alive()


@pytest.mark.parametrize("path", ["/attestation/options", "/assertion/options",
                                  "/attestation/result", "/assertion/result"])
def test_deeply_nested_json(server, path):
    depth = 30_000
    raw = (b'{"username":"deep-' + uuid.uuid4().hex[:8].encode() + b'","displayName":"D",'
           b'"extensions":' + b"[" * depth + b"]" * depth + b"}")
    assert len(raw) < 64 * 1024, "within the body limit, so the decoder sees it"
    r = server.client().post(path, raw=raw, timeout=15)
    assert r.status_code < 500, (r.status_code, r.text[:300])
    if path.endswith("/result"):
        assert_failed(r, server, codes=(400,))
    server.assert_alive()


def test_logout_ends_only_that_session(server):
    auth = server.authenticator()
    username = new_username()
    first, _, _, _ = register(server, auth, username)
    second, _, _, r = sign_in(server, auth, username)
    assert_ok(r)
    assert_ok(second.post("/session/logout"))
    assert second.get("/session").status_code == 401
    assert assert_ok(first.get("/session"))["username"] == username


def test_several_configured_origins(server_factory):
    probe = LatchkeyServer("probe")  # only to pick a second free port for an extra origin
    extra_origin = f"http://localhost:{probe.port}"
    probe.cleanup()
    srv = server_factory("origins")
    srv.stop()
    srv.env["LATCHKEY_ORIGINS"] = f"{srv.origin},{extra_origin}"
    srv.start()
    auth = srv.authenticator()
    username = new_username()
    register(srv, auth, username, origin=extra_origin)
    assert_ok(sign_in(srv, auth, username, origin=extra_origin)[3])
    assert_ok(sign_in(srv, auth, username)[3])
    client, _, _, r = sign_in(srv, auth, username, origin="http://localhost:2")
    assert_failed(r, srv, codes=(400,))


def test_conformance_mode_user_presence(conformance_server):
    srv = conformance_server
    auth = srv.authenticator()
    username = new_username()
    register(srv, auth, username)
    (cred,) = auth.credentials.values()
    # Documented: without UP, an assertion passes when UV is not required ...
    client = srv.client()
    options = assertion_options(client, username, userVerification="preferred")
    assert_ok(client.post("/assertion/result", auth.get(options, cred, up=False, uv=False)))
    # ... and is refused when UV is required.
    options = assertion_options(client, username, userVerification="required")
    r = client.post("/assertion/result", auth.get(options, cred, up=False, uv=False))
    assert_failed(r, srv, codes=(400,))


# ---------------------------------------------------------------------------------------------
# Configuration errors


@pytest.mark.parametrize("key,value,names", [
    ("LATCHKEY_PORT", "notaport", ("LATCHKEY_PORT", "port")),
    ("LATCHKEY_PORT", "70000", ("LATCHKEY_PORT", "port")),
    ("LATCHKEY_PORT", "-1", ("LATCHKEY_PORT", "port")),
    ("LATCHKEY_CHALLENGE_TIMEOUT", "0", ("LATCHKEY_CHALLENGE_TIMEOUT", "challengeTimeout")),
    ("LATCHKEY_CHALLENGE_TIMEOUT", "soon", ("LATCHKEY_CHALLENGE_TIMEOUT", "challengeTimeout")),
    ("LATCHKEY_CONFORMANCE_MODE", "maybe", ("LATCHKEY_CONFORMANCE_MODE", "conformanceMode")),
    ("LATCHKEY_ORIGINS", "ftp://localhost", ("LATCHKEY_ORIGINS", "origins")),
    ("LATCHKEY_ORIGINS", "https://evil.example.com", ("LATCHKEY_ORIGINS", "origins")),
])
def test_bad_configuration_exits_naming_the_key(tmp_path, key, value, names):
    require_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_HOST": "127.0.0.1", "LATCHKEY_PORT": str(free_port()),
                "LATCHKEY_ORIGINS": "http://localhost:8080", "LATCHKEY_RP_ID": "localhost",
                "LATCHKEY_DATABASE": str(tmp_path / "db.sqlite")})
    env[key] = value
    try:
        proc = subprocess.run([str(LATCHKEY_BIN), "serve"], cwd=str(REPO), env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"latchkey kept running with {key}={value!r}")
    output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    assert proc.returncode != 0, output
    assert any(name in output for name in names), output
