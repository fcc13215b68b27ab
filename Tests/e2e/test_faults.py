"""Faults an operator meets, against the real binary: the disk under SQLite fills up, another process
holds the SQLite file's lock, PostgreSQL goes away, the process runs out of file descriptors. In each, `/readyz` says so within
`storeTimeout` (2 s), requests fail fast with 503 and `Retry-After` (never a 500), nothing
acknowledged is lost, and the server recovers without a restart."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import tempfile
import time
import urllib.parse
from pathlib import Path

import pytest
import requests

from conftest import REPO
from test_http_api import new_username
from test_postgres import SKIPPED as POSTGRES_SKIPPED
from test_postgres import postgres_url, psql  # noqa: F401 (postgres_url is a fixture)

BOUND = 2.0  # storeTimeout's default: the most a load balancer waits for a verdict


def timed(call):
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def register(server, auth, username: str):
    """One registration; returns the result reply (whatever its status)."""
    client = server.client()
    options = client.post("/attestation/options", {"username": username}, timeout=10)
    if options.status_code != 200:
        return options
    return client.post("/attestation/result", auth.create(options.json()), timeout=10)


def assert_recovers(server, auth, username: str, what: str, within: float) -> None:
    """/readyz turns 200 again within `within` seconds, without a restart, and `username` signs in."""
    deadline = time.monotonic() + within
    while requests.get(server.url + "/readyz", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, f"/readyz must turn 200 again once {what}"
        time.sleep(0.3)
    options = server.client().post("/assertion/options", {"username": username}, timeout=10)
    assert server.client().post("/assertion/result", auth.get(options.json()), timeout=10).status_code == 200


def assert_unavailable(reply: requests.Response) -> None:
    assert reply.status_code == 503, (reply.status_code, reply.text)
    body = reply.json()
    assert body["status"] == "failed" and body["errorMessage"].startswith("storage "), body
    assert int(reply.headers["Retry-After"]) > 0


@pytest.fixture
def small_volume():
    """An 8 MB tmpfs of its own (root only), unmounted afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="latchkey-small-volume-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=False)
    folder.rmdir()


def fill(volume: Path) -> Path:
    """Writes a file until the volume has no room left, down to the last byte; returns it."""
    filler = volume / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(descriptor, b"\0" * size)
            except OSError:
                pass
    finally:
        os.close(descriptor)
    return filler


def test_a_full_disk_under_sqlite_is_a_503_and_readyz_says_so_then_recovers(server_factory, small_volume):
    server = server_factory("faults-disk-full", {"LATCHKEY_DATABASE": str(small_volume / "latchkey.sqlite")})
    auth = server.authenticator()
    acknowledged = []
    for _ in range(5):
        username = new_username()
        assert register(server, auth, username).status_code == 200
        acknowledged.append(username)
    assert requests.get(server.url + "/readyz", timeout=5).status_code == 200

    filler = fill(small_volume)
    # Writes go on while the WAL has room; the first that finds none is a 503, never a 500, and
    # from then on /readyz is a 503 within the bound.
    first_refusal = None
    for attempt in range(400):
        username = new_username()
        reply = register(server, auth, username)
        assert reply.status_code in (200, 503), (reply.status_code, reply.text)
        if reply.status_code == 200:
            acknowledged.append(username)
            continue
        assert_unavailable(reply)
        assert "full" in reply.json()["errorMessage"], reply.text
        first_refusal = time.monotonic()
        break
    assert first_refusal is not None, "the full volume never refused a write"
    ready, took = timed(lambda: requests.get(server.url + "/readyz", timeout=10))
    assert ready.status_code == 503 and took < BOUND, (ready.status_code, took, ready.text)
    assert ready.json()["errorMessage"] == "the store is full"
    print(f"\ndisk full: {len(acknowledged) - 5} registrations after the disk filled, then 503; /readyz 503 in {took * 1000:.0f} ms")
    # Several polls, each within the bound, all 503 while the disk is full.
    for _ in range(3):
        ready, took = timed(lambda: requests.get(server.url + "/readyz", timeout=10))
        assert ready.status_code == 503 and took < BOUND, (ready.status_code, took)
        time.sleep(0.6)
    assert requests.get(server.url + "/healthz", timeout=5).status_code == 200, "the process itself is fine"

    # Room again: ready within a few probes, ceremonies work, nothing acknowledged is lost.
    filler.unlink()
    deadline = time.monotonic() + 10
    while requests.get(server.url + "/readyz", timeout=10).status_code != 200:
        assert time.monotonic() < deadline, "/readyz must turn 200 again once there is room"
        time.sleep(0.3)
    assert register(server, auth, new_username()).status_code == 200
    for username in acknowledged:
        options = server.client().post("/assertion/options", {"username": username}, timeout=10)
        assert options.status_code == 200, (username, options.text)
        assert server.client().post("/assertion/result", auth.get(options.json()), timeout=10).status_code == 200
    metrics = server.logs(limit=10_000_000)
    assert "store fault" in metrics and "the store stopped taking writes" in metrics and "the store takes writes again" in metrics
    for failure in ("unexpected error", "store failure"):
        assert failure not in metrics, "a full disk must not be a 500"


