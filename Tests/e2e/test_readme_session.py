"""The documented shell session (the ```sh block after `<!-- readme-session -->`), extracted from
docs/USING.md and run as written with bash against the real server: curl, jq and `latchkey
authenticator` register alice, sign her in twice, list and rename her passkey, enrol a device key
and sign in with it, and sign her out.
What it prints must be the `#` lines written under its commands, so the documentation cannot rot.

The two bare requests before it (the first ```sh block under `### curl`) print whole replies, which
the documentation shows wrapped and abbreviated: each one is run too, and its `#` lines must name the
reply's members in the server's order, nested objects included, with the same values except where
a value is written as "…" or an array ends in `…` (more elements)."""

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

from conftest import LATCHKEY_BIN, REPO, require_binary, served
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


def curl_requests_block() -> str:
    """The first ```sh block under the `### curl` heading: bare requests whose whole replies are shown."""
    text = (REPO / "docs" / "USING.md").read_text(encoding="utf-8")
    assert text.count("\n### curl\n") == 1, "docs/USING.md must have one ### curl section"
    after = text.split("\n### curl\n", 1)[1]
    match = re.match(r"\s*```sh\n(.*?)\n```\n", after, re.DOTALL)
    assert match, "the ### curl section must start with a ```sh block"
    assert MARKER not in match.group(1)
    return match.group(1)


def commands_and_outputs(block: str) -> list[tuple[str, str]]:
    """Each command (with the lines it continues onto after `\\` or `|`) and the `#` lines right
    under it, joined: its documented output. Comments after a blank line, or at the top, are prose."""
    pairs: list[tuple[list[str], list[str]]] = []
    state = "prose"  # or "command", "output"
    for line in block.splitlines():
        if not line.strip():
            state = "prose"
        elif line.startswith("#"):
            if state in ("command", "output"):
                pairs[-1][1].append(line[1:].strip())
                state = "output"
        elif state == "command" and pairs[-1][0][-1].rstrip().endswith(("\\", "|")):
            pairs[-1][0].append(line)
        else:
            pairs.append(([line], []))
            state = "command"
    return [("\n".join(command), "".join(output)) for command, output in pairs]


class _More:
    """`…` as an array element in documented output: the real array may go on."""

    def __repr__(self) -> str:
        return "…"


MORE = _More()
ABBREVIATED = ("…", "...")


def parse_documented(text: str):
    """Documented JSON: JSON, plus a bare `…` as an array's last element. An object that leaves out
    members (a bare `…` among them) is refused: the documentation shows every member."""
    position = 0

    def fail(problem: str):
        raise ValueError(f"{problem} at {position} in documented output {text!r}")

    def skip():
        nonlocal position
        while position < len(text) and text[position] in " \t\n":
            position += 1

    def value():
        nonlocal position
        skip()
        if text.startswith(ABBREVIATED, position):
            fail("a bare … stands only for further array elements")
        if text.startswith("{", position):
            position += 1
            members: dict = {}
            skip()
            if text.startswith("}", position):
                position += 1
                return members
            while True:
                skip()
                if text.startswith(ABBREVIATED, position):
                    fail("an object may not leave out members with …")
                name = value()
                if not isinstance(name, str):
                    fail("a member name must be a string")
                skip()
                if not text.startswith(":", position):
                    fail("expected ':'")
                position += 1
                if name in members:
                    fail(f"member {name!r} twice")
                members[name] = value()
                skip()
                if text.startswith(",", position):
                    position += 1
                elif text.startswith("}", position):
                    position += 1
                    return members
                else:
                    fail("expected ',' or '}'")
        if text.startswith("[", position):
            position += 1
            elements: list = []
            skip()
            if text.startswith("]", position):
                position += 1
                return elements
            while True:
                skip()
                if text.startswith(ABBREVIATED, position):
                    position += len(next(mark for mark in ABBREVIATED if text.startswith(mark, position)))
                    elements.append(MORE)
                    skip()
                    if not text.startswith("]", position):
                        fail("… must be an array's last element")
                    position += 1
                    return elements
                elements.append(value())
                skip()
                if text.startswith(",", position):
                    position += 1
                elif text.startswith("]", position):
                    position += 1
                    return elements
                else:
                    fail("expected ',' or ']'")
        decoded, end = json.JSONDecoder().raw_decode(text, position)
        position = end
        return decoded

    result = value()
    skip()
    if position != len(text):
        fail("unexpected text after the value")
    return result


