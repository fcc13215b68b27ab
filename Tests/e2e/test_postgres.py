"""The server on PostgreSQL: `LATCHKEY_DATABASE=postgres://...`, on a database of its own made on the
server `LATCHKEY_TEST_POSTGRES_URL` names (`scripts/postgres run ...` starts one; `scripts/test` does),
and what the binary says when it cannot use the database it is given.

Without `LATCHKEY_TEST_POSTGRES_URL` the tests that need a server fail saying how to run them, unless
`LATCHKEY_TEST_SKIP_POSTGRES=1` skips them on purpose."""
from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.parse
import uuid

import pytest
import requests

from conftest import LATCHKEY_BIN, REPO, require_binary
from softauthn import b64url_decode
from test_http_api import assert_ok, new_username, register, sign_in

SERVER_URL = os.environ.get("LATCHKEY_TEST_POSTGRES_URL", "")
SKIPPED = os.environ.get("LATCHKEY_TEST_SKIP_POSTGRES", "").lower() in ("1", "true", "yes")


def psql(url: str, sql: str) -> None:
    subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True, timeout=60,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def with_database(url: str, database: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + database))


@pytest.fixture
def postgres_url():
    """The URL of a new, empty database on the test server, dropped afterwards."""
    if SKIPPED:
        pytest.skip("LATCHKEY_TEST_SKIP_POSTGRES is set")
    if not SERVER_URL:
        pytest.fail("these tests need a PostgreSQL server: run them with `scripts/postgres run ...` "
                    "(or `scripts/test`), or set LATCHKEY_TEST_POSTGRES_URL=postgres://USER:PASSWORD@HOST:PORT/postgres; "
                    "set LATCHKEY_TEST_SKIP_POSTGRES=1 to skip them")
    name = "latchkey_e2e_" + uuid.uuid4().hex[:16]
    psql(SERVER_URL, f"CREATE DATABASE {name}")
    yield with_database(SERVER_URL, name)
    psql(SERVER_URL, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_until_exit(database: str, timeout: float = 30) -> tuple[subprocess.CompletedProcess, float]:
    """Runs `latchkey serve` expecting it to stop by itself; returns the process and its run time."""
    require_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_DATABASE": database, "LATCHKEY_HOST": "127.0.0.1", "LATCHKEY_PORT": str(closed_port())})
    started = time.monotonic()
    proc = subprocess.run([str(LATCHKEY_BIN), "serve"], cwd=str(REPO), env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)
    return proc, time.monotonic() - started


def test_serves_ceremonies_from_postgres_and_keeps_them_across_restarts(postgres_url, server_factory):
    first = server_factory("postgres-1", {"LATCHKEY_DATABASE": postgres_url})
    auth = first.authenticator(counter_step=1)
    username = new_username()
    client, _, cred, _ = register(first, auth, username)
    _, _, _, signed_in = sign_in(first, auth, username)
    assert assert_ok(signed_in)["username"] == username
    renamed = assert_ok(client.patch(f"/credentials/{cred['id']}", {"name": "Laptop"}))
    assert renamed["credential"]["name"] == "Laptop"
    first.stop()

    # A new process (on a new port, so a new origin) finds the user, the passkey and its counter.
    second = server_factory("postgres-2", {"LATCHKEY_DATABASE": postgres_url})
    auth.origin = second.origin
    later, _, _, again = sign_in(second, auth, username, credential=auth.credentials[b64url_decode(cred["id"])])
    assert assert_ok(again)["username"] == username
    listed = assert_ok(later.get("/credentials"))
    assert [c["name"] for c in listed["credentials"]] == ["Laptop"]

    password = urllib.parse.urlsplit(SERVER_URL).password
    for server in (first, second):
        assert password and password not in server.logs(), "the database password must never be logged"
        # The pool runs before the first call (postgres-nio warned at every start that run() had not been called).
        assert "hasn't been called" not in server.logs() and "warning" not in server.logs(), server.logs()


def test_an_unreachable_server_stops_the_binary_with_one_line_naming_it():
    port = closed_port()
    proc, elapsed = serve_until_exit(f"postgres://latchkey:hunter2-secret@127.0.0.1:{port}/latchkey")
    assert proc.returncode != 0
    assert elapsed < 20, f"took {elapsed:.1f} s: the connect must not hang"
    # The log's "starting" line, then the error on one line of its own.
    errors = [line for line in proc.stderr.splitlines() if line.startswith("latchkey:")]
    assert len(errors) == 1, proc.stderr
    assert f"cannot use PostgreSQL at 127.0.0.1:{port}/latchkey: Connection refused" in errors[0], errors[0]
    assert "hunter2" not in proc.stderr + proc.stdout
    assert "postgres://latchkey:<redacted>@127.0.0.1" in proc.stderr, "the startup line hides the password"


def test_a_malformed_postgres_url_is_a_configuration_error_without_its_password():
    proc, _ = serve_until_exit("postgres://latchkey:hunter2-secret@127.0.0.1:5432")
    assert proc.returncode == 78, proc.stderr
    assert "names no database" in proc.stderr
    assert "hunter2" not in proc.stderr + proc.stdout


def test_a_url_of_another_scheme_is_refused_without_its_password():
    proc, _ = serve_until_exit("mysql://latchkey:hunter2-secret@127.0.0.1:3306/latchkey")
    assert proc.returncode == 78, proc.stderr
    assert "mysql://latchkey:<redacted>@127.0.0.1:3306/latchkey" in proc.stderr
    assert "hunter2" not in proc.stderr + proc.stdout


def test_a_wrong_password_is_refused_at_start_without_quoting_it(postgres_url):
    parts = urllib.parse.urlsplit(postgres_url)
    wrong = urllib.parse.urlunsplit(parts._replace(
        netloc=f"{parts.username}:wrong-password-{uuid.uuid4().hex[:8]}@{parts.hostname}:{parts.port}"))
    proc, _ = serve_until_exit(wrong)
    assert proc.returncode != 0
    assert "28P01" in proc.stderr, proc.stderr
    assert "wrong-password" not in proc.stderr + proc.stdout


def check_config(database: str) -> subprocess.CompletedProcess:
    require_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env["LATCHKEY_DATABASE"] = database
    return subprocess.run([str(LATCHKEY_BIN), "check-config"], cwd=str(REPO), env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


def test_check_config_reaches_postgres_and_reads_its_schema_version_changing_nothing(postgres_url, server_factory):
    fresh = check_config(postgres_url)
    assert fresh.returncode == 0, fresh.stderr
    line = next(l for l in fresh.stdout.splitlines() if l.startswith("database: PostgreSQL at"))
    assert " reachable, schema version 0 of " in line and "(start-up applies " in line, line
    latest = int(line.split(" of ")[1].split()[0])
    tables = subprocess.run(["psql", postgres_url, "-XAtc",
                             "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"],
                            capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    assert tables == "0", "check-config must not migrate"

    server_factory("postgres-check-config", {"LATCHKEY_DATABASE": postgres_url}).stop()
    migrated = check_config(postgres_url)
    assert f" reachable, schema version {latest} of {latest}\n" in migrated.stdout + "\n", migrated.stdout

    password = urllib.parse.urlsplit(postgres_url).password
    assert password not in fresh.stdout + fresh.stderr + migrated.stdout + migrated.stderr


def test_check_config_fails_when_postgres_cannot_be_reached():
    port = closed_port()
    proc = check_config(f"postgres://latchkey:hunter2-secret@127.0.0.1:{port}/latchkey")
    assert proc.returncode == 78, proc.stdout + proc.stderr
    assert f"cannot use PostgreSQL at 127.0.0.1:{port}/latchkey" in proc.stderr, proc.stderr
    assert "hunter2" not in proc.stdout + proc.stderr
