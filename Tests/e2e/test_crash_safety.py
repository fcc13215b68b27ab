"""Crash safety (issue 10): a stream of registrations, sign-ins, added and removed passkeys and
deleted accounts from several client threads, each with users of its own, while the server is
killed with SIGKILL at random moments and restarted on the same database, 20 times.

After every kill, with the process dead, the database is read directly (SQLite: a byte copy of the
file and its WAL, opened with Python's sqlite3, so the server's own recovery still sees the file as
the crash left it; PostgreSQL: psql) and checked against what the server acknowledged:
`PRAGMA integrity_check` is `ok` and `PRAGMA foreign_key_check` empty; no half-written record
(a user without a passkey, a passkey or session without its user, a change without its security event
or an event without its change: each stored passkey has one `passkey.registered` event and as many
`sign_in.succeeded` events as its counter's steps); every registration answered "ok"
is there with its user, every removal answered "ok" is gone; a request whose answer never came
(the kill cut it) left all of its writes or none; and each passkey's stored sign counter is at
least the highest counter the server acknowledged and at most the highest one sent.

After the last round the server is started once more and every acknowledged passkey signs in
through the API, a replayed counter (the stored one, and a lower one) is refused, every
acknowledged session still works and the sessions of deleted accounts do not.

The kill moments and each client's choices come from one seed, printed at the start (and in a
failing report); `LATCHKEY_CRASH_SEED=N` replays a run's choices (the threads' interleaving, and
so exactly which request a kill cuts, still varies); `LATCHKEY_CRASH_ROUNDS=N` sets the number of
kills. PostgreSQL is not killed, only Latchkey (so the test server's `fsync = off` does not matter).
"""
from __future__ import annotations

import http.cookiejar
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pytest
import requests
import urllib3

from conftest import _LIVE_SERVERS, LATCHKEY_BIN, LatchkeyServer
from softauthn import SoftAuthenticator, SoftCredential, b64url_decode
from test_http_api import new_username
from test_postgres import postgres_url  # noqa: F401  (the fixture)

ROUNDS = int(os.environ.get("LATCHKEY_CRASH_ROUNDS", "20"))
WORKERS = 4
# Seconds of traffic before each kill, drawn from this range.
ROUND_SECONDS = (0.3, 2.5)
# The share of kills aimed at a write in progress: up to AIM_SECONDS after a client sends one.
AIMED_KILLS = 0.5
AIM_SECONDS = 0.02
# Bounds on the whole test, whatever the machine's speed.
MAX_OPERATIONS_PER_WORKER = 2_000
TEST_SECONDS = 240
REQUEST_TIMEOUT = 20
# Passkeys whose replayed counters are tried after the last round (each costs two sign-ins).
REPLAY_SAMPLE = 60


class Unanswered(Exception):
    """The request got no answer: the server died while (or before) it was sent or handled."""


class NotSent(Unanswered):
    """The connection was refused (the server was dead): the server cannot have seen the request."""


class Refused(Exception):
    """The server answered something other than 200 "ok"."""

    def __init__(self, method: str, path: str, response: requests.Response):
        super().__init__(f"{method} {path}: {response.status_code} {response.text[:300]}")
        self.response = response


class NoCookies(http.cookiejar.DefaultCookiePolicy):
    """Clients keep no cookies: every user's session travels as a Bearer token, so one user's
    sign-in never ends another user's session through a shared cookie jar."""

    def set_ok(self, cookie, request):
        return False


# ---------------------------------------------------------------------------------------------
# What the server acknowledged


@dataclass
class Passkey:
    soft: SoftCredential
    # "ok": registration answered ok; "added?": the registration's answer never came;
    # "never": its registration never reached the server;
    # "removed": removal answered ok; "removed?": the removal's answer never came.
    state: str
    acked_count: int = 0  # the highest sign counter a sign-in answered "ok" with

    @property
    def sent_count(self) -> int:  # the highest sign counter ever sent (the soft counter)
        return self.soft.sign_count

    @property
    def hex_id(self) -> str:
        return self.soft.credential_id.hex()


