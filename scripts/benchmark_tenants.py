"""Makes two SQLite stores, one with no tenant and one with N (each with its host and settings, as
`POST /admin/v1/tenants` stores them), then starts the server on each three times and prints how long it took
to answer `/healthz` and its resident memory once idle. Used by scripts/benchmark-tenants."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(store: Path, port: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_HOME": str(REPO), "LATCHKEY_HOST": "127.0.0.1", "LATCHKEY_PORT": str(port), "LATCHKEY_RP_ID": "localhost",
                "LATCHKEY_ORIGINS": f"http://localhost:{port}", "LATCHKEY_DATABASE": str(store), "LATCHKEY_LOG_LEVEL": "warning"})
    return env


def make_store(binary: str, store: Path, tenants: int) -> None:
    """A migrated store (an operator key made through the binary) with `tenants` tenants written as the API writes them."""
    subprocess.run([binary, "admin-keys", "create", "--operator", "--name", "bench"], env=environment(store, 8080), check=True,
                   capture_output=True, timeout=120)
    with sqlite3.connect(store) as db:
        now = time.time()
        db.executemany("INSERT INTO tenants (id, settings, created_at, updated_at) VALUES (?, ?, ?, ?)",
                       [(f"t{i}", json.dumps({"rpID": f"t{i}.localhost", "rpName": f"Tenant {i}"}, sort_keys=True).encode(), now, now)
                        for i in range(tenants)])
        db.executemany("INSERT INTO tenant_hosts (host, tenant) VALUES (?, ?)", [(f"t{i}.localhost", f"t{i}") for i in range(tenants)])
        db.execute("UPDATE tenant_directory SET revision = revision + ?", (max(tenants, 1),))


def start(binary: str, store: Path) -> tuple[float, int]:
    """Seconds from exec until `/healthz` answers, and the resident set (KiB) two seconds later."""
    port = free_port()
    began = time.monotonic()
    process = subprocess.Popen([binary, "serve"], env=environment(store, port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                if process.poll() is not None:
                    raise RuntimeError("the server stopped")
                time.sleep(0.005)
        started = time.monotonic() - began
        time.sleep(2)
        rss = next(int(line.split()[1]) for line in Path(f"/proc/{process.pid}/status").read_text().splitlines() if line.startswith("VmRSS:"))
        return started, rss
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--tenants", type=int, default=10_000)
    parser.add_argument("--work", type=Path, required=True)
    arguments = parser.parse_args()
    stores = {"empty": (arguments.work / "empty.sqlite", 0), "tenants": (arguments.work / "tenants.sqlite", arguments.tenants)}
    for path, tenants in stores.values():
        make_store(arguments.binary, path, tenants)
    results = {}
    for name, (path, tenants) in stores.items():
        runs = [start(arguments.binary, path) for _ in range(3)]
        results[name] = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        print(f"{name:8} ({tenants:>6} tenants): start-up {results[name][0] * 1000:7.1f} ms (median of 3), "
              f"idle RSS {results[name][1] / 1024:6.1f} MiB")
    print(f"RESULT tenants={arguments.tenants} startup_ms={results['tenants'][0] * 1000:.1f} "
          f"startup_one_ms={results['empty'][0] * 1000:.1f} rss_growth_mib={(results['tenants'][1] - results['empty'][1]) / 1024:.1f}")


if __name__ == "__main__":
    main()
