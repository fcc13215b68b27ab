"""Several `latchkey serve` processes on one PostgreSQL, as behind a load balancer: a ceremony
started on one instance finishes on the other, each challenge is answered once even when two
instances race for it, and a passkey removed through one instance is unknown to the other at once
(its cache of parsed keys notwithstanding)."""
from __future__ import annotations

import threading

import requests

from softauthn import SoftAuthenticator, b64url_decode
from test_http_api import assert_failed, assert_ok, new_username
from test_postgres import postgres_url  # noqa: F401  (the fixture)

# One origin for both instances, as behind one load balancer.
ORIGIN = "http://localhost"


def two_instances(server_factory, database: str):
    env = {"LATCHKEY_DATABASE": database, "LATCHKEY_ORIGINS": ORIGIN}
    return server_factory("instance-a", env), server_factory("instance-b", env)


def test_a_ceremony_started_on_one_instance_finishes_on_the_other_once(server_factory, postgres_url):
    a, b = two_instances(server_factory, postgres_url)
    authenticator = SoftAuthenticator(origin=ORIGIN, rp_id="localhost")
    username = new_username()

    options = assert_ok(requests.post(a.url + "/attestation/options", json={"username": username}, timeout=10))
    credential = authenticator.create(options)
    registered = assert_ok(requests.post(b.url + "/attestation/result", json=credential, timeout=10))
    assert registered["username"] == username
    assert_failed(requests.post(a.url + "/attestation/result", json=credential, timeout=10), a, codes=(400,))

    # The session made on B is known on A at once.
    bearer = {"Authorization": f"Bearer {registered['sessionToken']}"}
    assert assert_ok(requests.get(a.url + "/session", headers=bearer, timeout=10))["username"] == username

    options = assert_ok(requests.post(b.url + "/assertion/options", json={"username": username}, timeout=10))
    assertion = authenticator.get(options)
    assert assert_ok(requests.post(a.url + "/assertion/result", json=assertion, timeout=10))["username"] == username
    assert_failed(requests.post(b.url + "/assertion/result", json=assertion, timeout=10), b, codes=(400,))


def test_one_challenge_answered_to_both_instances_at_once_succeeds_once(server_factory, postgres_url):
    a, b = two_instances(server_factory, postgres_url)
    authenticator = SoftAuthenticator(origin=ORIGIN, rp_id="localhost")
    username = new_username()
    options = assert_ok(requests.post(a.url + "/attestation/options", json={"username": username}, timeout=10))
    assert_ok(requests.post(b.url + "/attestation/result", json=authenticator.create(options), timeout=10))

    for round_ in range(5):
        options = assert_ok(requests.post(a.url + "/assertion/options", json={}, timeout=10))
        assertion = authenticator.get(options)
        barrier = threading.Barrier(2)
        statuses: list[int] = []

        def answer(server):
            barrier.wait()
            statuses.append(requests.post(server.url + "/assertion/result", json=assertion, timeout=10).status_code)

        threads = [threading.Thread(target=answer, args=(server,)) for server in (a, b)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [200, 400], (round_, statuses)


def test_a_passkey_removed_on_one_instance_is_unknown_on_the_other(server_factory, postgres_url):
    a, b = two_instances(server_factory, postgres_url)
    authenticator = SoftAuthenticator(origin=ORIGIN, rp_id="localhost")
    username = new_username()
    options = assert_ok(requests.post(a.url + "/attestation/options", json={"username": username}, timeout=10))
    first = assert_ok(requests.post(a.url + "/attestation/result", json=authenticator.create(options), timeout=10))
    bearer = {"Authorization": f"Bearer {first['sessionToken']}"}
    options = assert_ok(requests.post(a.url + "/attestation/options", json={"username": username}, headers=bearer, timeout=10))
    assert_ok(requests.post(a.url + "/attestation/result", json=authenticator.create(options), headers=bearer, timeout=10))
    removed = authenticator.credentials[b64url_decode(first["credentialId"])]

    # B signs in with the passkey, so its key cache holds it ...
    options = assert_ok(requests.post(b.url + "/assertion/options", json={"username": username}, timeout=10))
    assert_ok(requests.post(b.url + "/assertion/result", json=authenticator.get(options, removed), timeout=10))
    # ... A removes it ...
    assert_ok(requests.delete(a.url + f"/credentials/{first['credentialId']}", headers=bearer, timeout=10))
    # ... and B refuses it at once.
    options = assert_ok(requests.post(b.url + "/assertion/options", json={}, timeout=10))
    body = assert_failed(requests.post(b.url + "/assertion/result", json=authenticator.get(options, removed), timeout=10),
                         b, codes=(400,))
    assert body["reason"] == "unknownCredential" and body["credentialId"] == first["credentialId"]


def test_challenges_answered_on_the_other_instance_do_not_fill_this_ones_cap(server_factory, postgres_url):
    """Each instance caps the challenges it issued that are still pending; one answered through the
    other instance is no longer pending, so a client behind a balancer is not refused for it."""
    env = {"LATCHKEY_DATABASE": postgres_url, "LATCHKEY_ORIGINS": ORIGIN, "LATCHKEY_PENDING_CHALLENGES_PER_CLIENT": "3"}
    a, b = server_factory("capped-a", env), server_factory("capped-b", env)
    authenticator = SoftAuthenticator(origin=ORIGIN, rp_id="localhost")
    username = new_username()
    options = assert_ok(requests.post(a.url + "/attestation/options", json={"username": username}, timeout=10))
    assert_ok(requests.post(b.url + "/attestation/result", json=authenticator.create(options), timeout=10))
    for _ in range(6):
        options = assert_ok(requests.post(a.url + "/assertion/options", json={"username": username}, timeout=10))
        assert_ok(requests.post(b.url + "/assertion/result", json=authenticator.get(options), timeout=10))
    # Three unanswered ones do fill it.
    for _ in range(3):
        assert_ok(requests.post(a.url + "/assertion/options", json={"username": username}, timeout=10))
    assert_failed(requests.post(a.url + "/assertion/options", json={"username": username}, timeout=10), a, codes=(429,))

