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

from conftest import REPO, served
from test_http_api import register

DOCUMENT = REPO / "Public" / "openapi.json"
METRICS_TOKEN = "metrics-" + secrets.token_urlsafe(16)
# Examples per operation and generation mode; LATCHKEY_OPENAPI_EXAMPLES raises it for a longer run.
EXAMPLES = int(os.environ.get("LATCHKEY_OPENAPI_EXAMPLES", "40"))
SIGNED_IN = {"sessionCookie", "bearerToken"}


def load_document() -> dict:
    return json.loads(DOCUMENT.read_text("utf-8"))


def test_the_document_is_valid_openapi_3_1():
    document = load_document()
    assert document["openapi"].startswith("3.1.")
    validate(document)
    # The validator can fail: a document with an undefined reference is refused.
    broken = load_document()
    broken["paths"]["/healthz"]["get"]["responses"]["200"] = {"$ref": "#/components/responses/Missing"}
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


@pytest.fixture(scope="module")
def api_server():
    yield from served("openapi", {"LATCHKEY_METRICS_TOKEN": METRICS_TOKEN})


def test_the_server_serves_the_document(api_server):
    reply = requests.get(api_server.url + "/openapi.json", timeout=5)
    assert reply.status_code == 200
    assert reply.headers["Content-Type"].startswith("application/json")
    assert reply.json() == load_document()


@pytest.fixture(scope="module")
def api_schema(api_server):
    schema = schemathesis.openapi.from_url(api_server.url + "/openapi.json")
    schema.config.update(base_url=api_server.url)
    return schema


class Sessions:
    """Fresh signed-in users for the operations that need one: each case may end its session or
    delete its account, so every case gets its own user, with two passkeys."""

    def __init__(self, server):
        self.server = server

    def new_bearer(self) -> str:
        auth = self.server.authenticator()
        client, _, _, first = register(self.server, auth)
        headers = {"Authorization": f"Bearer {first['sessionToken']}"}
        second = client.post("/attestation/options", {"username": first["username"]}, headers=headers).json()
        assert client.post("/attestation/result", auth.create(second)).status_code == 200
        return first["sessionToken"]


def needs_session(case) -> bool:
    security = case.operation.definition.raw.get("security", [])
    return any(SIGNED_IN & set(requirement) for requirement in security) and not any(
        requirement == {} for requirement in security)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_reply_conforms_to_the_document(case, api_server):
    headers = None
    if case.operation.path == "/metrics":
        headers = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    elif needs_session(case) and (case.headers or {}).get("Authorization") is None:
        headers = {"Authorization": f"Bearer {Sessions(api_server).new_bearer()}"}
    case.call_and_validate(headers=headers)


def test_the_server_survived(api_server):
    api_server.assert_alive()
    logs = api_server.logs(limit=10_000_000)
    assert "internal error" not in logs and "unexpected error" not in logs, logs[-5000:]
