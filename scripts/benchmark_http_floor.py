"""The HTTP floor: server CPU per trivial request (GET /.well-known/apple-app-site-association,
no store, no crypto) from 8 keep-alive client processes for 8 s, read from /proc/PID/stat.

Usage: .venv/bin/python scripts/benchmark_http_floor.py [LATCHKEY_BIN]
"""
import http.client
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = sys.argv[1] if len(sys.argv) > 1 else str(REPO / ".build-release/release/latchkey")
PATH = "/.well-known/apple-app-site-association"
CLIENTS, SECONDS = 8, 8.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_until_serving(port: int, path: str) -> None:
    """Waits (up to 30 s) until GET `path` on `port` answers."""
    for _ in range(300):
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            probe.request("GET", path)
            probe.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)


def client(port: int, results) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    done, end = 0, time.time() + SECONDS
    while time.time() < end:
        connection.request("GET", PATH)
        reply = connection.getresponse()
        reply.read()
        if reply.status != 200:
            raise SystemExit(f"GET {PATH} answered {reply.status}")
        done += 1
    results.put(done)


def main() -> None:
    port = free_port()
    folder = tempfile.mkdtemp(prefix="latchkey-floor-")
    env = dict(os.environ, LATCHKEY_PORT=str(port), LATCHKEY_DATABASE=f"{folder}/latchkey.sqlite",
               LATCHKEY_METADATA_BLOB=f"{folder}/none.jwt", LATCHKEY_APPLE_APP_IDS="ABCDE12345.com.example.app")
    server = subprocess.Popen([BIN, "serve"], env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(port, PATH)
        results = multiprocessing.Queue()
        before = server_cpu_seconds(server.pid)
        workers = [multiprocessing.Process(target=client, args=(port, results)) for _ in range(CLIENTS)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        used = server_cpu_seconds(server.pid) - before
        total = sum(results.get() for _ in workers)
        print(f"| GET {PATH} | {CLIENTS} | {total:,} | {1e6 * used / total:.0f} |")
    finally:
        server.terminate()
        server.wait(timeout=15)


if __name__ == "__main__":
    main()
