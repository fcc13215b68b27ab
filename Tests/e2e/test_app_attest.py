"""App Attest against the real binary. The "device" here is built with `cryptography` from Apple's
description of App Attest ("Validating apps that connect to your server"), not from Latchkey's code:
a test CA stands in for Apple's App Attestation root (trusted through `appAttestTestRoots`), and
each key is attested once, then vouches for requests with assertions, each counter accepted once.

The real device samples (and their negative variants) are checked by the core's vector tests
(Tests/WebAuthnTests/AppAttestVectorTests.swift); here the server's flow is: challenges, the
`X-Latchkey-App-Attest` gate with `appAttest: required`, counters under racing requests, and the
software stand-in `latchkey authenticator app-attest`."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import subprocess
import threading
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from backend import Backend, create_admin_key
from conftest import LATCHKEY_BIN, REPO, served
from softauthn import b64url, b64url_decode, cbor_encode, cose_ec2_public_key
from test_device_keys import DeviceKey
from test_http_api import assert_failed, assert_ok

APP_ID = "ABCDE12345.com.example.app"
OTHER_APP_ID = "ZZZZZ99999.com.example.other"
DEVELOPMENT = b"appattestdevelop"
PRODUCTION = b"appattest" + bytes(7)


def name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


class StandInCA:
    """A root and an intermediate, as Apple's App Attestation Root CA and CA 1."""

    def __init__(self):
        now = datetime.datetime.now(datetime.timezone.utc)
        self.root_key = ec.generate_private_key(ec.SECP384R1())
        self.root = self._issue(self.root_key.public_key(), "Test App Attestation Root CA", None, self.root_key, True, now)
        self.key = ec.generate_private_key(ec.SECP384R1())
        self.intermediate = self._issue(self.key.public_key(), "Test App Attestation CA 1", self.root, self.root_key, True, now)

    @staticmethod
    def _issue(public_key, common_name, issuer, issuer_key, is_ca, now, extensions=()):
        builder = (x509.CertificateBuilder().subject_name(name(common_name))
                   .issuer_name(issuer.subject if issuer is not None else name(common_name))
                   .public_key(public_key).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True))
        for extension in extensions:
            builder = builder.add_extension(extension, critical=False)
        return builder.sign(issuer_key, hashes.SHA256())

    def leaf(self, public_key, nonce: bytes) -> x509.Certificate:
        # The nonce extension: SEQUENCE { [1] EXPLICIT OCTET STRING nonce }.
        value = b"\x30\x24\xa1\x22\x04\x20" + nonce
        extension = x509.UnrecognizedExtension(x509.ObjectIdentifier("1.2.840.113635.100.8.2"), value)
        now = datetime.datetime.now(datetime.timezone.utc)
        return self._issue(public_key, "leaf", self.intermediate, self.key, False, now, [extension])


class AppAttestKey:
    """One app's attested key, with the knobs a negative test turns."""

    def __init__(self, ca: StandInCA, app_id: str = APP_ID):
        self.ca = ca
        self.app_id = app_id
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.point = self.private.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.key_id = hashlib.sha256(self.point).digest()
        self.counter = 0

    def attestation(self, challenge: bytes, *, aaguid=DEVELOPMENT, counter=0, app_id=None, key_id=None, client_data_hash=None) -> bytes:
        key_id = key_id or self.key_id
        auth_data = (hashlib.sha256((app_id or self.app_id).encode()).digest() + bytes([0x40]) + counter.to_bytes(4, "big")
                     + aaguid + len(key_id).to_bytes(2, "big") + key_id + cose_ec2_public_key(self.private.public_key()))
        nonce = hashlib.sha256(auth_data + (client_data_hash or hashlib.sha256(challenge).digest())).digest()
        leaf = self.ca.leaf(self.private.public_key(), nonce)
        return cbor_encode({
            "fmt": "apple-appattest",
            "attStmt": {"x5c": [leaf.public_bytes(serialization.Encoding.DER), self.ca.intermediate.public_bytes(serialization.Encoding.DER)],
                        "receipt": b"test receipt"},
            "authData": auth_data,
        })

    def assertion(self, client_data: bytes, *, counter=None, app_id=None, signer=None) -> bytes:
        if counter is None:
            self.counter += 1
            counter = self.counter
        auth_data = hashlib.sha256((app_id or self.app_id).encode()).digest() + bytes([0x40]) + counter.to_bytes(4, "big")
        nonce = hashlib.sha256(auth_data + hashlib.sha256(client_data).digest()).digest()
        signature = (signer or self.private).sign(nonce, ec.ECDSA(hashes.SHA256()))
        return cbor_encode({"signature": signature, "authenticatorData": auth_data})

    def header(self, body: bytes, **kwargs) -> dict:
        return {"X-Latchkey-App-Attest": b64url(self.key_id) + "." + b64url(self.assertion(body, **kwargs))}


