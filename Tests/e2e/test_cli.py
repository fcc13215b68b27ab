"""The command line: --version, the settings in `serve --help`, and one-line listen failures."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

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
    # A sentence is not cut at "e.g." (metricsAddress's ended there).
    flat = " ".join(done.stdout.split())
    assert "e.g. `127.0.0.1:9464`" in flat and "the main listener then answers `/admin/v1` with 404" in flat, done.stdout
    # Each setting is its variable's line, then its sentence indented, never wrapped by the help to column 0.
    settings = done.stdout.split("\n\n", 2)[2].split("\nUSAGE:")[0].strip().splitlines()
    assert settings[0].startswith("LATCHKEY_") and len(settings) > 2 * len(variables), done.stdout
    for line in settings:
        assert len(line) <= 80 and (line.startswith("LATCHKEY_") or line.startswith("    ")), repr(line)


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


def test_an_open_file_limit_too_low_to_run_is_one_line_naming_it(tmp_path):
    """Under about 28 descriptors the store or a listener failed with a bare "Too many open files"."""
    import resource

    def low_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (24, 24))

    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_PORT": str(free_port()), "LATCHKEY_DATABASE": str(tmp_path / "db.sqlite")})
    done = subprocess.run([str(LATCHKEY_BIN), "serve"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
                          preexec_fn=low_limit)
    assert done.returncode == 69, done.stderr
    failures = [line for line in done.stderr.splitlines() if line.startswith("latchkey:")]
    assert failures == ["latchkey: the open-file limit (ulimit -n) is 24, and Latchkey needs at least 64 descriptors to start "
                        "with this configuration: raise it (ulimit -n, or LimitNOFILE= under systemd)"], done.stderr
    assert "Too many open files" not in done.stderr and not (tmp_path / "db.sqlite").exists()


def run_as_nobody(*args, env_extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update(env_extra)
    command = [str(LATCHKEY_BIN), *args]
    if os.geteuid() == 0:
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
    return subprocess.run(command, cwd="/", env=env, capture_output=True, text=True, timeout=60)


def test_a_sqlite_path_the_user_cannot_write_is_refused_in_plain_words_by_check_config_and_serve(tmp_path):
    """As the service user: check-config passed a folder `serve` could not write, and serve then printed
    Foundation's `NSCocoaErrorDomain Code=513 ... UserInfo=...` dump."""
    if os.geteuid() != 0 and os.access("/", os.W_OK):
        import pytest
        pytest.skip("needs a folder this user cannot write")
    import tempfile
    # Under /tmp, not pytest's folder, which only its owner may enter.
    top = Path(tempfile.mkdtemp(prefix="latchkey-unwritable-", dir="/tmp"))
    os.chmod(top, 0o755)
    locked = top / "root-only"
    locked.mkdir(mode=0o755)
    database = locked / "data" / "latchkey.sqlite"
    env = {"LATCHKEY_HOME": str(REPO), "LATCHKEY_DATABASE": str(database), "LATCHKEY_PORT": str(free_port())}
    for command in ("check-config", "serve"):
        done = run_as_nobody(command, env_extra=env)
        assert done.returncode == 78, (command, done.stdout, done.stderr)
        failures = [line for line in done.stderr.splitlines() if line.startswith("latchkey:")]
        assert len(failures) == 1 and failures[0].startswith(
            f"latchkey: configuration error: database (LATCHKEY_DATABASE): {database} cannot be made or written by this user (nobody, uid "), done.stderr
        assert f"the folder {locked} (which would hold the folders to make for it) does not let them create files" in failures[0]
        assert "NSCocoaErrorDomain" not in done.stderr and "UserInfo" not in done.stderr, done.stderr
    # A file of another user's, in a folder the service user may write to, is named too.
    open_folder = top / "shared"
    open_folder.mkdir(mode=0o777)
    os.chmod(open_folder, 0o777)
    theirs = open_folder / "latchkey.sqlite"
    theirs.write_bytes(b"")
    os.chmod(theirs, 0o644)
    done = run_as_nobody("check-config", env_extra={**env, "LATCHKEY_DATABASE": str(theirs)})
    assert done.returncode == 78 and f"{theirs} cannot be read and written by this user (nobody" in done.stderr, done.stderr
    # A command that would make the store says so only once it has (it said it made one it could not).
    done = run_as_nobody("admin-keys", "create", "--name", "ops", env_extra=env)
    assert done.returncode == 78 and "made a new, empty one" not in done.stderr, done.stderr
    assert f"{database} cannot be made or written by this user (nobody" in done.stderr, done.stderr
    # A folder the user cannot enter says so, rather than passing.
    hidden = top / "private"
    hidden.mkdir(mode=0o700)
    done = run_as_nobody("check-config", env_extra={**env, "LATCHKEY_DATABASE": str(hidden / "x" / "latchkey.sqlite")})
    assert done.returncode == 78 and f"cannot be reached by this user (nobody" in done.stderr and "Permission denied" in done.stderr, done.stderr
    shutil.rmtree(top)


def test_an_admin_key_name_starting_with_a_dash_is_refused_at_creation(tmp_path):
    """`admin-keys revoke -h` printed help and revoked the key named "-h" it could not read as a name."""
    env = {"LATCHKEY_DATABASE": str(tmp_path / "db.sqlite")}
    done = run("admin-keys", "create", "--name=-h", env_extra=env)
    assert done.returncode == 64 and "not starting with '-'" in done.stderr, done.stderr
    assert run("admin-keys", "create", "--name", "ops-1", env_extra=env).returncode == 0
