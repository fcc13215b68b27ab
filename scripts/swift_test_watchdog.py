"""Runs `swift test ARGS`, passing its output through, and makes sure the run ends.

- Every test's start and end are followed (Swift Testing's `◇ Test X started.`, `✔`/`✘ Test X ...`): when the
  whole run exceeds --limit seconds, the tests still running are named, the process group is killed, and the
  run fails, instead of hanging CI until its own limit.
- When the run's summary (`Test run with N tests ... passed|failed`) has been printed but the process has not
  exited --grace seconds later (seen on a loaded machine: the test binary's main thread gone while event-loop
  threads waited), it is killed and the summary decides the exit status.

Usage: python3 scripts/swift_test_watchdog.py [--limit SECONDS] [--grace SECONDS] -- swift test --skip-build ...
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

STARTED = re.compile(r"^◇ Test (.+?) started\.")
ENDED = re.compile(r"^[✔✘] Test (.+?) (passed|failed|skipped|recorded)")
SUMMARY = re.compile(r"^[✔✘] Test run with \d+ tests?.* (passed|failed) after")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=float, default=float(os.environ.get("LATCHKEY_TEST_LIMIT", 2400)))
    parser.add_argument("--grace", type=float, default=60)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    running: dict[str, float] = {}
    summary: list[str] = []
    lock = threading.Lock()

    def follow() -> None:
        assert process.stdout
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace")
            sys.stdout.write(line)
            sys.stdout.flush()
            with lock:
                if match := STARTED.match(line):
                    running[match[1]] = time.monotonic()
                elif match := ENDED.match(line):
                    if match[2] != "recorded":
                        running.pop(match[1], None)
                elif match := SUMMARY.match(line):
                    summary.append(match[1])

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    started = time.monotonic()
    summarised_at: float | None = None
    while process.poll() is None:
        time.sleep(1)
        now = time.monotonic()
        with lock:
            if summary and summarised_at is None:
                summarised_at = now
            if summarised_at is not None and now - summarised_at > args.grace:
                print(f"swift-test watchdog: the run printed its summary ({summary[-1]}) but the process did not exit within "
                      f"{args.grace:.0f} s; ending it", flush=True)
                kill(process)
                reader.join(5)
                return 0 if summary[-1] == "passed" else 1
            if now - started > args.limit:
                oldest = sorted(running.items(), key=lambda item: item[1])
                named = "; ".join(f"{name} (running {now - since:.0f} s)" for name, since in oldest[:20]) or "none started"
                print(f"swift-test watchdog: the run passed its limit of {args.limit:.0f} s; still running: {named}", flush=True)
                kill(process)
                reader.join(5)
                return 1
    reader.join(5)
    return process.returncode


def kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


if __name__ == "__main__":
    sys.exit(main())
