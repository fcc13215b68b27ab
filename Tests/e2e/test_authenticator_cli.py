"""`latchkey authenticator` as a command against the real server: every algorithm and both
attestation kinds register and sign in (from a web origin and from an Android app's), and options it
cannot answer end with a non-zero exit status, a message on stderr, nothing on stdout, and the keys
file untouched."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
import requests

from conftest import LATCHKEY_BIN, require_binary
from softauthn import b64url
from test_http_api import assert_failed, assert_ok, new_username


@pytest.fixture
def keys():
    folder = Path(tempfile.mkdtemp(prefix="latchkey-authenticator-"))
    yield folder / "keys.json"
    shutil.rmtree(folder, ignore_errors=True)


def authenticator(*arguments: str, options, keys: Path, origin: str) -> subprocess.CompletedProcess:
    require_binary()
    data = options if isinstance(options, bytes) else json.dumps(options).encode()
    return subprocess.run([str(LATCHKEY_BIN), "authenticator", *arguments, "--keys", str(keys), "--origin", origin],
                          input=data, capture_output=True, timeout=60)


def answered(result: subprocess.CompletedProcess) -> dict:
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr.decode()}"
    assert result.stderr == b""
    return json.loads(result.stdout)


def refused(result: subprocess.CompletedProcess, status: int, phrase: str) -> str:
    message = result.stderr.decode()
    assert result.returncode == status, f"expected exit {status}, got {result.returncode}: {message}"
    assert result.stdout == b"", f"something was written to stdout: {result.stdout!r}"
    assert message.startswith("latchkey authenticator: ") or status == 64, message
    assert phrase in message, f"{phrase!r} not in {message!r}"
    return message


def register(server, keys: Path, username: str, *extra: str) -> dict:
    options = assert_ok(requests.post(server.url + "/attestation/options", json={"username": username}, timeout=10))
    credential = answered(authenticator("register", *extra, options=options, keys=keys, origin=server.origin))
    return assert_ok(requests.post(server.url + "/attestation/result", json=credential, timeout=10))


def sign_in(server, keys: Path, body: dict, *extra: str) -> dict:
    options = assert_ok(requests.post(server.url + "/assertion/options", json=body, timeout=10))
    assertion = answered(authenticator("sign-in", *extra, options=options, keys=keys, origin=server.origin))
    return assert_ok(requests.post(server.url + "/assertion/result", json=assertion, timeout=10))


@pytest.mark.parametrize("attestation", ["none", "packed"])
@pytest.mark.parametrize("alg", ["ES256", "ES384", "EdDSA", "RS256"])
def test_every_algorithm_and_attestation_registers_and_signs_in(server, keys, alg, attestation):
    username = new_username()
    result = register(server, keys, username, "--alg", alg, "--attestation", attestation)
    assert result["username"] == username and result["attestationFormat"] == attestation
    assert result["attestationType"] == ("self" if attestation == "packed" else "none")
    assert result["userVerified"] is True
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert sign_in(server, keys, {"username": username})["username"] == username
    assert sign_in(server, keys, {}, "--user", username)["username"] == username
    stored = json.loads(keys.read_text())["credentials"]
    assert [(c["algorithm"], c["signCount"]) for c in stored] == [(alg, 2)]


def test_without_attestation_flag_it_gives_what_the_options_ask_for(server, server_factory, keys):
    plain = register(server, keys, new_username())
    assert plain["attestationFormat"] == "none"
    strict = server_factory("self-or-trusted", {"LATCHKEY_ATTESTATION_POLICY": "self-or-trusted"})
    result = register(strict, keys, new_username())
    assert result["attestationFormat"] == "packed" and result["attestationType"] == "self", result


def test_options_that_cannot_be_answered_exit_non_zero_with_nothing_on_stdout(server, keys):
    username = new_username()
    token = register(server, keys, username)["sessionToken"]
    before = keys.read_bytes()
    creation = assert_ok(requests.post(server.url + "/attestation/options", json={"username": new_username()}, timeout=10))
    request = assert_ok(requests.post(server.url + "/assertion/options", json={}, timeout=10))

    refused(authenticator("register", options=b"{\"rp\":", keys=keys, origin=server.origin), 65,
            "malformed options: not valid JSON")
    without_challenge = {k: v for k, v in creation.items() if k != "challenge"}
    refused(authenticator("register", options=without_challenge, keys=keys, origin=server.origin), 65,
            "malformed options: challenge is missing")
    refused(authenticator("sign-in", options={**request, "allowCredentials": "all"}, keys=keys, origin=server.origin), 65,
            "malformed options: allowCredentials must be an array")
    refused(authenticator("register", options=b"", keys=keys, origin=server.origin), 65, "the input is empty")

    # A failed reply piped in by mistake: the server's own message.
    failed = assert_failed(requests.post(server.url + "/attestation/options", json={"username": ""}, timeout=10), server)
    refused(authenticator("register", options=failed, keys=keys, origin=server.origin), 65, failed["errorMessage"])

    refused(authenticator("register", options=creation, keys=keys, origin="https://example.com"), 1,
            'wrong RP ID: rp.id "localhost"')
    refused(authenticator("sign-in", options=request, keys=keys, origin="https://example.com"), 1,
            'wrong RP ID: rpId "localhost"')

    only_es256 = {**creation, "pubKeyCredParams": [{"type": "public-key", "alg": -7}]}
    refused(authenticator("register", "--alg", "RS256", options=only_es256, keys=keys, origin=server.origin), 1,
            "unsupported algorithm: RS256 is not in pubKeyCredParams, which offers ES256")
    refused(authenticator("register", "--alg", "ES512", options=creation, keys=keys, origin=server.origin), 64,
            "--alg ES512 is not one of ES256, ES384, EdDSA, RS256")

    # Adding a passkey to the account whose passkey this file holds: the server excludes it.
    again = assert_ok(requests.post(server.url + "/attestation/options", json={"username": username},
                                    headers={"Authorization": f"Bearer {token}"}, timeout=10))
    assert again["excludeCredentials"], again
    refused(authenticator("register", options=again, keys=keys, origin=server.origin), 1, "excludeCredentials")

    # Another user's sign-in: allowCredentials lists only a credential this file does not hold.
    someone = new_username()
    register(server, keys.parent / "someone.json", someone)
    theirs = assert_ok(requests.post(server.url + "/assertion/options", json={"username": someone}, timeout=10))
    refused(authenticator("sign-in", options=theirs, keys=keys, origin=server.origin), 1,
            "no matching credential: none of the 1 credential(s) in allowCredentials")
    refused(authenticator("sign-in", "--user", "nobody", options=request, keys=keys, origin=server.origin), 1,
            'no matching credential: ')
    empty = keys.parent / "empty.json"
    refused(authenticator("sign-in", options=request, keys=empty, origin=server.origin), 1,
            "holds no credential for RP ID localhost")
    assert not empty.exists(), "a refused sign-in created the keys file"

    refused(authenticator("register", options=creation, keys=keys, origin="http://example.com"), 64,
            "must be https")

    assert keys.read_bytes() == before, "a refusal changed the keys file"
    assert sorted(p.name for p in keys.parent.iterdir()) == ["keys.json", "someone.json"], "a temporary file was left"


def test_an_android_app_origin_registers_and_signs_in(server_factory, keys):
    # The app's origin is accepted because the server lists its signing certificate; the RP ID
    # is taken from the options, as Android's Credential Manager binds it through assetlinks.json.
    fingerprint = bytes(range(32))
    app = server_factory("android", {"LATCHKEY_ANDROID_APPS":
                                     "com.example.app@" + ":".join(f"{b:02X}" for b in fingerprint)})
    origin = "android:apk-key-hash:" + b64url(fingerprint)
    username = new_username()
    options = assert_ok(requests.post(app.url + "/attestation/options", json={"username": username}, timeout=10))
    credential = answered(authenticator("register", options=options, keys=keys, origin=origin))
    assert assert_ok(requests.post(app.url + "/attestation/result", json=credential, timeout=10))["username"] == username
    options = assert_ok(requests.post(app.url + "/assertion/options", json={}, timeout=10))
    assertion = answered(authenticator("sign-in", options=options, keys=keys, origin=origin))
    assert assert_ok(requests.post(app.url + "/assertion/result", json=assertion, timeout=10))["username"] == username
