"""End-to-end tests of the domain association files (`/.well-known/...`) and the origins they
announce, against the real binary: Android apps (assetlinks.json and android:apk-key-hash:
origins), related origins (/.well-known/webauthn), passkey endpoints, and `latchkey check-config`,
which prints the files and lists every configuration problem at once."""

from __future__ import annotations

import json
import os
import subprocess
import uuid

import requests

from conftest import LATCHKEY_BIN, REPO, require_binary
from softauthn import b64url

# Two signing certificates' SHA-256 fingerprints; the first is configured twice (upper and lower case).
FIRST = bytes(range(32))
SECOND = bytes(0xFF - i for i in range(32))


def colon_hex(data: bytes, lower: bool = False) -> str:
    text = ":".join(f"{b:02X}" for b in data)
    return text.lower() if lower else text


def android_origin(fingerprint: bytes) -> str:
    return "android:apk-key-hash:" + b64url(fingerprint)


RELATED = "https://shop.example.co.uk"
WELL_KNOWN_ENV = {
    "LATCHKEY_APPLE_APP_LINKS": "ABCDE12345.com.example.app",
    "LATCHKEY_ANDROID_APPS": ",".join([
        "com.example.app@" + colon_hex(FIRST),
        "com.example.app@" + colon_hex(SECOND, lower=True),
        "com.example.wallet@" + colon_hex(FIRST, lower=True),
    ]),
    "LATCHKEY_RELATED_ORIGINS": RELATED + ",https://example.de:8443",
    "LATCHKEY_PASSKEY_ENROLL_URL": "https://localhost/account/passkeys/new",
    "LATCHKEY_PASSKEY_MANAGE_URL": "https://localhost/account/passkeys",
}
PATHS = ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json",
         "/.well-known/webauthn", "/.well-known/passkey-endpoints"]


def get(server, path: str) -> requests.Response:
    return requests.get(server.url + path, timeout=10, allow_redirects=False)


def assert_json_200(resp: requests.Response):
    assert resp.status_code == 200, f"{resp.status_code} {resp.text[:500]}"
    assert resp.headers.get("Content-Type", "").split(";")[0].strip() == "application/json"
    assert "Location" not in resp.headers
    return resp.json()


def new_username() -> str:
    return "user-" + uuid.uuid4().hex[:12]


def register(server, username: str, origin: str):
    """A registration whose client data carries `origin`: the reply, and the authenticator that keeps
    the credential."""
    client = server.client()
    auth = server.authenticator()
    options = client.post("/attestation/options", {"username": username, "displayName": "Someone"})
    assert options.status_code == 200, options.text
    reply = client.post("/attestation/result", auth.create(options.json(), origin=origin))
    return reply, auth


def sign_in(server, username: str, auth, origin: str) -> requests.Response:
    client = server.client()
    options = client.post("/assertion/options", {"username": username})
    assert options.status_code == 200, options.text
    return client.post("/assertion/result", auth.get(options.json(), origin=origin))


# ---------------------------------------------------------------------------------------------
# the files


def test_every_file_is_served_from_configuration(server_factory):
    server = server_factory("well-known", WELL_KNOWN_ENV)

    aasa = assert_json_200(get(server, PATHS[0]))
    assert aasa["webcredentials"]["apps"] == ["ABCDE12345.com.example.app", "FGHIJ67890.com.example.other"]
    assert aasa["applinks"]["details"][0]["appIDs"] == ["ABCDE12345.com.example.app"]

    statements = assert_json_200(get(server, PATHS[1]))
    assert isinstance(statements, list) and len(statements) == 2
    for statement in statements:
        assert sorted(statement["relation"]) == ["delegate_permission/common.get_login_creds",
                                                 "delegate_permission/common.handle_all_urls"]
        assert statement["target"]["namespace"] == "android_app"
    targets = {s["target"]["package_name"]: s["target"]["sha256_cert_fingerprints"] for s in statements}
    assert targets == {"com.example.app": [colon_hex(FIRST), colon_hex(SECOND)],
                       "com.example.wallet": [colon_hex(FIRST)]}

    assert assert_json_200(get(server, PATHS[2])) == {"origins": [RELATED, "https://example.de:8443"]}
    assert assert_json_200(get(server, PATHS[3])) == {
        "enroll": "https://localhost/account/passkeys/new", "manage": "https://localhost/account/passkeys"}

    for path in PATHS:
        head = requests.head(server.url + path, timeout=10, allow_redirects=False)
        assert head.status_code == 200 and head.content == b"", (path, head.status_code, head.content)
        assert head.headers.get("Content-Type", "").startswith("application/json")


