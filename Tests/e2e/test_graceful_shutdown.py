"""SIGTERM during a stream of sign-ins: the server stops accepting, finishes what it has begun,
closes the store and exits 0. Every answer a client received is a whole one."""
from __future__ import annotations

import json
import signal
import socket
import threading
import time

import pytest
import requests

from test_http_api import new_username, register, sign_in

CLIENTS = 4
STREAM_SECONDS = 1.5     # sign-ins before the signal
SHUTDOWN_BOUND = 30      # seconds the server may take to drain and exit (2 shared cores)


def _half_sent_request(server, username: str) -> tuple[socket.socket, bytes]:
    """A request whose body is only half sent: in flight when the signal arrives."""
    body = json.dumps({"username": username}).encode()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    head = (f"POST /assertion/options HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    sock.sendall(head + body[:5])
    return sock, body[5:]


def _read_response(sock: socket.socket) -> tuple[int, dict]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        assert chunk, f"connection closed before the response head: {data!r}"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    length = next(int(l.split(":", 1)[1]) for l in lines[1:] if l.lower().startswith("content-length:"))
    while len(rest) < length:
        chunk = sock.recv(4096)
        assert chunk, "connection closed inside the response body"
        rest += chunk
    return status, json.loads(rest[:length])


def test_sigterm_during_sign_ins_finishes_every_answered_request_and_exits_0(server_factory):
    # The clients all come from one address, as fast as the machine goes: the per-client limit (tested in
    # test_limits.py) is off, so that a fast run gets no 429 this test is not about.
    server = server_factory("graceful-shutdown", {"LATCHKEY_RATE_LIMIT": "0"})
    users = []
    for _ in range(CLIENTS):
        auth, username = server.authenticator(), new_username()
        register(server, auth, username)
        users.append((auth, username))

    signalled = threading.Event()
    outcomes: list[list] = [[] for _ in range(CLIENTS)]

    def stream(index: int) -> None:
        auth, username = users[index]
        deadline = time.monotonic() + STREAM_SECONDS + SHUTDOWN_BOUND
        while time.monotonic() < deadline:
            try:
                _, _, _, r = sign_in(server, auth, username)
            except requests.RequestException as exc:  # refused or reset: not answered
                outcomes[index].append(("unanswered", signalled.is_set(), type(exc).__name__))
                if signalled.is_set():
                    return
                continue
            # An answered request must be whole: a JSON body that says what happened.
            body = r.json()
            outcomes[index].append((r.status_code, signalled.is_set(), body.get("status")))

    threads = [threading.Thread(target=stream, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    time.sleep(STREAM_SECONDS)
    in_flight, rest_of_body = _half_sent_request(server, users[0][1])
    time.sleep(0.2)  # the server has read the head and waits for the body
    server.proc.send_signal(signal.SIGTERM)
    signalled.set()
    time.sleep(0.3)
    in_flight.sendall(rest_of_body)
    status, body = _read_response(in_flight)
    in_flight.close()
    assert (status, body["status"]) == (200, "ok"), "the request in flight when SIGTERM came is finished"

    exit_status = server.proc.wait(timeout=SHUTDOWN_BOUND)
    for t in threads:
        t.join(timeout=SHUTDOWN_BOUND)
    assert exit_status == 0, server.logs()
    # The stop is in the log: when it began, and that it ended (a stop used to log nothing).
    logs = server.logs()
    assert "stopping: SIGTERM came; no new connections, finishing the requests in flight" in logs, logs[-2000:]
    assert logs.rstrip().endswith("[latchkey] stopped"), logs[-2000:]

    answered = [o for per_client in outcomes for o in per_client if o[0] != "unanswered"]
    assert sum(1 for o in answered if not o[1]) >= CLIENTS, "sign-ins ran before the signal"
    assert all(o[0] == 200 and o[2] == "ok" for o in answered), \
        [o for o in answered if o[0] != 200 or o[2] != "ok"]
    # After the signal, new connections are refused: every stream ends unanswered.
    assert all(per_client and per_client[-1][0] == "unanswered" for per_client in outcomes), outcomes
    with pytest.raises(requests.ConnectionError):
        requests.get(server.url + "/healthz", timeout=5)
    # The store was closed, not abandoned: SQLite folds its write-ahead log back into the database
    # and removes it when the last connection closes.
    assert not server.database.with_name(server.database.name + "-wal").exists(), "the store was closed"
