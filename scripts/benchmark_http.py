"""HTTP benchmark of `latchkey serve` (run through scripts/benchmark-http).

Sections (the report is Markdown on stdout; progress goes to stderr):
  ref  `openssl speed -mr ecdsap256`: P-256 verifies per CPU second, the yardstick.
  b    full sign-in ceremonies (POST /assertion/options {"username"} + POST /assertion/result with
       a real ES256 assertion from Tests/e2e/softauthn.py) at 1 and 16 concurrent clients, each a
       process with its own keep-alive requests.Session and its own users; the server's CPU time
       (utime+stime of /proc/PID/stat) over the measured window, per ceremony. Then
       POST /assertion/options alone, usernameless ({}) and with a username.
  c    the single-client sign-in at two database sizes (default 1 thousand and 1 million stored
       credentials), seeded straight into the SQLite file before the server starts on it.
  d    VmRSS of the server idle after start, after a warm-up, and after N pending challenges made
       by POST /assertion/options {} from several client processes.
  p    the sign-in of (b) at 1, 16 and 64 clients (lean driver) on SQLite, on PostgreSQL with one
       instance, and on PostgreSQL with two instances sharing it (each ceremony's options on one
       instance and its result on the other, as a round-robin balancer sends them); server CPU is
       summed over the instances, and the PostgreSQL server's own CPU (the postmaster and every
       process under it) is read the same way. Needs a PostgreSQL this process may create databases
       in: --postgres-url, else LATCHKEY_TEST_POSTGRES_URL (scripts/postgres start); the server's
       data folder (LATCHKEY_POSTGRES_DIR, or --postgres-pid) to find its processes.

Every server runs on a free 127.0.0.1 port with its own temporary database and is stopped on any
exit (failure, Ctrl-C, SIGTERM; and through PR_SET_PDEATHSIG if this process is killed). Every
request loop is bounded in count and in time; every response must be 200 with "status":"ok".
"""

from __future__ import annotations

import argparse
import atexit
import ctypes
import datetime
import http.client
import json
import json as _json
import multiprocessing as mp
import os
import platform
import queue
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
from pathlib import Path
from typing import Optional

import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))
from softauthn import SoftAuthenticator, cose_ec2_public_key  # noqa: E402

from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
REQUEST_TIMEOUT = 30.0        # seconds, any single HTTP request
STARTUP_TIMEOUT = 60.0        # seconds for a server to answer
SETUP_TIMEOUT = 180.0         # seconds for client processes to register users and warm up


class BenchError(RuntimeError):
    """A failed check: the benchmark stops with this message."""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Servers


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the server child: receive SIGTERM when this benchmark process dies (even by SIGKILL)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except OSError:
        pass


LIVE_SERVERS: list["Server"] = []