def test_unconfigured_files_are_a_json_404(server_factory):
    server = server_factory("no-well-known", {"LATCHKEY_APPLE_APP_IDS": ""})
    for path, variable in zip(PATHS, ["LATCHKEY_APPLE_APP_IDS", "LATCHKEY_ANDROID_APPS",
                                      "LATCHKEY_RELATED_ORIGINS", "LATCHKEY_PASSKEY_ENROLL_URL"]):
        resp = get(server, path)
        assert resp.status_code == 404, (path, resp.status_code, resp.text)
        assert resp.headers.get("Content-Type", "").startswith("application/json")
        body = resp.json()
        assert body["status"] == "failed" and variable in body["errorMessage"], body


# ---------------------------------------------------------------------------------------------
# the origins they announce


def test_an_android_app_origin_registers_and_signs_in_and_an_unlisted_one_is_refused(server_factory):
    server = server_factory("android", WELL_KNOWN_ENV)
    for fingerprint in (FIRST, SECOND):
        username = new_username()
        origin = android_origin(fingerprint)
        reply, auth = register(server, username, origin)
        assert reply.status_code == 200 and reply.json()["status"] == "ok", reply.text
        signed_in = sign_in(server, username, auth, origin)
        assert signed_in.status_code == 200 and signed_in.json()["status"] == "ok", signed_in.text
        # The same passkey, used from an app signed with another certificate, is refused.
        stranger = android_origin(bytes(7 for _ in range(32)))
        refused = sign_in(server, username, auth, stranger)
        assert refused.status_code == 400 and stranger in refused.json()["errorMessage"], refused.text

    unlisted = android_origin(bytes(range(1, 33)))
    reply, _ = register(server, new_username(), unlisted)
    assert reply.status_code == 400, reply.text
    assert unlisted in reply.json()["errorMessage"], reply.text
    server.assert_alive()


def test_a_related_origin_is_accepted_and_an_unrelated_one_refused(server_factory):
    server = server_factory("related", WELL_KNOWN_ENV)
    username = new_username()
    reply, auth = register(server, username, RELATED)
    assert reply.status_code == 200 and reply.json()["status"] == "ok", reply.text
    signed_in = sign_in(server, username, auth, RELATED)
    assert signed_in.status_code == 200 and signed_in.json()["status"] == "ok", signed_in.text

    for unrelated in ("https://shop.example.co.uk:8443", "https://evil.example", "http://shop.example.co.uk"):
        reply, _ = register(server, new_username(), unrelated)
        assert reply.status_code == 400 and unrelated in reply.json()["errorMessage"], (unrelated, reply.text)


# ---------------------------------------------------------------------------------------------
# check-config


def latchkey(command: str, env_overrides: dict) -> subprocess.CompletedProcess:
    require_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_DATABASE": "/nonexistent/never-opened.sqlite",
                "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app,FGHIJ67890.com.example.other"})
    env.update(env_overrides)
    return subprocess.run([str(LATCHKEY_BIN), command], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)


def printed_files(stdout: str) -> dict:
    """The JSON body printed under each well-known path."""
    lines = stdout.splitlines()
    files = {}
    for index, line in enumerate(lines):
        if line in PATHS:
            end = next(i for i in range(index + 1, len(lines)) if lines[i] in ("}", "]"))
            files[line] = json.loads("\n".join(lines[index + 1:end + 1]))
    return files


def test_check_config_prints_the_files_it_would_serve(server_factory):
    done = latchkey("check-config", WELL_KNOWN_ENV)
    assert done.returncode == 0, done.stderr
    printed = printed_files(done.stdout)
    assert sorted(printed) == sorted(PATHS), done.stdout
    server = server_factory("check-config", WELL_KNOWN_ENV)
    for path in PATHS:
        assert printed[path] == get(server, path).json(), path

    # What is not configured is said to be not served.
    bare = latchkey("check-config", {"LATCHKEY_APPLE_APP_IDS": ""})
    assert bare.returncode == 0, bare.stderr
    assert printed_files(bare.stdout) == {}
    for path in PATHS:
        assert f"{path} is not configured" in bare.stdout, bare.stdout


def test_check_config_and_serve_list_every_problem_at_once():
    bad = {
        "LATCHKEY_APPLE_APP_IDS": "abcde12345.com.example.app",
        "LATCHKEY_ANDROID_APPS": "com.example.app@00:11:22",
        "LATCHKEY_RELATED_ORIGINS": "http://shop.example.co.uk",
        "LATCHKEY_PASSKEY_ENROLL_URL": "/account/passkeys",
        "LATCHKEY_ORIGINS": "https://localhost.example",
    }
    for command in ("check-config", "serve"):
        done = latchkey(command, bad)
        assert done.returncode == 78, (command, done.returncode, done.stderr)
        problems = [line for line in done.stderr.splitlines() if line.startswith("latchkey: configuration error: ")]
        assert len(problems) == len(bad), (command, done.stderr)
        for variable in bad:
            assert any(f"({variable})" in line for line in problems), (command, variable, done.stderr)
        assert done.stdout == "", (command, done.stdout)