def test_a_lock_another_process_holds_on_sqlite_is_a_503_within_the_bound_and_stalls_nothing_else(server_factory, tmp_path):
    """An operator's `sqlite3` session (here Python's) holds the write lock: writes wait for it at most
    `storeTimeout`, then answer 503, and while they wait the server answers everything else at once:
    the waiting never holds the event loop."""
    import concurrent.futures
    import sqlite3

    database = tmp_path / "latchkey.sqlite"
    server = server_factory("faults-locked", {"LATCHKEY_DATABASE": str(database)})
    auth = server.authenticator()
    username = new_username()
    assert register(server, auth, username).status_code == 200
    assert requests.get(server.url + "/readyz", timeout=5).status_code == 200
    time.sleep(1.1)  # past the second a readiness verdict is reused for

    holder = sqlite3.connect(database, isolation_level=None, timeout=10)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            writes = [pool.submit(timed, lambda: server.client().post("/attestation/options", {"username": new_username()}, timeout=15))
                      for _ in range(3)]
            time.sleep(0.3)
            # While three writes wait, what needs no write answers at once.
            for path in ("/healthz", "/.well-known/jwks.json", "/"):
                reply, took = timed(lambda: requests.get(server.url + path, timeout=10))
                assert reply.status_code == 200 and took < 0.5, (path, reply.status_code, took)
            ready, took = timed(lambda: requests.get(server.url + "/readyz", timeout=10))
            assert ready.status_code == 503 and took < BOUND + 0.5, (ready.status_code, took, ready.text)
            for write in writes:
                reply, took = write.result()
                assert_unavailable(reply)
                assert took < BOUND + 0.5, took
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    assert_recovers(server, auth, username, "the lock is released", within=10)
    logs = server.logs(limit=10_000_000)
    assert "the store stopped taking writes" in logs and "the store takes writes again" in logs
    assert "unexpected error" not in logs and "store failure" not in logs, "a lock held elsewhere must not be a 500"


def test_postgresql_down_is_a_503_within_the_bound_and_comes_back(server_factory):
    """A PostgreSQL server of its own (scripts/postgres), stopped under a running Latchkey."""
    if POSTGRES_SKIPPED:
        pytest.skip("LATCHKEY_TEST_SKIP_POSTGRES is set")
    script = str(REPO / "scripts" / "postgres")
    started = subprocess.run([script, "start"], capture_output=True, text=True, timeout=120)
    assert started.returncode == 0, started.stderr
    exported = dict(line.removeprefix("export ").split("=", 1) for line in started.stdout.splitlines())
    folder, url = (value.strip("'") for value in (exported["LATCHKEY_POSTGRES_DIR"], exported["LATCHKEY_TEST_POSTGRES_URL"]))
    try:
        server = server_factory("faults-postgres", {"LATCHKEY_DATABASE": url + "?connect_timeout=2"})
        auth = server.authenticator()
        username = new_username()
        assert register(server, auth, username).status_code == 200

        subprocess.run([script, "pause", folder], check=True, timeout=60)
        for _ in range(3):
            ready, took = timed(lambda: requests.get(server.url + "/readyz", timeout=10))
            assert ready.status_code == 503 and took < BOUND, (ready.status_code, took, ready.text)
            print(f"\nPostgreSQL down: /readyz 503 in {took * 1000:.0f} ms")
        for path, body in (("/assertion/options", {}), ("/attestation/options", {"username": new_username()})):
            reply, took = timed(lambda: server.client().post(path, body, timeout=10))
            assert took < BOUND, (path, took)
            print(f"PostgreSQL down: {path} {reply.status_code} in {took * 1000:.0f} ms")
            assert_unavailable(reply)
        assert requests.get(server.url + "/healthz", timeout=5).status_code == 200

        subprocess.run([script, "resume", folder], check=True, timeout=60)
        assert_recovers(server, auth, username, "PostgreSQL is back", within=30)
        logs = server.logs(limit=10_000_000)
        assert "unexpected error" not in logs
        assert urllib.parse.urlsplit(url).password not in logs, "the database password must never be logged"
    finally:
        subprocess.run([script, "stop", folder], timeout=60)