class Server:
    """One `latchkey serve` on a free loopback port, with its database in a temporary folder."""

    def __init__(self, binary: Path, name: str, log_level: str, keep: bool,
                 extra_env: Optional[dict] = None, workdir: Optional[Path] = None,
                 origin: Optional[str] = None):
        self.binary = binary
        self.shared_origin = origin  # one origin for several instances behind a balancer
        self.name = name
        self.keep = keep
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix=f"latchkey-bench-{name}-"))
        self.database = self.workdir / "latchkey.sqlite"
        self.port = 0
        self.proc: Optional[subprocess.Popen] = None
        self.log_level = log_level
        self.extra_env = extra_env or {}
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        return self.shared_origin or f"http://localhost:{self.port}"

    def start(self) -> "Server":
        self.port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
        env.update({
            "LATCHKEY_HOST": "127.0.0.1",
            "LATCHKEY_PORT": str(self.port),
            "LATCHKEY_RP_ID": "localhost",
            "LATCHKEY_ORIGINS": self.origin,
            "LATCHKEY_DATABASE": str(self.database),
            "LATCHKEY_LOG_LEVEL": self.log_level,
            # No metadata BLOB from the working copy's data/ folder: every run starts alike.
            "LATCHKEY_METADATA_BLOB": str(self.workdir / "no-mds-blob.jwt"),
            # Every client runs from 127.0.0.1, and (d) keeps 100,000 challenges pending: no limits.
            "LATCHKEY_RATE_LIMIT": "0",
            "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "0",
            "LATCHKEY_PENDING_CHALLENGES_TOTAL": "0",
        })
        env.update({k: str(v) for k, v in self.extra_env.items()})
        self.starts += 1
        self.log_path = self.workdir / f"server-{self.starts}.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [str(self.binary), "serve"], cwd=str(REPO), env=env, stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent)
        if self not in LIVE_SERVERS:
            LIVE_SERVERS.append(self)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        last = "no answer"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"server {self.name} exited with status {self.proc.returncode} "
                                 f"during start-up\n{self.log_tail()}")
            try:
                r = requests.get(self.url + "/session", timeout=2)
                if r.status_code == 401:
                    return self
                last = f"GET /session answered {r.status_code}, expected 401"
            except requests.RequestException as exc:
                last = repr(exc)
            time.sleep(0.1)
        raise BenchError(f"server {self.name} not ready after {STARTUP_TIMEOUT:.0f}s: {last}\n"
                         f"{self.log_tail()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                log(f"server {self.name} ignored SIGTERM for 15 s; killing it")
                self.proc.kill()
                self.proc.wait(timeout=15)
        if getattr(self, "_log", None) is not None and not self._log.closed:
            self._log.close()

    def close(self) -> None:
        self.stop()
        if self in LIVE_SERVERS:
            LIVE_SERVERS.remove(self)
        if not self.keep:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def check_alive(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            code = None if self.proc is None else self.proc.returncode
            raise BenchError(f"server {self.name} is not running (exit status {code})\n{self.log_tail()}")

    def cpu_seconds(self) -> float:
        """utime + stime of the whole process (all threads), in seconds."""
        self.check_alive()
        with open(f"/proc/{self.proc.pid}/stat") as f:
            data = f.read()
        fields = data[data.rindex(")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # stat fields 14 and 15

    def context_switches(self) -> tuple:
        """(voluntary, involuntary) context switches summed over the server's threads."""
        voluntary = involuntary = 0
        for status in Path(f"/proc/{self.proc.pid}/task").glob("*/status"):
            try:
                for line in status.read_text().splitlines():
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
            except OSError:  # a thread that just ended
                pass
        return voluntary, involuntary

    def status_kib(self, key: str) -> int:
        self.check_alive()
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        raise BenchError(f"{key} not in /proc/{self.proc.pid}/status")

    def log_tail(self, limit: int = 4000) -> str:
        try:
            text = self.log_path.read_bytes().decode("utf-8", "replace")
        except (OSError, AttributeError):
            return "(no server log)"
        if len(text) > limit:
            text = "...\n" + text[-limit:]
        return f"--- server {self.name} log ({self.log_path}) ---\n{text}"


class ServerGroup:
    """Several instances measured as one: CPU, context switches and memory summed; a client's
    requests alternate between them (options on one, result on the next). `extra_cpu` adds the CPU
    of processes the servers depend on (the PostgreSQL server) to a separate reading."""

    def __init__(self, servers: list, database_cpu=None):
        self.servers = servers
        self.database_cpu = database_cpu

    @property
    def urls(self) -> list:
        return [s.url for s in self.servers]

    @property
    def origin(self) -> str:
        return self.servers[0].origin

    def cpu_seconds(self) -> float:
        return sum(s.cpu_seconds() for s in self.servers)

    def context_switches(self) -> tuple:
        pairs = [s.context_switches() for s in self.servers]
        return sum(p[0] for p in pairs), sum(p[1] for p in pairs)

    def status_kib(self, key: str) -> int:
        return sum(s.status_kib(key) for s in self.servers)

    def check_alive(self) -> None:
        for s in self.servers:
            s.check_alive()

    def log_tail(self, limit: int = 4000) -> str:
        return "\n".join(s.log_tail(limit // len(self.servers)) for s in self.servers)


def stop_all_servers() -> None:
    for srv in list(LIVE_SERVERS):
        try:
            srv.close()
        except Exception as exc:  # keep stopping the others
            log(f"could not stop server {srv.name}: {exc!r}")


# ---------------------------------------------------------------------------------------------
# Client side (runs in worker processes)


class LeanResponse:
    def __init__(self, status: int, data: bytes):
        self.status_code = status
        self.content = data

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.content)


class LeanSession:
    """A minimal keep-alive client on http.client with a cookie jar of name=value pairs: several
    times cheaper per request than requests, to load the server harder (driver "http.client")."""

    def __init__(self):
        self.connections: dict = {}
        self.cookies: dict = {}

    def post(self, url: str, json=None, timeout: float = REQUEST_TIMEOUT) -> LeanResponse:
        parts = urllib.parse.urlsplit(url)
        conn = self.connections.get(parts.netloc)
        if conn is None:
            conn = self.connections[parts.netloc] = http.client.HTTPConnection(parts.netloc, timeout=timeout)
        headers = {"Content-Type": "application/json"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = _json.dumps(json, separators=(",", ":")).encode()
        try:
            conn.request("POST", parts.path, body, headers)
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            del self.connections[parts.netloc]
            raise BenchError(f"POST {parts.path}: {exc!r}")
        for header in response.msg.get_all("Set-Cookie") or []:
            pair, _, attributes = header.partition(";")
            name, _, value = pair.strip().partition("=")
            if not value or "max-age=0" in attributes.lower().replace(" ", ""):
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        return LeanResponse(response.status, data)

    def close(self) -> None:
        for conn in self.connections.values():
            conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def new_session(driver: str):
    return LeanSession() if driver == "http.client" else requests.Session()


def check(response, what: str) -> dict:
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code != 200 or not isinstance(body, dict) or body.get("status") != "ok":
        raise BenchError(f"{what}: HTTP {response.status_code}, body {response.text[:600]!r}")
    return body


def register_users(url: str, auth: SoftAuthenticator, names: list, driver: str) -> None:
    """Registers each name with one ES256 passkey (a fresh session each: a first registration)."""
    for name in names:
        with new_session(driver) as s:
            options = check(s.post(url + "/attestation/options",
                                   json={"username": name, "displayName": name},
                                   timeout=REQUEST_TIMEOUT), f"POST /attestation/options for {name}")
            check(s.post(url + "/attestation/result", json=auth.create(options),
                         timeout=REQUEST_TIMEOUT), f"POST /attestation/result for {name}")


def sign_in(s: requests.Session, url: str, auth: SoftAuthenticator, name: str,
            result_url: Optional[str] = None) -> None:
    """One ceremony; with `result_url`, the result goes to another instance than the options."""
    options = check(s.post(url + "/assertion/options", json={"username": name},
                           timeout=REQUEST_TIMEOUT), f"POST /assertion/options for {name}")
    result = check(s.post((result_url or url) + "/assertion/result", json=auth.get(options),
                          timeout=REQUEST_TIMEOUT), f"POST /assertion/result for {name}")
    if result.get("username") != name:
        raise BenchError(f"POST /assertion/result signed in {result.get('username')!r}, expected {name!r}")


def options_only(s: requests.Session, url: str, body: dict) -> None:
    check(s.post(url + "/assertion/options", json=body, timeout=REQUEST_TIMEOUT),
          f"POST /assertion/options {json.dumps(body)}")


def worker(cfg: dict, index: int, start_event, out_queue) -> None:
    """One client process: set up, warm up, say ready, wait for the start, run the window."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler (inherited by fork)
    try:
        urls, origin, mode = cfg["urls"], cfg["origin"], cfg["mode"]
        # With several instances, client i sends its options to instance i and its results to the
        # next one: every ceremony crosses instances, and the load is even.
        url, result_url = urls[index % len(urls)], urls[(index + 1) % len(urls)]
        auth = SoftAuthenticator(origin=origin, rp_id="localhost", counter_step=1)
        names = [f"{cfg['tag']}-c{index}-u{i}" for i in range(cfg["users"])] if mode != "anon" else []
        register_users(url, auth, names, cfg["driver"])
        s = new_session(cfg["driver"])
        k = 0

        def one() -> None:
            nonlocal k
            name = names[k % len(names)] if names else ""
            k += 1
            if mode == "signin":
                sign_in(s, url, auth, name, result_url)
            elif mode == "user":
                options_only(s, url, {"username": name})
            else:
                options_only(s, url, {})

        warm_end = time.monotonic() + cfg["warmup_seconds"]
        for _ in range(cfg["warmup_count"]):
            if time.monotonic() >= warm_end:
                break
            one()
        out_queue.put(("ready", index, None))
        if not start_event.wait(timeout=SETUP_TIMEOUT + 60):
            raise BenchError("the start signal never came")
        latencies = []
        cpu0 = time.process_time()
        started = time.monotonic()
        deadline = started + cfg["window"]
        limit = cfg["max_count"]
        while len(latencies) < limit and time.monotonic() < deadline:
            t0 = time.perf_counter()
            one()
            latencies.append(time.perf_counter() - t0)
        ended = time.monotonic()
        out_queue.put(("done", index, {"latencies": latencies, "start": started, "end": ended,
                                       "cpu": time.process_time() - cpu0}))
    except BaseException as exc:  # report everything, including BenchError, to the parent
        detail = str(exc) if isinstance(exc, BenchError) else traceback.format_exc()
        try:
            out_queue.put(("error", index, detail))
        except Exception:
            pass


# ---------------------------------------------------------------------------------------------
# Parent side: a measured window with N client processes


LIVE_WORKERS: list = []


def stop_workers(procs, grace: float = 0.0) -> None:
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(timeout=max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=5)
        if p.is_alive():
            p.kill()
            p.join(timeout=5)
        if p in LIVE_WORKERS:
            LIVE_WORKERS.remove(p)


def run_window(server: Server, *, mode: str, clients: int, users: int, window: float,
               warmup_count: int, warmup_seconds: float, max_count: int, tag: str,
               driver: str = "requests") -> dict:
    """Runs `clients` processes doing `mode` ("signin", "user": options with a username, "anon":
    options {}) for `window` seconds after their warm-up; returns counts, CPU, latencies."""
    ctx = mp.get_context("fork")
    start_event = ctx.Event()
    out_queue = ctx.Queue()
    urls = server.urls if isinstance(server, ServerGroup) else [server.url]
    database_cpu = getattr(server, "database_cpu", None)
    cfg = {"urls": urls, "origin": server.origin, "mode": mode, "users": users,
           "window": window, "warmup_count": warmup_count, "warmup_seconds": warmup_seconds,
           "max_count": max_count, "tag": tag, "driver": driver}
    procs = [ctx.Process(target=worker, args=(cfg, i, start_event, out_queue), daemon=True)
             for i in range(clients)]
    LIVE_WORKERS.extend(procs)
    done_ok = False
    try:
        for p in procs:
            p.start()

        def collect(kind: str, timeout: float) -> dict:
            got = {}
            deadline = time.monotonic() + timeout
            while len(got) < clients:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise BenchError(f"client processes: only {len(got)} of {clients} were {kind} "
                                     f"after {timeout:.0f} s\n{server.log_tail()}")
                try:
                    what, index, payload = out_queue.get(timeout=min(remaining, 1.0))
                except queue.Empty:
                    dead = [p for p in procs if p.exitcode not in (None, 0)]
                    if dead:
                        raise BenchError(f"a client process died (exit status {dead[0].exitcode})")
                    server.check_alive()
                    continue
                if what == "error":
                    raise BenchError(f"client {index} ({mode}) failed: {payload}\n{server.log_tail()}")
                if what == kind:
                    got[index] = payload
            return got

        collect("ready", SETUP_TIMEOUT)
        time.sleep(0.2)  # let the last warm-up responses leave the server
        rss_before = server.status_kib("VmRSS")
        cpu0 = server.cpu_seconds()
        database0 = database_cpu() if database_cpu else 0.0
        switches0 = server.context_switches()
        machine0 = machine_times()
        wall0 = time.monotonic()
        start_event.set()
        results = collect("done", window + 2 * REQUEST_TIMEOUT + 30)
        wall1 = time.monotonic()
        cpu1 = server.cpu_seconds()
        database1 = database_cpu() if database_cpu else 0.0
        switches1 = server.context_switches()
        machine1 = machine_times()
        rss_after = server.status_kib("VmRSS")
        done_ok = True
    finally:
        stop_workers(procs, grace=5.0 if done_ok else 0.0)
    latencies = sorted(x for r in results.values() for x in r["latencies"])
    count = len(latencies)
    if count == 0:
        raise BenchError(f"{mode} with {clients} clients completed nothing in {window} s")
    first = min(r["start"] for r in results.values())
    last = max(r["end"] for r in results.values())
    return {
        "count": count,
        "server_cpu": cpu1 - cpu0,
        "database_cpu": database1 - database0,
        "wall": wall1 - wall0,
        "busy": last - first,
        "client_cpu": sum(r["cpu"] for r in results.values()),
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "rss_before": rss_before,
        "voluntary": switches1[0] - switches0[0],
        "involuntary": switches1[1] - switches0[1],
        "machine_busy": (machine1[0] - machine0[0]) / max(1, machine1[2] - machine0[2]),
        "steal": (machine1[1] - machine0[1]) / max(1, machine1[2] - machine0[2]),
        "others": max(0.0, (machine1[0] - machine0[0]) / CLK_TCK - (cpu1 - cpu0) - (database1 - database0)
                      - sum(r["cpu"] for r in results.values())) / (wall1 - wall0),
        "rss_after": rss_after,
    }


def machine_times() -> tuple:
    """(busy, steal, total) jiffies of all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = (values + [0] * 8)[:8]
    total = user + nice + system + idle + iowait + irq + softirq + steal
    return total - idle - iowait - steal, steal, total


def percentile(sorted_values: list, p: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    rank = max(1, int(-(-p * len(sorted_values) // 100)))  # ceil(p/100 * n)
    return sorted_values[min(rank, len(sorted_values)) - 1]


# ---------------------------------------------------------------------------------------------
# PostgreSQL (section p)


def psql_binary() -> str:
    found = shutil.which("psql")
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"), key=lambda p: int(p.parts[-3]))
    if not candidates:
        raise BenchError("psql not found: apt-get install postgresql-client (or postgresql)")
    return str(candidates[-1])


class PostgresServer:
    """The PostgreSQL server a run uses: a database made for each configuration, and the CPU time
    of the server's processes (the postmaster, its live children, and its reaped children)."""

    def __init__(self, url: str):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("postgres", "postgresql") or not parts.hostname:
            raise BenchError("the PostgreSQL URL must look like postgres://USER:PASSWORD@HOST:PORT/DB")
        self.url = url
        self.parts = parts
        self.psql = psql_binary()
        self.made: list = []
        data_directory = self.query("SHOW data_directory")
        try:
            self.postmaster = int(Path(data_directory, "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError) as exc:
            raise BenchError(f"cannot read the postmaster's PID in {data_directory} ({exc}); "
                             "section p measures a PostgreSQL server on this machine")

    def query(self, sql: str) -> str:
        proc = subprocess.run([self.psql, self.url, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise BenchError(f"psql {sql!r}: {proc.stderr.strip()[-600:]}")
        return proc.stdout.strip()

    def new_database(self, name: str) -> str:
        """A fresh database; returns its URL."""
        self.query(f"DROP DATABASE IF EXISTS {name}")
        self.query(f"CREATE DATABASE {name}")
        self.made.append(name)
        return urllib.parse.urlunsplit(self.parts._replace(path="/" + name))

    def drop_databases(self) -> None:
        for name in self.made:
            try:
                self.query(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            except BenchError as exc:
                log(f"could not drop {name}: {exc}")
        self.made.clear()

    DURABLE = ("fsync", "synchronous_commit", "full_page_writes")

    def make_durable(self) -> None:
        """Production durability for the run (a commit waits for its WAL flush), undone by
        `restore_settings`; a throwaway test server (scripts/postgres) runs with it off."""
        for name in self.DURABLE:
            self.query(f"ALTER SYSTEM SET {name} = on")
        self.query("SELECT pg_reload_conf()")
        time.sleep(0.5)  # the postmaster's children take the reload in their own time
        if self.query("SHOW synchronous_commit") != "on":
            raise BenchError("synchronous_commit did not become on after ALTER SYSTEM and a reload")

    def restore_settings(self) -> None:
        for name in self.DURABLE:
            self.query(f"ALTER SYSTEM RESET {name}")
        self.query("SELECT pg_reload_conf()")

    def settings(self) -> str:
        names = ("server_version", "fsync", "synchronous_commit", "full_page_writes", "shared_buffers")
        values = self.query("SELECT string_agg(name || ' ' || setting, ', ' ORDER BY name) FROM pg_settings "
                            f"WHERE name IN ({', '.join(repr(n) for n in names)})")
        return values

    def cpu_seconds(self) -> float:
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                data = stat.read_text()
            except OSError:  # a process that just ended
                continue
            fields = data[data.rindex(")") + 2:].split()
            pid, ppid = int(stat.parent.name), int(fields[1])
            if pid == self.postmaster:
                total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
            elif ppid == self.postmaster:
                total += int(fields[11]) + int(fields[12])
        return total / CLK_TCK


# ---------------------------------------------------------------------------------------------
# Seeding (section c)

SEED_USER_COLUMNS = ("handle", "username", "display_name", "created_at")
# Migration 1 and 2 columns of `credentials`; anything a later migration adds keeps its default.
SEED_CREDENTIAL_COLUMNS = (
    "id", "user_handle", "public_key", "algorithm", "sign_count", "transports", "aaguid",
    "attestation_format", "attestation_type", "backup_eligible", "backed_up", "resident_key",
    "user_verified", "created_at", "last_used_at",
    "attestation_trusted", "trust_path", "cred_protect", "sign_count_regressions",
)


def seed(database: Path, credentials: int, per_user: int, rng: random.Random) -> tuple:
    """Adds `credentials` ES256 credentials, `per_user` per user, in one transaction."""
    users = max(1, -(-credentials // per_user))
    keys = [cose_ec2_public_key(ec.generate_private_key(ec.SECP256R1()).public_key()) for _ in range(8)]
    now = time.time()
    handles = [rng.randbytes(64) for _ in range(users)]

    def user_rows():
        for i, handle in enumerate(handles):
            yield (handle, f"seed-{i:07d}", f"Seeded user {i}", now - rng.random() * 3e7)

    def credential_rows():
        for i in range(credentials):
            handle = handles[i // per_user]
            cid = rng.randbytes(rng.randint(16, 32))
            be = rng.random() < 0.5
            yield (cid, handle, keys[i % len(keys)], -7, rng.randint(0, 500),
                   "internal,hybrid" if be else "usb,nfc", bytes(16), "none", "none",
                   int(be), int(be), 1, 1, now - rng.random() * 3e7,
                   now - rng.random() * 1e6 if i % 3 else None,
                   0, "", None, 0)

    con = sqlite3.connect(str(database), isolation_level=None, timeout=30)
    try:
        con.execute("PRAGMA cache_size = -131072")  # 128 MiB for this connection only
        con.execute("BEGIN")
        con.executemany(f"INSERT INTO users ({', '.join(SEED_USER_COLUMNS)}) "
                        f"VALUES ({', '.join('?' * len(SEED_USER_COLUMNS))})", user_rows())
        con.executemany(f"INSERT INTO credentials ({', '.join(SEED_CREDENTIAL_COLUMNS)}) "
                        f"VALUES ({', '.join('?' * len(SEED_CREDENTIAL_COLUMNS))})", credential_rows())
        con.execute("COMMIT")
        stored = con.execute("SELECT count(*) FROM credentials").fetchone()[0]
        stored_users = con.execute("SELECT count(*) FROM users").fetchone()[0]
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    if stored != credentials:
        raise BenchError(f"seeding stored {stored} credentials, expected {credentials}")
    return stored_users, stored


def count_rows(database: Path, table: str) -> str:
    """Rows of a table, read-only beside the running server; "n/a" if the table is gone."""
    try:
        con = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30)
        try:
            return f"{con.execute(f'SELECT count(*) FROM {table}').fetchone()[0]:,}"
        finally:
            con.close()
    except sqlite3.Error as exc:
        log(f"could not count {table}: {exc}")
        return "n/a"


# ---------------------------------------------------------------------------------------------
# Report helpers


def us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f}"


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.2f}"


def mib(kib: int) -> str:
    return f"{kib / 1024:,.1f}"


def table(headers: list, rows: list, align: Optional[list] = None) -> str:
    align = align or ["---"] + ["---:"] * (len(headers) - 1)
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def out(text: str = "") -> None:
    print(text, flush=True)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def mem_total() -> str:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 1048576:.0f} GiB"
    except OSError:
        pass
    return "?"


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def git_head() -> str:
    try:
        head = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %s"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        branch = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--abbrev-ref", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        return f"{branch} @ {head[:90]}" if head else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


# ---------------------------------------------------------------------------------------------
# Sections


def openssl_reference(seconds: int) -> dict:
    cmd = ["openssl", "speed", "-mr", "-seconds", str(seconds), "ecdsap256"]
    log(f"reference: {' '.join(cmd)}")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds * 2 + 120)
    except FileNotFoundError:
        raise BenchError("openssl is not installed (apt-get install openssl)")
    if proc.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-1000:]}")
    verify_rate = None
    count = cpu = None
    for line in (proc.stdout + "\n" + proc.stderr).splitlines():  # +R lines go to stderr
        parts = line.strip().split(":")
        # +F4:<index>:<bits>:<signs/s>:<verifies/s>   (the summary line)
        if parts[0] == "+F4" and len(parts) >= 5 and parts[2] == "256":
            verify_rate = float(parts[4])
        # +R6:<verifies>:<bits>:<seconds>   (the verify run: count and CPU time)
        if parts[0] == "+R6" and len(parts) >= 4:
            count, cpu = int(parts[1]), float(parts[3])
    if verify_rate is None and count and cpu:
        verify_rate = count / cpu
    if not verify_rate:
        raise BenchError(f"could not parse `{' '.join(cmd)}` output:\n{proc.stdout}")
    return {"cmd": " ".join(cmd), "rate": verify_rate, "count": count, "cpu": cpu,
            "us": 1e6 / verify_rate}


def ceremony_rows(label: str, r: dict, verify_us: float) -> list:
    per = r["server_cpu"] / r["count"]
    per_us = per * 1e6
    return [label, f"{r['count']:,}", us(per), f"{r['count'] / r['busy']:,.0f}",
            ms(r["p50"]), ms(r["p99"]), f"{per_us / verify_us:.1f}×", f"{verify_us / per_us:.1%}",
            us(r["client_cpu"] / r["count"]),
            switches(r), cores_used(r)]


def switches(r: dict) -> str:
    return f"{r['voluntary'] / r['count']:.1f} / {r['involuntary'] / r['count']:.1f}"


def cores_used(r: dict) -> str:
    return f"{r['server_cpu'] / r['wall']:.2f} + {r['client_cpu'] / r['wall']:.2f} + {r['others']:.2f}"


CEREMONY_HEADERS = ["Clients", "Ceremonies", "Server CPU / ceremony (µs)", "Ceremonies / s",
                    "p50 (ms)", "p99 (ms)", "Server CPU ÷ 1 verify", "Fraction of verify rate",
                    "Client CPU / ceremony (µs)", "Server context switches / ceremony (vol. / invol.)",
                    "Cores used: server + clients + others"]


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/benchmark-http", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run of seconds: short windows, small sizes, 5,000 pending challenges")
    parser.add_argument("--window", type=float, help="seconds per measured window (default 10; quick 1.5)")
    parser.add_argument("--clients", default="1,16", help="concurrent client processes for (b), comma-separated")
    parser.add_argument("--lean-clients", type=int, default=16,
                        help="add a (b) row with this many processes on a lean http.client driver, "
                        "which loads the server harder than requests (0: no such row)")
    parser.add_argument("--users-per-client", type=int, default=4, help="registered users per client process")
    parser.add_argument("--max-per-client", type=int, default=200_000,
                        help="upper bound of requests per client in one window")
    parser.add_argument("--scale", help="stored credentials for (c), comma-separated "
                        "(default 1000,1000000; quick 1000,20000)")
    parser.add_argument("--per-user", type=int, default=4, help="seeded credentials per seeded user")
    parser.add_argument("--pending", type=int, help="pending challenges to create in (d) (default 100000; quick 5000)")
    parser.add_argument("--pending-clients", type=int, default=4, help="client processes creating them")
    parser.add_argument("--pending-timeout", type=float, default=600, help="seconds allowed for creating them")
    parser.add_argument("--openssl-seconds", type=int, help="openssl speed -seconds (default 3; quick 1)")
    parser.add_argument("--sections", default="ref,b,c,d", help="which sections: ref,b,c,d,p")
    parser.add_argument("--postgres-url", help="for (p): a PostgreSQL URL of a role that may create databases "
                        "(default: $LATCHKEY_TEST_POSTGRES_URL, as `eval \"$(scripts/postgres start)\"` sets it)")
    parser.add_argument("--postgres-clients", default="1,16,64", help="client processes for (p), comma-separated")
    parser.add_argument("--postgres-durable", action="store_true",
                        help="for (p): turn fsync, synchronous_commit and full_page_writes on for the run "
                        "(ALTER SYSTEM, reset afterwards), as a production server has them")
    parser.add_argument("--log-level", default="info", help="server LATCHKEY_LOG_LEVEL (default info, as shipped)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (databases, server logs)")
    args = parser.parse_args()

    quick = args.quick
    window = args.window if args.window is not None else (1.5 if quick else 10.0)
    clients_list = [int(x) for x in args.clients.split(",") if x.strip()]
    scale = [int(x) for x in (args.scale or ("1000,20000" if quick else "1000,1000000")).split(",") if x.strip()]
    pending = args.pending if args.pending is not None else (5000 if quick else 100_000)
    openssl_seconds = args.openssl_seconds if args.openssl_seconds is not None else (1 if quick else 3)
    sections = {s.strip() for s in args.sections.split(",")}
    warmup_count = 10 if quick else 50
    warmup_seconds = 3.0 if quick else 15.0
    if window <= 0 or window > 600:
        parser.error("--window must be in (0, 600] seconds")
    postgres_clients = [int(x) for x in args.postgres_clients.split(",") if x.strip()]
    if any(c < 1 or c > 64 for c in clients_list + postgres_clients):
        parser.error("--clients, --postgres-clients: 1..64 each")

    binary = Path(os.environ.get("LATCHKEY_BIN", REPO / ".build-release" / "release" / "latchkey"))
    if not binary.is_absolute():
        binary = (REPO / binary).resolve()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        raise BenchError(f"server binary not found: {binary} (build it with `swift build -c release "
                         "--product latchkey --scratch-path .build-release`, or set LATCHKEY_BIN)")
    command = os.environ.get("BENCHMARK_HTTP_COMMAND") or " ".join(["scripts/benchmark-http"] + sys.argv[1:])
    rng = random.Random(20261122)

    def new_server(name: str, extra_env: Optional[dict] = None) -> Server:
        return Server(binary, name, args.log_level, args.keep, extra_env)

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out("# Latchkey HTTP benchmark")
    out()
    out(f"- Date: {now}")
    out(f"- Machine: {os.cpu_count()} cores (`nproc`: {len(os.sched_getaffinity(0))}), {cpu_model()}, "
        f"{mem_total()} RAM; load average at start {loadavg()} (the machine is shared)")
    out(f"- Command: `{command}`")
    out(f"- Server: `{binary.relative_to(REPO) if binary.is_relative_to(REPO) else binary}` "
        f"(working copy {git_head()}), log level `{args.log_level}`, SQLite in a temporary folder")
    out(f"- Client: Python {platform.python_version()}, requests {requests.__version__}, one process "
        f"and one keep-alive `requests.Session` per client, ES256 assertions from `Tests/e2e/softauthn.py`")
    out(f"- Windows: {window:g} s measured after a warm-up of up to {warmup_count} requests per client; "
        f"server CPU = utime+stime from `/proc/PID/stat` (all threads) read before and after the window "
        f"(clock tick {1000 / CLK_TCK:g} ms)")
    out()

    verify_us = None
    postgres = None
    if "p" in sections:
        url = args.postgres_url or os.environ.get("LATCHKEY_TEST_POSTGRES_URL")
        if not url:
            raise BenchError("section p needs --postgres-url or LATCHKEY_TEST_POSTGRES_URL "
                             "(eval \"$(scripts/postgres start)\")")
        postgres = PostgresServer(url)
        if args.postgres_durable:
            postgres.make_durable()
        postgres_settings = postgres.settings()

    if sections & {"ref", "b", "c", "p"}:
        ref = openssl_reference(openssl_seconds)
        verify_us = ref["us"]
        out("## Reference: OpenSSL P-256 verify")
        out()
        out(table(["Command", "Verifies / CPU second", "µs per verify"],
                  [[f"`{ref['cmd']}`", f"{ref['rate']:,.0f}", f"{ref['us']:.1f}"]],
                  ["---", "---:", "---:"]))
        out()
        detail = (f" ({ref['count']:,} verifies in {ref['cpu']:.2f} s of CPU)" if ref["count"] else "")
        out(f"`openssl speed` times user CPU{detail}, so its rate compares with the server CPU time below.")
        out()

    if "b" in sections:
        server = new_server("b").start()
        try:
            rss_start = server.status_kib("VmRSS")
            rows = []
            results = {}
            runs = [(n, "requests") for n in clients_list]
            if args.lean_clients:
                runs.append((args.lean_clients, "http.client"))
            for n, driver in runs:
                log(f"(b) sign-in ceremonies, {n} client(s) on {driver}, {window:g} s")
                r = run_window(server, mode="signin", clients=n, users=args.users_per_client,
                               window=window, warmup_count=warmup_count, warmup_seconds=warmup_seconds,
                               max_count=args.max_per_client, tag=f"b{n}{driver[:4]}", driver=driver)
                results[n] = r
                rows.append(ceremony_rows(str(n) if driver == "requests" else f"{n}, http.client", r, verify_us))
            n_opt = max(clients_list)
            opt_rows = []
            for mode, label in (("anon", "`{}` (usernameless)"), ("user", "`{\"username\": …}`")):
                option_runs = [(n, "requests") for n in sorted({1, n_opt})]
                if args.lean_clients:
                    option_runs.append((args.lean_clients, "http.client"))
                for n, driver in option_runs:
                    log(f"(b) POST /assertion/options {label}, {n} client(s) on {driver}, {window:g} s")
                    r = run_window(server, mode=mode, clients=n, users=1, window=window,
                                   warmup_count=warmup_count, warmup_seconds=warmup_seconds,
                                   max_count=args.max_per_client, tag=f"o{mode}{n}{driver[:4]}", driver=driver)
                    per = r["server_cpu"] / r["count"]
                    opt_rows.append([label, str(n) if driver == "requests" else f"{n}, http.client",
                                     f"{r['count']:,}", us(per), f"{r['count'] / r['busy']:,.0f}",
                                     ms(r["p50"]), ms(r["p99"]), f"{per * 1e6 / verify_us:.1f}×",
                                     us(r["client_cpu"] / r["count"]), switches(r), cores_used(r)])
            rss_end = server.status_kib("VmRSS")
        finally:
            server.close()
        out("## (b) Full HTTP sign-in ceremonies (SQLite)")
        out()
        out("A ceremony is `POST /assertion/options {\"username\"}` then `POST /assertion/result` with a "
            "fresh ES256 assertion, both checked for 200 and `\"status\":\"ok\"`; latency is the whole "
            "ceremony as the client sees it (including signing in Python). \"Fraction of verify rate\": "
            "ceremonies per server CPU second ÷ OpenSSL verifies per CPU second. \"Cores used\": "
            "CPU seconds per wall second of the server, of the client processes, and of everything "
            "else on the machine (other users' builds; from `/proc/stat`), out of "
            f"{os.cpu_count()} cores. Rows marked http.client use a lean keep-alive client on "
            "`http.client` (same requests, same checks, its own cookie jar) instead of `requests`, which "
            "costs the client less CPU and so keeps the server busier.")
        out()
        out(table(CEREMONY_HEADERS, rows))
        out()
        out("`POST /assertion/options` alone, unauthenticated (the challenges are never answered and "
            "stay pending):")
        out()
        out(table(["Body", "Clients", "Requests", "Server CPU / request (µs)", "Requests / s", "p50 (ms)",
                   "p99 (ms)", "Server CPU ÷ 1 verify", "Client CPU / request (µs)",
                   "Server context switches / request (vol. / invol.)",
                   "Cores used: server + clients + others"], opt_rows,
                  ["---"] + ["---:"] * 10))
        out()
        out(f"Server VmRSS: {mib(rss_start)} MiB after start, {mib(rss_end)} MiB after these windows.")
        out()

    if "c" in sections:
        rows = []
        base = None
        for size in scale:
            server = new_server(f"c{size}")
            try:
                log(f"(c) {size:,} credentials: create the schema")
                server.start()
                server.stop()
                log(f"(c) seeding {size:,} credentials ({args.per_user} per user)")
                t0 = time.monotonic()
                users, creds = seed(server.database, size, args.per_user, rng)
                seed_s = time.monotonic() - t0
                db_bytes = sum(p.stat().st_size for p in server.workdir.glob("latchkey.sqlite*"))
                server.start()
                log(f"(c) {size:,} credentials: single-client sign-in, {window:g} s")
                r = run_window(server, mode="signin", clients=1, users=args.users_per_client,
                               window=window, warmup_count=warmup_count, warmup_seconds=warmup_seconds,
                               max_count=args.max_per_client, tag=f"c{size}")
            finally:
                server.close()
            per = r["server_cpu"] / r["count"]
            if base is None:
                base = r
            d_cpu = (per / (base["server_cpu"] / base["count"]) - 1)
            d_p50 = r["p50"] / base["p50"] - 1
            rows.append([f"{creds:,}", f"{users:,}", f"{db_bytes / 1048576:,.1f}", f"{seed_s:.1f}",
                         f"{r['count']:,}", us(per), f"{d_cpu:+.1%}", ms(r["p50"]), f"{d_p50:+.1%}",
                         ms(r["p99"]), f"{per * 1e6 / verify_us:.1f}×", cores_used(r)])
        out("## (c) Scale: single-client sign-in with stored credentials")
        out()
        out(f"Seeded with Python `sqlite3` (`executemany`, one transaction) into the schema the server "
            f"created, {args.per_user} ES256 credentials per user with random 16..32-byte IDs, then the "
            f"server restarted on the file; {args.users_per_client} users registered over HTTP sign in. "
            "Differences are against the first row.")
        out()
        out(table(["Stored credentials", "Users", "Database (MiB)", "Seeding (s)", "Ceremonies",
                   "Server CPU / ceremony (µs)", "Δ CPU", "p50 (ms)", "Δ p50", "p99 (ms)",
                   "Server CPU ÷ 1 verify", "Cores used: server + client + others"], rows))
        out()

    if "d" in sections:
        server = new_server("d", {"LATCHKEY_CHALLENGE_TIMEOUT": "3600"}).start()
        try:
            time.sleep(1.0)
            rss_idle = server.status_kib("VmRSS")
            log("(d) warm-up: single-client sign-ins")
            run_window(server, mode="signin", clients=1, users=2, window=min(window, 3.0),
                       warmup_count=warmup_count, warmup_seconds=warmup_seconds,
                       max_count=args.max_per_client, tag="dwarm")
            time.sleep(1.0)
            rss_warm = server.status_kib("VmRSS")
            before_rows = count_rows(server.database, "pending_ceremonies")
            per_client = -(-pending // args.pending_clients)
            log(f"(d) {pending:,} POST /assertion/options {{}} from {args.pending_clients} processes")
            cpu0 = server.cpu_seconds()
            r = run_window(server, mode="anon", clients=args.pending_clients, users=0,
                           window=args.pending_timeout, warmup_count=0, warmup_seconds=0,
                           max_count=per_client, tag="dfill", driver="http.client")
            cpu1 = server.cpu_seconds()
            rss_full = server.status_kib("VmRSS")
            time.sleep(2.0)
            rss_settled = server.status_kib("VmRSS")
            hwm = server.status_kib("VmHWM")
            pending_rows = count_rows(server.database, "pending_ceremonies")
            db_bytes = sum(p.stat().st_size for p in server.workdir.glob("latchkey.sqlite*"))
        finally:
            server.close()
        created = r["count"]
        out("## (d) Memory")
        out()
        if created < args.pending_clients * per_client:
            out(f"**Only {created:,} of {pending:,} challenges were created within "
                f"{args.pending_timeout:g} s.**")
            out()
        out(table(["Server state", "VmRSS (MiB)"], [
            ["idle, 1 s after start", mib(rss_idle)],
            ["after a warm-up (single-client sign-ins)", mib(rss_warm)],
            [f"right after {created:,} pending challenges (`POST /assertion/options {{}}`)", mib(rss_full)],
            ["2 s later", mib(rss_settled)],
            ["peak (VmHWM)", mib(hwm)],
        ], ["---", "---:"]))
        out()
        out(f"{created:,} requests from {args.pending_clients} processes (http.client driver) in {r['busy']:.1f} s "
            f"({created / r['busy']:,.0f}/s), server CPU {us((cpu1 - cpu0) / created)} µs per request; "
            f"`pending_ceremonies` rows: {before_rows} before, {pending_rows} after; "
            f"database with WAL {db_bytes / 1048576:,.1f} MiB; "
            f"RSS growth {(rss_full - rss_warm) * 1024 / max(created, 1):,.0f} bytes per pending challenge.")
        out()
    if "p" in sections:
        rows = []
        try:
            for backend, instances in (("SQLite", 1), ("PostgreSQL", 1), ("PostgreSQL", 2)):
                name = f"p-{backend.lower()}-{instances}"
                env = {}
                if backend == "PostgreSQL":
                    env["LATCHKEY_DATABASE"] = postgres.new_database(f"latchkey_bench_{instances}_{os.getpid()}")
                # Instances behind one balancer share its origin (LATCHKEY_ORIGINS of each).
                servers = [Server(binary, f"{name}-{i}", args.log_level, args.keep, env,
                                  origin="http://localhost:8443" if instances > 1 else None)
                           for i in range(instances)]
                group = ServerGroup([srv.start() for srv in servers],
                                    database_cpu=postgres.cpu_seconds if backend == "PostgreSQL" else None)
                try:
                    for n in postgres_clients:
                        log(f"(p) {backend}, {instances} instance(s), {n} client(s), {window:g} s")
                        r = run_window(group, mode="signin", clients=n, users=args.users_per_client,
                                       window=window, warmup_count=warmup_count, warmup_seconds=warmup_seconds,
                                       max_count=args.max_per_client, tag=f"{name}-{n}", driver="http.client")
                        per = r["server_cpu"] / r["count"]
                        db = r["database_cpu"] / r["count"]
                        rows.append([backend, str(instances), str(n), f"{r['count']:,}", us(per),
                                     us(db) if backend == "PostgreSQL" else "(in the server)", us(per + db),
                                     f"{r['count'] / r['busy']:,.0f}", ms(r["p50"]), ms(r["p99"]),
                                     f"{per * 1e6 / verify_us:.1f}×", f"{(per + db) * 1e6 / verify_us:.1f}×",
                                     f"{r['server_cpu'] / r['wall']:.2f} + {r['database_cpu'] / r['wall']:.2f} + "
                                     f"{r['client_cpu'] / r['wall']:.2f} + {r['others']:.2f}"])
                finally:
                    for srv in servers:
                        srv.close()
        finally:
            postgres.drop_databases()
            if args.postgres_durable:
                postgres.restore_settings()
        out("## (p) Sign-in on SQLite and on PostgreSQL, with one and two instances")
        out()
        out("The ceremony of (b) on the lean http.client driver. With two instances, client *i* sends its "
            "options to instance *i* mod 2 and its results to the other, so every ceremony crosses "
            "instances (what a round-robin balancer does) and both instances share the origin "
            "`http://localhost:8443`. Server CPU is summed over the instances; PostgreSQL CPU is the "
            "postmaster and every process under it (connection backends, WAL writer, checkpointer), "
            "live and reaped, from `/proc/PID/stat`. \"Cores used\": Latchkey + PostgreSQL + clients + "
            f"everything else, out of {os.cpu_count()}. PostgreSQL settings: {postgres_settings}.")
        out()
        out(table(["Store", "Instances", "Clients", "Ceremonies", "Latchkey CPU / ceremony (µs)",
                   "PostgreSQL CPU / ceremony (µs)", "Together (µs)", "Ceremonies / s", "p50 (ms)",
                   "p99 (ms)", "Latchkey ÷ 1 verify", "Together ÷ 1 verify", "Cores used"],
                  rows, ["---"] + ["---:"] * 12))
        out()
    log("done")
    return 0


def _on_sigterm(signum, frame):
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _on_sigterm)
    # Ctrl-C stops the run even when started from a shell that ignores SIGINT in background jobs.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    atexit.register(stop_all_servers)
    status = 1
    try:
        status = main()
    except BenchError as exc:
        print(f"benchmark-http: ABORTED: {exc}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print("benchmark-http: interrupted; stopping the servers", file=sys.stderr)
        status = 130
    except SystemExit as exc:
        if exc.code == 128 + signal.SIGTERM:
            print("benchmark-http: terminated; stopping the servers", file=sys.stderr)
        status = exc.code if isinstance(exc.code, int) else 1
    finally:
        stop_workers(list(LIVE_WORKERS))
        stop_all_servers()
    sys.exit(status)
