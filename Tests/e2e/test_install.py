"""A real install and a real backup: `scripts/install PREFIX` builds a release binary with the Swift
standard library linked in and installs it, stripped (its symbols in latchkey.debug beside it), with
Config/, Public/ and the examples of deploy/; the installed server runs from another folder with no
Swift toolchain on PATH through a registration and a sign-in. `latchkey backup FILE` copies a live
SQLite store while it is written to, and the copy serves sign-ins."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import threading

from backend import latchkey_command
from conftest import LATCHKEY_BIN, REPO, LatchkeyServer, served
from test_http_api import assert_ok, new_username, register, sign_in

# A release build of every dependency on a fresh machine.
INSTALL_TIMEOUT = 2400


def test_the_installed_server_runs_without_a_swift_toolchain(tmp_path):
    prefix = tmp_path / "latchkey"
    done = subprocess.run(["scripts/install", str(prefix)], cwd=REPO, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    binary = prefix / "bin" / "latchkey"
    assert (prefix / "Public" / "index.html").is_file() and (prefix / "Config").is_dir()
    assert f"ExecStart={prefix}/bin/latchkey serve" in (prefix / "latchkey.service").read_text()
    libraries = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    assert "libswiftCore" not in libraries and "libFoundation" not in libraries, libraries

    # Stripped: no symbol table or debug information; those are in latchkey.debug, which the binary names.
    sections = subprocess.run(["readelf", "-S", "--wide", str(binary)], capture_output=True, text=True, check=True).stdout
    assert ".debug_info" not in sections and ".symtab" not in sections, "the installed binary is not stripped"
    assert ".gnu_debuglink" in sections
    symbols = subprocess.run(["readelf", "-S", "--wide", str(prefix / "bin" / "latchkey.debug")],
                             capture_output=True, text=True, check=True).stdout
    assert ".debug_info" in symbols and ".symtab" in symbols
    if shutil.which("file"):
        described = subprocess.run(["file", "-b", str(binary)], capture_output=True, text=True, check=True).stdout
        assert ", stripped" in described, described
    # deploy/ beside it, pointing at the prefix, as the unit is.
    for example in sorted((REPO / "deploy").iterdir()):
        installed = prefix / "deploy" / example.name
        assert installed.read_text() == example.read_text().replace("/opt/latchkey", str(prefix)), installed
    assert (prefix / "latchkey.service").read_text() == (prefix / "deploy" / "latchkey.service").read_text()

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server = LatchkeyServer("installed", {"PATH": "/usr/local/bin:/usr/bin:/bin"}, cwd=elsewhere, binary=binary)
    server.start()
    try:
        auth = server.authenticator()
        username = new_username()
        register(server, auth, username)
        _, _, _, reply = sign_in(server, auth, username)
        assert assert_ok(reply)["username"] == username
        page = server.client().get("/")
        assert page.status_code == 200 and "<html" in page.text.lower(), "the page comes from PREFIX/Public"
    finally:
        server.stop()
        server.cleanup()
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, check=True)
    assert version.stdout.strip()[0].isdigit()

    # An upgrade (installing again) keeps the operator's configuration file, the shipped one beside it.
    settings = prefix / "Config" / "latchkey.json"
    settings.write_text('{"rpName": "Operator settings"}\n')
    again = subprocess.run(["scripts/install", str(prefix)], cwd=REPO, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-4000:]
    assert settings.read_text() == '{"rpName": "Operator settings"}\n'
    assert (prefix / "Config" / "latchkey.json.shipped").read_text() == (REPO / "Config" / "latchkey.json").read_text()


def test_a_backup_of_a_live_store_restores_and_signs_in(tmp_path):
    copy = tmp_path / "backup.sqlite"
    for server in served("backup"):
        kept = server.authenticator()
        kept_name = new_username()
        register(server, kept, kept_name)
        # Registrations go on while the backup runs: the copy is one consistent moment.
        stop = threading.Event()

        def write():
            while not stop.is_set():
                register(server, server.authenticator())

        writer = threading.Thread(target=write)
        writer.start()
        try:
            done = latchkey_command(server, "backup", str(copy))
        finally:
            stop.set()
            writer.join(timeout=30)
        assert "backed up" in done.stdout
        later = new_username()
        register(server, server.authenticator(), later)

        refused = latchkey_command(server, "backup", str(copy), check=False)
        assert refused.returncode == 74 and "exists already" in refused.stderr

    with sqlite3.connect(copy) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        users = {name for (name,) in connection.execute("SELECT username FROM users")}
    assert kept_name in users and later not in users
    # Restored: a server on the copy signs in the user the backup holds.
    for restored in served("restored", {"LATCHKEY_DATABASE": str(copy)}):
        kept.origin = restored.origin  # the same RP ID; this server's port
        _, _, _, reply = sign_in(restored, kept, kept_name)
        assert assert_ok(reply)["username"] == kept_name
        missing = restored.client().post("/assertion/options", {"username": later})
        assert missing.status_code == 404


def test_a_postgresql_store_is_backed_up_with_pg_dump(tmp_path):
    env = {"LATCHKEY_DATABASE": "postgres://latchkey@127.0.0.1:9/none", "LATCHKEY_RP_ID": "localhost"}
    done = subprocess.run([str(LATCHKEY_BIN), "backup", str(tmp_path / "x.sqlite")], cwd=REPO,
                          env={"PATH": "/usr/bin:/bin", **env}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 64 and "pg_dump" in done.stderr, done.stderr
