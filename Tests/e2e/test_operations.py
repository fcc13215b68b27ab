"""Operations against the real binary: health checks, request IDs kept only from a trusted proxy,
and JSON log lines that carry the request ID."""
from __future__ import annotations

import json
import re

import requests

from test_http_api import assert_ok, new_username, register


def test_health_and_readiness(server):
    assert assert_ok(requests.get(server.url + "/healthz", timeout=5)) == {"status": "ok", "errorMessage": ""}
    assert_ok(requests.get(server.url + "/readyz", timeout=5))


def test_request_ids_are_new_unless_a_trusted_proxy_sent_one(server_factory):
    untrusted = server_factory("untrusted-proxy")
    r = requests.get(untrusted.url + "/healthz", headers={"X-Request-ID": "from-the-client"}, timeout=5)
    assert re.fullmatch(r"[0-9a-f]{32}", r.headers["X-Request-ID"]), r.headers

    proxied = server_factory("trusted-proxy", {"LATCHKEY_TRUSTED_PROXIES": "127.0.0.1,::1"})
    r = requests.get(proxied.url + "/healthz", headers={"X-Request-ID": "lb-7f3a.1"}, timeout=5)
    assert r.headers["X-Request-ID"] == "lb-7f3a.1"
    forged = requests.get(proxied.url + "/healthz", headers={"X-Request-ID": "a\" level=critical"}, timeout=5)
    assert re.fullmatch(r"[0-9a-f]{32}", forged.headers["X-Request-ID"]), "a malformed ID is replaced"


def test_json_logs_are_one_object_per_line_with_the_request_id(server_factory):
    server = server_factory("json-logs", {"LATCHKEY_LOG_FORMAT": "json"})
    auth = server.authenticator()
    username = new_username()
    client, _, _, result = register(server, auth, username)
    r = client.post("/assertion/options", {"username": username})
    request_id = r.headers["X-Request-ID"]
    refused = client.post("/assertion/options", {"username": "nobody-" + username})
    server.stop()
    lines = server.stderr_path.read_text().splitlines()
    events = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "label", "message"} <= set(e) for e in events), lines[:3]
    assert any(e["message"] == "starting" for e in events)
    registered = [e for e in events if e["message"] == "passkey registered"]
    assert len(registered) == 1 and re.fullmatch(r"[0-9a-f]{32}", registered[0]["requestID"]), registered
    # Names and messages are their own characters in JSON (they were quoted a second time: "\"alice\"").
    assert registered[0]["user"] == username, registered
    refusals = [e for e in events if e["message"] == "request refused" and e.get("route") == "/assertion/options"]
    assert [e["errorMessage"] for e in refusals] == [refused.json()["errorMessage"]], refusals
    assert result["sessionToken"] not in server.stderr_path.read_text(), "no session token in the logs"
    # At info the options request logs nothing, so the reply's ID must simply be well formed.
    assert re.fullmatch(r"[0-9a-f]{32}", request_id)
