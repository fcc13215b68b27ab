"""A store written by the previous release opens with this build as the default tenant's, losing nothing:
every passkey signs in (with and without its username), the counter goes on from where it was, the
admin key still works and the user made ahead of a passkey keeps their external ID
(Tests/Vectors/stores/README.md says how each store was made)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import LATCHKEY_BIN, REPO, LatchkeyServer
from test_http_api import assert_ok
from test_postgres import postgres_url  # noqa: F401 (a fixture)

STORES = REPO / "Tests" / "Vectors" / "stores"


def sign_in(server: LatchkeyServer, keys: Path, body: dict) -> dict:
    client = server.client()
    options = assert_ok(client.post("/assertion/options", body))
    answer = subprocess.run([str(LATCHKEY_BIN), "authenticator", "sign-in", "--keys", str(keys), "--origin", server.origin],
                            input=json.dumps(options).encode(), capture_output=True, timeout=60)
    assert answer.returncode == 0, answer.stderr.decode()
    return assert_ok(client.post("/assertion/result", raw=answer.stdout, headers={"Content-Type": "application/json"}))


def check_release_store(server: LatchkeyServer, release: Path) -> None:
    """What the release wrote is all there and works, as the default tenant's."""
    alice = sign_in(server, server.workdir / "alice-keys.json", {"username": "alice"})
    assert alice["username"] == "alice"
    bob = sign_in(server, server.workdir / "bob-keys.json", {})
    assert bob["username"] == "bob"

    admin = {"Authorization": "Bearer " + (release / "admin-key.txt").read_text().strip()}
    users = assert_ok(server.client().get("/admin/v1/users", headers=admin))
    assert sorted(user["username"] for user in users["users"]) == ["alice", "bob", "carol"]
    carol = next(user for user in users["users"] if user["username"] == "carol")
    assert carol["externalId"] == "crm-42" and carol["passkeys"] == 0
    found = assert_ok(server.client().get("/admin/v1/users?externalId=crm-42", headers=admin))
    assert found["user"]["username"] == "carol"
    passkeys = assert_ok(server.client().get("/admin/v1/users/alice/credentials", headers=admin))
    # The sign-in above is recorded on the passkey the release stored (its own ran at 07:45:00 or 10:35:04).
    assert [passkey["lastUsedAt"] > "2026-12-03T10:35:05" for passkey in passkeys["credentials"]] == [True], passkeys
    events = assert_ok(server.client().get("/admin/v1/events?limit=100", headers=admin))
    assert any(event["type"] == "user.created" for event in events["events"]), "the release's events are kept"


def test_a_0_8_sqlite_store_opens_as_the_default_tenant_with_every_passkey_signing_in():
    server = LatchkeyServer("migration-0.8")
    release = STORES / "0.8.0-sqlite"
    shutil.copy(release / "latchkey.sqlite", server.database)
    for name in ("alice", "bob"):
        shutil.copy(release / f"{name}-keys.json", server.workdir / f"{name}-keys.json")
    server.start()
    try:
        check_release_store(server, release)
    finally:
        server.stop()
        server.cleanup()


def test_a_0_8_postgres_store_opens_as_the_default_tenant_with_every_passkey_signing_in(postgres_url):  # noqa: F811
    release = STORES / "0.8.0-postgres"
    subprocess.run(["psql", postgres_url, "-v", "ON_ERROR_STOP=1", "-q", "-f", str(release / "latchkey.sql")], check=True,
                   timeout=60, capture_output=True)
    server = LatchkeyServer("migration-0.8-postgres", {"LATCHKEY_DATABASE": postgres_url})
    for name in ("alice", "bob"):
        shutil.copy(release / f"{name}-keys.json", server.workdir / f"{name}-keys.json")
    server.start()
    try:
        check_release_store(server, release)
        versions = subprocess.run(["psql", postgres_url, "-XAtc", "SELECT max(version) FROM latchkey_schema_migrations"],
                                  check=True, timeout=60, capture_output=True, text=True).stdout.strip()
        assert int(versions) > 8, f"migrated past the release's schema version 8: {versions}"
    finally:
        server.stop()
        server.cleanup()
