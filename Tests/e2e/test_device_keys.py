"""Device keys against the real binary: an app's P-256 key (here made by `cryptography`, as the
Secure Enclave would make one) enrolled by the signed-in user and then signing in with a signature
over a single-use challenge. The message signed is DeviceKeySignature's (docs/IOS.md): replays, another
purpose, another key and a removed key are refused, the last with `"reason":"unknownDeviceKey"`."""

from __future__ import annotations

import hashlib
import struct

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from softauthn import b64url, b64url_decode
from test_http_api import assert_failed, assert_ok, register


def message(purpose: int, rp_id: str, challenge: bytes, point: bytes) -> bytes:
    """The signed message, built here from its description in docs/IOS.md, not from the server's code."""
    def field(data: bytes) -> bytes:
        return struct.pack(">H", len(data)) + data
    return b"LATCHKEY-DEVICE-KEY-V1" + bytes([purpose]) + field(rp_id.encode()) + field(challenge) + field(hashlib.sha256(point).digest())


class DeviceKey:
    def __init__(self):
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.point = self.private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = b64url(hashlib.sha256(self.point).digest())

    def sign(self, purpose: int, rp_id: str, challenge: str) -> str:
        return b64url(self.private.sign(message(purpose, rp_id, b64url_decode(challenge), self.point), ec.ECDSA(hashes.SHA256())))


def enrol(client, bearer, key: DeviceKey, name="iPhone") -> dict:
    options = assert_ok(client.post("/device-keys/options", {}, headers=bearer))
    body = {"challenge": options["challenge"], "publicKey": b64url(key.point), "signature": key.sign(1, options["rpId"], options["challenge"]),
            "name": name}
    reply = client.post("/device-keys", body, headers=bearer)
    assert reply.status_code == 201, reply.text
    return reply.json()


def test_an_app_key_enrols_and_signs_in_once_per_challenge(server):
    client, _, _, registered = register(server, server.authenticator())
    bearer = {"Authorization": f"Bearer {registered['sessionToken']}"}
    key = DeviceKey()
    assert enrol(client, bearer, key)["keyId"] == key.key_id
    listed = assert_ok(client.get("/device-keys", headers=bearer))["deviceKeys"]
    assert [(k["keyId"], k["name"], k["lastUsedAt"]) for k in listed] == [(key.key_id, "iPhone", None)]

    app = server.client()
    options = assert_ok(app.post("/device-keys/sign-in/options", {"keyId": key.key_id, "nonce": "app-login-1"}))
    attempt = {"keyId": key.key_id, "challenge": options["challenge"], "signature": key.sign(2, options["rpId"], options["challenge"])}
    # A key ID no enrolment makes is refused before the challenge is spent.
    assert "32 bytes" in assert_failed(app.post("/device-keys/sign-in", {**attempt, "keyId": "AAAA"}), server, codes=(400,))["errorMessage"]
    signed_in = assert_ok(app.post("/device-keys/sign-in", attempt))
    assert signed_in["username"] == registered["username"] and signed_in["userVerified"] is False
    claims = jwt.decode(signed_in["idToken"], options={"verify_signature": False})
    assert claims["cred"] == key.key_id and claims["amr"] == ["pop"] and claims["nonce"] == "app-login-1", claims
    assert assert_ok(app.get("/session", headers={"Authorization": f"Bearer {signed_in['sessionToken']}"}))["username"] == registered["username"]

    # The same signature again: the challenge is spent.
    assert_failed(app.post("/device-keys/sign-in", attempt), server, codes=(400,))


def test_signatures_for_another_purpose_or_key_are_refused_and_a_removed_key_is_unknown(server):
    client, _, _, registered = register(server, server.authenticator())
    bearer = {"Authorization": f"Bearer {registered['sessionToken']}"}
    key, other = DeviceKey(), DeviceKey()
    enrol(client, bearer, key)
    enrol(client, bearer, other, name="iPad")

    for purpose, signer in ((1, key), (2, other)):
        options = assert_ok(server.client().post("/device-keys/sign-in/options", {"keyId": key.key_id}))
        refused = server.client().post("/device-keys/sign-in", {
            "keyId": key.key_id, "challenge": options["challenge"], "signature": signer.sign(purpose, options["rpId"], options["challenge"])})
        failure = assert_failed(refused, server, codes=(400,))
        assert "signature" in failure["errorMessage"], failure

    # Enrolment needs a session, and proof of possession of the key.
    assert server.client().post("/device-keys/options", {}).status_code == 401
    options = assert_ok(client.post("/device-keys/options", {}, headers=bearer))
    stranger = DeviceKey()
    forged = {"challenge": options["challenge"], "publicKey": b64url(stranger.point), "signature": key.sign(1, options["rpId"], options["challenge"])}
    assert_failed(client.post("/device-keys", forged, headers=bearer), server, codes=(400,))

    assert assert_ok(client.delete(f"/device-keys/{key.key_id}", headers=bearer))
    unknown = server.client().post("/device-keys/sign-in/options", {"keyId": key.key_id})
    assert unknown.status_code == 400 and unknown.json()["reason"] == "unknownDeviceKey", unknown.text
    assert client.delete(f"/device-keys/{key.key_id}", headers=bearer).status_code == 404
    # Deleting the account removes its device keys.
    assert_ok(client.delete("/account", headers=bearer))
    gone = server.client().post("/device-keys/sign-in/options", {"keyId": other.key_id})
    assert gone.status_code == 400 and gone.json()["reason"] == "unknownDeviceKey"


def test_a_mistake_in_an_enrolment_is_mended_with_the_same_challenge(server):
    """A name too long or a signature that does not verify is refused before the challenge is spent."""
    client, _, _, registered = register(server, server.authenticator())
    bearer = {"Authorization": f"Bearer {registered['sessionToken']}"}
    key = DeviceKey()
    options = assert_ok(client.post("/device-keys/options", {}, headers=bearer))
    body = {"challenge": options["challenge"], "publicKey": b64url(key.point), "signature": key.sign(1, options["rpId"], options["challenge"])}
    # Sent without its session: a 401 that leaves the challenge for the request sent with it (it was spent).
    unsigned_in = server.client().post("/device-keys", body)
    assert unsigned_in.status_code == 401 and "not signed in" in unsigned_in.json()["errorMessage"], unsigned_in.text
    too_long = client.post("/device-keys", {**body, "name": "x" * 200}, headers=bearer)
    assert too_long.status_code == 400 and "name" in too_long.json()["errorMessage"], too_long.text
    unsigned = client.post("/device-keys", {**body, "signature": key.sign(2, options["rpId"], options["challenge"])}, headers=bearer)
    assert unsigned.status_code == 400, unsigned.text
    enrolled = client.post("/device-keys", {**body, "name": "iPhone"}, headers=bearer)
    assert enrolled.status_code == 201 and enrolled.json()["keyId"] == key.key_id, enrolled.text


def test_a_key_id_that_no_enrolment_makes_is_a_400_that_echoes_nothing(server):
    for key_id in ["", "AAAA", "A" * 5000]:
        refused = server.client().post("/device-keys/sign-in/options", {"keyId": key_id})
        assert refused.status_code == 400 and "32 bytes" in refused.json()["errorMessage"], refused.text
        assert "credentialId" not in refused.json() and len(refused.text) < 300, refused.text