def test_a_lock_another_session_holds_on_postgresql_is_a_503_within_the_bound(server_factory, postgres_url):
    """An operator's `psql` holds a table lock in an open transaction: a request waits for it at most
    `storeTimeout` (PostgreSQL's `lock_timeout`), then answers 503, and succeeds once it is released."""
    server = server_factory("faults-postgres-locked", {"LATCHKEY_DATABASE": postgres_url})
    auth = server.authenticator()
    username = new_username()
    assert register(server, auth, username).status_code == 200

    holder = subprocess.Popen(
        ["psql", postgres_url, "-v", "ON_ERROR_STOP=1", "-q", "-c",
         "BEGIN; LOCK TABLE pending_ceremonies IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(12); COMMIT;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while "AccessExclusiveLock" not in subprocess.run(
                ["psql", postgres_url, "-At", "-c", "SELECT mode FROM pg_locks WHERE relation = 'pending_ceremonies'::regclass"],
                capture_output=True, text=True, timeout=10).stdout:
            assert holder.poll() is None and time.monotonic() < deadline, "psql must take the lock"
            time.sleep(0.1)
        for path, body in (("/attestation/options", {"username": new_username()}), ("/assertion/options", {"username": username})):
            reply, took = timed(lambda: server.client().post(path, body, timeout=15))
            print(f"\nPostgreSQL table locked: {path} {reply.status_code} in {took * 1000:.0f} ms")
            assert_unavailable(reply)
            assert took < BOUND + 0.5, (path, took)
        assert requests.get(server.url + "/healthz", timeout=5).status_code == 200
    finally:
        # Ending psql alone would leave its backend asleep, holding the lock.
        psql(postgres_url, "SELECT pg_terminate_backend(pid) FROM pg_locks "
                           "WHERE relation = 'pending_ceremonies'::regclass AND mode = 'AccessExclusiveLock'")
        holder.wait(timeout=10)

    assert_recovers(server, auth, username, "the lock is released", within=10)
    assert "unexpected error" not in server.logs(limit=10_000_000), "a lock held elsewhere must not be a 500"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_out_of_file_descriptors_the_server_idles_and_still_answers(server_factory):
    def limit_descriptors():
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    from conftest import LatchkeyServer
    server = LatchkeyServer("faults-descriptors")
    server.preexec = limit_descriptors
    server.start()
    try:
        held = []
        for _ in range(200):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            held.append(connection)
        time.sleep(1)
        before = cpu_seconds(server.pid)
        time.sleep(3)
        spent = cpu_seconds(server.pid) - before
        assert spent < 0.3, f"{spent:.2f} s of CPU in 3 s at the descriptor limit (at most 10 % of a core)"
        health, took = timed(lambda: requests.get(server.url + "/healthz", timeout=10))
        assert health.status_code == 200 and took < BOUND, (health.status_code, took)
        print(f"\nulimit -n 64, 200 idle connections: {spent / 3 * 100:.1f} % of a core; /healthz in {took * 1000:.0f} ms")
        # A whole ceremony still goes through.
        assert register(server, server.authenticator(), new_username()).status_code == 200
        logs = server.logs()
        assert "the open-file limit (ulimit -n) is 64" in logs, logs
        for connection in held:
            connection.close()
    finally:
        server.stop()
        server.cleanup()