def documented_differences(documented, real, path: str = "$") -> list[str]:
    """Where a documented reply differs from the real one: members (names and order), array
    lengths, values; "…" stands for any string, a trailing … for further elements."""
    if isinstance(documented, str) and documented in ABBREVIATED:
        return [] if isinstance(real, str) else [f"{path}: documented as an abbreviated string, but is {real!r}"]
    if isinstance(documented, dict):
        if not isinstance(real, dict):
            return [f"{path}: documented as an object, but is {real!r}"]
        if list(documented) != list(real):
            return [f"{path}: documented members {list(documented)}, but the reply has {list(real)}"]
        return [problem for name in documented
                for problem in documented_differences(documented[name], real[name], f"{path}.{name}")]
    if isinstance(documented, list):
        if not isinstance(real, list):
            return [f"{path}: documented as an array, but is {real!r}"]
        shown = documented[:-1] if documented and documented[-1] is MORE else documented
        if len(real) < len(shown) or (len(real) != len(shown) and shown is documented):
            return [f"{path}: documented with {len(shown)} elements{' or more' if shown is not documented else ''}, "
                    f"but has {len(real)}"]
        return [problem for index, element in enumerate(shown)
                for problem in documented_differences(element, real[index], f"{path}[{index}]")]
    same = documented == real and type(documented) is type(real)
    return [] if same else [f"{path}: documented as {documented!r}, but is {real!r}"]


def test_documented_replies_must_match_member_for_member():
    # The comparison itself must be able to fail: order, a missing member, a value, an elided member.
    real = {"status": "ok", "errorMessage": "", "list": [{"a": 1, "b": 2}, {"a": 3, "b": 4}], "id": "xyz"}
    assert documented_differences(parse_documented(
        '{"status":"ok","errorMessage":"","list":[{"a":1,"b":2},…],"id":"…"}'), real) == []
    assert documented_differences(parse_documented(
        '{"errorMessage":"","status":"ok","list":[{"a":1,"b":2},…],"id":"…"}'), real)
    assert documented_differences(parse_documented('{"status":"ok","list":[…],"id":"…"}'), real)
    assert documented_differences(parse_documented(
        '{"status":"ok","errorMessage":"","list":[{"b":2,"a":1},…],"id":"…"}'), real)
    assert documented_differences(parse_documented(
        '{"status":"ok","errorMessage":"","list":[{"a":1,"b":2}],"id":"…"}'), real)
    assert documented_differences(parse_documented(
        '{"status":"failed","errorMessage":"","list":[…],"id":"…"}'), real)
    with pytest.raises(ValueError):
        parse_documented('{"status":"ok",…}')
    block = "curl -s a \\\n  -d b\n# {\"x\":\n#  1}\n\n# prose\ncurl -s c\n# [1]\n"
    assert commands_and_outputs(block) == [("curl -s a \\\n  -d b", '{"x":1}'), ("curl -s c", "[1]")]


@pytest.fixture(scope="module")
def curl_server():
    """A server of its own: the requests ask for alice's options, whom the session registers."""
    yield from served("using-curl")


def test_the_curl_requests_print_the_documented_replies(curl_server):
    require_binary()
    requests_shown = commands_and_outputs(curl_requests_block())
    assert len(requests_shown) >= 2, "the ### curl block shows at least the two options requests"
    for command, documented_text in requests_shown:
        assert "http://localhost:8080" in command, f"{command!r} must call the documented server"
        assert documented_text, f"{command!r} has no documented output (# lines right under it)"
        script = "set -euo pipefail\n" + command.replace("http://localhost:8080", curl_server.origin)
        result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, f"{command!r} failed: {result.stderr}"
        real = json.loads(result.stdout)
        differences = documented_differences(parse_documented(documented_text), real)
        assert not differences, (f"the # lines under {command!r} differ from the real reply:\n  "
                                 + "\n  ".join(differences) + f"\nreal reply: {result.stdout}")


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
