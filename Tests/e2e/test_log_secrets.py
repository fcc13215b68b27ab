"""No secret reaches a log line, a security event or a webhook body: a server logging everything (trace, JSON) runs registrations,
sign-ins, management calls and failures, and then its whole standard output and error are searched
for every session token, challenge, credential private key, clientDataJSON, signature, attestation
object, authenticator data, full credential ID and the metrics token it handled, in every encoding
a log line could plausibly carry them in."""

from __future__ import annotations

import base64
import json
import secrets
import sqlite3
import subprocess
import urllib.parse

import pytest
import requests
from cryptography.hazmat.primitives import serialization

from backend import create_admin_key, latchkey_command
from softauthn import b64url, b64url_decode
from test_http_api import assert_failed, assert_ok, new_username
from test_postgres import postgres_url  # noqa: F401  (the fixture)
from webhook_receiver import Receiver, new_secret, webhook_env

METRICS_TOKEN = "metrics-" + secrets.token_urlsafe(24)


def encodings(data: bytes) -> set[str]:
    """The forms bytes take in text: base64url, base64, hexadecimal (either case), and the first eight
    as a Swift array of them prints (`[152, 232, ...`)."""
    forms = {b64url(data), base64.b64encode(data).decode().rstrip("="), data.hex(), data.hex().upper(),
             ", ".join(str(byte) for byte in data[:8])}
    return {form for form in forms if len(form) >= 16}


class Secrets:
    """Everything secret this test handled, in every encoding."""

    def __init__(self):
        self.found: dict[str, str] = {}

    def add(self, what: str, data: bytes | str) -> None:
        if isinstance(data, str):
            self.found[data] = what
            data = data.encode() if not _is_b64url(data) else b64url_decode(data)
        for form in encodings(data):
            self.found[form] = what

    def add_token(self, token: str) -> None:
        """A sign-in token: whole, and its signature."""
        self.found[token] = "idToken"
        self.add("idToken signature", token.rsplit(".", 1)[1])

    def add_credential(self, what: str, credential: dict) -> None:
        self.add(f"{what} id", credential["id"])
        for member, value in credential["response"].items():
            if isinstance(value, str) and value:
                self.add(f"{what} {member}", value)
        client_data = b64url_decode(credential["response"]["clientDataJSON"])
        self.add(f"{what} clientDataJSON text", client_data.decode())


def signing_keys(database: str) -> list[str]:
    """The PEM texts of the token signing keys in the store."""
    if "://" not in database:
        with sqlite3.connect(database) as connection:
            return [row[0].decode() for row in connection.execute("SELECT private_key FROM signing_keys")]
    listed = subprocess.run(["psql", database, "-At", "-c", "SELECT encode(private_key, 'base64') FROM signing_keys"],
                            capture_output=True, text=True, check=True, timeout=60).stdout
    # psql wraps base64 output every 76 characters; the keys are separated by blank-free rows.
    pems, current = [], ""
    for line in listed.splitlines():
        current += line
        try:
            text = base64.b64decode(current).decode()
        except Exception:
            continue
        if text.rstrip().endswith("-----END PRIVATE KEY-----"):
            pems.append(text)
            current = ""
    return pems


def _is_b64url(text: str) -> bool:
    try:
        b64url_decode(text)
        return all(c.isalnum() or c in "-_" for c in text)
    except Exception:
        return False


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    """Each store: its driver logs at trace level too (PostgreSQL's, with the database password)."""
    if request.param == "sqlite":
        return str(tmp_path / "latchkey.sqlite")
    return request.getfixturevalue("postgres_url")


def test_no_secret_appears_in_any_log_line(server_factory, database):
    webhook_secret = new_secret()
    receiver = Receiver(webhook_secret).start()
    try:
        no_secret_in_logs_events_or_webhooks(server_factory, database, receiver, webhook_secret)
    finally:
        receiver.stop()


