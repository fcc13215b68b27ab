"""Moving out (issue 56): `latchkey export` writes every account of a tenant with its passkeys as JSON Lines in the
migration format (MIGRATING.md), each line valid against docs/migration-account.schema.json, with what a new server
needs to keep the passkeys working (the user handle, each COSE public key and counter) and nothing secret. Checked
against what the software authenticator holds, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import uuid

import cbor2
import jsonschema
import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

from backend import Backend, create_admin_key, latchkey_command
from conftest import REPO
from softauthn import b64url, b64url_decode
from test_http_api import assert_ok
from test_postgres import postgres_url  # noqa: F401  (the fixture)

SCHEMA = json.loads((REPO / "docs" / "migration-account.schema.json").read_text())


def register(server, username: str, authenticator, contact: str | None = None) -> dict:
    options = assert_ok(requests.post(server.url + "/attestation/options", json={"username": username, "displayName": username.title()},
                                      timeout=10))
    answer = authenticator.create(options)
    if contact:
        answer["contactIdentifier"] = contact
    return assert_ok(requests.post(server.url + "/attestation/result", json=answer, timeout=10))


def sign_in(server, authenticator) -> dict:
    options = assert_ok(requests.post(server.url + "/assertion/options", json={}, timeout=10))
    return assert_ok(requests.post(server.url + "/assertion/result", json=authenticator.get(options), timeout=10))


def exported(server, *arguments: str) -> list[dict]:
    done = latchkey_command(server, "export", *arguments)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    for line in lines:
        jsonschema.validate(line, SCHEMA, format_checker=jsonschema.FormatChecker())
    assert f"exported {len(lines)} account" in done.stderr
    return lines


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_an_export_holds_every_account_and_what_keeps_its_passkeys_working(server_factory, request, store):
    env = {"LATCHKEY_DATABASE": request.getfixturevalue("postgres_url")} if store == "postgres" else {}
    server = server_factory(f"export-{store}", env)
    backend = Backend(server.url, create_admin_key(server, "mover"), server.url + "/.well-known/jwks.json", issuer=server.origin,
                      audience="localhost")
    names = sorted("move-" + uuid.uuid4().hex[:8] for _ in range(3))
    counting = server.authenticator(counter_step=3)
    register(server, names[0], counting)
    sign_in(server, counting)
    sign_in(server, counting)
    plain = server.authenticator()
    register(server, names[1], plain, contact="ana@example.com")
    assert backend.admin("PUT", f"/users/{names[1]}/groups", {"groups": ["staff", "ops"]}).status_code == 200
    assert backend.admin("PATCH", f"/users/{names[1]}", {"disabled": True, "externalId": "crm-41"}).status_code == 200
    backend.create_user(names[2])  # an account with no passkey yet

    accounts = {account["username"]: account for account in exported(server)}
    assert set(names) <= set(accounts)
    first, second, bare = (accounts[name] for name in names)

    # What the authenticator holds: the user handle it will hand back, the public key and the counter.
    held = next(iter(counting.credentials.values()))
    assert b64url_decode(first["userHandle"]) == held.user_handle
    [passkey] = first["passkeys"]
    assert passkey["credentialId"] == held.id and passkey["algorithm"] == -7
    assert passkey["signCount"] == held.sign_count == 6
    key = cbor2.loads(b64url_decode(passkey["publicKey"]))
    numbers = held.private_key.public_key().public_numbers()
    assert (key[1], key[3], key[-1]) == (2, -7, 1)
    assert (key[-2], key[-3]) == (numbers.x.to_bytes(32, "big"), numbers.y.to_bytes(32, "big"))
    assert passkey["lastUsedAt"] >= passkey["createdAt"] and passkey["attestationFormat"] == "none"
    assert first["disabled"] is False and "contact" not in first and first["groups"] == []

    assert second["contact"] == {"kind": "email", "value": "ana@example.com"}
    assert second["groups"] == ["ops", "staff"] and second["disabled"] is True and second["externalId"] == "crm-41"
    assert "lastUsedAt" not in second["passkeys"][0]
    assert bare["passkeys"] == []

    # Nothing secret: no session token, ticket or key of the server's.
    text = latchkey_command(server, "export").stdout
    for secret in ("sessionToken", "lk_admin_", "privateKey", "ticket"):
        assert secret not in text
    # Two exports of the same store are the same bytes.
    assert latchkey_command(server, "export").stdout == text


def test_one_account_or_a_tenants_and_clear_refusals(server_factory):
    server = server_factory("export-one")
    name = "one-" + uuid.uuid4().hex[:8]
    register(server, name, server.authenticator())
    [only] = exported(server, "--user", name)
    assert only["username"] == name and len(only["passkeys"]) == 1
    missing = latchkey_command(server, "export", "--user", "nobody-" + uuid.uuid4().hex[:6], check=False)
    assert missing.returncode == 65 and "no user" in missing.stderr and missing.stdout == ""
    unknown = latchkey_command(server, "export", "--tenant", "nowhere", check=False)
    assert unknown.returncode == 65 and "no tenant" in unknown.stderr
    malformed = latchkey_command(server, "export", "--tenant", "Not A Tenant!", check=False)
    assert malformed.returncode != 0 and "--tenant" in malformed.stderr


def test_an_exported_key_verifies_what_the_authenticator_signs(server_factory):
    """The exported COSE key is the key the passkey signs with: a signature the authenticator makes for a sign-in
    verifies with the key read from the export alone."""
    server = server_factory("export-verify")
    authenticator = server.authenticator()
    name = "verify-" + uuid.uuid4().hex[:8]
    register(server, name, authenticator)
    [account] = exported(server, "--user", name)
    key = cbor2.loads(b64url_decode(account["passkeys"][0]["publicKey"]))
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(key[-2], "big"), int.from_bytes(key[-3], "big"), ec.SECP256R1()).public_key()
    options = assert_ok(requests.post(server.url + "/assertion/options", json={}, timeout=10))
    answer = authenticator.get(options)
    signed = b64url_decode(answer["response"]["authenticatorData"]) + hashlib.sha256(b64url_decode(answer["response"]["clientDataJSON"])).digest()
    public.verify(b64url_decode(answer["response"]["signature"]), signed, ec.ECDSA(hashes.SHA256()))
    assert b64url(b64url_decode(account["userHandle"])) == answer["response"]["userHandle"]


def test_the_admin_api_streams_the_same_export(server_factory):
    """`GET /admin/v1/export`: the same lines as `latchkey export`, sent chunked as they are read (more than one page
    of accounts here), `?user=` for one; an admin key only."""
    server = server_factory("export-http")
    backend = Backend(server.url, create_admin_key(server, "mover"), server.url + "/.well-known/jwks.json", issuer=server.origin,
                      audience="localhost")
    for index in range(620):
        backend.create_user(f"bulk-{index:04d}")
    name = "keyed-" + uuid.uuid4().hex[:6]
    register(server, name, server.authenticator())

    reply = requests.get(server.url + "/admin/v1/export", headers=backend.headers, timeout=60, stream=True)
    assert reply.status_code == 200 and reply.headers["Content-Type"] == "application/jsonl"
    assert reply.headers.get("Transfer-Encoding") == "chunked" and "Content-Length" not in reply.headers
    body = reply.content.decode()
    assert body == latchkey_command(server, "export").stdout
    lines = [json.loads(line) for line in body.splitlines()]
    assert len(lines) == 621 and [line["username"] for line in lines] == sorted(line["username"] for line in lines)

    one = requests.get(server.url + "/admin/v1/export", params={"user": name}, headers=backend.headers, timeout=15)
    assert one.status_code == 200 and json.loads(one.text)["username"] == name and len(one.text.splitlines()) == 1
    missing = requests.get(server.url + "/admin/v1/export", params={"user": "nobody"}, headers=backend.headers, timeout=15)
    assert missing.status_code == 404 and missing.json()["status"] == "failed"
    assert requests.get(server.url + "/admin/v1/export", timeout=15).status_code == 401
    # HEAD: the head alone.
    head = requests.head(server.url + "/admin/v1/export", headers=backend.headers, timeout=15)
    assert head.status_code == 200 and head.text == ""


# ---- moving in: `latchkey import` ---------------------------------------------------------------------------------


def imported(server, path, *arguments: str, check: bool = True):
    done = latchkey_command(server, "import", str(path), *arguments, check=False)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_passkeys_exported_from_one_server_sign_in_on_another(server_factory, postgres_url, tmp_path):  # noqa: F811
    """The round trip: accounts registered on one Latchkey (SQLite), exported, imported into a fresh one
    (PostgreSQL); every passkey signs in there, with and without a username, its counter going on from where it was,
    and a counter that goes backwards after the move is refused as before. A second import writes nothing."""
    old = server_factory("move-from")
    counting = old.authenticator(counter_step=3)
    plain = old.authenticator()
    first, second = "mover-" + uuid.uuid4().hex[:6], "mover-" + uuid.uuid4().hex[:6]
    register(old, first, counting)
    sign_in(old, counting)
    register(old, second, plain, contact="+15550107788")
    path = tmp_path / "accounts.jsonl"
    path.write_text(latchkey_command(old, "export").stdout)

    new = server_factory("move-to", {"LATCHKEY_DATABASE": postgres_url})
    done = imported(new, path)
    assert f"imported {first} (1 passkey)" in done.stdout and f"imported {second} (1 passkey)" in done.stdout
    assert "imported 2, skipped 0 (here already), refused 0" in done.stderr
    again = imported(new, path)
    assert "imported 0, skipped 2 (here already), refused 0" in again.stderr, again.stderr
    assert latchkey_command(new, "export").stdout == path.read_text(), "the new server holds the same accounts, to the byte"

    # The same authenticators, at the new server's origin (the RP ID is the same).
    for authenticator in (counting, plain):
        authenticator.origin = new.origin
    usernameless = sign_in(new, counting)
    assert usernameless["username"] == first
    held = next(iter(counting.credentials.values()))
    assert held.sign_count == 6, "the counter went on from the old server's"
    options = assert_ok(requests.post(new.url + "/assertion/options", json={"username": second}, timeout=10))
    assert assert_ok(requests.post(new.url + "/assertion/result", json=plain.get(options), timeout=10))["username"] == second

    # A clone: the counter behind the imported one is refused.
    held.sign_count = 1
    options = assert_ok(requests.post(new.url + "/assertion/options", json={}, timeout=10))
    refused = requests.post(new.url + "/assertion/result", json=counting.get(options), timeout=10)
    assert refused.status_code in (400, 401, 403) and refused.json()["status"] == "failed"
    events = requests.get(new.url + "/admin/v1/events", params={"type": "account.imported"}, timeout=10,
                          headers={"Authorization": f"Bearer {create_admin_key(new, 'reader')}"}).json()["events"]
    assert sorted(event["user"]["username"] for event in events) == sorted([first, second])
    assert all(event["detail"] == "imported with 1 passkey" and event["actor"]["type"] == "system" for event in events)


def test_each_bad_line_is_refused_clearly_and_nothing_of_it_is_written(server_factory, tmp_path):
    server = server_factory("import-refusals")
    source = server_factory("import-source")
    name = "source-" + uuid.uuid4().hex[:6]
    register(source, name, source.authenticator())
    [good] = exported(source, "--user", name)

    def variant(**changes) -> dict:
        line = json.loads(json.dumps(good))
        for key, value in changes.items():
            line[key] = value
        return line

    key = cbor2.loads(b64url_decode(good["passkeys"][0]["publicKey"]))
    off_curve = dict(key)
    off_curve[-3] = bytes(32)
    unknown_algorithm = dict(key)
    unknown_algorithm[3] = -65535
    lines = [
        ("{not json", "not valid JSON"),
        (json.dumps(variant(format="other-v9")), "format"),
        (json.dumps(variant(username="two words\u0007")), "username"),
        (json.dumps(variant(userHandle="")), "userHandle"),
        (json.dumps(variant(passkeys=[{**good["passkeys"][0], "publicKey": b64url(cbor2.dumps(off_curve))}])), "passkey 1: publicKey"),
        (json.dumps(variant(passkeys=[{**good["passkeys"][0], "publicKey": b64url(cbor2.dumps(unknown_algorithm)), "algorithm": -65535}])),
         "passkey 1: publicKey"),
        (json.dumps(variant(passkeys=[{**good["passkeys"][0], "algorithm": -257}])), "algorithm"),
        (json.dumps(variant(contact={"kind": "email", "value": "nobody"})), "contact"),
        (json.dumps(good), None),
        # The same passkey claimed by another account: never bound to a second one.
        (json.dumps(variant(username="thief-" + name, userHandle=b64url(b"another handle"))), "another account's passkey"),
        ("x" * (AccountImportLimit + 10), "longer than"),
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(text for text, _ in lines) + "\n")
    done = imported(server, path, check=False)
    assert done.returncode == 65, done.stderr
    report = done.stdout.splitlines()
    assert len(report) == len(lines)
    for number, ((_, expected), line) in enumerate(zip(lines, report), start=1):
        assert line.startswith(f"line {number}: "), line
        if expected is None:
            assert f"imported {name}" in line, line
        else:
            assert "refused" in line and expected in line, (expected, line)
    assert "imported 1, skipped 0 (here already), refused 10" in done.stderr
    assert [account["username"] for account in exported(server)] == [name], "nothing of a refused line was written"

    dry = imported(server, path, "--dry-run", check=False)
    assert "nothing written" in dry.stderr and f"valid: {name}" in dry.stdout


AccountImportLimit = 1 << 20


def test_an_account_another_relying_party_library_registered_imports_and_signs_in(server_factory, tmp_path):
    """A team moving from a server built on py_webauthn: its verified registration, written as an import line the
    way such a team would, imports, and the passkey signs in on Latchkey."""
    from webauthn import generate_registration_options, options_to_json, verify_registration_response

    server = server_factory("import-pywebauthn")
    authenticator = server.authenticator(counter_step=1)
    user_id = uuid.uuid4().bytes + uuid.uuid4().bytes
    options = generate_registration_options(rp_id="localhost", rp_name="The old site", user_id=user_id, user_name="from-pywebauthn")
    answer = authenticator.create(json.loads(options_to_json(options)), sign_count=7)
    verified = verify_registration_response(credential=answer, expected_challenge=options.challenge, expected_rp_id="localhost",
                                            expected_origin=server.origin)
    line = {
        "format": "latchkey-account-v1", "username": "from-pywebauthn", "displayName": "From py_webauthn", "userHandle": b64url(user_id),
        "createdAt": "2025-03-01T12:00:00Z", "disabled": False, "groups": [],
        "passkeys": [{
            "credentialId": b64url(verified.credential_id), "publicKey": b64url(verified.credential_public_key), "algorithm": -7,
            "signCount": verified.sign_count, "transports": answer["response"]["transports"], "aaguid": verified.aaguid,
            "backupEligible": str(getattr(verified.credential_device_type, "value", verified.credential_device_type)) == "multi_device", "backedUp": verified.credential_backed_up,
            "userVerified": verified.user_verified, "attestationFormat": str(getattr(verified.fmt, "value", verified.fmt)), "createdAt": "2025-03-01T12:00:00Z",
        }],
    }
    path = tmp_path / "from-pywebauthn.jsonl"
    path.write_text(json.dumps(line) + "\n")
    assert "imported from-pywebauthn (1 passkey)" in imported(server, path).stdout
    signed_in = sign_in(server, authenticator)
    assert signed_in["username"] == "from-pywebauthn"
    [account] = exported(server, "--user", "from-pywebauthn")
    assert account["passkeys"][0]["signCount"] == 8 and account["createdAt"] == "2025-03-01T12:00:00.000Z"
