"""Fixtures that run the real `latchkey serve` binary for the end-to-end tests.

Environment:
  LATCHKEY_BIN   path of the server binary (default: <repo>/.build/debug/latchkey)
  LATCHKEY_E2E_STARTUP_TIMEOUT  seconds to wait for readiness (default 60)
"""

from __future__ import annotations

import http.cookiejar
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Optional

import pytest
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

from softauthn import SoftAuthenticator  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
LATCHKEY_BIN = Path(os.environ.get("LATCHKEY_BIN", REPO / ".build" / "debug" / "latchkey"))
STARTUP_TIMEOUT = float(os.environ.get("LATCHKEY_E2E_STARTUP_TIMEOUT", "60"))
APPLE_APP_IDS = "ABCDE12345.com.example.app,FGHIJ67890.com.example.other"

# Servers that are running right now; their logs are attached to failing test reports.
_LIVE_SERVERS: list["LatchkeyServer"] = []


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_binary() -> None:
    if not LATCHKEY_BIN.is_file() or not os.access(LATCHKEY_BIN, os.X_OK):
        pytest.fail(f"server binary not found or not executable: {LATCHKEY_BIN} "
                    "(build it first, or set LATCHKEY_BIN)")


class LatchkeyServer:
    """One `latchkey serve` process on a free port with its own temporary database."""

    def __init__(self, name: str, extra_env: Optional[dict] = None, cwd: Optional[Path] = None,
                 binary: Optional[Path] = None):
        self.name = name
        # The build under test, or another (an installed copy, say).
        self.binary = binary or LATCHKEY_BIN
        # The server finds its installation from its executable, whatever the current directory.
        self.cwd = cwd or REPO
        self.port = free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix=f"latchkey-e2e-{name}-"))
        self.database = self.workdir / "latchkey.sqlite"
        self.origin = f"http://localhost:{self.port}"
        # requests talks to 127.0.0.1 (the bound address); the browser uses localhost.
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ)
        for key in list(self.env):
            if key.startswith("LATCHKEY_"):
                del self.env[key]
        self.env.update({
            "LATCHKEY_HOST": "127.0.0.1",
            "LATCHKEY_PORT": str(self.port),
            "LATCHKEY_ORIGINS": self.origin,
            "LATCHKEY_RP_ID": "localhost",
            "LATCHKEY_DATABASE": str(self.database),
            "LATCHKEY_APPLE_APP_IDS": APPLE_APP_IDS,
        })
        if extra_env:
            self.env.update({k: str(v) for k, v in extra_env.items()})
        self.proc: Optional[subprocess.Popen] = None
        # Run in the child before the binary starts (resource limits, say).
        self.preexec = None
        self.stdout_path = self.workdir / "stdout.log"
        self.stderr_path = self.workdir / "stderr.log"

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> "LatchkeyServer":
        require_binary()
        self._out = open(self.stdout_path, "wb")
        self._err = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen([str(self.binary), "serve"], cwd=str(self.cwd), env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=self._out, stderr=self._err,
                                     preexec_fn=self.preexec)
        _LIVE_SERVERS.append(self)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        last_error = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"latchkey exited with code {self.proc.returncode} during startup\n"
                                   + self.logs())
            try:
                r = requests.get(self.url + "/session", timeout=2)
                if r.status_code == 401:
                    return self
                last_error = f"GET /session answered {r.status_code}, expected 401"
            except requests.RequestException as exc:
                last_error = repr(exc)
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"latchkey did not become ready in {STARTUP_TIMEOUT}s: {last_error}\n"
                           + self.logs())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for f in (getattr(self, "_out", None), getattr(self, "_err", None)):
            if f is not None and not f.closed:
                f.close()
        if self in _LIVE_SERVERS:
            _LIVE_SERVERS.remove(self)

    def cleanup(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)

    # -- inspection ---------------------------------------------------------------------

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def vm_rss_kib(self) -> int:
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("VmRSS not found")

    def logs(self, limit: int = 20000) -> str:
        parts = []
        for label, path in (("stdout", self.stdout_path), ("stderr", self.stderr_path)):
            try:
                text = path.read_bytes().decode("utf-8", "replace")
            except OSError:
                text = ""
            if len(text) > limit:
                text = "...\n" + text[-limit:]
            parts.append(f"--- latchkey {self.name} {label} ---\n{text}")
        return "\n".join(parts)

    def assert_alive(self) -> None:
        """The process still runs and still answers HTTP."""
        assert self.alive(), f"latchkey died (exit code {self.proc.returncode})\n{self.logs()}"
        r = requests.get(self.url + "/session", timeout=5)
        assert r.status_code == 401, f"GET /session after the request: {r.status_code} {r.text!r}"

    # -- clients ------------------------------------------------------------------------

    def client(self) -> "Client":
        return Client(self)

    def authenticator(self, **kwargs) -> SoftAuthenticator:
        return SoftAuthenticator(origin=self.origin, rp_id="localhost", **kwargs)


