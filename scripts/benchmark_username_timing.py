"""Can a client tell a known username from an unknown one by how long `/assertion/options` takes, with
`hideUnknownUsers` on? Registers USERS users with a passkey each, then asks for options for a known and an
unknown username in turn (SAMPLES of each, one kept-alive connection, the unknown names never repeated), and prints
the server's reply times as the client sees them: median, 10th and 90th percentiles, and the difference of the
medians with a bootstrap 95 % interval.

Usage: LATCHKEY_BIN=.build/release/latchkey .venv/bin/python scripts/benchmark_username_timing.py [SAMPLES] [USERS]
"""
import os
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/e2e"))
os.environ.setdefault("LATCHKEY_BIN", str(REPO / ".build/release/latchkey"))

from conftest import LatchkeyServer  # noqa: E402
from test_http_api import register  # noqa: E402

SAMPLES = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
USERS = int(sys.argv[2]) if len(sys.argv) > 2 else 200


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    server = LatchkeyServer("username-timing", {"LATCHKEY_HIDE_UNKNOWN_USERS": "true", "LATCHKEY_RATE_LIMIT": "0",
                                                "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "0",
                                                "LATCHKEY_LOG_LEVEL": "warning"}).start()
    try:
        authenticator = server.authenticator()
        known = [f"timing-known-{index}" for index in range(USERS)]
        for username in known:
            register(server, authenticator, username)
        client = server.client()
        times: dict[str, list[float]] = {"known": [], "unknown": []}
        for index in range(SAMPLES * 2 + 200):
            kind = "known" if index % 2 == 0 else "unknown"
            username = random.choice(known) if kind == "known" else f"timing-unknown-{index}-{os.urandom(4).hex()}"
            start = time.perf_counter()
            reply = client.post("/assertion/options", {"username": username})
            elapsed = (time.perf_counter() - start) * 1e6
            assert reply.status_code == 200, reply.text
            if index >= 200:  # the first are warm-up
                times[kind].append(elapsed)
        for kind, values in times.items():
            print(f"{kind:8} n={len(values)}  median {statistics.median(values):7.1f} µs  "
                  f"p10 {percentile(values, 0.1):7.1f}  p90 {percentile(values, 0.9):7.1f}")
        difference = statistics.median(times["known"]) - statistics.median(times["unknown"])
        resampled = sorted(
            statistics.median(random.choices(times["known"], k=len(times["known"])))
            - statistics.median(random.choices(times["unknown"], k=len(times["unknown"])))
            for _ in range(1000))
        print(f"known − unknown median: {difference:+.1f} µs (95 % interval {resampled[25]:+.1f} … {resampled[974]:+.1f})")
    finally:
        server.stop()
        server.cleanup()


if __name__ == "__main__":
    main()
