"""The deployment examples in deploy/, exercised: the nginx site passes `nginx -t` and, run for
real in front of a Latchkey server, terminates TLS, passes the well-known files through without a
redirect, forwards a ceremony and hides /metrics and the admin API; the systemd unit passes `systemd-analyze verify`;
every variable of the example settings file is a Latchkey setting, and its settings pass `latchkey check-config`
as the unit would run it, and docs/OPERATIONS.md shows them as they are in the file."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import requests
import urllib3

from conftest import LATCHKEY_BIN, REPO, free_port
from test_http_api import assert_ok, new_username

DEPLOY = REPO / "deploy"


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    assert found, "nginx is not installed (Debian package nginx-light; .ci/run installs it)"
    return found


def make_certificate(folder: Path) -> tuple[Path, Path]:
    certificate, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", str(key), "-out", str(certificate), "-days", "1", "-subj", "/CN=localhost"],
                   check=True, capture_output=True)
    return certificate, key


def nginx_config(tmp: Path, upstream_port: int, http_port: int, https_port: int, server_names: str = "localhost") -> Path:
    """deploy/nginx-latchkey.conf with only what a test machine needs changed: ports, names,
    certificate and include paths. Everything else is the example as shipped."""
    certificate, key = make_certificate(tmp)
    shutil.copy(DEPLOY / "latchkey-proxy.conf", tmp / "latchkey-proxy.conf")
    site = (DEPLOY / "nginx-latchkey.conf").read_text()
    for old, new in [
        ("server 127.0.0.1:8080;", f"server 127.0.0.1:{upstream_port};"),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"), ("listen [::]:80;", ""),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"), ("listen [::]:443 ssl http2;", ""),
        ("passkeys.example.com;", f"{server_names};"),
        ("/etc/letsencrypt/live/passkeys.example.com/fullchain.pem", str(certificate)),
        ("/etc/letsencrypt/live/passkeys.example.com/privkey.pem", str(key)),
        ("/etc/nginx/latchkey-proxy.conf", str(tmp / "latchkey-proxy.conf")),
    ]:
        assert old in site, f"the example no longer contains {old!r}"
        site = site.replace(old, new)
    (tmp / "site.conf").write_text(site)
    temp_paths = "\n".join(f"    {name}_temp_path {tmp / name};" for name in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    (tmp / "nginx.conf").write_text(f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log {tmp / "error.log"};
events {{ worker_connections 64; }}
http {{
    access_log off;
{temp_paths}
    include {tmp / "site.conf"};
}}
""")
    return tmp / "nginx.conf"


