"""Attestation policy, trust anchors and sign-counter bookkeeping, against the real server."""

from __future__ import annotations

import sqlite3

from conftest import LatchkeyServer
from softauthn import b64url_decode
from test_http_api import (assert_failed, assert_ok, attestation_options, new_username, register,
                           sign_in)


def stored_credential(server: LatchkeyServer, credential_id: str) -> sqlite3.Row:
    """Reads the credential row straight from the server's SQLite file."""
    with sqlite3.connect(server.database) as db:
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT * FROM credentials WHERE id = ?", (b64url_decode(credential_id),)).fetchone()
    assert row is not None, "credential not stored"
    return row


def refused_registration(server: LatchkeyServer, **create) -> tuple[str, str]:
    """A registration of a new username the server refuses with a 400, made with `create` (as SoftAuthenticator.create
    takes it): the username and the refusal's message, once it is clear the user was not created."""
    client = server.client()
    username = new_username()
    options = attestation_options(client, username)
    body = assert_failed(client.post("/attestation/result", server.authenticator().create(options, **create)), server, codes=(400,))
    assert server.client().post("/assertion/options", {"username": username}).status_code == 404, \
        "a refused registration must not create the user"
    return username, body["errorMessage"]


def test_default_policy_accepts_none_and_records_it(server):
    auth = server.authenticator()
    _, options, cred, result = register(server, auth, fmt="none")
    assert options["attestation"] == "none"
    assert result["attestationType"] == "none" and result["attestationTrusted"] is False
    row = stored_credential(server, cred["id"])
    assert row["attestation_format"] == "none" and row["attestation_trusted"] == 0


def test_self_or_trusted_refuses_none_and_accepts_self(server_factory):
    server = server_factory("self-or-trusted", {"LATCHKEY_ATTESTATION_POLICY": "self-or-trusted"})
    options = attestation_options(server.client(), new_username())
    assert options["attestation"] == "direct", "the policy needs a statement, so options must ask for one"
    assert "none" in refused_registration(server, fmt="none")[1]

    _, _, cred, result = register(server, server.authenticator(), fmt="packed")
    assert result["attestationType"] == "self"
    assert stored_credential(server, cred["id"])["attestation_type"] == "self"


def test_trusted_only_refuses_self_attestation(server_factory):
    server = server_factory("trusted-only", {"LATCHKEY_ATTESTATION_POLICY": "trusted-only"})
    assert "self attestation" in refused_registration(server, fmt="packed")[1]


def test_denied_aaguid_cannot_register(server_factory):
    server = server_factory("deny-list", {"LATCHKEY_DENIED_AAGUIDS": "00000000-0000-0000-0000-000000000000"})
    assert "deny-list" in refused_registration(server, fmt="none")[1]


def test_counter_regression_is_refused_and_marks_the_credential(server):
    auth = server.authenticator(counter_step=1)
    username = new_username()
    _, _, cred, _ = register(server, auth, username, sign_count=5)
    assert_ok(sign_in(server, auth, username)[3])
    assert stored_credential(server, cred["id"])["sign_count_regressions"] == 0
    assert_failed(sign_in(server, auth, username, sign_count=3)[3], server, codes=(400,))
    row = stored_credential(server, cred["id"])
    assert row["sign_count_regressions"] == 1
    assert row["sign_count"] == 6, "a refused sign-in must not move the stored counter"


def test_backup_state_is_updated_on_sign_in(server):
    auth = server.authenticator()
    username = new_username()
    _, _, cred, _ = register(server, auth, username, be=True, bs=False)
    assert stored_credential(server, cred["id"])["backed_up"] == 0
    assert_ok(sign_in(server, auth, username, be=True, bs=True)[3])
    row = stored_credential(server, cred["id"])
    assert row["backed_up"] == 1 and row["backup_eligible"] == 1


def test_a_passkey_whose_backup_eligibility_changed_is_refused_and_the_refusal_recorded(server):
    auth = server.authenticator()
    username = new_username()
    _, _, cred, _ = register(server, auth, username, be=False, bs=False)
    body = assert_failed(sign_in(server, auth, username, be=True, bs=True)[3], server, codes=(400,))
    assert "BE is 1 but was 0 at registration" in body["errorMessage"], body
    with sqlite3.connect(server.database) as db:
        refusals = db.execute("SELECT detail FROM security_events WHERE type = 'sign_in.refused' AND username = ?",
                              (username,)).fetchall()
    assert [detail for (detail,) in refusals] == [body["errorMessage"]]
    assert stored_credential(server, cred["id"])["backup_eligible"] == 0
    assert_ok(sign_in(server, auth, username, be=False, bs=False)[3])


def test_a_backup_eligibility_change_may_be_accepted(server_factory):
    server = server_factory("be-changes", {"LATCHKEY_BACKUP_ELIGIBILITY_CHANGES": "accepted"})
    auth = server.authenticator()
    username = new_username()
    register(server, auth, username, be=False, bs=False)
    assert_ok(sign_in(server, auth, username, be=True, bs=True)[3])
    assert "backup eligibility (BE) changed since registration" in server.logs()


def test_synced_passkeys_may_be_refused(server_factory):
    server = server_factory("device-bound", {"LATCHKEY_SYNCED_PASSKEYS": "refused"})
    username, message = refused_registration(server, be=True, bs=True)
    assert "only device-bound credentials are accepted" in message, message
    _, _, cred, _ = register(server, server.authenticator(), username, be=False, bs=False)
    assert stored_credential(server, cred["id"])["backup_eligible"] == 0


def test_bad_policy_value_stops_the_server_naming_the_key(tmp_path):
    import os
    import subprocess

    from conftest import LATCHKEY_BIN, REPO
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env.update({"LATCHKEY_ATTESTATION_POLICY": "trust-me", "LATCHKEY_DATABASE": str(tmp_path / "db.sqlite")})
    done = subprocess.run([str(LATCHKEY_BIN), "serve"], cwd=REPO, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "LATCHKEY_ATTESTATION_POLICY" in done.stderr


def test_check_config_loads_trust_anchors_and_names_a_broken_file(tmp_path):
    import os
    import subprocess

    from conftest import LATCHKEY_BIN, REPO
    (tmp_path / "junk.pem").write_text("not a certificate")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env["LATCHKEY_TRUST_ANCHORS"] = str(tmp_path)
    done = subprocess.run([str(LATCHKEY_BIN), "check-config"], cwd=REPO, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 78, (done.returncode, done.stderr)
    assert "LATCHKEY_TRUST_ANCHORS" in done.stderr and "junk.pem" in done.stderr
    env.pop("LATCHKEY_TRUST_ANCHORS")
    good = subprocess.run([str(LATCHKEY_BIN), "check-config"], cwd=REPO, env=env, capture_output=True, text=True, timeout=30)
    assert good.returncode == 0 and "configuration is valid" in good.stdout, good.stderr


def test_a_misspelt_format_subfolder_is_a_configuration_error(tmp_path):
    import os
    import subprocess

    from conftest import LATCHKEY_BIN, REPO
    (tmp_path / "androidkey").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env["LATCHKEY_TRUST_ANCHORS"] = str(tmp_path)
    done = subprocess.run([str(LATCHKEY_BIN), "check-config"], cwd=REPO, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 78 and "androidkey" in done.stderr, (done.returncode, done.stderr)
