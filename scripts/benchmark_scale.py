"""What each operation costs on a big store beside a fresh one (run through scripts/benchmark-scale).

Two stores on one backend (SQLite files, or two PostgreSQL databases): a *big* one seeded straight in SQL with
`--users` users (each with a passkey and its statistics row), `--events-per-user` security events each (10 M for
1 M users), 100,000 live sessions, 1,000,000 delivered webhook deliveries and `--tenants` tenants (the default
tenant holds half the users, the others share the rest), and a *fresh* one holding only what the measured
operations read: the tenant `t0001` whose statistics are rebuilt (the same users and events in both stores),
500 users of the default tenant, and one purge batch of old events and expired sessions. The default tenant's
statistics are built with `latchkey stats backfill`; PostgreSQL is analysed, as autovacuum would.

Then, for `--rounds` rounds, the same binary serves both stores at once (two servers), and the same client measures
the server's CPU (per-thread nanoseconds from /proc/PID/task/*/schedstat; on PostgreSQL the database's processes' too,
where a big store's cost would show) per operation, the two servers taking turns every 20 calls, so that the machine's
drifts (a neighbour's load, a frequency step) fall on both alike:
registration, sign-in with and without a username (options and result), the passkey list, an admin user lookup,
a page of the event feed (first and second), the console's overview (90 days); the purge the server runs at start
(one batch of 500 old events, one of expired sessions) and `latchkey stats backfill --tenant t0001` (its process's
CPU). How long each store call held the store (SQLite's one connection and write lock; PostgreSQL's transaction)
comes from the server's own `latchkey_store_duration_seconds` histogram: its mean and the bucket its longest falls in.
Prints a Markdown table of medians and the big/fresh ratio of each, and one RESULT line per operation.

Usage: python3 scripts/benchmark_scale.py --binary .build/release/latchkey [--postgres URL_OF_A_SERVER] [--rounds 3]
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import resource
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))
from softauthn import SoftAuthenticator, b64url_decode  # noqa: E402

DAY = 86_400
SPAN_DAYS = 120
TYPES = ["sign_in.succeeded"] * 6 + ["sign_in.refused", "passkey.registered", "enrollment_ticket.issued", "session.ended"]
# The tenant whose statistics are rebuilt: the same in both stores.
REBUILT, REBUILT_USERS, REBUILT_EVENTS_PER_USER = "t0001", 500, 100
PURGE_BATCH = 500


# ---------------------------------------------------------------------------------------------
# The server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_cpu_seconds() -> float:
    """CPU every PostgreSQL process on this machine has used (the postmaster and each connection's backend): on
    PostgreSQL a big store's cost is the database's, not Latchkey's. A process that ended between two readings is
    missed; the pool's connections live as long as the server."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if open(f"/proc/{pid}/comm").read().strip() != "postgres":
                continue
            total += thread_cpu_seconds(int(pid)) * 1e9
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return total / 1e9


def thread_cpu_seconds(pid: int) -> float:
    """CPU the server's live threads have used (schedstat: nanoseconds, exact)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
        except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
            pass
    return total / 1e9


class Server:
    def __init__(self, binary: str, database: str, work: str, counts_database: bool = False):
        self.counts_database = counts_database
        self.port, self.admin_port, self.metrics_port = free_port(), free_port(), free_port()
        self.origin = f"http://localhost:{self.port}"
        self.base, self.admin = f"http://127.0.0.1:{self.port}", f"http://127.0.0.1:{self.admin_port}"
        self.binary = binary
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
        self.env.update(
            LATCHKEY_HOME=str(REPO), LATCHKEY_HOST="127.0.0.1", LATCHKEY_PORT=str(self.port), LATCHKEY_RP_ID="localhost",
            LATCHKEY_ORIGINS=self.origin, LATCHKEY_DATABASE=database, LATCHKEY_ADMIN_ADDRESS=f"127.0.0.1:{self.admin_port}",
            LATCHKEY_METRICS_ADDRESS=f"127.0.0.1:{self.metrics_port}",
            LATCHKEY_RATE_LIMIT="0", LATCHKEY_LOG_LEVEL="warning")
        self.process: subprocess.Popen | None = None

    def run(self, *arguments: str) -> str:
        return subprocess.run([self.binary, *arguments], env=self.env, capture_output=True, text=True, check=True).stdout

    def start(self) -> None:
        self.process = subprocess.Popen([self.binary, "serve"], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                if requests.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.1)
        raise SystemExit("the server did not start")

    def stop(self) -> None:
        if self.process:
            self.process.terminate()
            self.process.wait()
            self.process = None

    @property
    def cpu(self) -> float:
        """Latchkey's CPU, and on PostgreSQL the database's too."""
        assert self.process
        return thread_cpu_seconds(self.process.pid) + (database_cpu_seconds() if self.counts_database else 0)

    def metrics(self) -> str:
        return requests.get(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=30).text


def store_holds(metrics: str) -> dict[str, tuple[float, float]]:
    """Per store operation: mean seconds and the upper bound of the bucket holding its longest call."""
    sums, counts, buckets = {}, {}, {}
    for line in metrics.splitlines():
        m = re.match(r'latchkey_store_duration_seconds_(sum|count|bucket)\{(.*)\} (\S+)', line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m[2]))
        operation = labels.get("operation", "?")
        if m[1] == "sum":
            sums[operation] = float(m[3])
        elif m[1] == "count":
            counts[operation] = float(m[3])
        else:
            buckets.setdefault(operation, []).append((float(labels["le"]), float(m[3])))
    holds = {}
    for operation, count in counts.items():
        if count == 0:
            continue
        longest = min((le for le, n in buckets.get(operation, []) if n >= count), default=float("inf"))
        holds[operation] = (sums.get(operation, 0) / count, longest)
    return holds


# ---------------------------------------------------------------------------------------------
# Seeding, straight in SQL


def sqlite_seed(path: str, default_users: int, tenants: int, users_per_tenant: int, events_per_user: int,
                sessions: int, deliveries: int, now: float) -> None:
    """Users 0..default_users-1 in the default tenant, then users_per_tenant in each of t0001..; user i's events
    are i*events_per_user.. (t0001's users have REBUILT_EVENTS_PER_USER each); PURGE_BATCH old events first."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    total = default_users + (tenants - 1) * users_per_tenant
    tenant_of = f"CASE WHEN i < {default_users} THEN 'default' ELSE 't' || printf('%04d', 1 + (i - {default_users}) / {users_per_tenant}) END"
    type_of = "CASE j % " + str(len(TYPES)) + " " + " ".join(f"WHEN {n} THEN '{t}'" for n, t in enumerate(TYPES)) + " END"
    handle = "CAST(printf('%032d', i) AS BLOB)"
    rebuilt_first = default_users
    db.executescript(f"""
        WITH RECURSIVE n(t) AS (SELECT 1 UNION ALL SELECT t + 1 FROM n WHERE t + 1 < {tenants})
        INSERT INTO tenants (id, settings, created_at, updated_at)
        SELECT 't' || printf('%04d', t), CAST('{{"rpID":"t' || printf('%04d', t) || '.example","origins":["https://t' || printf('%04d', t) || '.example"]}}' AS BLOB),
            {now}, {now} FROM n;
        INSERT INTO tenant_hosts (host, tenant) SELECT id || '.example', id FROM tenants;
        UPDATE tenant_directory SET revision = revision + 1;
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {total})
        INSERT INTO users (handle, tenant, username, display_name, created_at, disabled)
        SELECT {handle}, {tenant_of}, 'user' || i, 'User ' || i, {now - SPAN_DAYS * DAY}, 0 FROM n;
        INSERT INTO credentials (id, tenant, user_handle, public_key, algorithm, sign_count, transports, aaguid, attestation_format,
            attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at)
        SELECT CAST('cred' AS BLOB) || handle, tenant, handle, X'A50102', -7, 0, 'internal,hybrid', zeroblob(16),
            'none', 'none', 1, 1, 1, 1, created_at FROM users;
        INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) SELECT tenant, handle, 1, NULL FROM users;
        WITH RECURSIVE n(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM n WHERE j + 1 < {PURGE_BATCH})
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, actor, tenant)
        SELECT 'evt_old_' || j, 'sign_in.succeeded', {now - 1000 * DAY}, CAST(printf('%032d', 0) AS BLOB), 'user0', 'user', 'default' FROM n;
        WITH RECURSIVE n(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM n WHERE j + 1 < {total * events_per_user})
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, authenticator_name, actor, detail, reason,
            backup_eligible, tenant)
        SELECT 'evt_seed_' || j, {type_of}, {now} - ({total * events_per_user} - j) * {SPAN_DAYS * DAY / max(total * events_per_user, 1)},
            CAST(printf('%032d', j / {events_per_user}) AS BLOB), 'user' || (j / {events_per_user}),
            CASE j % 3 WHEN 0 THEN 'iCloud Keychain' WHEN 1 THEN 'Google Password Manager' END, 'user',
            CASE WHEN j % 20 = 0 THEN 'usernameless' END, CASE WHEN j % 10 = 6 THEN 'userNotVerified' END, j % 2,
            CASE WHEN j / {events_per_user} < {default_users} THEN 'default'
                 ELSE 't' || printf('%04d', 1 + (j / {events_per_user} - {default_users}) / {users_per_tenant}) END
        FROM n WHERE j / {events_per_user} NOT BETWEEN {rebuilt_first} AND {rebuilt_first + REBUILT_USERS - 1};
        WITH RECURSIVE n(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM n WHERE j + 1 < {REBUILT_USERS * REBUILT_EVENTS_PER_USER})
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, actor, tenant, backup_eligible)
        SELECT 'evt_rebuilt_' || j, {type_of}, {now} - ({REBUILT_USERS * REBUILT_EVENTS_PER_USER} - j) * 60,
            CAST(printf('%032d', {rebuilt_first} + j / {REBUILT_EVENTS_PER_USER}) AS BLOB),
            'user' || ({rebuilt_first} + j / {REBUILT_EVENTS_PER_USER}), 'user', '{REBUILT}', 1 FROM n;
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {sessions + PURGE_BATCH})
        INSERT INTO sessions (token_hash, tenant, user_handle, created_at, expires_at)
        SELECT CAST(printf('session%025d', i) AS BLOB), 'default', CAST(printf('%032d', i % {default_users}) AS BLOB), {now - DAY},
            CASE WHEN i < {PURGE_BATCH} THEN {now - 3600} ELSE {now + 30 * DAY} END FROM n;
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {deliveries})
        INSERT INTO webhook_deliveries (event_id, receiver, ordering_key, state, attempts, created_at, next_attempt_at, retry_until,
            delivered_at, tenant)
        SELECT 'evt_seed_' || i, 'https://hooks.example/latchkey', CAST(printf('%032d', i % {default_users}) AS BLOB), 'delivered', 1,
            {now - 3 * DAY}, {now - 3 * DAY}, {now - 2 * DAY}, {now - 3 * DAY}, 'default' FROM n;
    """)
    db.commit()
    db.close()


def postgres_seed(url: str, default_users: int, tenants: int, users_per_tenant: int, events_per_user: int,
                  sessions: int, deliveries: int, now: float) -> None:
    total = default_users + (tenants - 1) * users_per_tenant
    types = "ARRAY[" + ",".join(f"'{t}'" for t in TYPES) + "]"
    tenant_of = (f"CASE WHEN i < {default_users} THEN 'default' "
                 f"ELSE 't' || lpad((1 + (i - {default_users}) / {users_per_tenant})::text, 4, '0') END")
    handle = lambda expression: f"convert_to(lpad(({expression})::text, 32, '0'), 'UTF8')"  # noqa: E731
    rebuilt_first = default_users
    events = total * events_per_user
    sql = f"""
        INSERT INTO tenants (id, settings, created_at, updated_at)
        SELECT 't' || lpad(t::text, 4, '0'),
            convert_to('{{"rpID":"t' || lpad(t::text, 4, '0') || '.example","origins":["https://t' || lpad(t::text, 4, '0') || '.example"]}}', 'UTF8'),
            to_timestamp({now}), to_timestamp({now}) FROM generate_series(1, {tenants - 1}) AS t;
        INSERT INTO tenant_hosts (host, tenant) SELECT id || '.example', id FROM tenants;
        UPDATE tenant_directory SET revision = revision + 1;
        INSERT INTO users (handle, tenant, username, display_name, created_at, disabled)
        SELECT {handle('i')}, {tenant_of}, convert_to('user' || i, 'UTF8'), convert_to('User ' || i, 'UTF8'),
            to_timestamp({now - SPAN_DAYS * DAY}), false FROM generate_series(0, {total - 1}) AS i;
        INSERT INTO credentials (id, tenant, user_handle, public_key, algorithm, sign_count, transports, aaguid, attestation_format,
            attestation_type, backup_eligible, backed_up, resident_key, user_verified, created_at, attestation_trusted, trust_path,
            sign_count_regressions)
        SELECT 'cred'::bytea || handle, tenant, handle, '\\xa50102'::bytea, -7, 0, ARRAY['internal', 'hybrid'], '\\x00000000000000000000000000000000'::bytea,
            'none', 'none', true, true, true, true, created_at, false, ARRAY[]::bytea[], 0 FROM users;
        INSERT INTO statistics_users (tenant, user_handle, passkeys, last_active_day) SELECT tenant, handle, 1, NULL FROM users;
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, actor, tenant)
        SELECT 'evt_old_' || j, 'sign_in.succeeded', to_timestamp({now - 1000 * DAY}), {handle('0')}, convert_to('user0', 'UTF8'),
            'user', 'default' FROM generate_series(0, {PURGE_BATCH - 1}) AS j;
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, authenticator_name, actor, detail, reason,
            backup_eligible, tenant)
        SELECT 'evt_seed_' || j, ({types})[1 + j % {len(TYPES)}], to_timestamp({now} - ({events} - j) * {SPAN_DAYS * DAY / max(events, 1)}),
            {handle(f'j / {events_per_user}')}, convert_to('user' || (j / {events_per_user}), 'UTF8'),
            CASE j % 3 WHEN 0 THEN 'iCloud Keychain' WHEN 1 THEN 'Google Password Manager' END, 'user',
            CASE WHEN j % 20 = 0 THEN convert_to('usernameless', 'UTF8') END, CASE WHEN j % 10 = 6 THEN 'userNotVerified' END,
            j % 2 = 0,
            CASE WHEN j / {events_per_user} < {default_users} THEN 'default'
                 ELSE 't' || lpad((1 + (j / {events_per_user} - {default_users}) / {users_per_tenant})::text, 4, '0') END
        FROM generate_series(0, {events - 1}) AS j
        WHERE j / {events_per_user} NOT BETWEEN {rebuilt_first} AND {rebuilt_first + REBUILT_USERS - 1};
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, actor, tenant, backup_eligible)
        SELECT 'evt_rebuilt_' || j, ({types})[1 + j % {len(TYPES)}], to_timestamp({now} - ({REBUILT_USERS * REBUILT_EVENTS_PER_USER} - j) * 60),
            {handle(f'{rebuilt_first} + j / {REBUILT_EVENTS_PER_USER}')}, convert_to('user' || ({rebuilt_first} + j / {REBUILT_EVENTS_PER_USER}), 'UTF8'),
            'user', '{REBUILT}', true FROM generate_series(0, {REBUILT_USERS * REBUILT_EVENTS_PER_USER - 1}) AS j;
        INSERT INTO sessions (token_hash, tenant, user_handle, created_at, expires_at)
        SELECT convert_to('session' || lpad(i::text, 25, '0'), 'UTF8'), 'default', {handle(f'i % {default_users}')}, to_timestamp({now - DAY}),
            to_timestamp(CASE WHEN i < {PURGE_BATCH} THEN {now - 3600} ELSE {now + 30 * DAY} END)
        FROM generate_series(0, {sessions + PURGE_BATCH - 1}) AS i;
        INSERT INTO webhook_deliveries (event_id, receiver, ordering_key, state, attempts, created_at, next_attempt_at, retry_until,
            delivered_at, tenant)
        SELECT 'evt_seed_' || i, 'https://hooks.example/latchkey', {handle(f'i % {default_users}')}, 'delivered', 1,
            to_timestamp({now - 3 * DAY}), to_timestamp({now - 3 * DAY}), to_timestamp({now - 2 * DAY}), to_timestamp({now - 3 * DAY}),
            'default' FROM generate_series(0, {deliveries - 1}) AS i;
    """
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True)
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", "VACUUM ANALYZE"], check=True)


# ---------------------------------------------------------------------------------------------
# The operations


class Client:
    """One person's browser and a backend's admin key against one running server."""

    def __init__(self, server: Server, admin_key: str):
        self.server = server
        self.headers = {"Content-Type": "application/json", "Origin": server.origin}
        self.admin_headers = {"Authorization": f"Bearer {admin_key}"}
        self.authenticator = SoftAuthenticator(origin=server.origin)
        self.session = requests.Session()

    def post(self, path: str, body: dict) -> dict:
        reply = self.session.post(self.server.base + path, json=body, headers=self.headers, timeout=60)
        document = reply.json()
        if reply.status_code != 200 or document.get("status") != "ok":
            raise RuntimeError(f"{path}: {reply.status_code} {document}")
        return document

    def get(self, url: str, headers: dict | None = None) -> dict:
        reply = self.session.get(url, headers=headers or {}, timeout=60)
        if reply.status_code != 200:
            raise RuntimeError(f"{url}: {reply.status_code} {reply.text[:200]}")
        return reply.json()

    def register(self, username: str) -> None:
        options = self.post("/attestation/options", {"username": username, "displayName": username})
        self.post("/attestation/result", self.authenticator.create(options))

    def sign_in(self, username: str | None) -> None:
        options = self.post("/assertion/options", {"username": username} if username else {})
        credential = next(c for c in self.authenticator.credentials.values() if c.username == (username or c.username))
        self.post("/assertion/result", self.authenticator.get(options, credential))


BLOCK = 20


def measure(servers: list[Server], count: int, operations: list) -> list[float]:
    """Server CPU microseconds per call of each server's operation (after one unmeasured call each), the servers
    taking turns every `BLOCK` calls: a drift in the machine's speed (another VM, a frequency step) falls on both."""
    for operation in operations:
        operation(0)
    totals = [0.0] * len(servers)
    done = 0
    while done < count:
        block = range(done + 1, min(done + BLOCK, count) + 1)
        for turn, (server, operation) in enumerate(zip(servers, operations)):
            before = server.cpu
            for index in block:
                operation(index)
            totals[turn] += server.cpu - before
        done = block[-1]
    return [total / count * 1e6 for total in totals]


def run_round(stores: dict[str, tuple[Server, str]], round_number: int, counts: dict) -> dict[str, dict[str, float]]:
    """One round on every store at once: both servers run, and each operation is measured on them in turn."""
    labels = list(stores)
    servers = [stores[label][0] for label in labels]
    figures: dict[str, dict[str, float]] = {label: {} for label in labels}
    holds: dict[str, dict] = {}

    def record(name: str, values: list[float]) -> None:
        for label, value in zip(labels, values):
            figures[label][name] = value

    for server in servers:
        server.start()
    try:
        # The purge each server made at start: one batch of old events and of expired sessions.
        for server in servers:
            for _ in range(300):
                started = store_holds(server.metrics())
                if "purgeSecurityEvents" in started and "purgeExpired" in started:
                    break
                time.sleep(0.1)
        clients = [Client(server, stores[label][1]) for label, server in zip(labels, servers)]
        names = {label: [f"scale-{label}-{round_number}-{i}" for i in range(counts["registrations"] + 1)] for label in labels}
        record("registration", measure(servers, counts["registrations"], [
            (lambda i, c=client, n=names[label]: c.register(n[i])) for label, client in zip(labels, clients)]))
        record("sign-in, username", measure(servers, counts["signins"], [
            (lambda i, c=client, n=names[label]: c.sign_in(n[i % len(n)])) for label, client in zip(labels, clients)]))
        # Without a username: the discoverable passkey of one user, as iOS offers it.
        lone = [Client(server, stores[label][1]) for label, server in zip(labels, servers)]
        for label, client in zip(labels, lone):
            client.register(f"scale-{label}-{round_number}-lone")
        record("sign-in, no username", measure(servers, counts["signins"], [(lambda i, c=client: c.sign_in(None)) for client in lone]))
        record("passkey list", measure(servers, counts["reads"], [
            (lambda i, c=client, s=server: c.get(s.base + "/credentials")) for client, server in zip(clients, servers)]))
        # Ten users in turn, as every other read here repeats its rows: what is measured is the work, which a store's
        # size could change, not the first read of a page from the file, which any store pays for a row not read lately.
        record("admin user lookup", measure(servers, counts["reads"], [
            (lambda i, c=client, s=server: c.get(f"{s.admin}/admin/v1/users/user{i % 10}", c.admin_headers))
            for client, server in zip(clients, servers)]))
        record("event feed, first page", measure(servers, counts["reads"], [
            (lambda i, c=client, s=server: c.get(f"{s.admin}/admin/v1/events?limit=50", c.admin_headers))
            for client, server in zip(clients, servers)]))
        cursors = [client.get(f"{server.admin}/admin/v1/events?limit=50", client.admin_headers).get("nextCursor")
                   for client, server in zip(clients, servers)]
        record("event feed, next page", measure(servers, counts["reads"], [
            (lambda i, c=client, s=server, k=cursor: c.get(f"{s.admin}/admin/v1/events?limit=50&cursor={k}", c.admin_headers))
            for client, server, cursor in zip(clients, servers, cursors)]))
        today = datetime.datetime.now(datetime.timezone.utc).date()
        overview = f"/admin/v1/stats?from={today - datetime.timedelta(days=89)}&to={today}"
        record("console overview, 90 days", measure(servers, counts["overviews"], [
            (lambda i, c=client, s=server: c.get(s.admin + overview, c.admin_headers)) for client, server in zip(clients, servers)]))
        for label, server in zip(labels, servers):
            holds[label] = store_holds(server.metrics())
    finally:
        for server in servers:
            server.stop()
    for label, server in zip(labels, servers):
        for operation in ("purgeSecurityEvents", "purgeExpired"):
            figures[label][f"{operation} (held, µs)"] = holds[label].get(operation, (float("nan"), 0))[0] * 1e6
        # A rebuild of one tenant's statistics, from the command line: its process's CPU.
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        server.run("stats", "backfill", "--tenant", REBUILT)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        figures[label][f"stats backfill, {REBUILT} ({REBUILT_USERS * REBUILT_EVENTS_PER_USER} events)"] = (
            (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1e6)
        figures[label]["longest store call (ms, bucket)"] = max((longest for _, longest in holds[label].values()), default=0) * 1000
        slowest = max(holds[label].items(), key=lambda item: item[1][1], default=("none", (0, 0)))
        print(f"# {label} round {round_number}: longest store call {slowest[0]} ≤ {slowest[1][1] * 1000:g} ms; "
              + ", ".join(f"{op} {mean * 1e3:.2f} ms" for op, (mean, _) in sorted(holds[label].items())), file=sys.stderr)
    return figures


def main() -> None:
    work = tempfile.mkdtemp(prefix="latchkey-scale-")
    databases: list[str] = []
    try:
        measure_stores(work, databases)
    finally:
        # The stores are gigabytes: nothing is left behind.
        shutil.rmtree(work, ignore_errors=True)
        for url in databases:
            server, name = url.rsplit("/", 1)
            subprocess.run(["psql", "-q", server + "/postgres", "-c", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)


def measure_stores(work: str, databases: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--postgres", help="a PostgreSQL server URL whose user may create databases")
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--events-per-user", type=int, default=10)
    parser.add_argument("--tenants", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--registrations", type=int, default=30)
    parser.add_argument("--signins", type=int, default=200)
    parser.add_argument("--reads", type=int, default=200)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    counts = {"registrations": args.registrations, "signins": args.signins, "reads": args.reads, "overviews": args.reads // 4}
    default_users = args.users // 2
    per_tenant = max((args.users - default_users) // max(args.tenants - 1, 1), REBUILT_USERS)
    now = time.time()

    stores = {}
    for label in ("fresh", "big"):
        if args.postgres:
            name = f"latchkey_scale_{label}_{os.getpid()}"
            subprocess.run(["psql", "-q", args.postgres, "-c", f"CREATE DATABASE {name}"], check=True)
            database = args.postgres.rsplit("/", 1)[0] + "/" + name
            databases.append(database)
        else:
            database = os.path.join(work, f"{label}.sqlite")
        server = Server(binary, database, work, counts_database=bool(args.postgres))
        server.start()  # the schema, as the server makes it
        server.stop()
        started = time.monotonic()
        seed = postgres_seed if args.postgres else sqlite_seed
        if label == "big":
            seed(database, default_users, args.tenants, per_tenant, args.events_per_user, 100_000, 1_000_000, now)
        else:
            seed(database, 500, 2, REBUILT_USERS, args.events_per_user, 0, 0, now)
        seeded = time.monotonic() - started
        started = time.monotonic()
        server.run("stats", "backfill")
        print(f"# {label}: seeded in {seeded:.0f} s, default tenant's statistics built in {time.monotonic() - started:.0f} s",
              file=sys.stderr)
        key = server.run("admin-keys", "create", "--name", "bench").split()[-1]
        stores[label] = (server, key)

    results: dict[str, dict[str, list[float]]] = {"fresh": {}, "big": {}}
    for round_number in range(1, args.rounds + 1):
        for label, figures in run_round(stores, round_number, counts).items():
            for name, value in figures.items():
                results[label].setdefault(name, []).append(value)

    backend = "PostgreSQL" if args.postgres else "SQLite"
    total_users = default_users + (args.tenants - 1) * per_tenant
    counted = "Latchkey's and PostgreSQL's CPU" if args.postgres else "Latchkey's CPU (SQLite runs in its process)"
    print(f"\n{backend} ({counted} per operation): big store {total_users:,} users (each with a passkey), {total_users * args.events_per_user:,} events, "
          f"{args.tenants:,} tenants; medians of {args.rounds} rounds, both servers running, taking turns every {BLOCK} calls.\n")
    print("| operation | fresh store | big store | big ÷ fresh |")
    print("|---|---:|---:|---:|")
    for name in results["fresh"]:
        fresh, big = statistics.median(results["fresh"][name]), statistics.median(results["big"][name])
        unit = "" if "(" in name else " µs"
        print(f"| {name} | {fresh:,.0f}{unit} | {big:,.0f}{unit} | {big / fresh if fresh else float('nan'):.2f} |")
        rounds = lambda values: ",".join(f"{v:.0f}" for v in values)  # noqa: E731
        print(f"RESULT backend={backend} operation={name.replace(' ', '_')} fresh={fresh:.1f} big={big:.1f} "
              f"fresh_rounds={rounds(results['fresh'][name])} big_rounds={rounds(results['big'][name])}", file=sys.stderr)


if __name__ == "__main__":
    main()
