"""What the OpenID provider costs beside a plain passkey sign-in (run through scripts/benchmark-openid).

One server (the release binary, SQLite unless `--postgres URL` names a database server, of which a new database is
used), one person with a passkey, one confidential client allowed `offline_access`. The server's CPU (per-thread
nanoseconds from /proc/PID/task/*/schedstat; with PostgreSQL the database's processes' too) is measured per call of:

- a plain passkey sign-in: `POST /assertion/options` and `POST /assertion/result` (a verify, a session, an event,
  a sign-in token);
- a provider sign-in of a browser that holds a session: `GET /oidc/authorize` (a grant and its code), `POST
  /oidc/token` (the exchange: client authentication, PKCE, access and refresh tokens, an ES256 ID token) and `GET
  /oidc/userinfo`;
- a refresh: `POST /oidc/token` with `grant_type=refresh_token` (rotation and a new access token; no ID token);
- for scale, the floor of any request: `GET /site`, which reads the session.

The four take turns every 20 calls, so a drift of the machine falls on each alike; `--rounds` rounds, medians.
Prints a Markdown table and RESULT lines with the ratios the issue's targets are about (provider sign-in at most
1.5 × a passkey sign-in, refresh at most 0.3 ×).

With `--instructions`, user-space instructions instead (callgrind, which noise cannot move): for each operation two
server runs under `valgrind --tool=callgrind`, of 50 and of 250 calls after the same set-up, and the difference per
call; SQLite only.

Usage: python3 scripts/benchmark_openid.py --binary .build/release/latchkey [--postgres URL] [--rounds 3] [--count 200]
       python3 scripts/benchmark_openid.py --binary .build/release/latchkey --instructions
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
from benchmark_scale import Server  # noqa: E402
from softauthn import SoftAuthenticator  # noqa: E402

BLOCK = 20


class Person:
    """A browser with a passkey and a session, and the app (a confidential client) it signs in to."""

    def __init__(self, server: Server, admin_key: str):
        self.server = server
        self.http = requests.Session()
        # The app's backend, keeping its connection as the browser does.
        self.app = requests.Session()
        self.headers = {"Content-Type": "application/json", "Origin": server.origin}
        self.authenticator = SoftAuthenticator(origin=server.origin)
        options = self.post("/attestation/options", {"username": "bench", "displayName": "Bench"})
        self.post("/attestation/result", self.authenticator.create(options))
        made = requests.post(server.admin + "/admin/v1/oauth-clients", headers={"Authorization": f"Bearer {admin_key}"}, timeout=30, json={
            "name": "Bench", "redirectURIs": ["https://app.example/cb"], "scopes": ["openid", "profile", "offline_access"]})
        assert made.status_code == 201, made.text
        client = made.json()["client"]
        self.client_auth = (client["clientID"], client["clientSecret"])
        self.refresh_token = self.provider_sign_in()

    def post(self, path: str, body: dict) -> dict:
        reply = self.http.post(self.server.base + path, json=body, headers=self.headers, timeout=60)
        assert reply.status_code == 200, reply.text
        return reply.json()

    def passkey_sign_in(self, _: int = 0) -> None:
        options = self.post("/assertion/options", {"username": "bench"})
        self.post("/assertion/result", self.authenticator.get(options))

    def provider_sign_in(self, _: int = 0) -> str:
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": self.client_auth[0], "redirect_uri": "https://app.example/cb",
            "scope": "openid profile offline_access", "state": "s", "nonce": "n", "code_challenge": challenge,
            "code_challenge_method": "S256"})
        reply = self.http.get(self.server.base + "/oidc/authorize?" + query, allow_redirects=False, timeout=60)
        assert reply.status_code == 302, reply.text
        code = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(reply.headers["Location"]).query))["code"]
        token = self.app.post(self.server.base + "/oidc/token", auth=self.client_auth, timeout=60, data={
            "grant_type": "authorization_code", "code": code, "redirect_uri": "https://app.example/cb", "code_verifier": verifier}).json()
        info = self.app.get(self.server.base + "/oidc/userinfo", headers={"Authorization": f"Bearer {token['access_token']}"}, timeout=60)
        assert info.status_code == 200, info.text
        return token["refresh_token"]

    def site(self, _: int = 0) -> None:
        assert self.http.get(self.server.base + "/site", timeout=60).status_code == 200

    def refresh(self, _: int = 0) -> None:
        token = self.app.post(self.server.base + "/oidc/token", auth=self.client_auth, timeout=60, data={
            "grant_type": "refresh_token", "refresh_token": self.refresh_token}).json()
        self.refresh_token = token["refresh_token"]


def measure(server: Server, count: int, operations: list) -> list[float]:
    """Server CPU microseconds per call of each operation, taking turns every `BLOCK` calls."""
    for operation in operations:
        operation(0)
    totals = [0.0] * len(operations)
    for start in range(0, count, BLOCK):
        for turn, operation in enumerate(operations):
            before = server.cpu
            for index in range(start, min(start + BLOCK, count)):
                operation(index)
            totals[turn] += server.cpu - before
    return [total / count * 1e6 for total in totals]


def instructions(binary: str, operation: str, calls: int) -> int:
    """User-space instructions of one server run under callgrind: set-up, then `calls` of `operation`."""
    work = tempfile.mkdtemp(prefix="latchkey-openid-callgrind-")
    try:
        server = Path(work) / "server"
        subprocess.run(["objcopy", "--strip-debug", binary, str(server)], check=True)
        probe = Server(str(server), str(Path(work) / "latchkey.sqlite"), work)
        env = dict(probe.env, LATCHKEY_ADMIN_ADDRESS="", LATCHKEY_METRICS_ADDRESS="")
        env = {k: v for k, v in env.items() if v != ""}
        key = subprocess.run([str(server), "admin-keys", "create", "--name", "bench"], env=env, capture_output=True, text=True,
                             check=True).stdout.strip()
        out = Path(work) / "callgrind.out"
        process = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(server), "serve"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                if requests.get(probe.base + "/healthz", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)
        probe.admin = probe.base
        person = Person(probe, key)
        for index in range(calls):
            getattr(person, operation)(index)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=300)
        summary = subprocess.run(["callgrind_annotate", str(out)], capture_output=True, text=True, check=True).stdout
        return int(next(line for line in summary.splitlines() if "PROGRAM TOTALS" in line).split()[0].replace(",", ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--instructions", action="store_true", help="callgrind instruction counts instead of CPU time")
    parser.add_argument("--postgres", help="a PostgreSQL server's URL; a new database on it is used")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=200)
    arguments = parser.parse_args()
    if arguments.instructions:
        operations = [("passkey sign-in (options + result)", "passkey_sign_in"),
                      ("provider sign-in (authorize + token + userinfo)", "provider_sign_in"), ("refresh (token)", "refresh")]
        per_call = {name: (instructions(arguments.binary, method, 250) - instructions(arguments.binary, method, 50)) / 200
                    for name, method in operations}
        base = per_call[operations[0][0]]
        print("| SQLite: user-space instructions per call (callgrind, 250 − 50 calls) | instructions | × passkey sign-in |")
        print("|---|---:|---:|")
        for name, value in per_call.items():
            print(f"| {name} | {value / 1e6:.3f} M | {value / base:.2f} |")
        values = list(per_call.values())
        print(f"RESULT instructions provider_sign_in_ratio={values[1] / base:.2f} refresh_ratio={values[2] / base:.2f}")
        return
    work = tempfile.mkdtemp(prefix="latchkey-openid-bench-")
    database = str(Path(work) / "latchkey.sqlite")
    created = None
    if arguments.postgres:
        created = "latchkey_bench_" + uuid.uuid4().hex[:10]
        subprocess.run(["psql", arguments.postgres, "-q", "-c", f"CREATE DATABASE {created}"], check=True)
        parts = urllib.parse.urlsplit(arguments.postgres)
        database = urllib.parse.urlunsplit(parts._replace(path="/" + created))
    server = Server(arguments.binary, database, work, counts_database=bool(arguments.postgres))
    try:
        key = subprocess.run([arguments.binary, "admin-keys", "create", "--name", "bench"], env=server.env, capture_output=True,
                             text=True, check=True).stdout.strip()
        server.start()
        person = Person(server, key)
        names = ["passkey sign-in (options + result)", "provider sign-in (authorize + token + userinfo)", "refresh (token)",
                 "for scale: one request reading a session (GET /site)"]
        rounds = [measure(server, arguments.count, [person.passkey_sign_in, person.provider_sign_in, person.refresh, person.site])
                  for _ in range(arguments.rounds)]
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
        if created:
            subprocess.run(["psql", arguments.postgres, "-q", "-c", f"DROP DATABASE IF EXISTS {created} WITH (FORCE)"], check=False)
    medians = [statistics.median(values) for values in zip(*rounds)]
    store = "PostgreSQL" if arguments.postgres else "SQLite"
    print(f"| {store}: server CPU per call (µs, median of {arguments.rounds}) | µs | × passkey sign-in |")
    print("|---|---:|---:|")
    for name, value in zip(names, medians):
        print(f"| {name} | {value:.0f} | {value / medians[0]:.2f} |")
    print(f"RESULT {store} provider_sign_in_ratio={medians[1] / medians[0]:.2f} refresh_ratio={medians[2] / medians[0]:.2f} "
          f"rounds={[[round(v) for v in r] for r in rounds]}")


if __name__ == "__main__":
    main()
