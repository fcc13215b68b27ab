"""Security events end to end: the changes a person and a backend make are recorded with the
change, readable in `/account/events` and `/admin/v1/events`, and delivered to a webhook receiver
that verifies each delivery with the `standardwebhooks` library, at least once and in order per
user, even when the receiver is down for a minute or the sender is killed mid-delivery."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
import urllib.parse

import pytest
import requests

from backend import Backend, create_admin_key
from conftest import LatchkeyServer, served
from softauthn import SoftAuthenticator, b64url, b64url_decode
from test_device_keys import DeviceKey, enrol
from test_http_api import assert_failed, assert_ok, new_username, register, sign_in
from test_postgres import postgres_url  # noqa: F401  (the fixture)
from webhook_receiver import Receiver, new_secret, running_receiver, webhook_env

ONE_PASSWORD = bytes.fromhex("bada5566a7aa401fbd9645619a55120d")


@pytest.fixture(scope="module")
def receiver():
    yield from running_receiver()


METRICS_TOKEN = "metrics-" + os.urandom(12).hex()


@pytest.fixture(scope="module")
def hooked(receiver):
    yield from served("events", {**webhook_env(receiver, receiver.secret), "LATCHKEY_METRICS_TOKEN": METRICS_TOKEN})


def admin_for(server: LatchkeyServer, name: str = "events") -> Backend:
    key = create_admin_key(server, f"{name}-{os.urandom(3).hex()}")
    return Backend(server.url, key, server.url + "/.well-known/jwks.json", server.origin, "localhost")


def events_of(receiver: Receiver, username: str) -> list[dict]:
    return [p for p in receiver.payloads() if p["data"].get("user", {}).get("username") == username]


def test_a_persons_changes_are_events_in_the_store_and_at_the_receiver(hooked, receiver):
    auth = hooked.authenticator()
    username = new_username()
    client, _, first, result = register(hooked, auth, username)
    register(hooked, hooked.authenticator(aaguid=ONE_PASSWORD), username, client=client)
    assert_ok(client.patch(f"/credentials/{first['id']}", {"name": "Work laptop"}))
    listed = assert_ok(client.get("/credentials"))
    second = [c for c in listed["credentials"] if c["id"] != first["id"]][0]
    assert_ok(client.delete(f"/credentials/{second['id']}"))
    other, _, _, r = sign_in(hooked, auth, username, credential=auth.credentials[b64url_decode(first["id"])])
    assert_ok(r)
    assert_ok(other.delete("/session"))

    expected = ["user.created", "passkey.registered", "passkey.registered", "passkey.renamed", "passkey.removed",
                "sign_in.succeeded", "session.ended"]
    # Recent activity: the user's own history, newest first (read with the first session, still live).
    mine = assert_ok(client.get("/account/events"))["events"]
    assert [e["type"] for e in mine] == list(reversed(expected)), mine
    registered = mine[-2]
    assert registered["user"]["username"] == username
    assert registered["credentialId"] == first["id"]
    assert registered["authenticator"] == {"aaguid": "00000000-0000-0000-0000-000000000000", "name": "Passkey"}
    assert registered["client"]["address"] == "127.0.0.1" and "python-requests" in registered["client"]["userAgent"]
    assert registered["actor"] == {"type": "user"} and registered["requestId"]
    assert mine[-4]["authenticator"]["name"] == "1Password" or mine[-3]["authenticator"]["name"] == "1Password"
    assert mine[3]["detail"] == 'renamed to "Work laptop"'

    # The admin API: the same events, filtered and paged.
    backend = admin_for(hooked)
    quoted = urllib.parse.quote(username)
    page = backend.admin("GET", f"/events?user={quoted}&limit=3").json()
    assert [e["type"] for e in page["events"]] == list(reversed(expected))[:3] and page["nextCursor"]
    rest = backend.admin("GET", f"/events?user={quoted}&limit=10&cursor={page['nextCursor']}").json()
    assert [e["type"] for e in rest["events"]] == list(reversed(expected))[3:] and "nextCursor" not in rest
    only = backend.admin("GET", f"/events?user={quoted}&type=passkey.registered,passkey.removed").json()["events"]
    assert [e["type"] for e in only] == ["passkey.removed", "passkey.registered", "passkey.registered"]
    assert [e["id"] for e in mine] == [e["id"] for e in page["events"] + rest["events"]]

    # The receiver got each one, signed, in order.
    receiver.wait_for(lambda r: len(events_of(r, username)) >= len(expected), 30, "the user's events")
    delivered = events_of(receiver, username)
    assert [p["type"] for p in delivered] == expected
    assert [p["data"]["id"] for p in delivered] == [e["id"] for e in reversed(mine)]
    assert all(p["timestamp"] == p["data"]["time"] for p in delivered)
    assert receiver.refused == []


def test_renaming_a_device_key_is_an_event_with_the_new_name(hooked, receiver):
    username = new_username()
    client, _, _, _ = register(hooked, hooked.authenticator(), username)
    key = DeviceKey()
    enrol(client, {}, key)
    assert client.patch(f"/device-keys/{b64url(os.urandom(32))}", {"name": "Not mine"}).status_code == 404
    assert_ok(client.patch(f"/device-keys/{key.key_id}", {"name": "Work iPhone"}))
    assert_ok(client.patch(f"/device-keys/{key.key_id}", {"name": ""}))

    mine = assert_ok(client.get("/account/events"))["events"]
    # Only the renames that renamed: the unknown key's wrote nothing.
    assert [e["type"] for e in mine] == ["device_key.renamed", "device_key.renamed", "device_key.enrolled", "passkey.registered",
                                         "user.created"], mine
    assert [e["detail"] for e in mine[:2]] == ["name removed", 'renamed to "Work iPhone"']
    assert all(e["credentialId"] == key.key_id and e["actor"] == {"type": "user"} for e in mine[:2])
    listed = admin_for(hooked).admin("GET", f"/events?user={urllib.parse.quote(username)}&type=device_key.renamed").json()["events"]
    assert [e["id"] for e in listed] == [e["id"] for e in mine[:2]]
    receiver.wait_for(lambda r: len(events_of(r, username)) >= 5, 30, "the user's events")
    assert [p["data"]["id"] for p in events_of(receiver, username)] == [e["id"] for e in reversed(mine)]


def test_a_burst_of_one_persons_events_reaches_the_receiver_at_once_in_order(hooked, receiver):
    """A person's events go out one at a time, in order, but one after the other, not one a poll (a second):
    a burst of renames (which a stolen session may make) must not delay the next alert by as many seconds."""
    username = new_username()
    client, _, cred, _ = register(hooked, hooked.authenticator(), username)
    receiver.wait_for(lambda r: len(events_of(r, username)) >= 2, 30, "the registration's events")
    started = time.monotonic()
    for index in range(30):
        assert_ok(client.patch(f"/credentials/{cred['id']}", {"name": f"Name {index}"}))
    receiver.wait_for(lambda r: len(events_of(r, username)) >= 32, 30, "the 30 renames")
    took = time.monotonic() - started
    assert took < 10, f"30 events of one person took {took:.1f} s to arrive"
    details = [p["data"]["detail"] for p in events_of(receiver, username)[2:]]
    assert details == [f'renamed to "Name {index}"' for index in range(30)], details


def test_events_never_hold_secrets(hooked, receiver):
    auth = hooked.authenticator()
    username = new_username()
    client, options, cred, result = register(hooked, auth, username)
    receiver.wait_for(lambda r: len(events_of(r, username)) >= 2, 30, "the user's events")
    texts = [str(p) for p in events_of(receiver, username)] + [client.get("/account/events").text]
    secrets = [result["sessionToken"], result["idToken"], options["challenge"], cred["response"]["clientDataJSON"],
               cred["response"]["attestationObject"], receiver.secret]
    for text in texts:
        for secret in secrets:
            assert secret not in text


def test_a_refused_sign_in_of_a_known_user_names_the_check(hooked):
    auth = hooked.authenticator()
    username = new_username()
    client, _, cred, _ = register(hooked, auth, username)
    _, _, _, r = sign_in(hooked, auth, username, origin="https://evil.example")
    assert_failed(r, hooked, codes=(400,))
    events = assert_ok(client.get("/account/events"))["events"]
    assert events[0]["type"] == "sign_in.refused", events
    assert "origin" in events[0]["detail"] and events[0]["credentialId"] == cred["id"]


def test_answers_the_passkey_did_not_sign_for_its_owner_write_no_event(hooked):
    """Knowing a credential ID is not enough to write into its owner's history: an answer to a
    challenge that was never issued (or to another user's), or one the passkey did not sign, is
    refused without an event."""
    auth = hooked.authenticator()
    username = new_username()
    client, _, cred, _ = register(hooked, auth, username)
    before = assert_ok(client.get("/account/events"))["events"]
    made_up = {"challenge": b64url(os.urandom(32)), "rpId": "localhost", "allowCredentials": []}
    forged = auth.get(made_up, auth.credentials[b64url_decode(cred["id"])])
    for _ in range(3):
        assert_failed(hooked.client().post("/assertion/result", forged), hooked, codes=(400,))
    # Another user's live challenge, answered with this user's passkey.
    other = new_username()
    register(hooked, hooked.authenticator(), other)
    stranger = hooked.client()
    options = assert_ok(stranger.post("/assertion/options", {"username": other}))
    answer = auth.get(options, auth.credentials[b64url_decode(cred["id"])])
    assert_failed(stranger.post("/assertion/result", answer), hooked, codes=(400,))
    # The user's own live challenge, which anyone may ask for by username, with a made-up signature.
    for _ in range(3):
        live = assert_ok(stranger.post("/assertion/options", {"username": username}))
        unsigned = auth.get(live, auth.credentials[b64url_decode(cred["id"])], tamper_signature=True)
        assert_failed(stranger.post("/assertion/result", unsigned), hooked, codes=(400,))
    assert assert_ok(client.get("/account/events"))["events"] == before


def test_backend_changes_name_the_admin_key(hooked, receiver):
    backend = admin_for(hooked, "crm")
    username = new_username()
    backend.create_user(username)
    backend.ticket(username)
    revoked = backend.admin("DELETE", f"/users/{username}/enrollment-tickets")
    assert revoked.status_code == 200 and revoked.json()["revoked"] == 1, revoked.text
    assert backend.admin("DELETE", f"/users/{username}/enrollment-tickets").json()["revoked"] == 0
    assert backend.admin("DELETE", f"/users/{username}/sessions").status_code == 200
    assert backend.admin("DELETE", f"/users/{username}").status_code == 200
    types = "user.created,enrollment_ticket.issued,enrollment_ticket.revoked,session.ended,account.deleted"
    events = backend.admin("GET", f"/events?type={types}&limit=20").json()["events"]
    mine = [e for e in events if e.get("user", {}).get("username") == username]
    # The user had no session to end, and no ticket left to revoke the second time: no change, so no event.
    assert [e["type"] for e in mine] == ["account.deleted", "enrollment_ticket.revoked", "enrollment_ticket.issued", "user.created"]
    assert all(e["actor"]["type"] == "admin" and e["actor"]["name"].startswith("crm-") for e in mine)
    assert mine[1]["detail"] == "1 ticket revoked"
    # The revocation reaches the receiver too, in its place among the user's events.
    receiver.wait_for(lambda r: len(events_of(r, username)) >= 4, 30, "the user's events")
    assert [p["type"] for p in events_of(receiver, username)] == [e["type"] for e in reversed(mine)]
    # The deleted user's history stays readable by handle.
    handle = mine[0]["user"]["handle"]
    by_handle = backend.admin("GET", f"/events?userHandle={handle}").json()["events"]
    assert [e["id"] for e in by_handle] == [e["id"] for e in mine]
    # Admin keys are made at the command line: the system acted.
    keys = backend.admin("GET", "/events?type=admin_key.created&limit=200").json()["events"]
    assert any(e["actor"] == {"type": "system", "name": "cli"} and "crm-" in e["detail"] for e in keys)


def test_bad_queries_are_400_naming_the_parameter(hooked):
    backend = admin_for(hooked)
    for query, word in [("type=nope", "type"), ("since=yesterday", "since"),
                        ("since=2026-02-30T10:00:00Z", "2026-02-30T10:00:00Z\" is not an RFC 3339 time that exists"),
                        ("limit=0", "limit"), ("limit=500", "limit"),
                        ("cursor=x", "cursor"), ("userHandle=%21", "userHandle")]:
        reply = backend.admin("GET", f"/events?{query}")
        assert reply.status_code == 400 and word in reply.json()["errorMessage"], (query, reply.text)
    assert backend.admin("GET", "/events?user=nobody-here").status_code == 404
    assert backend.admin("GET", "/webhook-deliveries?state=lost").status_code == 400
    assert backend.admin("POST", "/webhook-deliveries/999999999/retry").status_code == 404
    assert requests.get(hooked.url + "/admin/v1/events", timeout=10).status_code == 401
    assert requests.get(hooked.url + "/account/events", timeout=10).status_code == 401


def test_deliveries_are_listed_and_an_admin_can_send_one_again(hooked, receiver):
    auth = hooked.authenticator()
    username = new_username()
    register(hooked, auth, username)
    receiver.wait_for(lambda r: len(events_of(r, username)) >= 2, 30, "the user's events")
    backend = admin_for(hooked)
    delivered = backend.admin("GET", "/webhook-deliveries?state=delivered&limit=200").json()["deliveries"]
    event_id = events_of(receiver, username)[0]["data"]["id"]
    delivery = [d for d in delivered if d["eventId"] == event_id][0]
    assert delivery["receiver"] == receiver.url and delivery["attempts"] >= 1 and delivery["deliveredAt"]
    before = receiver.ids().count(event_id)
    again = backend.admin("POST", f"/webhook-deliveries/{delivery['id']}/retry").json()
    assert again["delivery"]["state"] == "pending"
    receiver.wait_for(lambda r: r.ids().count(event_id) > before, 30, "the delivery sent again")

    # The outbox in metrics: attempts by outcome, its depth and the age of its oldest delivery.
    metrics = requests.get(hooked.url + "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text
    delivered = [line for line in metrics.splitlines() if line.startswith('latchkey_webhook_deliveries_total{outcome="delivered"}')]
    assert delivered and float(delivered[0].split()[-1]) >= 3, metrics[-2000:]
    assert 'latchkey_webhook_outbox_depth{tenant="default"} ' in metrics
    assert 'latchkey_webhook_oldest_pending_seconds{tenant="default"} ' in metrics


def test_a_receiver_down_for_a_minute_gets_all_100_events(receiver):
    """Down means not listening at all; 100 events are made while it is, by 50 new users."""
    secret = new_secret()
    down = Receiver(secret)
    for srv in served("outage", webhook_env(down, secret)):
        backend = admin_for(srv)
        started = time.monotonic()
        usernames = [new_username() for _ in range(50)]
        for username in usernames:
            register(srv, srv.authenticator(), username)
        assert time.monotonic() - started < 60
        time.sleep(max(0.0, 60 - (time.monotonic() - started)))
        down.start()
        try:
            # 100 user events (and the event of the first signing key, made at start).
            down.wait_for(lambda r: sum(len(events_of(r, name)) for name in usernames) >= 100, 200, "100 events")
            ids = [p["data"]["id"] for name in usernames for p in events_of(down, name)]
            assert len(ids) == len(set(ids)) == 100
            for username in usernames:
                assert [p["type"] for p in events_of(down, username)][:2] == ["user.created", "passkey.registered"]
            # Nothing is left behind: the outbox empties (the system's own events go too). The
            # first signing key's event is the oldest: an attempt that fails just before the
            # receiver comes up waits 80 s ± 20 % for the next, so the wait covers 96 s.
            down.wait_for(
                lambda r: backend.admin("GET", "/webhook-deliveries?state=pending").json()["deliveries"] == [], 120,
                "an empty outbox")
            # The log told the operator when the receiver began failing, once, and when it came back.
            logs = srv.logs(limit=10_000_000)
            assert 1 <= logs.count("webhook receiver failing") <= 3, logs[-3000:]
            assert "webhook receiver accepts deliveries again" in logs
        finally:
            down.stop()


def hold_deliveries(receiver: Receiver) -> None:
    """Each delivery waits 3 s at the receiver and then fails (503): one held when its sender dies is not received."""
    receiver.hold_seconds = 3
    receiver.status = 503


def kill_mid_delivery(victim: LatchkeyServer, receiver: Receiver, requests: int) -> set[str]:
    """Waits until the receiver holds `requests` deliveries (the first event of every user, and
    the system's first), then SIGKILLs `victim` while they are in flight, and lets the receiver
    accept what comes next; returns the IDs that were in flight."""
    receiver.wait_for(lambda r: r.requests_seen >= requests, 30, f"{requests} deliveries in flight")
    with receiver.lock:
        held = {delivery_id for delivery_id, count in receiver.in_flight.items() if count > 0}
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait(timeout=30)
    receiver.hold_seconds = 0
    receiver.status = 204
    return held


def register_users(srv: LatchkeyServer, count: int) -> list[str]:
    usernames = [new_username() for _ in range(count)]
    for username in usernames:
        register(srv, srv.authenticator(), username)
    return usernames


def assert_each_event_arrived(receiver: Receiver, usernames: list[str]) -> None:
    """Every event of these users arrived at least once; any repeat carried the same webhook-id and
    the same body bytes (a restarted sender serialising again once put the members in another order),
    and no delivery was ever being sent twice at once."""
    receiver.wait_for(lambda r: all(len({p["data"]["id"] for p in events_of(r, u)}) >= 2 for u in usernames), 90,
                      "every user's two events")
    by_id: dict = {}
    for delivery_id, payload in receiver.deliveries:
        assert delivery_id == payload["data"]["id"]
        assert by_id.setdefault(delivery_id, payload) == payload, "a repeat with another body"
    for username in usernames:
        first_arrivals = list(dict.fromkeys((p["data"]["id"], p["type"]) for p in events_of(receiver, username)))
        assert [kind for _, kind in first_arrivals][:2] == ["user.created", "passkey.registered"]
    assert receiver.sent_twice_at_once == set()
    assert receiver.ids_sent_with_other_bytes() == {}, "one delivery sent as two different bodies"


def test_a_sender_killed_mid_delivery_loses_nothing_on_sqlite(tmp_path):
    secret = new_secret()
    receiver = Receiver(secret).start()
    hold_deliveries(receiver)
    try:
        for srv in served("killed-sender", webhook_env(receiver, secret)):
            usernames = register_users(srv, 5)
            held = kill_mid_delivery(srv, receiver, requests=6)
            assert len(held) >= 5 and not held & set(receiver.ids())
            # The same database again: the dead process's leases run out and the new one sends.
            srv.start()
            assert_each_event_arrived(receiver, usernames)
            assert held <= set(receiver.ids())
    finally:
        receiver.stop()


def test_a_sender_killed_mid_delivery_loses_nothing_with_two_instances_on_postgres(server_factory, postgres_url):
    secret = new_secret()
    receiver = Receiver(secret).start()
    hold_deliveries(receiver)
    env = {**webhook_env(receiver, secret), "LATCHKEY_DATABASE": postgres_url, "LATCHKEY_ORIGINS": "http://localhost"}
    try:
        a = server_factory("sender-a", env)
        usernames = [new_username() for _ in range(6)]
        for username in usernames:
            register(a, SoftAuthenticator(origin="http://localhost", rp_id="localhost"), username)
        # A has leased every user's first delivery when B starts, and dies with them in flight.
        receiver.wait_for(lambda r: r.requests_seen >= 7, 30, "A's deliveries in flight")
        server_factory("sender-b", env)
        held = kill_mid_delivery(a, receiver, requests=7)
        assert len(held) >= 6 and not held & set(receiver.ids())
        # B alone is left: it takes over A's deliveries when their leases run out.
        assert_each_event_arrived(receiver, usernames)
        assert held <= set(receiver.ids())
    finally:
        receiver.stop()


def test_a_slow_receiver_does_not_hold_up_another(tmp_path):
    """Each receiver has its own sender: one that takes 8 s a request delays only its own deliveries."""
    secret = new_secret()
    slow, fast = Receiver(secret).start(), Receiver(secret).start()
    slow.hold_seconds = 8
    try:
        env = {**webhook_env(slow, secret), "LATCHKEY_WEBHOOK_URLS": f"{slow.url},{fast.url}"}
        for srv in served("slow-receiver", env):
            usernames = []
            for _ in range(3):
                usernames.append(new_username())
                register(srv, srv.authenticator(), usernames[-1])
                time.sleep(1)
            start = time.monotonic()
            fast.wait_for(lambda r: all(len(events_of(r, u)) >= 2 for u in usernames), 30, "the fast receiver's events")
            assert time.monotonic() - start < 4, f"the fast receiver waited {time.monotonic() - start:.1f} s behind the slow one"
            assert slow.requests_seen >= 1
    finally:
        slow.hold_seconds = 0
        slow.stop()
        fast.stop()


def test_while_a_secret_is_rotated_out_receivers_verify_with_either(tmp_path):
    """With webhookPreviousSecret each delivery is signed under both secrets, so a receiver not yet moved to the
    new one still verifies it (with the standardwebhooks library); without it, that receiver refuses them."""
    old_secret, new_secret_ = new_secret(), new_secret()
    behind, moved = Receiver(old_secret).start(), Receiver(new_secret_).start()
    try:
        env = {**webhook_env(moved, new_secret_), "LATCHKEY_WEBHOOK_URLS": f"{behind.url},{moved.url}"}
        for srv in served("rotating-secret", {**env, "LATCHKEY_WEBHOOK_PREVIOUS_SECRET": old_secret}):
            during = new_username()
            register(srv, srv.authenticator(), during)
            for receiver in (behind, moved):
                receiver.wait_for(lambda r: len(events_of(r, during)) >= 2, 30, "the events, verified during the rotation")
            srv.stop()
            del srv.env["LATCHKEY_WEBHOOK_PREVIOUS_SECRET"]
            srv.start()
            after = new_username()
            register(srv, srv.authenticator(), after)
            moved.wait_for(lambda r: len(events_of(r, after)) >= 2, 30, "the events after the rotation")
            behind.wait_for(lambda r: len(r.refused) >= 1, 30, "a refused delivery at the receiver left behind")
            assert not events_of(behind, after) and not moved.refused
    finally:
        behind.stop()
        moved.stop()


def test_a_receivers_password_is_sent_as_basic_auth_never_stored_and_may_change(tmp_path):
    """`https://user:password@host/...` authenticates to the receiver; deliveries are stored under the URL with its
    password hidden, so a new password in the configuration takes over what the old one left pending."""
    secret = new_secret()
    receiver = Receiver(secret)
    receiver.credentials = ("latchkey", "first-password")
    receiver.start()

    def receiver_url(password: str) -> str:
        return receiver.url.replace("http://", f"http://latchkey:{password}@")

    try:
        for srv in served("receiver-password", {**webhook_env(receiver, secret), "LATCHKEY_WEBHOOK_URLS": receiver_url("first-password")}):
            backend = admin_for(srv)
            first = new_username()
            register(srv, srv.authenticator(), first)
            receiver.wait_for(lambda r: len(events_of(r, first)) >= 2, 30, "the first user's events")
            assert receiver.unauthorized == 0
            # The receiver's password changes before Latchkey's configuration does: refused, kept pending.
            receiver.credentials = ("latchkey", "second-password")
            later = new_username()
            register(srv, srv.authenticator(), later)
            receiver.wait_for(lambda r: r.unauthorized >= 1, 30, "a refused delivery")
            srv.stop()
            srv.env["LATCHKEY_WEBHOOK_URLS"] = receiver_url("second-password")
            srv.start()
            receiver.wait_for(lambda r: len(events_of(r, later)) >= 2, 90, "the later user's events, sent with the new password")
            deliveries = backend.admin("GET", "/webhook-deliveries").json()["deliveries"]
            assert {d["receiver"] for d in deliveries} == {receiver_url("<redacted>")}
            assert not [d for d in deliveries if d["state"] != "delivered"]
            stored = b"".join(path.read_bytes() for path in srv.database.parent.glob(srv.database.name + "*"))
            assert b"first-password" not in stored and b"second-password" not in stored
    finally:
        receiver.stop()


def test_deliveries_an_earlier_version_stored_under_the_whole_url_are_sent_and_renamed(tmp_path):
    secret = new_secret()
    receiver = Receiver(secret)  # not listening yet: the deliveries stay pending
    receiver.credentials = ("latchkey", "a-password")
    url = receiver.url.replace("http://", "http://latchkey:a-password@")
    try:
        for srv in served("receiver-upgrade", {**webhook_env(receiver, secret), "LATCHKEY_WEBHOOK_URLS": url}):
            username = new_username()
            register(srv, srv.authenticator(), username)
            srv.stop()
            # As Latchkey 0.8 stored them: under the receiver's whole URL, password included.
            with sqlite3.connect(srv.database) as database:
                database.execute("UPDATE webhook_deliveries SET receiver = ?", (url,))
            receiver.start()
            srv.start()
            receiver.wait_for(lambda r: len(events_of(r, username)) >= 2, 60, "the user's events")
            with sqlite3.connect(srv.database) as database:
                stored = {row[0] for row in database.execute("SELECT receiver FROM webhook_deliveries")}
            assert stored == {url.replace("a-password", "<redacted>")}
    finally:
        receiver.stop()


def test_deliveries_for_a_receiver_no_longer_configured_are_dead_not_sent(tmp_path):
    first_secret, second_secret = new_secret(), new_secret()
    removed = Receiver(first_secret)  # never listening: its deliveries stay pending
    kept = Receiver(second_secret).start()
    try:
        for srv in served("receiver-removed", webhook_env(removed, first_secret)):
            backend = admin_for(srv)
            register(srv, srv.authenticator(), new_username())
            srv.stop()
            # The operator replaces the receiver: what was written for the old one is not sent to it.
            srv.env.update(webhook_env(kept, second_secret))
            srv.start()
            assert_only_dead_deliveries_to(removed, backend)
            later = new_username()
            register(srv, srv.authenticator(), later)
            kept.wait_for(lambda r: len(events_of(r, later)) >= 2, 30, "the new receiver's events")
            assert removed.requests_seen == 0
    finally:
        kept.stop()


def test_with_no_receivers_left_what_was_pending_is_dead_not_kept(tmp_path):
    secret = new_secret()
    removed = Receiver(secret)  # never listening: its deliveries stay pending
    for srv in served("receivers-removed", webhook_env(removed, secret)):
        backend = admin_for(srv)
        register(srv, srv.authenticator(), new_username())
        srv.stop()
        # The operator turns webhooks off altogether.
        for name in webhook_env(removed, secret):
            srv.env.pop(name, None)
        srv.start()
        assert_only_dead_deliveries_to(removed, backend)
        assert removed.requests_seen == 0


def assert_only_dead_deliveries_to(removed: Receiver, backend: Backend):
    """Waits until nothing is pending, then checks every dead delivery was for the removed receiver. A delivery is
    due once its backoff (or a lease the stopped server left, 30 s) has run out."""
    wait = Receiver(new_secret())  # only for its polling helper
    wait.wait_for(lambda _: backend.admin("GET", "/webhook-deliveries?state=pending").json()["deliveries"] == [], 90,
                  "no pending deliveries")
    dead = backend.admin("GET", "/webhook-deliveries?state=dead").json()["deliveries"]
    assert dead and all(d["receiver"] == removed.url and "no longer configured" in d["lastError"] for d in dead), dead
