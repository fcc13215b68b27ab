"""What polling the webhook outbox costs an idle server: CPU seconds a minute with 0, 1 and 4 receivers
configured and nothing to send (each receiver's loop polls once a second, the loop for receivers no longer
configured every 10 s). With BENCH_DATABASE set to a postgres:// URL and LATCHKEY_POSTGRES_DIR to its data folder
(`eval "$(scripts/postgres start)"`), the store is PostgreSQL and its CPU (the postmaster and its children) is
measured too; else SQLite.

Usage: .venv/bin/python scripts/benchmark_webhook_polling.py [SECONDS] [LATCHKEY_BIN]
"""
import base64
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark_http_floor import free_port, server_cpu_seconds, wait_until_serving  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 60
LATCHKEY = sys.argv[2] if len(sys.argv) > 2 else str(REPO / ".build/release/latchkey")
DATABASE = os.environ.get("BENCH_DATABASE", "")


def postgres_cpu_seconds() -> float:
    """The postmaster's and its children's CPU, or 0 without PostgreSQL."""
    folder = os.environ.get("LATCHKEY_POSTGRES_DIR")
    if not DATABASE or not folder:
        return 0.0
    postmaster = int(next(Path(folder).rglob("postmaster.pid")).read_text().split()[0])
    children = subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True, text=True).stdout.split()
    return sum(server_cpu_seconds(int(pid)) for pid in [postmaster, *children] if Path(f"/proc/{pid}").exists())


def idle_cpu(receivers: int) -> tuple[float, float]:
    port, folder = free_port(), tempfile.mkdtemp(prefix="latchkey-polling-")
    env = {key: value for key, value in os.environ.items() if not key.startswith("LATCHKEY_")}
    env.update(LATCHKEY_PORT=str(port), LATCHKEY_ORIGINS=f"http://localhost:{port}", LATCHKEY_LOG_LEVEL="warning",
               LATCHKEY_DATABASE=DATABASE or f"{folder}/l.sqlite")
    if receivers:
        env.update(LATCHKEY_WEBHOOK_URLS=",".join(f"http://127.0.0.1:9/hook{index}" for index in range(receivers)),
                   LATCHKEY_WEBHOOK_ALLOW_HTTP="true", LATCHKEY_WEBHOOK_SECRET="whsec_" + base64.b64encode(os.urandom(32)).decode())
    server = subprocess.Popen([LATCHKEY, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(port, "/healthz")
        time.sleep(5)
        before, postgres_before = server_cpu_seconds(server.pid), postgres_cpu_seconds()
        time.sleep(SECONDS)
        per_minute = 60 / SECONDS
        return ((server_cpu_seconds(server.pid) - before) * per_minute, (postgres_cpu_seconds() - postgres_before) * per_minute)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    print(f"{'PostgreSQL' if DATABASE else 'SQLite'}, {SECONDS:.0f} s idle each; CPU seconds a minute")
    for receivers in (0, 1, 4):
        latchkey, postgres = idle_cpu(receivers)
        print(f"{receivers} receivers: Latchkey {latchkey:.3f}" + (f", PostgreSQL {postgres:.3f}" if DATABASE else ""))