def challenge(server) -> str:
    return assert_ok(server.client().post("/app-attest/challenge"))["challenge"]


def attest(server, key: AppAttestKey, **kwargs):
    issued = challenge(server)
    return server.client().post("/app-attest/keys", {
        "keyId": b64url(key.key_id), "attestationObject": b64url(key.attestation(b64url_decode(issued), **kwargs)), "challenge": issued})


def signed_body(server, members: dict) -> bytes:
    return json.dumps({**members, "appAttestChallenge": challenge(server)}).encode()


@pytest.fixture(scope="module")
def ca():
    return StandInCA()


def settings(ca_folder: Path, requirement: str, environment: str = "both") -> dict:
    return {"LATCHKEY_APPLE_APP_IDS": APP_ID, "LATCHKEY_APP_ATTEST": requirement, "LATCHKEY_APP_ATTEST_ENVIRONMENT": environment,
            "LATCHKEY_APP_ATTEST_TEST_ROOTS": str(ca_folder)}


@pytest.fixture(scope="module")
def ca_folder(ca, tmp_path_factory):
    folder = tmp_path_factory.mktemp("app-attest-roots")
    (folder / "root.pem").write_bytes(ca.root.public_bytes(serialization.Encoding.PEM))
    return folder


@pytest.fixture(scope="module")
def required_server(ca_folder):
    yield from served("app-attest-required", settings(ca_folder, "required"))


def test_a_registration_needs_an_attested_key_and_a_fresh_assertion_over_its_body(required_server, ca):
    server = required_server
    client = server.client()
    refused = assert_failed(client.post("/attestation/options", {"username": "alice"}), server, codes=(403,))
    assert "App Attest" in refused["errorMessage"], refused

    key = AppAttestKey(ca)
    attested = attest(server, key)
    assert attested.status_code == 201, attested.text
    assert attested.json()["keyId"] == b64url(key.key_id) and attested.json()["appId"] == APP_ID
    assert attested.json()["environment"] == "development"

    body = signed_body(server, {"username": "alice"})
    headers = key.header(body)
    options = assert_ok(client.post("/attestation/options", raw=body, headers=headers))
    assert options["user"]["name"] == "alice"
    credential = server.authenticator().create(options)
    assert_ok(client.post("/attestation/result", credential))

    # The same request again: its challenge is spent.
    replayed = assert_failed(server.client().post("/attestation/options", raw=body, headers=headers), server, codes=(400,))
    assert "appAttestChallenge" in replayed["errorMessage"], replayed
    # Another body under the same assertion: the signature covers the exact bytes.
    body = signed_body(server, {"username": "bob"})
    header = key.header(body)
    tampered = body.replace(b'"bob"', b'"eve"')
    assert_failed(client.post("/attestation/options", raw=tampered, headers=header), server, codes=(400,))
    # Without appAttestChallenge in the body, or with a header that is not KEYID.ASSERTION.
    bare = json.dumps({"username": "carol"}).encode()
    assert "appAttestChallenge" in assert_failed(client.post("/attestation/options", raw=bare, headers=key.header(bare)), server)["errorMessage"]
    assert_failed(client.post("/attestation/options", raw=bare, headers={"X-Latchkey-App-Attest": "nonsense"}), server, codes=(400,))
    # A key ID and a dot with no assertion, and an assertion that is not CBOR: each says which.
    key_id = key.header(bare)["X-Latchkey-App-Attest"].split(".")[0]
    empty = assert_failed(client.post("/attestation/options", raw=bare, headers={"X-Latchkey-App-Attest": key_id + "."}), server, codes=(400,))
    assert "has no assertion after the key ID" in empty["errorMessage"], empty
    carrying = signed_body(server, {"username": "dave"})
    garbage = assert_failed(client.post("/attestation/options", raw=carrying, headers={"X-Latchkey-App-Attest": key_id + ".AAAA"}), server, codes=(400,))
    assert garbage["errorMessage"].startswith("App Attest assertion: "), garbage


