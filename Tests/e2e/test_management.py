"""Passkey management against the real binary: the session, the passkey list, rename, remove,
account deletion, and the unknownCredential reason a page passes to the WebAuthn Signal API."""
from __future__ import annotations

import datetime
import time

import requests

from softauthn import b64url, b64url_decode
from test_http_api import assert_failed, assert_ok, new_username, register, sign_in

ONE_PASSWORD = bytes.fromhex("bada5566a7aa401fbd9645619a55120d")


def bearer(result: dict) -> dict:
    return {"Authorization": f"Bearer {result['sessionToken']}"}


def test_not_signed_in_is_401_everywhere(server):
    for method, path in [("GET", "/session"), ("DELETE", "/session"), ("POST", "/session/logout"),
                         ("GET", "/credentials"), ("PATCH", "/credentials/AAAA"), ("DELETE", "/credentials/AAAA"),
                         ("DELETE", "/account")]:
        r = requests.request(method, server.url + path, json={"name": "x"} if method == "PATCH" else None,
                             headers={"Authorization": "Bearer " + "A" * 43}, timeout=10)
        body = assert_failed(r, server, codes=(401,))
        assert body["errorMessage"] == "not signed in", (method, path, body)


def test_a_person_manages_their_passkeys_with_the_cookie_and_the_bearer_token(server):
    auth = server.authenticator()
    username = new_username()
    client, _, first, result = register(server, auth, username)
    token = bearer(result)
    first_credential = auth.credentials[b64url_decode(first["id"])]
    # A second passkey, from 1Password, added while signed in (by the cookie).
    register(server, server.authenticator(aaguid=ONE_PASSWORD), username, client=client)

    session = assert_ok(client.get("/session"))
    assert session["username"] == username and session["rpId"] == "localhost" and session["passkeys"] == 2

    listed = assert_ok(requests.get(server.url + "/credentials", headers=token, timeout=10))
    names = [c["name"] for c in listed["credentials"]]
    assert names == ["Passkey", "1Password"], listed
    assert listed["credentials"][0]["id"] == first["id"]
    assert listed["credentials"][0]["lastUsedAt"] is None
    created = datetime.datetime.fromisoformat(listed["credentials"][0]["createdAt"].replace("Z", "+00:00"))
    assert abs((datetime.datetime.now(datetime.timezone.utc) - created).total_seconds()) < 120

    renamed = assert_ok(client.patch(f"/credentials/{first['id']}", {"name": "Work laptop"}))
    assert renamed["credential"]["name"] == "Work laptop"
    assert renamed["credential"]["authenticatorName"] == "Passkey"

    # The name persists into a new session, which also records the last use.
    later, _, _, r = sign_in(server, auth, username, credential=first_credential)
    assert_ok(r)
    relisted = assert_ok(later.get("/credentials"))
    assert relisted["credentials"][0]["name"] == "Work laptop"
    assert any(c["lastUsedAt"] for c in relisted["credentials"])

    removed = assert_ok(client.delete(f"/credentials/{first['id']}"))
    assert removed == {"status": "ok", "errorMessage": ""}
    remaining = assert_ok(client.get("/credentials"))["credentials"]
    assert [c["name"] for c in remaining] == ["1Password"]

    last = assert_failed(client.delete(f"/credentials/{remaining[0]['id']}"), server, codes=(409,))
    assert "only passkey" in last["errorMessage"], last

    # The removed passkey is now unknown: the reply says so in a way a page can act on.
    _, _, _, r = sign_in(server, auth, None, credential=first_credential)
    body = assert_failed(r, server, codes=(400,))
    assert body["reason"] == "unknownCredential" and body["credentialId"] == first["id"], body

    assert_ok(client.delete("/session"))
    assert client.get("/session").status_code == 401
    assert assert_ok(later.get("/session"))["username"] == username, "other sessions stay"


