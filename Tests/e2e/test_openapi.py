"""The OpenAPI document (Public/openapi.json) against the real server: it is a valid OpenAPI 3.1
document, the server serves it, and schemathesis, generating valid and invalid requests for every
operation from it, finds no 5xx and no reply the document does not describe (status code, content
type, headers, body schema), with and without a live session, and with and without an admin key."""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
import subprocess
import urllib.parse
import zlib

import jsonschema
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
from schemathesis.specs.openapi.checks import positive_data_acceptance, unsupported_method

from conftest import LATCHKEY_BIN, REPO, served
from softauthn import b64url
from test_http_api import assert_ok, register

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
# for unknown users, every /.well-known/ file, and App Attest (the /app-attest routes and the
# X-Latchkey-App-Attest header, verified when sent).
CONFIGURATIONS = {
    "defaults": {},
    "everything-on": {
        "LATCHKEY_CONFORMANCE_MODE": "true", "LATCHKEY_HIDE_UNKNOWN_USERS": "true",
        "LATCHKEY_APPLE_APP_LINKS": "ABCDE12345.com.example.app",
        "LATCHKEY_ANDROID_APPS": "com.example.app@" + ":".join(["AB"] * 32),
        "LATCHKEY_RELATED_ORIGINS": "https://other.example", "LATCHKEY_PASSKEY_ENROLL_URL": "https://localhost/enroll",
        "LATCHKEY_APPLE_APP_IDS": "ABCDE12345.com.example.app", "LATCHKEY_APP_ATTEST": "optional",
    },
}


APP_ID = "ABCDE12345.com.example.app"


