"""FIDO metadata (MDS3) end to end: `latchkey mds import` verifies a BLOB made and signed here by a
test CA, and the server then refuses registrations from a model whose status is REVOKED."""

from __future__ import annotations

import base64
import datetime
import json
import os
import subprocess
import uuid
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

from conftest import LATCHKEY_BIN, REPO
from test_http_api import assert_failed, assert_ok, attestation_options, new_username, register

MODEL = uuid.UUID("7d1351a6-e097-4852-b8bf-c9ac5c9ce4a3")


def certificate(name: str, key, issuer=None, issuer_key=None, ca: bool = False) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    return (x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer.subject if issuer else subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .sign(issuer_key or key, hashes.SHA256()))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def blob(signer_key, chain: list[x509.Certificate], status: str) -> str:
    """A metadata BLOB (ES256 JWS) with one entry for MODEL whose latest status is `status`."""
    der = [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in chain]
    header = {"alg": "ES256", "typ": "JWT", "x5c": der}
    payload = {
        "legalHeader": "Latchkey end-to-end test metadata",
        "no": 42,
        "nextUpdate": "2099-01-01",
        "entries": [{
            "aaguid": str(MODEL),
            "metadataStatement": {"aaguid": str(MODEL), "description": "Latchkey E2E Key", "schema": 3,
                                  "attestationTypes": ["basic_full"], "attestationRootCertificates": [der[-1]]},
            "statusReports": [{"status": "FIDO_CERTIFIED_L1", "effectiveDate": "2024-01-01"},
                              {"status": status, "effectiveDate": "2025-06-01"}],
            "timeOfLastStatusChange": "2025-06-01",
        }],
    }
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(payload).encode())
    r, s = decode_dss_signature(signer_key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def write_pki(folder: Path, status: str):
    """A metadata root, its signer, the BLOB, and the root written as the server's metadata root."""
    root_key = ec.generate_private_key(ec.SECP256R1())
    root = certificate("Latchkey Test MDS Root", root_key, ca=True)
    signer_key = ec.generate_private_key(ec.SECP256R1())
    signer = certificate("Latchkey Test MDS Signer", signer_key, root, root_key)
    roots = folder / "mds-roots"
    roots.mkdir()
    (roots / "root.pem").write_bytes(root.public_bytes(serialization.Encoding.PEM))
    path = folder / "blob.jwt"
    path.write_text(blob(signer_key, [signer, root], status))
    return roots, path


def run_import(env: dict, blob_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LATCHKEY_BIN), "mds", "import", str(blob_path)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)


def base_env(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATCHKEY_")}
    env["LATCHKEY_DATABASE"] = str(tmp_path / "db.sqlite")
    env["LATCHKEY_METADATA_BLOB"] = str(tmp_path / "installed" / "mds.jwt")
    return env


def test_import_refuses_a_blob_signed_under_another_root(tmp_path):
    roots, path = write_pki(tmp_path, "FIDO_CERTIFIED_L1")
    other = tmp_path / "other-roots"
    other.mkdir()
    other_key = ec.generate_private_key(ec.SECP256R1())
    (other / "root.pem").write_bytes(
        certificate("Latchkey Test MDS Root", other_key, ca=True).public_bytes(serialization.Encoding.PEM))
    env = base_env(tmp_path) | {"LATCHKEY_METADATA_ROOTS": str(other)}
    done = run_import(env, path)
    assert done.returncode != 0, done.stdout
    assert "metadataBLOB" in done.stderr and "refused" in done.stderr, done.stderr
    assert not Path(env["LATCHKEY_METADATA_BLOB"]).exists(), "a refused BLOB must not be installed"


def test_import_refuses_a_tampered_blob(tmp_path):
    roots, path = write_pki(tmp_path, "FIDO_CERTIFIED_L1")
    header, payload, signature = path.read_text().split(".")
    forged = json.loads(base64.urlsafe_b64decode(payload + "==="))
    forged["no"] = 43
    path.write_text(".".join([header, b64url(json.dumps(forged).encode()), signature]))
    done = run_import(base_env(tmp_path) | {"LATCHKEY_METADATA_ROOTS": str(roots)}, path)
    assert done.returncode != 0
    assert "signature" in done.stderr, done.stderr


def test_revoked_model_cannot_register_after_import(tmp_path, server_factory):
    roots, path = write_pki(tmp_path, "REVOKED")
    env = base_env(tmp_path) | {"LATCHKEY_METADATA_ROOTS": str(roots)}
    done = run_import(env, path)
    assert done.returncode == 0, done.stderr
    assert "42" in done.stdout and "1 entries" in done.stdout, done.stdout
    # The same serial number again is not newer: refused unless asked for.
    again = run_import(env, path)
    assert again.returncode != 0 and "not newer" in again.stderr, again.stderr

    server = server_factory("mds", {"LATCHKEY_METADATA_ROOTS": str(roots),
                                    "LATCHKEY_METADATA_BLOB": env["LATCHKEY_METADATA_BLOB"]})
    revoked = server.authenticator(aaguid=MODEL.bytes)
    client = server.client()
    options = attestation_options(client, new_username())
    body = assert_failed(client.post("/attestation/result", revoked.create(options, fmt="packed")), server, codes=(400,))
    assert "REVOKED" in body["errorMessage"], body
    # Other models are unaffected.
    other = server.client()
    assert_ok(other.post("/attestation/result", server.authenticator().create(
        attestation_options(other, new_username()), fmt="packed")))


def test_server_refuses_to_start_with_a_broken_blob(tmp_path):
    roots, path = write_pki(tmp_path, "FIDO_CERTIFIED_L1")
    env = base_env(tmp_path) | {"LATCHKEY_METADATA_ROOTS": str(roots), "LATCHKEY_METADATA_BLOB": str(path),
                                "LATCHKEY_PORT": "1"}
    path.write_text(path.read_text()[:-4] + "AAAA")
    done = subprocess.run([str(LATCHKEY_BIN), "serve"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "LATCHKEY_METADATA_BLOB" in done.stderr, done.stderr


def test_a_passkey_of_a_model_in_the_blob_is_named_by_its_description(tmp_path, server_factory):
    roots, path = write_pki(tmp_path, "FIDO_CERTIFIED_L1")
    env = base_env(tmp_path) | {"LATCHKEY_METADATA_ROOTS": str(roots)}
    assert run_import(env, path).returncode == 0
    server = server_factory("mds-names", {"LATCHKEY_METADATA_ROOTS": str(roots),
                                          "LATCHKEY_METADATA_BLOB": env["LATCHKEY_METADATA_BLOB"]})
    client = server.client()
    registered = assert_ok(client.post("/attestation/result", server.authenticator(aaguid=MODEL.bytes).create(
        attestation_options(client, new_username()), fmt="packed")))
    listed = assert_ok(client.get("/credentials", headers={"Authorization": f"Bearer {registered['sessionToken']}"}))
    assert [c["authenticatorName"] for c in listed["credentials"]] == ["Latchkey E2E Key"], listed
    assert listed["credentials"][0]["name"] == "Latchkey E2E Key"
    assert listed["credentials"][0]["aaguid"] == str(MODEL)
