"""The page in real Chromium through nginx balancing round-robin over two Latchkey instances on one
PostgreSQL: every ceremony's options and result are served by different instances, and
registration, sign-out and usernameless sign-in still work."""
from __future__ import annotations

import re
import subprocess
import time
import types
from pathlib import Path

import requests

from conftest import free_port
from test_browser import Page, driver, fresh_authenticator, page_scripts  # noqa: F401  (fixtures)
from test_deployment import nginx_binary
from test_http_api import new_username
from test_postgres import postgres_url  # noqa: F401  (the fixture)


def balancer_config(tmp: Path, port: int, upstreams: list[int]) -> Path:
    servers = "\n".join(f"        server 127.0.0.1:{upstream};" for upstream in upstreams)
    temp_paths = "\n".join(f"    {name}_temp_path {tmp / name};" for name in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    config = tmp / "nginx.conf"
    config.write_text(f"""
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log {tmp / "error.log"};
events {{ worker_connections 64; }}
http {{
    log_format upstreams '$request_method $uri $upstream_addr $status';
    access_log {tmp / "access.log"} upstreams;
{temp_paths}
    upstream latchkey {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://latchkey;
            proxy_set_header Host $host:$server_port;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }}
    }}
}}
""")
    return config


def test_the_page_works_through_a_round_robin_balancer(driver, server_factory, postgres_url, tmp_path):
    port = free_port()
    origin = f"http://localhost:{port}"
    env = {"LATCHKEY_DATABASE": postgres_url, "LATCHKEY_ORIGINS": origin}
    instances = [server_factory("balanced-a", env), server_factory("balanced-b", env)]
    config = balancer_config(tmp_path, port, [instance.port for instance in instances])
    nginx = subprocess.Popen([nginx_binary(), "-p", str(tmp_path), "-c", str(config), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(50):
            try:
                requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except requests.ConnectionError:
                time.sleep(0.1)
        page = Page(driver, types.SimpleNamespace(origin=origin, url=f"http://127.0.0.1:{port}")).open()
        fresh_authenticator(driver)
        username = new_username()
        page.fill("username", username)
        page.fill("displayName", "Balanced Person")
        page.click_ok("register")
        page.assert_signed_in(username)
        page.sign_out()
        page.fill("username", "")
        page.click_ok("signin-discoverable")
        page.assert_signed_in(username)
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)

    # Each ceremony's options and result went to different instances.
    lines = [line.split() for line in (tmp_path / "access.log").read_text().splitlines()]
    posts = [(path, upstream) for method, path, upstream, _ in lines if method == "POST"]
    pairs = [(posts[i], posts[i + 1]) for i in range(len(posts) - 1)
             if re.fullmatch(r"/(attestation|assertion)/options", posts[i][0]) and posts[i + 1][0].endswith("/result")]
    assert len(pairs) == 2, posts
    for (_, options_upstream), (_, result_upstream) in pairs:
        assert options_upstream != result_upstream, posts
    assert {upstream for _, upstream in posts} == {f"127.0.0.1:{i.port}" for i in instances}
