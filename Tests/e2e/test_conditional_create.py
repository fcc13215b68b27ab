"""Conditional create (WebAuthn Level 3 `mediation: "conditional"`, an automatic passkey upgrade)
against the real binary: a registration reporting no user presence is accepted only for a
conditional ceremony that a signed-in user asked for, and refused in every other registration."""

from __future__ import annotations

from test_http_api import assert_failed, assert_ok, new_username, register


def test_a_passkey_made_without_asking_is_accepted_only_for_a_conditional_ceremony(server):
    auth = server.authenticator()
    client, _, _, first = register(server, auth)
    username = first["username"]
    bearer = {"Authorization": f"Bearer {first['sessionToken']}"}

    # A modal registration without UP: refused, as ever.
    modal = assert_ok(client.post("/attestation/options", {"username": username}, headers=bearer))
    failure = assert_failed(client.post("/attestation/result", auth.create(modal, up=False)), server, codes=(400,))
    assert "UP flag is not set" in failure["errorMessage"], failure

    # Asked as conditional by the signed-in user: accepted without UP.
    conditional = assert_ok(client.post("/attestation/options", {"username": username, "mediation": "conditional"}, headers=bearer))
    assert_ok(client.post("/attestation/result", auth.create(conditional, up=False)))
    assert len(assert_ok(client.get("/credentials", headers=bearer))["credentials"]) == 2

    # Not for anyone else: a new name, or another's name without their session.
    stranger = server.client()
    for name in (new_username(), username):
        reply = stranger.post("/attestation/options", {"username": name, "mediation": "conditional"})
        assert reply.status_code == 403, reply.text