@dataclass
class Account:
    username: str
    handle: bytes
    # "ok": first registration answered ok; "registered?": its answer never came;
    # "never": its registration never reached the server;
    # "deleted": account deletion answered ok; "deleted?": its answer never came.
    state: str
    token: Optional[str] = None  # the session token of the last acknowledged sign-in or registration
    passkeys: dict = field(default_factory=dict)  # hex credential ID -> Passkey
    old_tokens: list = field(default_factory=list)

    def usable(self) -> list[Passkey]:
        """The passkeys the server surely has: registered with an ok answer and not being removed."""
        return [p for p in self.passkeys.values() if p.state == "ok"]


@dataclass
class Ledger:
    accounts: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    operations: dict = field(default_factory=dict)  # name -> {"ok"|"cut"|"not sent": count}
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, name: str, outcome: str) -> None:
        """Counts a write: answered "ok", "cut" (sent, answer lost) or "not sent" (refused)."""
        with self.lock:
            counts = self.operations.setdefault(name, {"ok": 0, "cut": 0, "not sent": 0})
            counts[outcome] += 1

    def answered(self, name: str) -> int:
        return self.operations.get(name, {}).get("ok", 0)

    def summary(self) -> str:
        return "; ".join(f"{name}: " + ", ".join(f"{n} {outcome}" for outcome, n in counts.items())
                         for name, counts in sorted(self.operations.items()))

    def error(self, text: str) -> None:
        with self.lock:
            self.errors.append(text)


# ---------------------------------------------------------------------------------------------
# Clients


class Gate:
    """Open while the server runs. A client whose request went unanswered parks here until the
    server is back; the controller checks the database only once every client has parked, so no
    acknowledgement arrives during a check."""

    def __init__(self):
        self.condition = threading.Condition()
        self.is_open = False
        self.finished = False
        self.parked = 0
        self.retired = 0
        # Set by a client just before it sends a write, so a kill can aim at one being handled.
        self.writing = threading.Event()

    def open(self) -> None:
        with self.condition:
            self.is_open = True
            self.condition.notify_all()

    def close(self) -> None:
        with self.condition:
            self.is_open = False

    def finish(self) -> None:
        with self.condition:
            self.finished = True
            self.condition.notify_all()

    def park(self) -> None:
        with self.condition:
            self.parked += 1
            self.condition.notify_all()
            self.condition.wait_for(lambda: self.is_open or self.finished)
            self.parked -= 1

    def retire(self) -> None:
        """A client that is done: it sends nothing more."""
        with self.condition:
            self.retired += 1
            self.condition.notify_all()

    def wait_until_parked(self, count: int, timeout: float) -> bool:
        """Waits until `count` clients are parked or retired."""
        with self.condition:
            return self.condition.wait_for(lambda: self.parked + self.retired >= count, timeout)


