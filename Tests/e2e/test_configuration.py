"""Configuration you can trust: the binary finds its installation from any current directory, and
check-config refuses (or warns about) what would pass but not work."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import requests

from conftest import LATCHKEY_BIN, LatchkeyServer, require_binary

PROBLEM = "latchkey: configuration error: "


def installation_of(binary: Path) -> Path:
    """The folder the binary should use as its home: the nearest at or above its own (links
    resolved) that holds Config/latchkey.json."""
    folder = binary.resolve().parent
    while not (folder / "Config" / "latchkey.json").is_file():
        assert folder != folder.parent, f"no installation above {binary}"
        folder = folder.parent
    return folder


HOME = installation_of(LATCHKEY_BIN)


def latchkey(*args, cwd: Path, env_extra=None) -> subprocess.CompletedProcess:
    require_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env["LATCHKEY_DATABASE"] = "/nonexistent/never-opened.sqlite"
    env.update(env_extra or {})
    return subprocess.run([str(LATCHKEY_BIN), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def shipped_root_count() -> int:
    """The shipped WebAuthn roots; Apple's App Attestation root (apple-appattest/) anchors no passkey."""
    return sum(p.read_text().count("-----BEGIN CERTIFICATE-----")
               for p in (HOME / "Config" / "roots").rglob("*.pem") if p.parent.name != "apple-appattest")


def test_started_from_another_folder_it_serves_the_page_and_loads_the_shipped_anchors(tmp_path):
    server = LatchkeyServer("elsewhere", cwd=tmp_path).start()
    try:
        page = requests.get(server.url + "/", timeout=10)
        assert page.status_code == 200, page.status_code
        assert page.content == (HOME / "Public" / "index.html").read_bytes()
        assert shipped_root_count() > 0
        log = server.stderr_path.read_text()
        loaded = [line for line in log.splitlines() if "trust anchors loaded" in line]
        assert len(loaded) == 1 and f"count={shipped_root_count()}" in loaded[0], log
        assert "latchkey: warning" not in log, log
        # Nothing was made in the current directory.
        assert list(tmp_path.iterdir()) == []
    finally:
        server.stop()
        server.cleanup()


def test_check_config_prints_its_home_and_resolved_paths_from_any_folder(tmp_path):
    done = latchkey("check-config", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"home {HOME} (the installation holding Config/latchkey.json"), done.stdout
    assert re.search(rf"^publicDirectory +{re.escape(str(HOME / 'Public'))} ", done.stdout, re.M), done.stdout

    # LATCHKEY_HOME names another installation; a relative one is relative to the current directory.
    other = tmp_path / "opt" / "latchkey"
    (other / "Public").mkdir(parents=True)
    (other / "Config" / "roots").mkdir(parents=True)
    named = latchkey("check-config", cwd=tmp_path, env_extra={"LATCHKEY_HOME": "opt/latchkey"})
    assert named.returncode == 0, named.stderr
    assert named.stdout.startswith(f"home {other} (LATCHKEY_HOME)"), named.stdout
    assert re.search(rf"^publicDirectory +{re.escape(str(other / 'Public'))} ", named.stdout, re.M), named.stdout

    missing = latchkey("check-config", cwd=tmp_path, env_extra={"LATCHKEY_HOME": "nowhere"})
    assert missing.returncode == 78
    assert missing.stderr.splitlines() == [f"{PROBLEM}LATCHKEY_HOME: folder {tmp_path / 'nowhere'} does not exist "
                                           "(it names the installation folder relative paths are resolved against)"]


def test_a_relative_latchkey_config_is_relative_to_the_current_directory(tmp_path):
    (tmp_path / "site.json").write_text('{"rpName": "From the current directory"}')
    done = latchkey("check-config", cwd=tmp_path, env_extra={"LATCHKEY_CONFIG": "site.json"})
    assert done.returncode == 0, done.stderr
    assert re.search(r"^rpName +From the current directory +\(file site\.json\)$", done.stdout, re.M), done.stdout


