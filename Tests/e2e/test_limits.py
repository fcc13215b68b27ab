"""Limits and rate limits against the real server: slow clients, big bodies and headers, floods of
options, pending-challenge caps and CBOR bombs, each answered quickly while others still sign in."""

from __future__ import annotations

import base64
import json
import select
import socket
import threading
import time

import pytest
import requests

from conftest import free_port
from test_http_api import assert_failed, assert_ok, attestation_options, new_username, register, sign_in
from test_postgres import postgres_url  # noqa: F401  (the fixture)

PROXY = "127.0.0.1"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def behind(server, address: str):
    """A client whose requests reach `server` through a trusted proxy on behalf of `address`."""
    client = server.client()
    client.http.headers["X-Forwarded-For"] = address
    return client


class Replies:
    """Reads HTTP/1.1 replies with Content-Length bodies, one after another, from one connection."""

    def __init__(self, sock: socket.socket, timeout: float):
        self.sock = sock
        self.buffer = b""
        sock.settimeout(timeout)

    def _fill(self, what: str) -> None:
        chunk = self.sock.recv(65536)
        assert chunk, f"connection closed {what}: {self.buffer[:200]!r}"
        self.buffer += chunk

    def next(self) -> tuple[int, dict, bytes]:
        """Status, headers (lower-case names) and body of the next reply."""
        while b"\r\n\r\n" not in self.buffer:
            self._fill("before a reply")
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(self.buffer) < length:
            self._fill("in the middle of a reply body")
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, headers, body


def read_reply(sock: socket.socket, timeout: float) -> tuple[int, dict, bytes]:
    """The one reply expected on `sock`."""
    return Replies(sock, timeout).next()


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes (or resets) the connection within `seconds`, nothing else arriving."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        readable, _, _ = select.select([sock], [], [], 0.1)
        if readable:
            try:
                if sock.recv(65536) == b"":
                    return True
            except ConnectionResetError:
                return True
    return False


# ---------------------------------------------------------------------------------------------
# slow clients