def no_secret_in_logs_events_or_webhooks(server_factory, database, receiver, webhook_secret):
    # The receiver's URL carries a password (sent as Basic authentication), and a previous secret is being rotated out.
    hook_password = "hook-" + secrets.token_urlsafe(16)
    previous_secret = new_secret()
    hooks = webhook_env(receiver, webhook_secret)
    hooks["LATCHKEY_WEBHOOK_URLS"] = hooks["LATCHKEY_WEBHOOK_URLS"].replace("://", f"://hooks:{hook_password}@", 1)
    server = server_factory("log-secrets", {
        "LATCHKEY_LOG_LEVEL": "trace", "LATCHKEY_LOG_FORMAT": "json", "LATCHKEY_METRICS_TOKEN": METRICS_TOKEN,
        "LATCHKEY_DATABASE": database, **hooks, "LATCHKEY_WEBHOOK_PREVIOUS_SECRET": previous_secret})
    found = Secrets()
    found.add("metrics token", METRICS_TOKEN)
    for what, secret in [("webhook secret", webhook_secret), ("previous webhook secret", previous_secret)]:
        found.found[secret] = what
        found.add(what + " bytes", base64.b64decode(secret.removeprefix("whsec_")))
    found.found[hook_password] = "webhook receiver password"
    found.found[base64.b64encode(f"hooks:{hook_password}".encode()).decode()] = "webhook Basic authorization"
    password = urllib.parse.urlsplit(database).password
    if password:
        found.found[password] = "database password"
    auth = server.authenticator()
    client = server.client()
    username = new_username()

    def options(path: str, body: dict, **kwargs) -> dict:
        reply = assert_ok(client.post(path, body, **kwargs))
        found.add(f"{path} challenge", reply["challenge"])
        return reply

    # Registration: options, a credential, a session.
    creation = options("/attestation/options", {"username": username, "displayName": "Log Secrets"})
    credential = auth.create(creation, fmt="packed")
    found.add_credential("registration", credential)
    registered = assert_ok(client.post("/attestation/result", credential))
    found.add("session token", registered["sessionToken"])
    found.add_token(registered["idToken"])
    bearer = {"Authorization": f"Bearer {registered['sessionToken']}"}

    # Sign-ins with and without the username, each with its own session.
    for body in ({"username": username}, {}):
        request = options("/assertion/options", body)
        assertion = auth.get(request)
        found.add_credential("assertion", assertion)
        signed_in = assert_ok(client.post("/assertion/result", assertion))
        found.add("session token", signed_in["sessionToken"])
        found.add_token(signed_in["idToken"])
        bearer = {"Authorization": f"Bearer {signed_in['sessionToken']}"}

    # Management: a second passkey, list, rename, remove, session.
    second = options("/attestation/options", {"username": username}, headers=bearer)
    second_credential = auth.create(second)
    found.add_credential("second registration", second_credential)
    assert_ok(client.post("/attestation/result", second_credential))
    listed = assert_ok(client.get("/credentials", headers=bearer))["credentials"]
    assert len(listed) == 2
    assert_ok(client.patch(f"/credentials/{listed[0]['id']}", {"name": "Work laptop"}, headers=bearer))
    assert_ok(client.delete(f"/credentials/{second_credential['id']}", headers=bearer))
    # Refused with the credential ID in the path: the last passkey, a passkey nobody has.
    assert client.delete(f"/credentials/{credential['id']}", headers=bearer).status_code == 409
    assert client.delete(f"/credentials/{second_credential['id']}", headers=bearer).status_code == 404
    assert_ok(client.get("/session", headers=bearer))
    assert requests.get(server.url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=5).ok

    # Failures: a tampered signature, a replayed assertion, a passkey's signature for another
    # origin, an unknown passkey, a wrong token, a wrong metrics token, a cross-site request, garbage.
    request = options("/assertion/options", {"username": username})
    tampered = auth.get(request, tamper_signature=True)
    found.add_credential("tampered assertion", tampered)
    assert_failed(client.post("/assertion/result", tampered), server, codes=(400,))
    assert_failed(client.post("/assertion/result", tampered), server, codes=(400,))
    elsewhere = auth.get(options("/assertion/options", {"username": username}), origin="https://evil.example")
    found.add_credential("assertion for another origin", elsewhere)
    assert_failed(client.post("/assertion/result", elsewhere), server, codes=(400,))
    stranger = server.authenticator()
    unknown = stranger.create(options("/attestation/options", {"username": new_username()}), store=True)
    found.add_credential("unregistered credential", unknown)
    assert_failed(client.post("/assertion/result", stranger.get(options("/assertion/options", {}))), server, codes=(400,))
    wrong_token = secrets.token_urlsafe(32)
    found.add("wrong session token", wrong_token)
    assert client.get("/credentials", headers={"Authorization": f"Bearer {wrong_token}"}).status_code == 401
    # A token sent in a path no route matches: logged cut short, as any long segment of such a path.
    assert requests.get(f"{server.url}/session/{wrong_token}", timeout=5).status_code == 404
    wrong_metrics = "metrics-" + secrets.token_urlsafe(24)
    found.add("wrong metrics token", wrong_metrics)
    assert requests.get(server.url + "/metrics", headers={"Authorization": f"Bearer {wrong_metrics}"}, timeout=5).status_code == 401
    assert client.post("/attestation/options", {"username": new_username()},
                       headers={"Origin": "https://evil.example"}).status_code == 403
    assert_failed(client.post("/assertion/result", raw=b'{"id": 1}'), server, codes=(400,))

    # The admin API: a key, a user made ahead with an external ID, a ticket, a registration with
    # it, a second use, a wrong key, the backend's management calls; a signing key rotation.
    admin_key = create_admin_key(server, "log-secrets")
    found.add("admin key", admin_key)
    admin = {"Authorization": f"Bearer {admin_key}"}
    member = new_username()
    assert requests.post(server.url + "/admin/v1/users", json={"username": member, "externalId": "crm-1"}, headers=admin, timeout=10).status_code == 201
    ticket = requests.post(f"{server.url}/admin/v1/users/{member}/enrollment-tickets", headers=admin, timeout=10).json()["ticket"]
    found.add("enrollment ticket", ticket)
    # Another browser: a registration replaces the session the client carries.
    member_client = server.client()
    enrolment = assert_ok(member_client.post("/attestation/options", {"enrollmentTicket": ticket}))
    found.add("/attestation/options challenge", enrolment["challenge"])
    enrolled_credential = auth.create(enrolment)
    found.add_credential("ticket registration", enrolled_credential)
    enrolled = assert_ok(member_client.post("/attestation/result", enrolled_credential))
    found.add("session token", enrolled["sessionToken"])
    found.add_token(enrolled["idToken"])
    assert client.post("/attestation/options", {"enrollmentTicket": ticket}).status_code == 403
    wrong_admin_key = "lk_admin_" + secrets.token_urlsafe(32)
    found.add("wrong admin key", wrong_admin_key)
    assert requests.get(f"{server.url}/admin/v1/users/{member}", headers={"Authorization": f"Bearer {wrong_admin_key}"}, timeout=10).status_code == 401
    assert requests.get(f"{server.url}/admin/v1/users/{member}/credentials", headers=admin, timeout=10).ok
    assert requests.delete(f"{server.url}/admin/v1/users/{member}/sessions", headers=admin, timeout=10).ok
    assert requests.delete(f"{server.url}/admin/v1/users/{member}", headers=admin, timeout=10).ok
    latchkey_command(server, "signing-keys", "rotate", "--activate-in", "0")
    latchkey_command(server, "admin-keys", "list")
    latchkey_command(server, "admin-keys", "revoke", "log-secrets")

    # Sign out and delete the account.
    assert_ok(client.delete("/account", headers=bearer))
    assert client.get("/session", headers=bearer).status_code == 401

    # The private keys the authenticators held.
    for authenticator in (auth, stranger):
        for held in authenticator.credentials.values():
            numbers = held.private_key.private_numbers()
            found.add("private key scalar", numbers.private_value.to_bytes(32, "big"))
            pem = held.private_key.private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
            found.add("private key PKCS#8", pem)

    # The security events, as the admin API and the webhook receiver got them: they name users and
    # passkeys (handles and credential IDs are theirs to carry), never anything secret.
    reader_key = create_admin_key(server, "events-reader")
    found.add("admin key", reader_key)
    listed_events = requests.get(f"{server.url}/admin/v1/events?limit=200", headers={"Authorization": f"Bearer {reader_key}"},
                                 timeout=10).json()["events"]
    assert {"passkey.registered", "sign_in.succeeded", "sign_in.refused", "passkey.renamed", "passkey.removed",
            "account.deleted", "enrollment_ticket.used", "admin_key.revoked", "signing_key.rotated"} <= {e["type"] for e in listed_events}
    receiver.wait_for(lambda r: len(set(r.ids())) >= len(listed_events), 60, "every event")
    event_texts = [json.dumps(event) for event in listed_events] + [json.dumps(payload) for payload in receiver.payloads()]

    # The token signing keys the store holds.
    pems = signing_keys(database)
    assert len(pems) == 2, "the first key and the rotated-in one"
    for pem in pems:
        lines = [line for line in pem.splitlines() if line and not line.startswith("-----")]
        found.add("signing key PKCS#8", base64.b64decode("".join(lines)))
        for line in lines:
            found.found[line] = "signing key PEM line"

    server.stop()
    logs = server.stdout_path.read_text("utf-8", "replace") + server.stderr_path.read_text("utf-8", "replace")
    lines = [line for line in logs.splitlines() if line.strip()]
    # The logs are really there, at trace level, as JSON: this test can fail.
    events = [json.loads(line) for line in lines if line.startswith("{")]
    messages = {event.get("message") for event in events}
    assert {"passkey registered", "signed in", "passkey renamed", "passkey removed", "account deleted",
            "enrollment ticket issued", "user created by the admin API"} <= messages, messages
    assert any(event.get("level") in ("trace", "debug") for event in events), "trace and debug lines are logged"
    assert len(found.found) > 50

    leaks = [(what, line) for line in lines for secret, what in found.found.items() if secret in line]
    assert not leaks, "secrets in the log:\n" + "\n".join(f"{what}: {line[:300]}" for what, line in leaks[:20])
    named = ("id", "userHandle")
    leaks = [(what, text) for text in event_texts for secret, what in found.found.items()
             if secret in text and not what.endswith(named)]
    assert not leaks, "secrets in events:\n" + "\n".join(f"{what}: {text[:300]}" for what, text in leaks[:20])