def test_attestations_are_refused_for_each_broken_step(required_server, ca, tmp_path):
    server = required_server
    variants = {
        "another challenge": dict(client_data_hash=hashlib.sha256(b"another challenge").digest()),
        "an app not configured": dict(app_id=OTHER_APP_ID),
        "a counter other than 0": dict(counter=1),
        "an unknown AAGUID": dict(aaguid=b"somethingelse!!!"),
        "a key ID that is not the key's hash": dict(key_id=hashlib.sha256(b"other").digest()),
    }
    for label, mutation in variants.items():
        reply = attest(server, AppAttestKey(ca), **mutation)
        assert reply.status_code == 400, f"{label}: {reply.status_code} {reply.text}"
        assert_failed(reply, server)
    # A chain to a root the server does not trust.
    stranger = AppAttestKey(StandInCA())
    assert_failed(attest(server, stranger), server, codes=(400,))
    # A challenge is spent by its first use; a key is attested once.
    key = AppAttestKey(ca)
    issued = challenge(server)
    body = {"keyId": b64url(key.key_id), "attestationObject": b64url(key.attestation(b64url_decode(issued))), "challenge": issued}
    assert server.client().post("/app-attest/keys", body).status_code == 201
    assert_failed(server.client().post("/app-attest/keys", body), server, codes=(400,))
    assert_failed(attest(server, key), server, codes=(409,))
    # The key ID as DCAppAttestService returns it, in standard base64, is taken too.
    other = AppAttestKey(ca)
    issued = challenge(server)
    standard = {"keyId": base64.b64encode(other.key_id).decode(), "attestationObject": b64url(other.attestation(b64url_decode(issued))),
                "challenge": issued}
    assert server.client().post("/app-attest/keys", standard).status_code == 201


def test_a_production_only_server_refuses_development_keys(server_factory, ca, ca_folder):
    server = server_factory("app-attest-production", settings(ca_folder, "optional", environment="production"))
    refused = assert_failed(attest(server, AppAttestKey(ca)), server, codes=(400,))
    assert "development" in refused["errorMessage"], refused
    assert attest(server, AppAttestKey(ca), aaguid=PRODUCTION).status_code == 201
    # Optional: a request without an assertion is served.
    assert_ok(server.client().post("/attestation/options", {"username": "dave"}))


def test_assertions_are_refused_for_another_key_app_or_an_old_counter(required_server, ca):
    server = required_server
    key = AppAttestKey(ca)
    assert attest(server, key).status_code == 201

    def assertion(**kwargs):
        client_data = signed_body(server, {"purpose": "payment"})
        return server.client().post("/app-attest/assertions", {
            "keyId": b64url(key.key_id), "assertion": b64url(key.assertion(client_data, **kwargs)), "clientData": b64url(client_data)})

    accepted = assert_ok(assertion())
    assert accepted["counter"] == 1 and accepted["appId"] == APP_ID
    assert "signature" in assert_failed(assertion(signer=ec.generate_private_key(ec.SECP256R1())), server, codes=(400,))["errorMessage"]
    assert "RP ID" in assert_failed(assertion(app_id=OTHER_APP_ID), server, codes=(400,))["errorMessage"]
    assert "counter 1 was accepted before" in assert_failed(assertion(counter=1), server, codes=(400,))["errorMessage"]
    assert assert_ok(assertion(counter=7))["counter"] == 7
    # Below the highest but never accepted (sent at once, arrived later): accepted once; the highest stays.
    assert assert_ok(assertion(counter=5))["counter"] == 5
    assert "counter 5 was accepted before" in assert_failed(assertion(counter=5), server, codes=(400,))["errorMessage"]
    assert assert_ok(assertion(counter=100))["counter"] == 100
    too_old = assert_failed(assertion(counter=36), server, codes=(400,))["errorMessage"]
    assert "counter 36 is 64 or more below the highest accepted, 100" in too_old

    never = AppAttestKey(ca)
    client_data = signed_body(server, {})
    unknown = server.client().post("/app-attest/assertions", {
        "keyId": b64url(never.key_id), "assertion": b64url(never.assertion(client_data)), "clientData": b64url(client_data)})
    assert unknown.status_code == 400 and unknown.json()["reason"] == "unknownAppAttestKey", unknown.text
    # The signed client data is read as strictly as a request body: one challenge, and a wrong type named.
    twice = (b'{"appAttestChallenge":"' + challenge(server).encode() + b'","appAttestChallenge":"'
             + challenge(server).encode() + b'"}')
    refused = server.client().post("/app-attest/assertions", {
        "keyId": b64url(key.key_id), "assertion": b64url(key.assertion(twice)), "clientData": b64url(twice)})
    assert refused.status_code == 400 and "more than once" in refused.json()["errorMessage"], refused.text
    number = b'{"appAttestChallenge":5}'
    refused = server.client().post("/app-attest/assertions", {
        "keyId": b64url(key.key_id), "assertion": b64url(key.assertion(number)), "clientData": b64url(number)})
    assert refused.status_code == 400 and "appAttestChallenge must be a string" in refused.json()["errorMessage"], refused.text