class Worker(threading.Thread):
    """One client with users of its own, doing one ceremony at a time."""

    def __init__(self, index: int, seed: int, url: str, origin: str, ledger: Ledger, gate: Gate,
                 deadline: float):
        super().__init__(name=f"crash-client-{index}", daemon=True)
        self.rng = random.Random(seed * 1000 + index)
        self.url = url
        self.ledger = ledger
        self.gate = gate
        self.deadline = deadline
        self.authenticator = SoftAuthenticator(origin=origin, rp_id="localhost", counter_step=1)
        self.accounts: list[Account] = []
        self.http = requests.Session()
        self.http.cookies.set_policy(NoCookies())

    # -- HTTP ----------------------------------------------------------------------------------

    def call(self, method: str, path: str, body=None, token: Optional[str] = None) -> dict:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if method == "DELETE" or path.endswith("/result"):
            self.gate.writing.set()
        try:
            response = self.http.request(method, self.url + path, json=body, headers=headers,
                                         timeout=REQUEST_TIMEOUT)
        except requests.ConnectionError as error:
            reason = getattr(error.args[0], "reason", None) if error.args else None
            if isinstance(reason, urllib3.exceptions.NewConnectionError):  # refused: nothing was sent
                raise NotSent(f"{method} {path}: {error!r}") from error
            raise Unanswered(f"{method} {path}: {error!r}") from error
        except requests.RequestException as error:  # reset, timed out, or cut between headers and body
            raise Unanswered(f"{method} {path}: {error!r}") from error
        try:
            reply = response.json()
        except ValueError:
            reply = None
        if response.status_code != 200 or not isinstance(reply, dict) or reply.get("status") != "ok":
            raise Refused(method, path, response)
        return reply

    # -- the loop ------------------------------------------------------------------------------

    def run(self) -> None:
        for _ in range(MAX_OPERATIONS_PER_WORKER):
            if self.gate.finished or time.monotonic() > self.deadline:
                break
            try:
                self.step()
            except Unanswered:
                self.gate.park()
            except Refused as refusal:
                self.ledger.error(f"{self.name}: {refusal}")
            except Exception as error:  # a bug in the test itself: report it, do not hang
                self.ledger.error(f"{self.name}: {error!r}")
                self.gate.park()
        self.gate.retire()

    def step(self) -> None:
        live = [a for a in self.accounts if a.state == "ok"]
        roll = self.rng.random()
        if not live or roll < 0.25:
            self.register()
            return
        account = self.rng.choice(live)
        if roll < 0.35:
            self.add_passkey(account)
        elif roll < 0.42 and len(account.usable()) >= 2:
            self.remove_passkey(account)
        elif 0.42 <= roll < 0.45:
            self.delete_account(account)
        else:
            self.sign_in(account)

    # -- ceremonies ----------------------------------------------------------------------------

    def register(self) -> None:
        username = new_username()
        options = self.call("POST", "/attestation/options", {"username": username, "displayName": username})
        credential = self.authenticator.create(options)
        soft = self.authenticator.credentials[b64url_decode(credential["id"])]
        account = Account(username, b64url_decode(options["user"]["id"]), "registered?")
        passkey = Passkey(soft, "added?")
        account.passkeys[passkey.hex_id] = passkey
        self.accounts.append(account)
        with self.ledger.lock:
            self.ledger.accounts.append(account)
        try:
            reply = self.call("POST", "/attestation/result", credential)
        except NotSent:
            account.state = passkey.state = "never"
            self.ledger.count("register", "not sent")
            raise
        except Unanswered:
            self.ledger.count("register", "cut")
            raise
        account.state, passkey.state, account.token = "ok", "ok", reply["sessionToken"]
        self.ledger.count("register", "ok")

    def add_passkey(self, account: Account) -> None:
        options = self.call("POST", "/attestation/options",
                            {"username": account.username, "displayName": account.username}, account.token)
        credential = self.authenticator.create(options)
        passkey = Passkey(self.authenticator.credentials[b64url_decode(credential["id"])], "added?")
        account.passkeys[passkey.hex_id] = passkey
        try:
            self.call("POST", "/attestation/result", credential, account.token)
        except NotSent:
            passkey.state = "never"
            self.ledger.count("add passkey", "not sent")
            raise
        except Unanswered:
            self.ledger.count("add passkey", "cut")
            raise
        passkey.state = "ok"
        self.ledger.count("add passkey", "ok")

    def sign_in(self, account: Account) -> None:
        passkey = self.rng.choice(account.usable())
        usernameless = self.rng.random() < 0.3
        options = self.call("POST", "/assertion/options", {} if usernameless else {"username": account.username})
        assertion = self.authenticator.get(options, passkey.soft)  # the counter goes up by one
        try:
            reply = self.call("POST", "/assertion/result", assertion)
        except NotSent:
            self.ledger.count("sign in", "not sent")
            raise
        except Unanswered:
            self.ledger.count("sign in", "cut")
            raise
        if reply.get("username") != account.username:
            raise AssertionError(f"signed in as {reply.get('username')!r}, expected {account.username!r}")
        passkey.acked_count = max(passkey.acked_count, passkey.sent_count)
        account.old_tokens.append(account.token)
        account.token = reply["sessionToken"]
        self.ledger.count("sign in", "ok")

    def remove_passkey(self, account: Account) -> None:
        passkey = self.rng.choice(account.usable())
        passkey.state = "removed?"
        try:
            self.call("DELETE", f"/credentials/{passkey.soft.id}", token=account.token)
        except NotSent:
            passkey.state = "ok"
            self.ledger.count("remove passkey", "not sent")
            raise
        except Unanswered:
            self.ledger.count("remove passkey", "cut")
            raise
        passkey.state = "removed"
        self.ledger.count("remove passkey", "ok")

    def delete_account(self, account: Account) -> None:
        account.state = "deleted?"
        try:
            self.call("DELETE", "/account", token=account.token)
        except NotSent:
            account.state = "ok"
            self.ledger.count("delete account", "not sent")
            raise
        except Unanswered:
            self.ledger.count("delete account", "cut")
            raise
        account.state = "deleted"
        self.ledger.count("delete account", "ok")


