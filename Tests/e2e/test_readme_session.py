"""The documented shell session (the ```sh block after `<!-- readme-session -->`), extracted from
docs/USING.md and run as written with bash against the real server: curl, jq and `latchkey
authenticator` register alice, sign her in twice, list and rename her passkey, enrol a device key
and sign in with it, and sign her out.
What it prints must be the `#` lines written under its commands, so the documentation cannot rot."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
import requests

from conftest import LATCHKEY_BIN, REPO, require_binary
from softauthn import b64url_decode

MARKER = "<!-- readme-session"


def readme_session() -> str:
    """The code of the fenced block right after the marker comment; exactly one such block."""
    text = (REPO / "docs" / "USING.md").read_text(encoding="utf-8")
    assert text.count(MARKER) == 1, f"docs/USING.md must hold exactly one {MARKER} comment"
    after = text.split(MARKER, 1)[1]
    match = re.match(r"[^\n]*-->\n```sh\n(.*?)\n```\n", after, re.DOTALL)
    assert match, f"the {MARKER} comment must be followed directly by a ```sh block"
    return match.group(1)


def expected_output(block: str) -> list[str]:
    """The `#` lines right under a command (no blank line between): what that command prints.
    Comments after a blank line, or at the top, are prose."""
    lines, after_command = [], False
    for line in block.splitlines():
        if not line.strip():
            after_command = False
        elif line.startswith("#"):
            if after_command:
                lines.append(line[1:].removeprefix(" "))
        else:
            after_command = True
    return lines


def test_the_session_extraction_reads_only_output_lines():
    # The extraction itself must be able to fail: prose is not output, output is.
    block = "# prose\necho a\n# a\n\n# more prose\necho b |\n  cat\n# b\n"
    assert expected_output(block) == ["a", "b"]


def run_session(server, workdir: Path) -> subprocess.CompletedProcess:
    require_binary()
    for tool in ("bash", "curl", "jq"):
        assert shutil.which(tool), f"{tool} is needed for the README session (scripts/setup --test installs it)"
    env = dict(os.environ)
    env["PATH"] = f"{LATCHKEY_BIN.parent}{os.pathsep}{env.get('PATH', '')}"
    env["LATCHKEY_URL"] = server.origin  # http://localhost:PORT, the origin the server accepts
    return subprocess.run(["bash", "-c", "set -euo pipefail\n" + readme_session()], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def workdir():
    path = Path(tempfile.mkdtemp(prefix="latchkey-readme-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_the_readme_session_runs_as_written(server, workdir):
    block = readme_session()
    assert "${LATCHKEY_URL:-http://localhost:8080}" in block, "the block must take the server from LATCHKEY_URL"
    result = run_session(server, workdir)
    assert result.returncode == 0, (f"the README session failed (exit {result.returncode})\n"
                                    f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    printed = result.stdout.splitlines()
    assert printed == expected_output(block), (
        "the README session printed something else than the # lines under its commands\n"
        f"printed:\n{result.stdout}\nstderr:\n{result.stderr}")

    # What those lines say, checked one by one.
    registered, by_username, usernameless, listed, renamed, relisted, device_key, signed_out, final = printed
    assert json.loads(registered) == {"status": "ok", "username": "alice", "attestationFormat": "none"}
    assert json.loads(by_username) == {"status": "ok", "username": "alice"}
    assert json.loads(usernameless) == {"status": "ok", "username": "alice"}
    assert json.loads(listed)["name"] == "Passkey"
    assert json.loads(renamed) == "Work laptop"
    assert json.loads(relisted) == ["Work laptop"], "the rename is visible in the second listing"
    assert json.loads(device_key) == {"status": "ok", "username": "alice", "userVerified": False}
    assert json.loads(signed_out) == {"status": "ok", "errorMessage": ""}
    assert final == "401", "the token still worked after DELETE /session"

    # The device key: a private PEM file.
    assert stat.S_IMODE((workdir / "alice-device.pem").stat().st_mode) == 0o600
    assert (workdir / "alice-device.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----")

    # The keys file: one credential of alice, private, its counter moved by both sign-ins.
    keys_file = workdir / "alice-keys.json"
    assert stat.S_IMODE(keys_file.stat().st_mode) == 0o600
    credentials = json.loads(keys_file.read_text())["credentials"]
    assert [(c["username"], c["rpId"], c["signCount"]) for c in credentials] == [("alice", "localhost", 2)]

    # The server holds that very credential for alice, under the name the session gave it.
    options = requests.post(server.url + "/assertion/options", json={"username": "alice"}, timeout=10).json()
    assert [b64url_decode(c["id"]) for c in options["allowCredentials"]] == [b64url_decode(credentials[0]["id"])]
