"""The OpenAPI document (Public/openapi.json) against the real server: it is a valid OpenAPI 3.1
document, the server serves it, and schemathesis, generating valid and invalid requests for every
operation from it, finds no 5xx and no reply the document does not describe (status code, content
type, headers, body schema), with and without a live session."""

from __future__ import annotations

import json
import os
import secrets

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
from schemathesis.specs.openapi.checks import positive_data_acceptance

from conftest import REPO, served
from test_http_api import register

DOCUMENT = REPO / "Public" / "openapi.json"
METRICS_TOKEN = "metrics-" + secrets.token_urlsafe(16)
# Examples per operation and generation mode; LATCHKEY_TEST_OPENAPI_EXAMPLES raises it for a longer run.
EXAMPLES = int(os.environ.get("LATCHKEY_TEST_OPENAPI_EXAMPLES", "30"))


def load_document() -> dict:
    return json.loads(DOCUMENT.read_text("utf-8"))


def test_the_document_is_valid_openapi_3_1():
    document = load_document()
    assert document["openapi"].startswith("3.1.")
    validate(document)
    # The validator can fail: a reply without its required description is refused.
    broken = load_document()
    broken["paths"]["/healthz"]["get"]["responses"]["200"] = {"content": {}}
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


# The defaults, and every optional reply on: conformance mode (CORS, echoed options), decoy options
# for unknown users, and every /.well-known/ file.
CONFIGURATIONS = {
    "defaults": {},
    "everything-on": {
        "LATCHKEY_CONFORMANCE_MODE": "true", "LATCHKEY_HIDE_UNKNOWN_USERS": "true",
        "LATCHKEY_APPLE_APP_LINKS": "ABCDE12345.com.example.app",
        "LATCHKEY_ANDROID_APPS": "com.example.app@" + ":".join(["AB"] * 32),
        "LATCHKEY_RELATED_ORIGINS": "https://other.example", "LATCHKEY_PASSKEY_ENROLL_URL": "https://localhost/enroll",
    },
}


@pytest.fixture(scope="module", params=list(CONFIGURATIONS))
def api_server(request):
    yield from served(f"openapi-{request.param}", {"LATCHKEY_METRICS_TOKEN": METRICS_TOKEN, **CONFIGURATIONS[request.param]})


def test_the_server_serves_the_document(api_server):
    reply = requests.get(api_server.url + "/openapi.json", timeout=5)
    assert reply.status_code == 200
    assert reply.headers["Content-Type"].startswith("application/json")
    assert reply.json() == load_document()


# Loaded from the file, which the server serves as it is (test_the_server_serves_the_document): one
# test per operation, sent to the server the fixture started.
schema = schemathesis.openapi.from_path(DOCUMENT)
# Cases of signed-in operations carry this bearer token until they are sent (schemathesis makes some
# cases before any server runs); each is then given a fresh user's session.
SIGNED_IN = "signed-in-user"


def new_session(server) -> str:
    """A fresh user with two passkeys, signed in: its session token."""
    auth = server.authenticator()
    client, _, _, first = register(server, auth)
    headers = {"Authorization": f"Bearer {first['sessionToken']}"}
    second = client.post("/attestation/options", {"username": first["username"]}, headers=headers).json()
    assert client.post("/attestation/result", auth.create(second)).status_code == 200
    return first["sessionToken"]


class BearerToken:
    """Sets `Authorization: Bearer`, so schemathesis knows the case is authenticated and checks that
    the operation refuses it without the token and with a wrong one."""

    token = ""

    def get(self, case, context):
        return self.token

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schema.auth(refresh_interval=None).apply_to(path_regex="^/(session|credentials|account)")
class SessionToken(BearerToken):
    token = SIGNED_IN


@schema.auth(refresh_interval=None).apply_to(path="/metrics")
class MetricsToken(BearerToken):
    token = METRICS_TOKEN


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_reply_conforms_to_the_document(case, api_server):
    # Every case may sign out or delete its account: each gets its own user.
    if (case.headers or {}).get("Authorization") == f"Bearer {SIGNED_IN}":
        case.headers["Authorization"] = f"Bearer {new_session(api_server)}"
    # Not positive_data_acceptance: names are bounded in UTF-8 bytes and normalised to NFC, which a
    # JSON Schema cannot say, so some schema-valid names are rightly refused with 400.
    case.call_and_validate(base_url=api_server.url, excluded_checks=[positive_data_acceptance])


def test_the_server_survived(api_server):
    api_server.assert_alive()
    logs = api_server.logs(limit=10_000_000)
    # What the server logs when it answers 500.
    for failure in ("unexpected error", "store failure", "cryptography failure"):
        assert failure not in logs, logs[-5000:]