def stand_in(*arguments, stdin: bytes) -> bytes:
    """`latchkey authenticator ARGUMENTS` (the software authenticators): stdin in, stdout out."""
    done = subprocess.run([str(LATCHKEY_BIN), "authenticator", *map(str, arguments)], input=stdin, capture_output=True,
                          cwd=str(REPO), timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def app_attest_on(server) -> bool:
    return server.env.get("LATCHKEY_APP_ATTEST", "off") != "off"


@pytest.fixture(scope="module", params=list(CONFIGURATIONS))
def api_server(request, tmp_path_factory):
    environment = {"LATCHKEY_METRICS_TOKEN": METRICS_TOKEN, **CONFIGURATIONS[request.param]}
    if environment.get("LATCHKEY_APP_ATTEST", "off") != "off":
        # The stand-in's test CA, which the server must find when it starts: made by a first attest.
        folder = tmp_path_factory.mktemp("app-attest")
        stand_in("app-attest", "attest", "--key", folder / "first.json", "--ca", folder / "ca", "--app-id", APP_ID,
                 stdin=b'{"challenge":"AAAA"}')
        environment["LATCHKEY_APP_ATTEST_TEST_ROOTS"] = str(folder / "ca")
    servers = served(f"openapi-{request.param}", environment)
    server = next(servers)
    try:
        server.admin_key = new_admin_key(server)
        ensure_user(server, EXAMPLE_USER, EXAMPLE_EXTERNAL_ID)
        yield server
    finally:
        next(servers, None)  # stops and removes the server


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


# Cases of admin operations carry this bearer token until they are sent; each then gets the server's
# admin key.
ADMIN = "admin-key"
# The user the document's examples name (`{username}`, `externalId`): it exists, without a passkey,
# whenever an admin case is sent (a case may have deleted it).
EXAMPLE_USER = load_document()["components"]["parameters"]["Username"]["example"]
EXAMPLE_EXTERNAL_ID = next(parameter["example"] for parameter in load_document()["paths"]["/admin/v1/users"]["get"]["parameters"]
                           if parameter.get("name") == "externalId")


def new_admin_key(server) -> str:
    """A new admin key in the server's store, made as an operator makes one."""
    made = subprocess.run([str(LATCHKEY_BIN), "admin-keys", "create", "--name", "schemathesis"], cwd=str(REPO), env=server.env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=True)
    key = made.stdout.strip()
    assert key.startswith("lk_admin_") and len(key) == len("lk_admin_") + 43, made.stdout
    return key


def admin(server, method: str, path: str, body=None) -> requests.Response:
    return requests.request(method, server.url + "/admin/v1" + path, json=body,
                            headers={"Authorization": f"Bearer {server.admin_key}"}, timeout=15)


def ensure_user(server, username: str, external_id: str | None = None) -> None:
    """`username` exists (made through the admin API, without a passkey) when it is a valid name and
    free, with `external_id` when that is valid and free."""
    reply = admin(server, "POST", "/users", {"username": username, "externalId": external_id})
    assert reply.status_code in (201, 400, 409), reply.text


def chosen(value: str) -> bool:
    """Half of the values, always the same half."""
    return zlib.crc32(value.encode("utf-8", "surrogatepass")) % 2 == 0


def ensure_passkey(server, username: str, credential_id: str) -> None:
    """`username` has a passkey with this ID (registered with an enrollment ticket) when the user
    exists and the ID is canonical base64url of 1 to 1023 bytes that no other passkey has."""
    try:
        raw = base64.urlsafe_b64decode(credential_id + "=" * (-len(credential_id) % 4))
    except (ValueError, binascii.Error):
        return
    if not 1 <= len(raw) <= 1023 or b64url(raw) != credential_id:
        return
    issued = admin(server, "POST", f"/users/{urllib.parse.quote(username, safe='')}/enrollment-tickets")
    if issued.status_code != 201:
        return
    client = server.client()
    options = assert_ok(client.post("/attestation/options", {"enrollmentTicket": issued.json()["ticket"]}))
    registered = client.post("/attestation/result", server.authenticator().create(options, credential_id=raw))
    assert registered.status_code in (200, 409), registered.text


def with_admin_key(case, server) -> None:
    """Gives an admin case the server's key and makes what it names exist for half of the values
    drawn: the user, the user with an `externalId`, the user's passkey. The case itself is left as
    generated (changing its parameters would make schemathesis judge it again)."""
    case.headers["Authorization"] = f"Bearer {server.admin_key}"
    ensure_user(server, EXAMPLE_USER, EXAMPLE_EXTERNAL_ID)
    external_id = (case.query or {}).get("externalId")
    if isinstance(external_id, str) and external_id and chosen(external_id):
        ensure_user(server, f"external-{zlib.crc32(external_id.encode('utf-8', 'surrogatepass')):08x}", external_id)
    # Path parameters are percent-encoded by now.
    parameters = {name: urllib.parse.unquote(value) for name, value in (case.path_parameters or {}).items() if isinstance(value, str)}
    username = parameters.get("username")
    if username is None or (username != EXAMPLE_USER and not chosen(username)):
        return
    ensure_user(server, username)
    if "id" in parameters and chosen(parameters["id"]):
        ensure_passkey(server, username, parameters["id"])


class BearerToken:
    """Sets `Authorization: Bearer`, so schemathesis knows the case is authenticated and checks that
    the operation refuses it without the token and with a wrong one."""

    token = ""

    def get(self, case, context):
        return self.token

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schema.auth(refresh_interval=None).apply_to(path_regex=r"^/(session|credentials|account|device-keys(/options|/\{keyId\})?$)")
class SessionToken(BearerToken):
    token = SIGNED_IN


@schema.auth(refresh_interval=None).apply_to(path="/metrics")
class MetricsToken(BearerToken):
    token = METRICS_TOKEN


@schema.auth(refresh_interval=None).apply_to(path_regex="^/admin/")
class AdminKey(BearerToken):
    token = ADMIN


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_reply_conforms_to_the_document(case, api_server):
    # Every case may sign out or delete its account: each gets its own user.
    if (case.headers or {}).get("Authorization") == f"Bearer {SIGNED_IN}":
        case.headers["Authorization"] = f"Bearer {new_session(api_server)}"
    # Every admin case gets the key; many name a user that exists.
    if (case.headers or {}).get("Authorization") == f"Bearer {ADMIN}":
        with_admin_key(case, api_server)
    # Not positive_data_acceptance: names are bounded in UTF-8 bytes and normalised to NFC, which a
    # JSON Schema cannot say, so some schema-valid names are rightly refused with 400.
    excluded = [positive_data_acceptance]
    # With appAttest off (the defaults) nothing is served under /app-attest/: every method there is
    # the 404 the document gives for that case, not a 405 for the methods it does not list.
    if case.path.startswith("/app-attest/") and not app_attest_on(api_server):
        excluded.append(unsupported_method)
    case.call_and_validate(base_url=api_server.url, excluded_checks=excluded)


def conforms(reply: requests.Response, status: int, schema_name: str) -> dict:
    """The reply has `status` and a body of the document's schema `schema_name`."""
    assert reply.status_code == status, reply.text
    body = reply.json()
    jsonschema.Draft202012Validator({**load_document(), "$ref": f"#/components/schemas/{schema_name}"}).validate(body)
    return body


def token_part(token: str, index: int) -> dict:
    part = token.split(".")[index]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_successful_ceremonies_conform_to_the_document(api_server):
    """What schemathesis cannot reach, as real passkeys do: a registration under an enrollment
    ticket and a sign-in, with their sign-in tokens, and the user as the admin API then shows it."""
    username = "ceremony-" + secrets.token_hex(4)
    made = conforms(admin(api_server, "POST", "/users", {"username": username, "externalId": "ext-" + username}), 201, "AdminUserReply")
    issued = conforms(admin(api_server, "POST", f"/users/{username}/enrollment-tickets", {"expiresIn": 60}), 201, "EnrollmentTicketReply")
    auth = api_server.authenticator()
    client = api_server.client()
    options = conforms(client.post("/attestation/options", {"enrollmentTicket": issued["ticket"]}), 200, "CreationOptions")
    registered = conforms(client.post("/attestation/result", auth.create(options)), 200, "RegistrationReply")
    assert registered["sessionToken"]
    options = conforms(client.post("/assertion/options", {"username": username}), 200, "RequestOptions")
    signed_in = conforms(client.post("/assertion/result", auth.get(options)), 200, "SignInReply")

    keys = conforms(requests.get(api_server.url + "/.well-known/jwks.json", timeout=5), 200, "JSONWebKeySet")["keys"]
    for reply in (registered, signed_in):
        header, claims = token_part(reply["idToken"], 0), token_part(reply["idToken"], 1)
        assert header["alg"] == "ES256" and header["typ"] == "JWT" and header["kid"] in [key["kid"] for key in keys]
        assert (claims["sub"], claims["preferred_username"], claims["ext_id"], claims["cred"]) == (
            made["user"]["userHandle"], username, "ext-" + username, reply["credentialId"])
        assert "pop" in claims["amr"] and claims["exp"] > claims["iat"] >= claims["auth_time"]
    shown = conforms(admin(api_server, "GET", f"/users/{username.upper()}"), 200, "AdminUserReply")["user"]
    assert shown["passkeys"] == 1 and shown["lastSignInAt"] is not None
    listed = conforms(admin(api_server, "GET", f"/users/{username}/credentials"), 200, "AdminCredentialList")
    assert [passkey["id"] for passkey in listed["credentials"]] == [registered["credentialId"]]


def test_app_attest_replies_conform_to_the_document(api_server, tmp_path):
    """What schemathesis cannot reach, with the software stand-in (whose test CA the server trusts):
    an attested key and its assertions, and a device key enrolled with an enrollment ticket under an
    assertion, signed in with, listed and renamed."""
    client = api_server.client()
    if not app_attest_on(api_server):
        conforms(client.post("/app-attest/challenge"), 404, "Failure")
        return
    ca, key = api_server.env["LATCHKEY_APP_ATTEST_TEST_ROOTS"], tmp_path / "app-attest-key.json"

    def asserted(body: dict, challenge: str, header_file=None) -> bytes:
        extra = ("--header-file", header_file) if header_file else ()
        return stand_in("app-attest", "assert", "--key", key, f"--challenge={challenge}", *extra, stdin=json.dumps(body).encode())

    def gate(body: dict) -> tuple[bytes, dict]:
        """The body to send (with a fresh appAttestChallenge) and the header that vouches for it."""
        challenge = conforms(client.post("/app-attest/challenge"), 200, "AppAttestChallenge")["challenge"]
        sent = asserted(body, challenge, tmp_path / "header")
        name, value = (tmp_path / "header").read_text().strip().split(": ", 1)
        return sent, {name: value}

    issued = conforms(client.post("/app-attest/challenge"), 200, "AppAttestChallenge")
    attestation = stand_in("app-attest", "attest", "--key", key, "--ca", ca, "--app-id", APP_ID, "--environment", "production",
                           stdin=json.dumps(issued).encode())
    attested = conforms(client.post("/app-attest/keys", raw=attestation), 201, "AppAttestKeyReply")
    assert (attested["appId"], attested["environment"]) == (APP_ID, "production")
    challenge = conforms(client.post("/app-attest/challenge"), 200, "AppAttestChallenge")["challenge"]
    checked = conforms(client.post("/app-attest/assertions", raw=asserted({"purpose": "check"}, challenge)), 200, "AppAttestAssertionReply")
    assert (checked["keyId"], checked["counter"]) == (attested["keyId"], 1)
    stranger = {"keyId": b64url(secrets.token_bytes(32)), "assertion": "oA", "clientData": b64url(
        json.dumps({"appAttestChallenge": conforms(client.post("/app-attest/challenge"), 200, "AppAttestChallenge")["challenge"]}).encode())}
    unknown = conforms(client.post("/app-attest/assertions", stranger), 400, "Failure")
    assert (unknown["reason"], unknown["credentialId"]) == ("unknownAppAttestKey", stranger["keyId"])

    # A device key for a user the backend made, with an enrollment ticket and an assertion.
    username = "device-" + secrets.token_hex(4)
    conforms(admin(api_server, "POST", "/users", {"username": username}), 201, "AdminUserReply")
    ticket = conforms(admin(api_server, "POST", f"/users/{username}/enrollment-tickets"), 201, "EnrollmentTicketReply")["ticket"]
    options = conforms(client.post("/device-keys/options", {"enrollmentTicket": ticket}), 200, "DeviceKeyOptions")
    enrolment = json.loads(stand_in("device-key", "enrol", "--key", tmp_path / "device.pem", stdin=json.dumps(options).encode()))
    sent, header = gate({**enrolment, "name": "Test iPhone"})
    key_id = conforms(client.post("/device-keys", raw=sent, headers=header), 201, "DeviceKeyEnrolled")["keyId"]
    options = conforms(client.post("/device-keys/sign-in/options", {"keyId": key_id}), 200, "DeviceKeyOptions")
    sent, header = gate(json.loads(stand_in("device-key", "sign-in", "--key", tmp_path / "device.pem", stdin=json.dumps(options).encode())))
    signed_in = conforms(client.post("/device-keys/sign-in", raw=sent, headers=header), 200, "SignInReply")
    bearer = {"Authorization": f"Bearer {signed_in['sessionToken']}"}
    listed = conforms(client.get("/credentials", headers=bearer), 200, "CredentialList")
    assert [(k["keyId"], k["name"], k["appAttested"]) for k in listed["deviceKeys"]] == [(key_id, "Test iPhone", True)]
    renamed = conforms(client.patch(f"/device-keys/{key_id}", {"name": ""}, headers=bearer), 200, "DeviceKeyReply")
    assert renamed["deviceKey"]["name"] is None


@pytest.mark.parametrize("path", ["/session", "/credentials", "/healthz"])
def test_a_request_that_is_not_well_formed_http_gets_the_documented_400(api_server, path):
    """Any operation may be sent a request that is not well-formed HTTP (schemathesis sends a random
    `Content-Length` now and then): the document gives it 400 with the usual failure body."""
    reply = requests.get(api_server.url + path, headers={"Content-Length": "hG#"}, timeout=10)
    body = conforms(reply, 400, "Failure")
    assert body["errorMessage"] == "malformed HTTP request", body
    operation = load_document()["paths"][path]["get"]
    assert operation["responses"]["400"] == {"$ref": "#/components/responses/BadRequest"}


def test_the_server_survived(api_server):
    api_server.assert_alive()
    logs = api_server.logs(limit=10_000_000)
    # What the server logs when it answers 500.
    for failure in ("unexpected error", "store failure", "cryptography failure"):
        assert failure not in logs, logs[-5000:]
