"""The console's overview on a big store: server CPU per `GET /admin/v1/stats` of 90 days.

Seeds a fresh store (SQLite, or the PostgreSQL database `--postgres URL` names, which must be empty) with
`--users` users and `--events` security events spread over 120 days, straight in SQL; builds the statistics
with `latchkey stats backfill` (timed); then starts the server and measures the CPU its process spends on
`--requests` overview requests (utime + stime from /proc, before and after), which is what the console's
overview asks for. Prints one `RESULT` line.

Usage: python3 scripts/benchmark_console.py --binary .build/release/latchkey [--postgres URL]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import socket
import sqlite3
import subprocess
import tempfile
import time
import urllib.request

TICKS = os.sysconf("SC_CLK_TCK")
SPAN_DAYS = 120
# One event type in ten of each kind: most of a passkey server's events are sign-ins.
TYPES = ["sign_in.succeeded"] * 6 + ["sign_in.refused", "passkey.registered", "enrollment_ticket.issued", "session.ended"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def environment(database: str, port: int, admin_port: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update(LATCHKEY_HOME=os.getcwd(), LATCHKEY_HOST="127.0.0.1", LATCHKEY_PORT=str(port), LATCHKEY_RP_ID="localhost",
               LATCHKEY_ORIGINS=f"http://localhost:{port}", LATCHKEY_DATABASE=database,
               LATCHKEY_ADMIN_ADDRESS=f"127.0.0.1:{admin_port}", LATCHKEY_RATE_LIMIT="0", LATCHKEY_LOG_LEVEL="warning")
    return env


def wait_ready(url: str) -> None:
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return
        except Exception:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def seed_sqlite(path: str, users: int, events: int, now: float) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    type_of = "CASE i % " + str(len(TYPES)) + " " + " ".join(f"WHEN {n} THEN '{t}'" for n, t in enumerate(TYPES)) + " END"
    db.executescript(f"""
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {users})
        INSERT INTO users (handle, tenant, username, display_name, created_at, disabled)
        SELECT CAST(printf('%032d', i) AS BLOB), 'default', 'user' || i, 'User ' || i, {now - SPAN_DAYS * 86400}, 0 FROM n;
        WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < {events})
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, authenticator_name, actor, detail, reason,
            backup_eligible, tenant)
        SELECT 'evt_seed_' || i, {type_of},
            {now} - ({events} - i) * {SPAN_DAYS * 86400 / events}, CAST(printf('%032d', i % {users}) AS BLOB), 'user' || (i % {users}),
            CASE i % 3 WHEN 0 THEN 'iCloud Keychain' WHEN 1 THEN 'Google Password Manager' ELSE NULL END, 'user',
            CASE WHEN i % 20 = 0 THEN 'usernameless' END, CASE WHEN i % 10 = 6 THEN 'userNotVerified' END, i % 2, 'default'
        FROM n;
    """)
    db.commit()
    db.close()


def seed_postgres(url: str, users: int, events: int, now: float) -> None:
    types = "ARRAY[" + ",".join(f"'{t}'" for t in TYPES) + "]"
    sql = f"""
        INSERT INTO users (handle, tenant, username, display_name, created_at, disabled)
        SELECT convert_to(lpad(i::text, 32, '0'), 'UTF8'), 'default', convert_to('user' || i, 'UTF8'), convert_to('User ' || i, 'UTF8'),
            to_timestamp({now - SPAN_DAYS * 86400}), false FROM generate_series(0, {users - 1}) AS i;
        INSERT INTO security_events (id, type, occurred_at, user_handle, username, authenticator_name, actor, detail, reason,
            backup_eligible, tenant)
        SELECT 'evt_seed_' || i, ({types})[1 + i % {len(TYPES)}], to_timestamp({now} - ({events} - i) * {SPAN_DAYS * 86400 / events}),
            convert_to(lpad((i % {users})::text, 32, '0'), 'UTF8'), convert_to('user' || (i % {users}), 'UTF8'),
            CASE i % 3 WHEN 0 THEN 'iCloud Keychain' WHEN 1 THEN 'Google Password Manager' END, 'user',
            CASE WHEN i % 20 = 0 THEN convert_to('usernameless', 'UTF8') END, CASE WHEN i % 10 = 6 THEN 'userNotVerified' END,
            i % 2 = 0, 'default'
        FROM generate_series(0, {events - 1}) AS i;
        ANALYZE;
    """
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--postgres")
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="latchkey-console-bench-")
    database = args.postgres or os.path.join(work, "latchkey.sqlite")
    port, admin_port = free_port(), free_port()
    env = environment(database, port, admin_port)
    binary = os.path.abspath(args.binary)
    # The schema first, as the server makes it; then the rows, straight in SQL.
    server = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_ready(f"http://127.0.0.1:{port}")
    server.terminate()
    server.wait()
    now = time.time()
    started = time.monotonic()
    if args.postgres:
        seed_postgres(args.postgres, args.users, args.events, now)
    else:
        seed_sqlite(database, args.users, args.events, now)
    seeded = time.monotonic() - started
    started = time.monotonic()
    backfill = subprocess.run([binary, "stats", "backfill"], env=env, capture_output=True, text=True, check=True)
    backfilled = time.monotonic() - started
    key = subprocess.run([binary, "admin-keys", "create", "--name", "bench"], env=env, capture_output=True, text=True,
                         check=True).stdout.split()[-1]

    server = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ready(f"http://127.0.0.1:{port}")
        today = datetime.datetime.now(datetime.timezone.utc).date()
        query = f"/admin/v1/stats?from={today - datetime.timedelta(days=89)}&to={today}"
        request = urllib.request.Request(f"http://127.0.0.1:{admin_port}{query}", headers={"Authorization": f"Bearer {key}"})
        reply = json.loads(urllib.request.urlopen(request, timeout=30).read())
        assert len(reply["days"]) == 90 and reply["totals"]["signIns"]["succeeded"] > 0, reply["totals"]
        for _ in range(10):
            urllib.request.urlopen(request, timeout=30).read()
        before, wall = cpu_seconds(server.pid), time.monotonic()
        for _ in range(args.requests):
            urllib.request.urlopen(request, timeout=30).read()
        cpu = (cpu_seconds(server.pid) - before) / args.requests
        wall = (time.monotonic() - wall) / args.requests
    finally:
        server.terminate()
        server.wait()
    store = "postgresql" if args.postgres else "sqlite"
    print(f"seeded {args.users} users and {args.events} events in {seeded:.0f} s; backfill {backfilled:.0f} s: {backfill.stdout.strip()}")
    print(f"RESULT store={store} users={args.users} events={args.events} overview_90d_cpu_ms={cpu * 1000:.2f} "
          f"overview_90d_wall_ms={wall * 1000:.2f} sign_ins_in_range={reply['totals']['signIns']['succeeded']}")


if __name__ == "__main__":
    main()