def test_a_misspelt_variable_is_a_warning_naming_the_right_one(tmp_path):
    for command in ("check-config", "serve"):
        env = {"LATCHKEY_RPID": "example.com"}
        if command == "serve":
            env["LATCHKEY_PORT"] = "0"  # refused, so that serve stops after its warnings
        done = latchkey(command, cwd=tmp_path, env_extra=env)
        assert ("latchkey: warning: LATCHKEY_RPID is not a Latchkey setting and is ignored; "
                "did you mean LATCHKEY_RP_ID?") in done.stderr.splitlines(), (command, done.stderr)
    done = latchkey("check-config", cwd=tmp_path, env_extra={"LATCHKEY_RPID": "example.com"})
    assert done.returncode == 0 and "rpID" in done.stdout and "example.com" not in done.stdout, done.stdout


def test_conformance_mode_is_a_warning(tmp_path):
    done = latchkey("check-config", cwd=tmp_path, env_extra={"LATCHKEY_CONFORMANCE_MODE": "true"})
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("latchkey: warning: ")]
    assert len(warnings) == 1 and "conformanceMode is on (LATCHKEY_CONFORMANCE_MODE)" in warnings[0], done.stderr


def test_check_config_and_serve_list_a_missing_folder_and_an_ip_rp_id_together(tmp_path):
    bad = {"LATCHKEY_PUBLIC_DIRECTORY": "no-such-folder", "LATCHKEY_RP_ID": "127.0.0.1",
           "LATCHKEY_TRUST_ANCHORS": str(tmp_path / "anchors"), "LATCHKEY_HOST": "no-such-host.invalid"}
    for command in ("check-config", "serve"):
        done = latchkey(command, cwd=tmp_path, env_extra=bad)
        assert done.returncode == 78, (command, done.returncode, done.stderr)
        assert done.stdout == "", (command, done.stdout)
        problems = [line[len(PROBLEM):] for line in done.stderr.splitlines() if line.startswith(PROBLEM)]
        assert problems[0].startswith('host (LATCHKEY_HOST): "no-such-host.invalid" does not resolve'), problems
        assert problems[1:] == [
            'rpID (LATCHKEY_RP_ID): "127.0.0.1" is an IP address, which browsers refuse as an RP ID: '
            "use a domain name (localhost on this machine)",
            f"publicDirectory (LATCHKEY_PUBLIC_DIRECTORY): folder {HOME / 'no-such-folder'} does not exist",
            f"trustAnchors (LATCHKEY_TRUST_ANCHORS): folder {tmp_path / 'anchors'} does not exist",
        ], (command, done.stderr)


def test_a_strict_policy_with_nothing_to_trust_is_refused(tmp_path):
    home = tmp_path / "home"
    (home / "Public").mkdir(parents=True)
    (home / "Config" / "roots").mkdir(parents=True)
    done = latchkey("check-config", cwd=tmp_path, env_extra={"LATCHKEY_HOME": str(home),
                                                             "LATCHKEY_ATTESTATION_POLICY": "trusted-only"})
    assert done.returncode == 78, done.stderr
    assert done.stderr.startswith(f"{PROBLEM}attestationPolicy (LATCHKEY_ATTESTATION_POLICY): trusted-only needs a "
                                  "trust anchor, and there is none"), done.stderr
    # The shipped roots are enough.
    shipped = latchkey("check-config", cwd=tmp_path, env_extra={"LATCHKEY_ATTESTATION_POLICY": "trusted-only"})
    assert shipped.returncode == 0, shipped.stderr


@pytest.mark.parametrize("rp_id, problem", [
    ("example.com.", "ends with a dot"), ("-bad.com", "starts or ends with a hyphen"), ("exa_mple.com", 'has "_"'),
    ("a..b.com", "empty label"), ("com", "single label"), ("a" * 70 + ".com", "70 bytes long"), ("exa mple.com", 'has " "'),
])
def test_check_config_and_serve_refuse_an_rp_id_that_is_not_a_domain_name(tmp_path, rp_id, problem):
    # The only origin an Android app's, so that no origin derived from the RP ID is blamed instead.
    env = {"LATCHKEY_RP_ID": rp_id, "LATCHKEY_ORIGINS": "android:apk-key-hash:" + "A" * 43}
    for command in ("check-config", "serve"):
        done = latchkey(command, cwd=tmp_path, env_extra=env)
        assert done.returncode == 78, (command, done.stdout, done.stderr)
        assert f'rpID (LATCHKEY_RP_ID): "{rp_id}" is not a valid RP ID' in done.stderr and problem in done.stderr, done.stderr