def slow_loris(server, request: bytes, head_at_once: bool, outcome: dict) -> None:
    """Sends `request` one byte a second (after the head at once, when asked) until cut off."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    start = time.monotonic()
    sent = 0
    if head_at_once:
        head_end = request.index(b"\r\n\r\n") + 4
        sock.sendall(request[:head_end])
        sent = head_end
    try:
        while sent < len(request):
            sock.sendall(request[sent:sent + 1])
            sent += 1
            if closed_within(sock, 1.0):
                break
        else:
            outcome["completed"] = True
    except (BrokenPipeError, ConnectionResetError):
        pass
    outcome["seconds"] = time.monotonic() - start
    outcome["sent"] = sent
    sock.close()


def test_a_slow_loris_is_cut_off_while_a_well_behaved_client_signs_in(server_factory):
    server = server_factory("slow-loris", {"LATCHKEY_REQUEST_TIMEOUT": "3"})
    body = b'{"username":"' + b"x" * 40 + b'"}'
    request = (b"POST /assertion/options HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    outcomes = [{}, {}]
    lorises = [threading.Thread(target=slow_loris, args=(server, request, head_at_once, outcome))
               for head_at_once, outcome in zip((False, True), outcomes)]
    for loris in lorises:
        loris.start()
    auth = server.authenticator()
    username = new_username()
    register(server, auth, username)
    assert_ok(sign_in(server, auth, username)[3])
    for loris in lorises:
        loris.join(timeout=30)
    for outcome, what in zip(outcomes, ("in the head", "in the body")):
        assert not outcome.get("completed"), f"a client sending one byte a second {what} was never cut off: {outcome}"
        assert outcome["seconds"] < 3 + 2.5, f"cut off {what} only after {outcome['seconds']:.1f} s (request timeout 3 s)"
    server.assert_alive()


def test_an_unused_kept_alive_connection_is_closed_after_the_request_timeout(server_factory):
    server = server_factory("keep-alive", {"LATCHKEY_REQUEST_TIMEOUT": "2"})
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    sock.sendall(b"GET /session HTTP/1.1\r\nHost: localhost\r\n\r\n")
    status, _, _ = read_reply(sock, 5)
    assert status == 401
    start = time.monotonic()
    assert closed_within(sock, 5), "an idle kept-alive connection stayed open"
    assert time.monotonic() - start < 3.5
    sock.close()


def test_the_metrics_and_admin_listeners_close_idle_connections_too(server_factory):
    """Each listener shares the process's descriptors: one that held idle connections forever would
    let anyone who reaches it starve the main listener."""
    metrics_port, admin_port = free_port(), free_port()
    server = server_factory("internal-listeners", {
        "LATCHKEY_REQUEST_TIMEOUT": "2", "LATCHKEY_METRICS_ADDRESS": f"127.0.0.1:{metrics_port}",
        "LATCHKEY_ADMIN_ADDRESS": f"127.0.0.1:{admin_port}"})
    for port in (metrics_port, admin_port):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        start = time.monotonic()
        assert closed_within(sock, 5), f"an idle connection to port {port} stayed open"
        assert time.monotonic() - start < 3.5
        sock.close()
    assert requests.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).status_code == 200


# ---------------------------------------------------------------------------------------------
# sizes


def test_a_10_mb_body_is_refused_with_413_at_once(server):
    client = server.client()
    start = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    size = 10 * 1024 * 1024
    sock.sendall(b"POST /attestation/result HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(size).encode() + b"\r\n\r\n")
    chunk = b"[" * 65536
    sent = 0
    # The reply comes while the body is still being sent: the server does not wait for all of it.
    while sent < size:
        readable, _, _ = select.select([sock], [], [], 0)
        if readable:
            break
        try:
            sock.sendall(chunk)
        except BrokenPipeError:
            # The server replied and closed between the check and the send: early, as it should.
            break
        sent += len(chunk)
    status, headers, body = read_reply(sock, 5)
    assert status == 413, (status, body)
    assert headers.get("connection", "").lower() == "close"
    assert "64 KiB" in json.loads(body)["errorMessage"]
    assert sent < size, "the 413 should come before the whole 10 MB is sent"
    assert time.monotonic() - start < 3
    sock.close()

    # An ordinary client that sends all of it, with a length or chunked, gets the 413 too.
    start = time.monotonic()
    r = client.post("/attestation/result", raw=b" " * size)
    assert r.status_code == 413 and r.json()["status"] == "failed", r.text
    r = client.post("/assertion/result", raw=(b"{" * 65536 for _ in range(160)))
    assert r.status_code == 413 and r.json()["status"] == "failed", r.text
    assert time.monotonic() - start < 8
    server.assert_alive()


@pytest.mark.parametrize("headers", [
    {"Cookie": "a=" + "b" * 40_000},
    {f"X-Filler-{i}": "x" for i in range(150)},
], ids=["40 KiB cookie", "150 fields"])
def test_oversized_headers_get_431_with_the_json_body(server, headers):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    lines = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    sock.sendall(f"GET /session HTTP/1.1\r\nHost: localhost\r\n{lines}\r\n".encode())
    status, reply_headers, body = read_reply(sock, 5)
    assert status == 431, (status, body)
    assert json.loads(body)["status"] == "failed" and "headers" in json.loads(body)["errorMessage"]
    assert reply_headers.get("connection", "").lower() == "close"
    assert closed_within(sock, 3)
    sock.close()
    server.assert_alive()


def test_a_malformed_request_line_gets_400_with_the_json_body(server):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    sock.sendall(b"GET /session HTTP/1.1\r\nHost localhost\r\n\r\n")
    status, _, body = read_reply(sock, 5)
    assert status == 400 and json.loads(body)["status"] == "failed", body
    sock.close()


def test_a_credential_id_over_1023_bytes_is_a_400_naming_it(server):
    client = server.client()
    auth = server.authenticator()
    options = attestation_options(client, new_username())
    credential = auth.create(options)
    credential["id"] = credential["rawId"] = b64url(b"\x01" * 1024)
    body = assert_failed(client.post("/attestation/result", credential), server, codes=(400,))
    assert "1023" in body["errorMessage"] and "id" in body["errorMessage"], body


# ---------------------------------------------------------------------------------------------
# usernames


def test_usernames_are_case_folded(server):
    auth = server.authenticator()
    typed = "Ünïcode-ALICE-" + new_username()
    client = server.client()
    options = attestation_options(client, typed)
    assert options["user"]["name"] == typed, "the authenticator shows the name as typed"
    result = assert_ok(client.post("/attestation/result", auth.create(options)))
    assert result["username"] == typed.lower()
    # Any case, and any normalisation, finds the one account.
    decomposed = typed.upper().replace("Ü", "U\u0308")
    assert_ok(sign_in(server, auth, decomposed)[3])
    r = server.client().post("/attestation/options", {"username": typed.upper(), "displayName": "X"})
    assert r.status_code == 403, "another case of a taken username must be the same account"


# ---------------------------------------------------------------------------------------------
# CBOR bombs


@pytest.mark.parametrize("bomb", ["9affffffff", "9bffffffffffffffff", "5affffffff", "baffffffff", "bf", "9f" * 5000])
def test_a_cbor_bomb_attestation_object_is_a_fast_400(server, bomb):
    client = server.client()
    auth = server.authenticator()
    credential = auth.create(attestation_options(client, new_username()))
    credential["response"]["attestationObject"] = b64url(bytes.fromhex(bomb))
    start = time.monotonic()
    r = client.post("/attestation/result", credential)
    elapsed = time.monotonic() - start
    assert_failed(r, server, codes=(400,))
    assert elapsed < 1, f"the bomb took {elapsed:.2f} s"


# ---------------------------------------------------------------------------------------------
# rate limits


def flood(port: int, requests_count: int, connections: int, forwarded_for: str | None) -> list[tuple[int, dict, bytes]]:
    """`requests_count` usernameless options requests, pipelined over `connections` connections."""
    extra = f"X-Forwarded-For: {forwarded_for}\r\n" if forwarded_for else ""
    request = (f"POST /assertion/options HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
               f"{extra}Content-Length: 2\r\n\r\n{{}}").encode()
    replies: list[tuple[int, dict, bytes]] = []
    lock = threading.Lock()

    def one_connection(count: int) -> None:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sender = threading.Thread(target=lambda: sock.sendall(request * count))
        sender.start()
        replies_on_it = Replies(sock, 30)
        mine = [replies_on_it.next() for _ in range(count)]
        sender.join()
        sock.close()
        with lock:
            replies.extend(mine)

    share = requests_count // connections
    threads = [threading.Thread(target=one_connection, args=(share,)) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return replies


def test_10000_options_requests_from_one_address_are_refused_while_others_sign_in(server_factory):
    server = server_factory("flood", {"LATCHKEY_TRUSTED_PROXIES": PROXY, "LATCHKEY_RATE_LIMIT": "20",
                                      "LATCHKEY_RATE_LIMIT_BURST": "100"})
    auth = server.authenticator()
    good = new_username()
    register(server, auth, good, client=behind(server, "198.51.100.9"))

    result: dict = {}
    start = time.monotonic()
    flooder = threading.Thread(target=lambda: result.update(replies=flood(server.port, 10_000, 8, "203.0.113.7")))
    flooder.start()
    # During the flood, another address signs in, twice.
    for _ in range(2):
        assert_ok(sign_in(server, auth, good, client=behind(server, "198.51.100.9"))[3])
    flooder.join(timeout=120)
    elapsed = time.monotonic() - start
    replies = result["replies"]
    assert len(replies) == 10_000
    statuses = [status for status, _, _ in replies]
    allowed = statuses.count(200)
    assert statuses.count(429) + allowed == 10_000, sorted(set(statuses))
    assert allowed <= 100 + 20 * elapsed + 5, f"{allowed} allowed in {elapsed:.1f} s with burst 100 and 20 a second"
    assert allowed >= 100, "the burst should be served"
    status, headers, body = next(reply for reply in replies if reply[0] == 429)
    assert int(headers["retry-after"]) >= 1
    message = json.loads(body)
    assert message["status"] == "failed" and "203.0.113.7" in message["errorMessage"], message
    assert elapsed < 90, f"10,000 requests took {elapsed:.1f} s"
    server.assert_alive()


def test_x_forwarded_for_counts_only_from_a_trusted_proxy(server_factory):
    limited = {"LATCHKEY_RATE_LIMIT": "1", "LATCHKEY_RATE_LIMIT_BURST": "3"}
    # No trusted proxy: a client cannot escape its bucket by naming other addresses.
    direct = server_factory("untrusted-proxy", limited)
    statuses = [direct.client().post("/assertion/options", {}, headers={"X-Forwarded-For": f"192.0.2.{i}"}).status_code
                for i in range(6)]
    assert statuses.count(429) >= 2, statuses
    # From a trusted proxy the right-most untrusted address counts: one bucket per client, and a
    # client cannot pose as another by adding to the header it sends the proxy.
    proxied = server_factory("trusted-proxy", {**limited, "LATCHKEY_TRUSTED_PROXIES": PROXY})
    for i in (1, 2, 0):
        for _ in range(3):
            assert_ok(proxied.client().post("/assertion/options", {}, headers={"X-Forwarded-For": f"192.0.2.{i}"}))
    r = proxied.client().post("/assertion/options", {}, headers={"X-Forwarded-For": "192.0.2.99, 192.0.2.0"})
    body = assert_failed(r, proxied, codes=(429,))
    assert "192.0.2.0" in body["errorMessage"] and r.headers["Retry-After"].isdigit()
    # Other endpoints are not rate limited.
    assert proxied.client().get("/session", headers={"X-Forwarded-For": "192.0.2.0"}).status_code == 401


def test_conformance_mode_does_not_throttle_one_address(server_factory):
    server = server_factory("conformance-limits", {"LATCHKEY_CONFORMANCE_MODE": "true", "LATCHKEY_RATE_LIMIT": "1",
                                                   "LATCHKEY_RATE_LIMIT_BURST": "2",
                                                   "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "2"})
    client = server.client()
    for _ in range(20):
        assert_ok(client.post("/attestation/options", {"username": new_username(), "displayName": "X"}))


# ---------------------------------------------------------------------------------------------
# pending challenges


def test_pending_challenges_are_capped_per_client_and_in_total(server_factory):
    server = server_factory("pending-caps", {"LATCHKEY_TRUSTED_PROXIES": PROXY, "LATCHKEY_RATE_LIMIT": "0",
                                             "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "3",
                                             "LATCHKEY_PENDING_CHALLENGES_TOTAL": "5"})
    auth = server.authenticator()
    client = behind(server, "203.0.113.50")
    pending = [attestation_options(client, new_username()) for _ in range(3)]
    r = client.post("/attestation/options", {"username": new_username(), "displayName": "X"})
    body = assert_failed(r, server, codes=(429,))
    assert "pending" in body["errorMessage"] and r.headers["Retry-After"].isdigit(), body
    assert behind(server, "203.0.113.50").post("/assertion/options", {}).status_code == 429, "sign-ins count too"
    # Answering one frees its place.
    assert_ok(client.post("/attestation/result", auth.create(pending[-1])))
    assert_ok(behind(server, "203.0.113.50").post("/assertion/options", {}))
    # Other addresses fill the total (3 + 2 of 5), then the server is full for everyone.
    assert_ok(behind(server, "203.0.113.51").post("/assertion/options", {}))
    assert_ok(behind(server, "203.0.113.52").post("/assertion/options", {}))
    r = behind(server, "203.0.113.53").post("/assertion/options", {})
    assert r.status_code == 503 and r.json()["status"] == "failed" and r.headers["Retry-After"].isdigit(), r.text


def test_pending_challenges_expire_out_of_the_cap(server_factory):
    server = server_factory("pending-expiry", {"LATCHKEY_RATE_LIMIT": "0", "LATCHKEY_CHALLENGE_TIMEOUT": "1",
                                               "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "2"})
    client = server.client()
    for _ in range(2):
        assert_ok(client.post("/assertion/options", {}))
    assert client.post("/assertion/options", {}).status_code == 429
    time.sleep(2.2)
    assert_ok(client.post("/assertion/options", {}))


# ---------------------------------------------------------------------------------------------
# several instances


def test_a_client_limited_on_one_instance_is_limited_on_the_other(server_factory, postgres_url):
    """The instances on one PostgreSQL count together (docs/OPERATIONS.md, Security notes): each reconciles its
    buckets and caps through the store every second, so a client that spent its bucket on one instance finds it spent
    on the other, and challenges pending on one fill the other's cap, within about two seconds."""
    env = {"LATCHKEY_DATABASE": postgres_url, "LATCHKEY_ORIGINS": "http://localhost", "LATCHKEY_RATE_LIMIT": "1",
           "LATCHKEY_RATE_LIMIT_BURST": "10", "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "3"}
    a, b = server_factory("share-a", env), server_factory("share-b", env)

    # The rate limit: spend the bucket on A (answers refused as malformed take a token each, and leave no challenge) ...
    statuses = [requests.post(a.url + "/assertion/result", json={}, timeout=10).status_code for _ in range(12)]
    assert statuses.count(429) >= 1 and statuses.index(429) >= 9, statuses
    time.sleep(2.5)
    # ... and B, whose own bucket for this client was never touched, refuses it after the refill of those seconds
    # (without sharing, it would serve ten).
    statuses = [requests.post(b.url + "/assertion/result", json={}, timeout=10).status_code for _ in range(10)]
    assert 429 in statuses[:5], statuses
    reply = requests.post(b.url + "/assertion/result", json={}, timeout=10)
    assert reply.status_code == 429 and int(reply.headers["Retry-After"]) >= 1

    # The challenge cap, on a fresh instance pair's quiet bucket: three pending through B fill A's cap.
    time.sleep(4)  # a few tokens back
    for _ in range(3):
        assert_ok(requests.post(b.url + "/attestation/options", json={"username": new_username()}, timeout=10))
    time.sleep(2.5)
    body = assert_failed(requests.post(a.url + "/assertion/options", json={}, timeout=10), a, codes=(429,))
    assert "3 challenges pending" in body["errorMessage"], body

def test_the_consoles_ceremonies_draw_on_the_per_client_rate_limit(server_factory):
    """Every route that issues or answers a challenge draws on the client's bucket (SECURITY.md), the operator
    console's too, on the admin listener where it lives: beyond the burst, 429 with Retry-After."""
    admin_port = free_port()
    server_factory("console-limit", {"LATCHKEY_ADMIN_ADDRESS": f"127.0.0.1:{admin_port}", "LATCHKEY_RATE_LIMIT": "1",
                                              "LATCHKEY_RATE_LIMIT_BURST": "2"})
    origin = f"http://localhost:{admin_port}"
    headers = {"Origin": origin, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"}
    start, statuses = time.monotonic(), []
    for _ in range(12):
        statuses.append(requests.post(f"http://127.0.0.1:{admin_port}/console/api/sign-in/options", json={}, headers=headers,
                                      timeout=15).status_code)
    elapsed = time.monotonic() - start
    assert 429 in statuses, statuses
    assert statuses.count(200) <= 2 + elapsed + 1, (statuses, elapsed)
    assert statuses[0] == 200, statuses


def test_an_empty_bucket_is_answered_429_before_the_body_is_read(server_factory):
    """SECURITY.md: beyond the rate limit a client is refused before the store is asked anything, and before its
    body is read: a request announcing a body with `Expect: 100-continue` gets the 429 at once, never a
    `100 Continue` inviting the body, and the connection closes."""
    server = server_factory("early-429", {"LATCHKEY_RATE_LIMIT": "1", "LATCHKEY_RATE_LIMIT_BURST": "1"})
    head = (b"POST /assertion/options HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Content-Length: 2\r\nExpect: 100-continue\r\n\r\n")
    with socket.create_connection(("127.0.0.1", server.port), timeout=15) as connection:
        connection.sendall(head + b"{}")
        first = connection.recv(65536)
        assert first.startswith(b"HTTP/1.1 100") or first.startswith(b"HTTP/1.1 200"), first[:100]
    # The bucket (one token, one a second) is empty now, unless this machine took a second between the two.
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", server.port), timeout=15) as connection:
            connection.sendall(head)  # the head alone: the body would follow a 100 Continue
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
        if not data.startswith(b"HTTP/1.1 100"):
            break
    assert data.startswith(b"HTTP/1.1 429"), data[:200]
    assert b"\r\nRetry-After: " in data and b"at most 1 a second" in data, data