def test_assertions_sent_at_once_with_their_own_counters_are_all_accepted(required_server, ca):
    """An app sending ten gated requests at once: the Secure Enclave numbers them n+1...n+10, and they reach
    the server in any order. Each is accepted once (it was 4 or 5 of 10 when the counter had to rise)."""
    server = required_server
    key = AppAttestKey(ca)
    assert attest(server, key).status_code == 201
    assert_ok(server.client().post("/app-attest/assertions", {
        "keyId": b64url(key.key_id), "assertion": b64url(key.assertion(client_data := signed_body(server, {}))),
        "clientData": b64url(client_data)}))
    bodies = []
    for _ in range(10):
        client_data = signed_body(server, {"parallel": True})
        bodies.append({"keyId": b64url(key.key_id), "assertion": b64url(key.assertion(client_data)), "clientData": b64url(client_data)})
    replies: list = []
    barrier = threading.Barrier(len(bodies))

    def send(body):
        client = server.client()
        barrier.wait()
        replies.append(client.post("/app-attest/assertions", body))

    threads = [threading.Thread(target=send, args=(body,)) for body in reversed(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [reply.status_code for reply in replies] == [200] * 10, [reply.text for reply in replies if reply.status_code != 200]
    assert sorted(reply.json()["counter"] for reply in replies) == list(range(2, 12))
    # Each counter once: the same counters again, over new challenges, are all refused.
    for counter in (2, 6, 11):
        client_data = signed_body(server, {})
        again = server.client().post("/app-attest/assertions", {
            "keyId": b64url(key.key_id), "assertion": b64url(key.assertion(client_data, counter=counter)),
            "clientData": b64url(client_data)})
        assert again.status_code == 400 and f"counter {counter} was accepted before" in again.json()["errorMessage"], again.text
    server.assert_alive()


def test_of_racing_assertions_with_one_counter_exactly_one_wins(required_server, ca):
    server = required_server
    key = AppAttestKey(ca)
    assert attest(server, key).status_code == 201
    requests_ = []
    for _ in range(8):
        client_data = signed_body(server, {"race": True})
        requests_.append({"keyId": b64url(key.key_id), "assertion": b64url(key.assertion(client_data, counter=1)),
                          "clientData": b64url(client_data)})
    statuses: list[int] = []
    barrier = threading.Barrier(len(requests_))

    def send(body):
        client = server.client()
        barrier.wait()
        statuses.append(client.post("/app-attest/assertions", body).status_code)

    threads = [threading.Thread(target=send, args=(body,)) for body in requests_]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [400] * 7, statuses
    server.assert_alive()


def test_a_ticket_holder_enrols_an_attested_device_key_and_signs_in_with_it(required_server, ca):
    server = required_server
    backend = Backend(server.url, create_admin_key(server, "app-attest-backend"), server.url + "/.well-known/jwks.json",
                      issuer=server.url, audience="localhost")
    backend.create_user("erin")
    ticket = backend.ticket("erin")["ticket"]
    app = AppAttestKey(ca)
    assert attest(server, app).status_code == 201
    device = DeviceKey()

    options = assert_ok(server.client().post("/device-keys/options", {"enrollmentTicket": ticket}))
    enrolment = {"challenge": options["challenge"], "publicKey": b64url(device.point),
                 "signature": device.sign(1, options["rpId"], options["challenge"]), "name": "Erin's iPhone"}
    body = signed_body(server, enrolment)
    refused = assert_failed(server.client().post("/device-keys", raw=json.dumps(enrolment).encode()), server, codes=(403,))
    assert "App Attest" in refused["errorMessage"]
    # The refusal above spent the device-key challenge: ask again.
    options = assert_ok(server.client().post("/device-keys/options", {"enrollmentTicket": ticket}))
    enrolment.update(challenge=options["challenge"], signature=device.sign(1, options["rpId"], options["challenge"]))
    body = signed_body(server, enrolment)
    enrolled = server.client().post("/device-keys", raw=body, headers=app.header(body))
    assert enrolled.status_code == 201, enrolled.text
    # The ticket is spent.
    assert_failed(server.client().post("/device-keys/options", {"enrollmentTicket": ticket}), server, codes=(403,))

    options = assert_ok(server.client().post("/device-keys/sign-in/options", {"keyId": device.key_id}))
    attempt = {"keyId": device.key_id, "challenge": options["challenge"], "signature": device.sign(2, options["rpId"], options["challenge"])}
    body = signed_body(server, attempt)
    signed_in = assert_ok(server.client().post("/device-keys/sign-in", raw=body, headers=app.header(body)))
    assert signed_in["username"] == "erin"
    bearer = {"Authorization": f"Bearer {signed_in['sessionToken']}"}
    listed = assert_ok(server.client().get("/credentials", headers=bearer))
    assert listed["credentials"] == []
    assert [(k["kind"], k["keyId"], k["name"], k["appAttested"]) for k in listed["deviceKeys"]] == [
        ("deviceKey", device.key_id, "Erin's iPhone", True)]
    renamed = assert_ok(server.client().patch(f"/device-keys/{device.key_id}", {"name": "Old iPhone"}, headers=bearer))
    assert renamed["deviceKey"]["name"] == "Old iPhone"


def run(*arguments: str, stdin: bytes) -> bytes:
    done = subprocess.run([str(LATCHKEY_BIN), "authenticator", "app-attest", *arguments], input=stdin, capture_output=True,
                          cwd=str(REPO), timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def test_the_software_stand_in_attests_and_asserts(server_factory, tmp_path):
    ca_folder = tmp_path / "ca"
    # The CA is made on first use; the server needs its folder when it starts.
    run("attest", "--key", str(tmp_path / "first.json"), "--ca", str(ca_folder), "--app-id", APP_ID, stdin=b'{"challenge":"AAAA"}')
    server = server_factory("app-attest-stand-in", settings(ca_folder, "required"))
    client = server.client()

    issued = client.post("/app-attest/challenge").content
    attested = client.post("/app-attest/keys", raw=run("attest", "--key", str(tmp_path / "app.json"), "--ca", str(ca_folder),
                                                        "--app-id", APP_ID, stdin=issued))
    assert attested.status_code == 201, attested.text

    header_file = tmp_path / "header"
    body = run("assert", "--key", str(tmp_path / "app.json"), f"--challenge={challenge(server)}", "--header-file", str(header_file),
               stdin=b'{"username":"frank"}')
    name_, value = header_file.read_text().strip().split(": ", 1)
    assert name_ == "X-Latchkey-App-Attest"
    assert assert_ok(client.post("/attestation/options", raw=body, headers={name_: value}))["user"]["name"] == "frank"

    standalone = run("assert", "--key", str(tmp_path / "app.json"), f"--challenge={challenge(server)}", stdin=b'{"purpose":"payment"}')
    assert assert_ok(client.post("/app-attest/assertions", raw=standalone))["counter"] == 2
    # One challenge in 64 starts with "-": it is the option's value, written with a space too (it was exit 64).
    dashed = "-" + challenge(server)[1:]
    body = run("assert", "--key", str(tmp_path / "app.json"), "--challenge", dashed, stdin=b'{"purpose":"dash"}')
    client_data = json.loads(b64url_decode(json.loads(body)["clientData"]))
    assert client_data["appAttestChallenge"] == dashed
    # The key file was attested once; a second attest into it is refused.
    again = subprocess.run([str(LATCHKEY_BIN), "authenticator", "app-attest", "attest", "--key", str(tmp_path / "app.json"), "--ca",
                            str(ca_folder), "--app-id", APP_ID], input=issued, capture_output=True, timeout=60)
    assert again.returncode != 0 and b"attested once" in again.stderr