# ---------------------------------------------------------------------------------------------
# The database, read directly


@dataclass
class Snapshot:
    users: dict  # handle -> username
    credentials: dict  # hex credential ID -> (owner handle, sign counter)
    session_owners: list  # the user handle of every session
    problems: list  # what the database engine itself reports (integrity, foreign keys)
    # (type, hex credential ID or "", user handle or b"", time) of every security event
    events: list = field(default_factory=list)
    # hex credential ID -> the time of its last recorded sign-in, for those signed in with
    last_used: dict = field(default_factory=dict)


def sqlite_snapshot(database: Path) -> Snapshot:
    """Reads a byte copy of the database and its WAL (the -shm index is rebuilt from the WAL), so the
    server's own recovery at the next start still finds the files exactly as the kill left them."""
    with tempfile.TemporaryDirectory(prefix="latchkey-crash-copy-") as folder:
        copy = Path(folder) / "copy.sqlite"
        shutil.copyfile(database, copy)
        wal = Path(str(database) + "-wal")
        if wal.exists():
            shutil.copyfile(wal, Path(str(copy) + "-wal"))
        connection = sqlite3.connect(copy)
        problems = []
        try:
            # The file says it is in WAL mode (the durability the README describes rests on it).
            mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
            if mode != "wal":
                problems.append(f"journal_mode is {mode!r}, not 'wal'")
            integrity = [row[0] for row in connection.execute("PRAGMA integrity_check")]
            if integrity != ["ok"]:
                problems.append(f"integrity_check: {integrity[:10]}")
            foreign = connection.execute("PRAGMA foreign_key_check").fetchall()
            if foreign:
                problems.append(f"foreign_key_check: {foreign[:10]}")
            # Each migration is a transaction: killed before the first commits, the file has no tables.
            if connection.execute("SELECT count(*) FROM sqlite_master WHERE name = 'users'").fetchone()[0] == 0:
                return Snapshot({}, {}, [], problems)
            users = {bytes(h): name for h, name in connection.execute("SELECT handle, username FROM users")}
            credentials = {bytes(i).hex(): (bytes(h), count) for i, h, count in
                           connection.execute("SELECT id, user_handle, sign_count FROM credentials")}
            sessions = [bytes(h) for (h,) in connection.execute("SELECT user_handle FROM sessions")]
            last_used = {bytes(i).hex(): used for i, used in
                         connection.execute("SELECT id, last_used_at FROM credentials WHERE last_used_at IS NOT NULL")}
            events = []
            if connection.execute("SELECT count(*) FROM sqlite_master WHERE name = 'security_events'").fetchone()[0]:
                events = [(kind, bytes(c or b"").hex(), bytes(h or b""), at) for kind, c, h, at in
                          connection.execute("SELECT type, credential_id, user_handle, occurred_at FROM security_events")]
        except sqlite3.DatabaseError as error:
            raise AssertionError(f"the database the kill left cannot be read: {error} {problems}") from error
        finally:
            connection.close()
    return Snapshot(users, credentials, sessions, problems, events, last_used)


