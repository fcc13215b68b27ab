"""The command line: --version, the settings in `serve --help`, and one-line listen failures."""
from __future__ import annotations

import os
import re
import subprocess

from conftest import LATCHKEY_BIN, REPO, free_port


def run(*args, env_extra=None, timeout=60):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update(env_extra or {})
    return subprocess.run([str(LATCHKEY_BIN), *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_version():
    done = run("--version")
    assert done.returncode == 0
    assert re.fullmatch(r"\d+\.\d+\.\d+\n", done.stdout), done.stdout


def test_serve_help_lists_every_setting_with_its_variable():
    done = run("serve", "--help")
    assert done.returncode == 0, done.stderr
    readme = (REPO / "docs" / "CONFIGURATION.md").read_text()
    variables = re.findall(r"^\| `\w+` \| `(LATCHKEY_\w+)` \|", readme, flags=re.M)
    assert len(variables) > 20
    for variable in variables:
        assert variable in done.stdout, variable


def test_serve_options_are_refused_with_the_variable_to_set():
    for args, hint in [(["--port", "9000"], "set LATCHKEY_PORT=9000"), (["--rp-id=example.com"], "set LATCHKEY_RP_ID=example.com"),
                       (["--prot", "9000"], "set LATCHKEY_PORT=9000"), (["--colour", "blue"], "LATCHKEY_* variables")]:
        done = run("serve", *args, timeout=30)
        assert done.returncode == 64, (args, done.stderr)
        assert "serve takes no options" in done.stderr and hint in done.stderr, (args, done.stderr)


def test_a_port_in_use_is_one_line_and_a_failure(server, tmp_path):
    done = run("serve", env_extra={"LATCHKEY_PORT": str(server.port), "LATCHKEY_DATABASE": str(tmp_path / "db.sqlite")})
    assert done.returncode != 0
    failures = [line for line in done.stderr.splitlines() if line.startswith("latchkey:")]
    assert failures == [f"latchkey: cannot listen on 127.0.0.1:{server.port}: the port is already in use "
                        "(another latchkey or another server); choose another with LATCHKEY_PORT"], done.stderr
    assert "Error:" not in done.stderr and "IOError" not in done.stderr, done.stderr
    server.assert_alive()


def test_an_admin_or_metrics_port_in_use_is_named_with_its_variable(server, tmp_path):
    main = free_port()
    for variable in ("LATCHKEY_ADMIN_ADDRESS", "LATCHKEY_METRICS_ADDRESS"):
        done = run("serve", env_extra={"LATCHKEY_PORT": str(main), variable: f"127.0.0.1:{server.port}",
                                       "LATCHKEY_DATABASE": str(tmp_path / "db.sqlite")})
        assert done.returncode == 69, done.stderr
        failures = [line for line in done.stderr.splitlines() if line.startswith("latchkey:")]
        assert failures == [f"latchkey: cannot listen on 127.0.0.1:{server.port}: the port is already in use "
                            f"(another latchkey or another server); choose another with {variable}"], done.stderr
    server.assert_alive()


def test_an_unresolvable_host_is_one_line_and_a_configuration_error(tmp_path):
    # The configuration check resolves the host before serve binds, as check-config does.
    done = run("serve", env_extra={"LATCHKEY_HOST": "no-such-host.invalid", "LATCHKEY_PORT": str(free_port()),
                                   "LATCHKEY_DATABASE": str(tmp_path / "db.sqlite")})
    assert done.returncode == 78
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith('latchkey: configuration error: host (LATCHKEY_HOST): "no-such-host.invalid" '
                               "does not resolve ("), done.stderr
    assert "SocketAddressError" not in done.stderr


def test_a_missing_sqlite_store_is_made_only_by_a_command_that_writes_and_it_says_so(tmp_path):
    """A mistyped LATCHKEY_DATABASE must not pass unnoticed: listing or revoking refuses a store that is not
    there; creating a key makes one (as on a fresh install, before the first start) and says so."""
    env = {"LATCHKEY_DATABASE": str(tmp_path / "typo.sqlite")}
    for args in (["admin-keys", "list"], ["admin-keys", "revoke", "shop"]):
        done = run(*args, env_extra=env)
        assert done.returncode == 78, (args, done.stderr)
        assert done.stderr == f"latchkey: there is no store at {tmp_path / 'typo.sqlite'} (LATCHKEY_DATABASE); " \
                              "`latchkey serve` makes it when it first starts\n", done.stderr
        assert not (tmp_path / "typo.sqlite").exists(), "nothing was made"
    made = run("admin-keys", "create", "--name", "shop", env_extra=env)
    assert made.returncode == 0 and made.stdout.startswith("lk_admin_"), made.stderr
    assert made.stderr.startswith(f"latchkey: no store was at {tmp_path / 'typo.sqlite'} (LATCHKEY_DATABASE): made a new, empty one\n")
    listed = run("admin-keys", "list", env_extra=env)
    assert listed.returncode == 0 and "shop" in listed.stdout and listed.stderr == "", listed.stderr