def test_a_session_adds_keys_only_soon_after_its_sign_in(server_factory):
    """With reauthenticateAfter, an old session may still read and rename, but adding a passkey or a device key
    needs a sign-in as recent as that: a new sign-in (a new session) may add one again."""
    server = server_factory("reauthenticate", {"LATCHKEY_REAUTHENTICATE_AFTER": "2"})
    auth = server.authenticator()
    username = new_username()
    client, _, first, result = register(server, auth, username)
    # Options asked for inside the window, answered after it: the result is held to the window too.
    passkey_options = assert_ok(client.post("/attestation/options", {"username": username}))
    device_key_options = assert_ok(client.post("/device-keys/options", {}, headers=bearer(result)))
    time.sleep(2.5)
    late_passkey = client.post("/attestation/result", auth.create(passkey_options), headers=bearer(result))
    from test_device_keys import DeviceKey
    key = DeviceKey()
    late_device_key = client.post("/device-keys", {
        "challenge": device_key_options["challenge"], "publicKey": b64url(key.point),
        "signature": key.sign(1, device_key_options["rpId"], device_key_options["challenge"])}, headers=bearer(result))
    for late, what in [(late_passkey, "a passkey"), (late_device_key, "a device key")]:
        refused = assert_failed(late, server, codes=(403,))
        assert refused["reason"] == "reauthenticationRequired", refused
        assert refused["errorMessage"].startswith(f"sign in again to add {what}: "), refused
    for path, body, key in [("/attestation/options", {"username": username}, "a passkey"), ("/device-keys/options", {}, "a device key")]:
        refused = assert_failed(client.post(path, body, headers=bearer(result)), server, codes=(403,))
        assert refused["reason"] == "reauthenticationRequired", refused
        assert refused["errorMessage"].startswith(f"sign in again to add {key}: this session signed in "), refused
        assert refused["errorMessage"].endswith("needs a sign-in within the last 2 seconds"), refused
    conditional = client.post("/attestation/options", {"username": username, "mediation": "conditional"})
    assert assert_failed(conditional, server, codes=(403,))["reason"] == "reauthenticationRequired"
    assert assert_ok(client.get("/credentials"))["credentials"][0]["id"] == first["id"], "the session still reads"

    # An enrollment ticket is not held to the session's age.
    from backend import create_admin_key
    admin = {"Authorization": "Bearer " + create_admin_key(server, "reauth")}
    ticket = requests.post(f"{server.url}/admin/v1/users/{username}/enrollment-tickets", headers=admin, timeout=10).json()["ticket"]
    assert_ok(client.post("/device-keys/options", {"enrollmentTicket": ticket}, headers=bearer(result)))

    again, _, _, r = sign_in(server, auth, username)
    assert_ok(r)
    register(server, server.authenticator(), username, client=again)
    assert len(assert_ok(again.get("/credentials"))["credentials"]) == 2


def test_another_users_passkey_is_404_and_still_works_for_its_owner(server):
    alice_auth, bob_auth = server.authenticator(), server.authenticator()
    alice_user = new_username()
    alice, _, alice_cred, _ = register(server, alice_auth, alice_user)
    register(server, alice_auth, alice_user, client=alice)
    bob, _, _, _ = register(server, bob_auth)
    for r in [bob.patch(f"/credentials/{alice_cred['id']}", {"name": "mine"}),
              bob.delete(f"/credentials/{alice_cred['id']}"),
              bob.delete("/credentials/" + "B" * 22)]:
        body = assert_failed(r, server, codes=(404,))
        assert body["errorMessage"] == "no passkey with this id"
    assert_ok(alice.patch(f"/credentials/{alice_cred['id']}", {"name": "Still mine"}))
    assert_ok(alice.delete(f"/credentials/{alice_cred['id']}"))


def test_deleting_the_account_removes_everything_and_frees_the_username(server):
    auth = server.authenticator()
    username = new_username()
    client, _, _, result = register(server, auth, username)
    other, _, _, r = sign_in(server, auth, username)
    assert_ok(r)
    assert_ok(client.delete("/account"))
    assert client.get("/session").status_code == 401
    assert other.get("/session").status_code == 401, "every session of the user ends"
    assert requests.get(server.url + "/credentials", headers=bearer(result), timeout=10).status_code == 401
    assert server.client().post("/assertion/options", {"username": username}).status_code == 404
    _, _, _, r = sign_in(server, auth, None)
    assert assert_failed(r, server, codes=(400,))["reason"] == "unknownCredential"
    register(server, server.authenticator(), username)  # the username registers again