def psql_rows(url: str, query: str) -> list[list[str]]:
    done = subprocess.run(["psql", url, "-X", "-v", "ON_ERROR_STOP=1", "-At", "-F", "|", "-c", query],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"psql failed: {done.stderr.strip()}"  # (the URL, with its password, is not shown)
    return [line.split("|") for line in done.stdout.splitlines()]


def postgres_snapshot(url: str) -> Snapshot:
    # The migrations run in one transaction: before it commits there are no tables at all.
    if psql_rows(url, "SELECT to_regclass('users') IS NULL") == [["t"]]:
        return Snapshot({}, {}, [], [])
    query = """
        SELECT 'u', encode(handle, 'hex'), encode(username, 'hex') FROM users
        UNION ALL SELECT 'c', encode(id, 'hex'), encode(user_handle, 'hex') || ':' || sign_count FROM credentials
        UNION ALL SELECT 's', encode(user_handle, 'hex'), '' FROM sessions
        UNION ALL SELECT 'e', type, coalesce(encode(credential_id, 'hex'), '') || ':' || coalesce(encode(user_handle, 'hex'), '')
            || ':' || extract(epoch FROM occurred_at) FROM security_events
        UNION ALL SELECT 'l', encode(id, 'hex'), extract(epoch FROM last_used_at)::text FROM credentials WHERE last_used_at IS NOT NULL
        """
    users, credentials, sessions, events, last_used = {}, {}, [], [], {}
    for kind, first, second in psql_rows(url, query):
        if kind == "e":
            credential, handle, at = second.split(":")
            events.append((first, credential, bytes.fromhex(handle), at))
        elif kind == "l":
            last_used[first] = second
        elif kind == "u":
            users[bytes.fromhex(first)] = bytes.fromhex(second).decode("utf-8")
        elif kind == "c":
            owner, count = second.split(":")
            credentials[first] = (bytes.fromhex(owner), int(count))
        else:
            sessions.append(bytes.fromhex(first))
    # PostgreSQL enforces the foreign keys itself and has no integrity_check; the checks below look
    # for orphans all the same.
    return Snapshot(users, credentials, sessions, [], events, last_used)


def check_snapshot(snapshot: Snapshot, ledger: Ledger, when: str) -> None:
    """Everything the server acknowledged is in the database, nothing is half-written, and no
    counter went backwards. Collects every problem before failing, to show the whole picture."""
    problems = list(snapshot.problems)
    owned = {}
    for handle, _ in snapshot.credentials.values():
        owned[handle] = owned.get(handle, 0) + 1
    problems += [f"user {name!r} has no passkey" for handle, name in snapshot.users.items() if handle not in owned]
    problems += [f"passkey {cid[:16]} belongs to no user" for cid, (handle, _) in snapshot.credentials.items()
                 if handle not in snapshot.users]
    problems += [f"a session of user {handle.hex()[:16]} who does not exist" for handle in snapshot.session_owners
                 if handle not in snapshot.users]

    # Each change and its security event are written together: both there, or both absent.
    registered = Counter(c for kind, c, _, _ in snapshot.events if kind == "passkey.registered")
    created = Counter(h for kind, _, h, _ in snapshot.events if kind == "user.created")
    sign_ins: dict = {}
    for kind, cid, _, at in snapshot.events:
        if kind == "sign_in.succeeded":
            sign_ins.setdefault(cid, []).append(at)
    for cid, (_, count) in snapshot.credentials.items():
        if registered[cid] != 1:
            problems.append(f"passkey {cid[:16]} is stored with {registered[cid]} passkey.registered events, not 1")
        # Each recorded sign-in moves the counter (from 0, by at least 1) and writes its event at the
        # time it stores as the passkey's last use: the latest event is that sign-in, no later one exists.
        times = sign_ins.get(cid, [])
        if len(times) > count:
            problems.append(f"passkey {cid[:16]}: {len(times)} sign_in.succeeded events, but its counter is only {count}")
        used = snapshot.last_used.get(cid)
        if (used is None) != (not times) or (times and max(times, key=float) != used):
            problems.append(f"passkey {cid[:16]}: last sign-in stored at {used}, sign_in.succeeded events at {sorted(times)[-3:]}")
    problems += [f"user {name!r} is stored with {created[handle]} user.created events, not 1"
                 for handle, name in snapshot.users.items() if created[handle] != 1]

    known, known_passkeys = set(), set()
    for account in ledger.accounts:
        known.add(account.handle)
        known_passkeys.update(account.passkeys)
        stored_name = snapshot.users.get(account.handle)
        present = stored_name is not None
        if present and stored_name != account.username:
            problems.append(f"user {account.username!r} is stored as {stored_name!r}")
        if account.state == "ok" and not present:
            problems.append(f"user {account.username!r}, registered with an ok answer, is missing")
        if account.state == "deleted" and present:
            problems.append(f"user {account.username!r}, deleted with an ok answer, is still there")
        if account.state == "never" and present:
            problems.append(f"user {account.username!r} exists, yet its registration never reached the server")
        if not present and account.handle in snapshot.session_owners:
            problems.append(f"user {account.username!r} is gone but a session of theirs is not")
        for passkey in account.passkeys.values():
            stored = snapshot.credentials.get(passkey.hex_id)
            label = f"passkey {passkey.hex_id[:16]} of {account.username!r}"
            if stored is None:
                if present and passkey.state == "ok":
                    problems.append(f"{label}, registered with an ok answer, is missing")
                continue
            handle, count = stored
            if not present:
                problems.append(f"{label} is stored but its user is not")
            if handle != account.handle:
                problems.append(f"{label} is stored for another user")
            if passkey.state == "removed":
                problems.append(f"{label}, removed with an ok answer, is still there")
            if passkey.state == "never":
                problems.append(f"{label} is stored, yet its registration never reached the server")
            if count < passkey.acked_count:
                problems.append(f"{label}: stored sign counter {count} is below {passkey.acked_count}, "
                                "which a sign-in was answered ok with (the counter went backwards)")
            if count > passkey.sent_count:
                problems.append(f"{label}: stored sign counter {count} is above anything sent ({passkey.sent_count})")
        # A first registration whose answer never came wrote its user, passkey and session, or nothing.
        if account.state == "registered?" and present:
            first = next(iter(account.passkeys.values()))
            if first.hex_id not in snapshot.credentials:
                problems.append(f"user {account.username!r} exists without the passkey it was registered with")
    problems += [f"user {name!r} was never registered by this test" for handle, name in snapshot.users.items()
                 if handle not in known]
    problems += [f"passkey {cid[:16]} was never registered by this test" for cid in snapshot.credentials
                 if cid not in known_passkeys]
    assert not problems, f"{when}: {len(problems)} problem(s):\n" + "\n".join(problems[:40])


# ---------------------------------------------------------------------------------------------
# The server


def kill(server: LatchkeyServer) -> None:
    """SIGKILL: no graceful shutdown, no last checkpoint, no closed connections."""
    assert server.proc is not None
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait(timeout=30)
    for log in (server._out, server._err):
        log.close()
    if server in _LIVE_SERVERS:
        _LIVE_SERVERS.remove(server)


def restart(server: LatchkeyServer, round_number: int) -> None:
    """Starts the server again on the same port (so the same origin) and database, with new logs."""
    server.stdout_path = server.workdir / f"stdout-{round_number}.log"
    server.stderr_path = server.workdir / f"stderr-{round_number}.log"
    deadline = time.monotonic() + 30
    while True:
        try:
            server.start()
            return
        except RuntimeError:
            if server in _LIVE_SERVERS:
                _LIVE_SERVERS.remove(server)
            # Only a port the dead process's connections still hold is worth another try.
            if time.monotonic() > deadline or "in use" not in server.logs().lower():
                raise
            time.sleep(0.5)


def kill_during_startup(server: LatchkeyServer, delay: float) -> None:
    """Starts the server and kills it `delay` seconds later, whether or not it is ready: while it
    creates and migrates the database, or just after."""
    server.stdout_path = server.workdir / "stdout-startup.log"
    server.stderr_path = server.workdir / "stderr-startup.log"
    with open(server.stdout_path, "wb") as out, open(server.stderr_path, "wb") as err:
        process = subprocess.Popen([str(LATCHKEY_BIN), "serve"], cwd=str(server.cwd), env=server.env,
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)


# ---------------------------------------------------------------------------------------------
# The final pass through the API


class APICheck:
    """The final pass through the API, one account at a time; accounts are checked in parallel."""

    def __init__(self, server: LatchkeyServer, snapshot: Snapshot):
        self.server = server
        self.snapshot = snapshot
        self.local = threading.local()

    @property
    def http(self) -> requests.Session:
        if not hasattr(self.local, "http"):
            self.local.http = requests.Session()
            self.local.http.cookies.set_policy(NoCookies())
        return self.local.http

    def post(self, path: str, body: dict) -> requests.Response:
        return self.http.post(self.server.url + path, json=body, timeout=REQUEST_TIMEOUT)

    def get(self, path: str, token: Optional[str]) -> requests.Response:
        return self.http.get(self.server.url + path, headers={"Authorization": f"Bearer {token}"},
                             timeout=REQUEST_TIMEOUT)

    def sign_in(self, account: Account, passkey: Passkey, sign_count: Optional[int] = None) -> requests.Response:
        """Signs in with the soft credential's key: with the next counter, or with `sign_count`."""
        options = self.post("/assertion/options", {"username": account.username})
        if options.status_code != 200:
            return options
        authenticator = SoftAuthenticator(origin=self.server.origin, rp_id="localhost", counter_step=1)
        return self.post("/assertion/result", authenticator.get(options.json(), passkey.soft, sign_count=sign_count))

    def account(self, account: Account) -> list[str]:
        """Problems with one account: it is there exactly when stored, its sessions work exactly
        when it is there, and each of its stored passkeys signs in."""
        problems = []
        options = self.post("/assertion/options", {"username": account.username})
        if account.handle not in self.snapshot.users:
            if options.status_code != 404:
                problems.append(f"{account.username!r} is not stored, yet /assertion/options answered {options.status_code}")
            for token in filter(None, [account.token, *account.old_tokens]):
                if self.get("/session", token).status_code != 401:
                    problems.append(f"a session of {account.username!r}, whose account is gone, still works")
            return problems
        if options.status_code != 200:
            return problems + [f"{account.username!r}: /assertion/options answered {options.status_code}"]
        listed = {b64url_decode(d["id"]).hex() for d in options.json().get("allowCredentials", [])}
        stored = {cid for cid, (handle, _) in self.snapshot.credentials.items() if handle == account.handle}
        if listed != stored:
            problems.append(f"{account.username!r}: the API lists {len(listed)} passkeys, the database holds {len(stored)}")
        if account.state == "ok":
            session = self.get("/session", account.token)
            if session.status_code != 200 or session.json().get("username") != account.username:
                problems.append(f"{account.username!r}: the acknowledged session answers {session.status_code}")
            mine = self.get("/credentials", account.token)
            if mine.status_code != 200 or {b64url_decode(c["id"]).hex() for c in mine.json()["credentials"]} != stored:
                problems.append(f"{account.username!r}: GET /credentials does not list the stored passkeys")
        for passkey in account.passkeys.values():
            if passkey.hex_id not in stored:
                continue
            signed_in = self.sign_in(account, passkey)
            if signed_in.status_code != 200 or signed_in.json().get("username") != account.username:
                problems.append(f"passkey {passkey.hex_id[:16]} of {account.username!r} cannot sign in: "
                                f"{signed_in.status_code} {signed_in.text[:200]}")
            else:
                passkey.acked_count = passkey.sent_count
        return problems

    def replays(self, account: Account, passkey: Passkey, lower: int) -> list[str]:
        """The counter just acknowledged, and a lower one, are refused as a possible clone."""
        problems = []
        for replayed in (passkey.acked_count, lower):
            refused = self.sign_in(account, passkey, sign_count=replayed)
            if refused.status_code != 400 or "counter" not in refused.text:
                problems.append(f"passkey {passkey.hex_id[:16]}: counter {replayed} replayed after "
                                f"{passkey.acked_count} was answered {refused.status_code} {refused.text[:200]}")
        return problems


def final_api_checks(server: LatchkeyServer, ledger: Ledger, snapshot: Snapshot, rng: random.Random) -> None:
    check = APICheck(server, snapshot)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        problems = [p for found in pool.map(check.account, ledger.accounts) for p in found]
        signed_in = [(a, p) for a in ledger.accounts for p in a.passkeys.values()
                     if a.handle in snapshot.users and p.hex_id in snapshot.credentials and p.acked_count > 0]
        sample = rng.sample(signed_in, min(REPLAY_SAMPLE, len(signed_in)))
        lower = [rng.randrange(0, p.acked_count) for _, p in sample]
        problems += [p for found in pool.map(check.replays, *zip(*sample), lower) for p in found] if sample else []
    assert not problems, f"through the API: {len(problems)} problem(s):\n" + "\n".join(problems[:40])


# ---------------------------------------------------------------------------------------------
# The test


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request):
    """(name, extra server environment, snapshot function) for each store."""
    if request.param == "sqlite":
        return "sqlite", {}, None
    url = request.getfixturevalue("postgres_url")
    return "postgres", {"LATCHKEY_DATABASE": url}, lambda: postgres_snapshot(url)


