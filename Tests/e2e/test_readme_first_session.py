"""The README's "A first session" block, run as written with bash from a fresh clone's state, where
the server is not built yet: `scripts/run` there is a stand-in that "builds" for a few seconds (only
then does .build/debug/latchkey appear, a link to the binary under test) and serves, as the real
script does after `swift build`. The block passes only if it waits for the server before its next
line; and when the build fails, it stops instead of waiting for ever."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

from conftest import LATCHKEY_BIN, REPO, free_port, require_binary

HEADING = "## A first session\n"
BUILD_SECONDS = 4

SERVE_AFTER_A_BUILD = f"""#!/usr/bin/env bash
set -euo pipefail
cd "$(dirname "$0")/.."
sleep {BUILD_SECONDS}
mkdir -p .build/debug
ln -s "{LATCHKEY_BIN}" .build/debug/latchkey
exec .build/debug/latchkey serve "$@"
"""

A_FAILED_BUILD = """#!/usr/bin/env bash
sleep 1
echo "error: the build failed" >&2
exit 1
"""


def first_session() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert text.count(HEADING) == 1, "README.md must have one 'A first session' section"
    match = re.match(r"\n```sh\n(.*?)\n```\n", text.split(HEADING, 1)[1], re.DOTALL)
    assert match, "'A first session' must begin with a ```sh block"
    return match.group(1)


def test_the_stand_in_does_what_scripts_run_does():
    real = (REPO / "scripts" / "run").read_text()
    assert "swift build --product latchkey" in real
    assert real.rstrip().splitlines()[-1] == 'exec .build/debug/latchkey serve "$@"'


def stop_group(proc: subprocess.Popen) -> None:
    """The block and the server it left in the background, in the block's process group."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            time.sleep(0.1)
            os.killpg(proc.pid, 0)
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=10)


def run_first_session(folder: Path, scripts_run: str) -> tuple[subprocess.CompletedProcess, float]:
    """The block in `folder`, a checkout with no build, on a free port instead of 8080 (which may be taken)."""
    require_binary()
    block = first_session()
    assert block.startswith("scripts/run &"), "the session starts the server as the README's first command does"
    assert block.count("localhost:8080") >= 2, "the block names the server as localhost:8080"
    port = free_port()
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run").write_text(scripts_run)
    (folder / "scripts" / "run").chmod(0o755)
    env = {name: value for name, value in os.environ.items() if not name.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_PORT": str(port), "LATCHKEY_HOME": str(REPO),
                "LATCHKEY_DATABASE": str(folder / "data" / "latchkey.sqlite")})
    script = "set -euo pipefail\n" + block.replace("localhost:8080", f"localhost:{port}")
    # Output to files: the server it leaves running in the background keeps its pipes open.
    with open(folder / "stdout", "w") as out, open(folder / "stderr", "w") as err:
        started = time.monotonic()
        proc = subprocess.Popen(["bash", "-c", script], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        try:
            returncode = proc.wait(timeout=120)
            elapsed = time.monotonic() - started
        finally:
            stop_group(proc)
    done = subprocess.CompletedProcess(proc.args, returncode, (folder / "stdout").read_text(), (folder / "stderr").read_text())
    return done, elapsed


def test_the_first_session_waits_for_the_first_build(tmp_path):
    done, elapsed = run_first_session(tmp_path, SERVE_AFTER_A_BUILD)
    assert done.returncode == 0, (f"the README's first session failed (exit {done.returncode})\n"
                                  f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}")
    assert elapsed >= BUILD_SECONDS
    assert "configuration is valid" in done.stdout, "check-config ran"
    challenge = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r'"[A-Za-z0-9_-]{22,}"', challenge), f"jq .challenge printed {challenge!r}"


def test_the_first_session_stops_when_the_build_fails(tmp_path):
    done, elapsed = run_first_session(tmp_path, A_FAILED_BUILD)
    assert done.returncode != 0
    assert "error: the build failed" in done.stderr
    assert elapsed < 30, f"the block went on waiting for {elapsed:.0f} s after the build failed"