def test_the_nginx_site_terminates_tls_and_passes_the_well_known_files_through(server_factory, tmp_path):
    urllib3.disable_warnings()
    http_port, https_port = free_port(), free_port()
    origin = f"https://localhost:{https_port}"
    server = server_factory("behind-nginx", {"LATCHKEY_ORIGINS": origin, "LATCHKEY_TRUSTED_PROXIES": "127.0.0.1"})
    config = nginx_config(tmp_path, server.port, http_port, https_port)
    nginx = nginx_binary()
    checked = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(config)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr

    proc = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(config), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        http, https = f"http://127.0.0.1:{http_port}", f"https://127.0.0.1:{https_port}"
        for _ in range(50):
            try:
                requests.get(http + "/", timeout=1, allow_redirects=False)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        # The association file over plain http and https: 200, JSON, no redirect.
        for base in [http, https]:
            r = requests.get(base + "/.well-known/apple-app-site-association", timeout=5, allow_redirects=False, verify=False)
            assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json"), (base, r.status_code)
            assert "webcredentials" in r.json()
        moved = requests.get(http + "/session", timeout=5, allow_redirects=False)
        assert moved.status_code == 308 and moved.headers["Location"] == "https://127.0.0.1/session"
        assert requests.get(https + "/metrics", timeout=5, verify=False).status_code == 404
        # The admin API never through the public proxy (Latchkey itself would answer 401).
        assert requests.get(https + "/admin/v1/users/alice", timeout=5, verify=False).status_code == 404

        # A registration through the proxy, with the https origin the browser would send.
        session = requests.Session()  # verify=False on each call: REQUESTS_CA_BUNDLE would override a session's
        username = new_username()
        options = assert_ok(session.post(https + "/attestation/options", json={"username": username}, timeout=5, verify=False))
        credential = server.authenticator().create(options, origin=origin)
        result = assert_ok(session.post(https + "/attestation/result", json=credential, timeout=5, verify=False))
        assert result["username"] == username
        assert any(c.name == "__Host-latchkey_session" for c in session.cookies), "Secure cookies over https"
        r = session.get(https + "/session", timeout=5, verify=False)
        assert assert_ok(r)["username"] == username
        assert len(r.headers["X-Request-ID"]) == 32, "nginx's request ID, kept from a trusted proxy"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_nginx_site_with_two_server_names_serves_each_tenants_well_known_files(server_factory, tmp_path):
    """The example site with a tenant's name beside the default's: nginx passes the host on, and each name gets its
    own tenant's files (docs/TENANTS.md)."""
    from test_tenants import cli, make_tenant

    urllib3.disable_warnings()
    http_port, https_port = free_port(), free_port()
    server = server_factory("tenants-behind-nginx", {
        "LATCHKEY_ORIGINS": f"https://localhost:{https_port}", "LATCHKEY_TRUSTED_PROXIES": "127.0.0.1",
        "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.default", "LATCHKEY_HOSTS": "localhost,127.0.0.1"})
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    make_tenant(server, operator, "shop", origins=[f"https://shop.localhost:{https_port}"], appleAppIDs=["VWXYZ67890.com.example.shop"],
                passkeyEnrollURL="https://shop.localhost/passkeys")
    config = nginx_config(tmp_path, server.port, http_port, https_port, server_names="localhost shop.localhost")
    proc = subprocess.Popen([nginx_binary(), "-p", str(tmp_path), "-c", str(config), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        https = f"https://127.0.0.1:{https_port}"
        for _ in range(50):
            try:
                requests.get(https + "/healthz", timeout=1, verify=False)
                break
            except requests.ConnectionError:
                time.sleep(0.1)

        def well_known(name: str, host: str) -> requests.Response:
            return requests.get(https + "/.well-known/" + name, headers={"Host": host}, timeout=5, verify=False, allow_redirects=False)

        shop = well_known("apple-app-site-association", "shop.localhost")
        assert shop.status_code == 200 and shop.json()["webcredentials"]["apps"] == ["VWXYZ67890.com.example.shop"], shop.text
        default = well_known("apple-app-site-association", "localhost")
        assert default.json()["webcredentials"]["apps"] == ["ABCDE12345.com.example.default"], default.text
        assert well_known("passkey-endpoints", "shop.localhost").json() == {"enroll": "https://shop.localhost/passkeys"}
        assert well_known("passkey-endpoints", "localhost").status_code == 404
        assert well_known("jwks.json", "shop.localhost").json()["keys"] != well_known("jwks.json", "localhost").json()["keys"]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_systemd_unit_verifies(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    unit = (DEPLOY / "latchkey.service").read_text()
    assert "/opt/latchkey/bin/latchkey" in unit
    # The unit names the installed binary; verify it against the one built here.
    (tmp_path / "latchkey.service").write_text(unit.replace("/opt/latchkey/bin/latchkey", str(LATCHKEY_BIN)))
    done = subprocess.run([analyze, "verify", str(tmp_path / "latchkey.service")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "latchkey.service" not in done.stderr, done.stderr


ENV_EXAMPLE = DEPLOY / "latchkey.env.example"


def example_settings() -> tuple[dict[str, str], dict[str, str]]:
    """The example settings file's variables: those set, and those commented out (`#NAME=value`, no space).
    Every other line is blank or prose (`# ...`)."""
    active, commented = {}, {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if match := re.fullmatch(r"(#?)([A-Z][A-Z0-9_]*)=(.*)", line):
            # The same value for systemd's EnvironmentFile= and for a shell's `.`: no quotes, spaces or comment.
            assert re.fullmatch(r"[^\s'\"#\\$`]*", match.group(3)), f"{line!r}: systemd and sh would read it differently"
            (commented if match.group(1) else active)[match.group(2)] = match.group(3)
        else:
            assert line == "" or line.startswith("# "), f"{line!r} is neither a setting nor a comment line"
    return active, commented


def unit_environment(tmp_path: Path) -> dict[str, str]:
    """The unit's Environment= lines, pointing at this checkout and a scratch database."""
    unit = (DEPLOY / "latchkey.service").read_text()
    assert "EnvironmentFile=-/etc/latchkey/latchkey.env" in unit, "the example is for the unit's environment file"
    environment = dict(re.findall(r"^Environment=([A-Z_]+)=(.*)$", unit, re.MULTILINE))
    assert environment["LATCHKEY_HOME"] == "/opt/latchkey"
    environment["LATCHKEY_HOME"] = str(REPO)
    environment["LATCHKEY_DATABASE"] = str(tmp_path / "latchkey.sqlite")
    return environment


def check_config(environment: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(LATCHKEY_BIN), "check-config"], cwd=REPO, env={"PATH": "/usr/bin:/bin", **environment},
                          capture_output=True, text=True, timeout=60)


def test_the_example_settings_file_holds_real_settings_that_pass_check_config(tmp_path):
    active, commented = example_settings()
    assert {"LATCHKEY_RP_ID", "LATCHKEY_ORIGINS"} <= active.keys()
    # As the unit runs it: its Environment= lines, then the file's (which win).
    done = check_config({**unit_environment(tmp_path), **active})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "warning" not in done.stderr, done.stderr
    for name in active:
        assert f"({name})" in done.stdout, f"check-config does not show {name} as the file's"
    # The commented-out ones are settings too (their placeholders need not pass: a secret is the operator's to make).
    # A misspelt variable beside them shows the warning would be there.
    everything = check_config({**unit_environment(tmp_path), **active, **commented, "LATCHKEY_RPID": "misspelt"})
    unknown = re.findall(r"(LATCHKEY_\w+) is not a Latchkey setting", everything.stderr)
    assert unknown == ["LATCHKEY_RPID"], everything.stderr


def test_the_operations_guide_shows_the_example_settings_as_they_are():
    guide = (REPO / "docs" / "OPERATIONS.md").read_text()
    shown = [block for block in re.findall(r"```sh\n(.*?)\n```", guide, re.DOTALL) if "LATCHKEY_RP_ID=" in block]
    assert len(shown) == 1, "docs/OPERATIONS.md shows the example settings in one block"
    settings = [line for line in ENV_EXAMPLE.read_text().splitlines() if re.match(r"#?LATCHKEY_", line)]
    assert shown[0].splitlines() == settings, "the block lists the file's settings, in its order, as they are written"
    assert "install -D -m 600 /opt/latchkey/deploy/latchkey.env.example /etc/latchkey/latchkey.env" in guide
