"""The HTTP floor of Latchkey and of the Go peer, alternately in one run: server CPU per trivial
request, with keep-alive connections and with a new connection per request (as the side-by-side
client's registrations make), read from /proc/PID/stat.

Latchkey answers GET /healthz; the Go peer (../shared/bench/peers/go-webauthn, built by
../shared/bench/side-by-side) answers GET / with its mux's 404. Neither touches a store.

Usage: .venv/bin/python scripts/benchmark_floor_side_by_side.py [ROUNDS] [LATCHKEY_BIN] [GO_BIN]
"""
import http.client
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark_http_floor import free_port, server_cpu_seconds as cpu_seconds, wait_until_serving  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
LATCHKEY = sys.argv[2] if len(sys.argv) > 2 else str(REPO / ".build/release/latchkey")
GO = sys.argv[3] if len(sys.argv) > 3 else str(REPO / ".build/bench-peer/peer-server")
CLIENTS, SECONDS = 8, 5.0


def client(port: int, path: str, fresh: bool, results) -> None:
    done, end, connection = 0, time.time() + SECONDS, None
    while time.time() < end:
        if fresh or connection is None:
            if connection is not None:
                connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", path)
        connection.getresponse().read()
        done += 1
    results.put(done)


def measure(pid: int, port: int, path: str, fresh: bool) -> float:
    results = multiprocessing.Queue()
    before = cpu_seconds(pid)
    workers = [multiprocessing.Process(target=client, args=(port, path, fresh, results)) for _ in range(CLIENTS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return 1e6 * (cpu_seconds(pid) - before) / sum(results.get() for _ in workers)


def run(name: str) -> tuple[float, float]:
    port, folder = free_port(), tempfile.mkdtemp(prefix="latchkey-floor-")
    if name == "latchkey":
        env = dict(os.environ, LATCHKEY_HOST="127.0.0.1", LATCHKEY_PORT=str(port), LATCHKEY_RP_ID="localhost",
                   LATCHKEY_ORIGINS=f"http://localhost:{port}", LATCHKEY_DATABASE=f"{folder}/l.sqlite", LATCHKEY_RATE_LIMIT="0")
        command, path = [LATCHKEY, "serve"], "/healthz"
    else:
        env, command, path = dict(os.environ), [GO, "-addr", f"127.0.0.1:{port}", "-db", f"{folder}/g.db"], "/"
    server = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(port, path)
        return measure(server.pid, port, path, fresh=False), measure(server.pid, port, path, fresh=True)
    finally:
        server.terminate()
        server.wait(timeout=15)


def main() -> None:
    figures = {"latchkey": [], "go": []}
    for _ in range(ROUNDS):
        for name in figures:
            kept, fresh = run(name)
            figures[name].append((kept, fresh))
            print(f"RESULT {name} keep_alive_cpu_us={kept:.0f} new_connection_cpu_us={fresh:.0f}", flush=True)
    for name, rows in figures.items():
        print(f"MEDIAN {name} keep_alive_cpu_us={statistics.median(r[0] for r in rows):.0f} "
              f"new_connection_cpu_us={statistics.median(r[1] for r in rows):.0f} runs={len(rows)}")


if __name__ == "__main__":
    main()