class LocalhostCookiePolicy(http.cookiejar.DefaultCookiePolicy):
    """Like browsers, send Secure cookies to the loopback host over plain http."""

    def return_ok_secure(self, cookie, request):
        return True


class Client:
    """A cookie-keeping HTTP client (one 'browser profile') for one server."""

    def __init__(self, server: LatchkeyServer):
        self.server = server
        self.http = requests.Session()
        self.http.cookies.set_policy(LocalhostCookiePolicy())

    def post(self, path: str, body=None, *, raw: Optional[bytes] = None, headers=None,
             timeout: float = 15, **kwargs) -> requests.Response:
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        if raw is not None:
            return self.http.post(self.server.url + path, data=raw, headers=h, timeout=timeout, **kwargs)
        if body is None:
            return self.http.post(self.server.url + path, headers=headers or {}, timeout=timeout, **kwargs)
        return self.http.post(self.server.url + path, json=body, headers=h, timeout=timeout, **kwargs)

    def get(self, path: str, *, headers=None, timeout: float = 15, **kwargs) -> requests.Response:
        return self.http.get(self.server.url + path, headers=headers or {}, timeout=timeout, **kwargs)

    def patch(self, path: str, body=None, *, headers=None, timeout: float = 15) -> requests.Response:
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        return self.http.patch(self.server.url + path, json=body, headers=h, timeout=timeout)

    def delete(self, path: str, *, headers=None, timeout: float = 15) -> requests.Response:
        return self.http.delete(self.server.url + path, headers=headers or {}, timeout=timeout)

    def cookie(self, name: str) -> Optional[str]:
        for c in self.http.cookies:
            if c.name == name:
                return c.value
        return None


def start_server(name: str, extra_env: Optional[dict] = None) -> LatchkeyServer:
    return LatchkeyServer(name, extra_env).start()


def served(name: str, extra_env: Optional[dict] = None):
    """A server for the life of a fixture: started, yielded, stopped and removed."""
    srv = start_server(name, extra_env)
    yield srv
    srv.stop()
    srv.cleanup()


@pytest.fixture(scope="module")
def server():
    yield from served("default")


@pytest.fixture(scope="module")
def conformance_server():
    yield from served("conformance", {"LATCHKEY_CONFORMANCE_MODE": "true"})


@pytest.fixture(scope="module")
def short_timeout_server():
    yield from served("short-timeout", {"LATCHKEY_CHALLENGE_TIMEOUT": "1"})


@pytest.fixture
def server_factory():
    """Start extra servers inside one test; all are stopped at the end of the test."""
    started: list[LatchkeyServer] = []

    def factory(name: str, extra_env: Optional[dict] = None) -> LatchkeyServer:
        srv = start_server(name, extra_env)
        started.append(srv)
        return srv

    yield factory
    for srv in started:
        srv.stop()
        srv.cleanup()


@pytest.fixture
def username():
    return "user-" + uuid.uuid4().hex[:12]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and _LIVE_SERVERS:
        for srv in list(_LIVE_SERVERS):
            report.sections.append((f"latchkey server '{srv.name}' (port {srv.port}) log",
                                    srv.logs()))