def test_nothing_acknowledged_is_lost_across_kills(backend):
    name, extra_env, postgres_read = backend
    seed = int(os.environ.get("LATCHKEY_CRASH_SEED", random.SystemRandom().randrange(2**31)))
    print(f"\ncrash safety on {name}: seed {seed} (LATCHKEY_CRASH_SEED={seed} replays the choices)")
    rng = random.Random(seed)
    # Every client is 127.0.0.1 and the final pass signs in with every passkey at once: the limits
    # per client address (tested in test_limits.py) are off, so only the kills can refuse a request.
    limits_off = {"LATCHKEY_RATE_LIMIT": "0", "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "0"}
    server = LatchkeyServer(f"crash-{name}", {**extra_env, **limits_off})
    print(f"logs (and the SQLite file) in {server.workdir}, kept when the test fails")
    read = postgres_read or (lambda: sqlite_snapshot(server.database))
    ledger = Ledger()
    gate = Gate()
    started = time.monotonic()
    workers: list[Worker] = []
    try:
        # Round 0: killed while it starts, on a new database (creating and migrating it, or just after).
        kill_during_startup(server, rng.uniform(0.0, 0.6))
        if name == "postgres" or server.database.exists():
            check_snapshot(read(), ledger, "after the kill during startup")

        server.stdout_path = server.workdir / "stdout-1.log"
        server.stderr_path = server.workdir / "stderr-1.log"
        server.start()
        deadline = started + TEST_SECONDS
        workers = [Worker(i, seed, server.url, server.origin, ledger, gate, deadline) for i in range(WORKERS)]
        gate.open()
        for worker in workers:
            worker.start()
        for round_number in range(1, ROUNDS + 1):
            if round_number > 1:
                restart(server, round_number)
                gate.open()
            time.sleep(rng.uniform(*ROUND_SECONDS))
            if rng.random() < AIMED_KILLS:
                # Aimed: a few milliseconds after a client sends a write, while it is verified,
                # committed or answered.
                gate.writing.clear()
                gate.writing.wait(timeout=2)
                time.sleep(rng.uniform(0, AIM_SECONDS))
            gate.close()
            kill(server)
            assert gate.wait_until_parked(WORKERS, timeout=REQUEST_TIMEOUT + 10), \
                "a client neither finished nor noticed the kill"
            snapshot = read()
            check_snapshot(snapshot, ledger, f"after kill {round_number} of {ROUNDS} (seed {seed})")
            assert time.monotonic() - started < TEST_SECONDS, f"the rounds took over {TEST_SECONDS} s"
        gate.finish()
        for worker in workers:
            worker.join(timeout=REQUEST_TIMEOUT + 10)

        summary = ledger.summary()
        print(f"{ROUNDS} kills in {time.monotonic() - started:.0f} s, {len(ledger.accounts)} accounts; {summary}")
        cut = [a for a in ledger.accounts if a.state == "registered?"]
        print(f"first registrations cut by a kill: {sum(a.handle in snapshot.users for a in cut)} of {len(cut)} "
              "had committed (all of their writes), the others wrote nothing")
        assert not ledger.errors, "refused or failed while the server ran:\n" + "\n".join(ledger.errors[:20])
        assert ledger.answered("register") >= ROUNDS and ledger.answered("sign in") >= ROUNDS, \
            f"too little traffic to mean anything: {summary}"

        # Starting writes no user, passkey or session: the last kill's snapshot is what it serves.
        restart(server, ROUNDS + 1)
        checked = time.monotonic()
        final_api_checks(server, ledger, snapshot, rng)
        print(f"the final pass through the API took {time.monotonic() - checked:.0f} s")
        server.stop()
        check_snapshot(read(), ledger, f"after the final sign-ins (seed {seed})")
    finally:
        gate.finish()
        server.stop()
    server.cleanup()
