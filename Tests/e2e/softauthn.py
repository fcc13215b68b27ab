"""A small software WebAuthn authenticator + client for end-to-end tests.

It makes real ES256 (P-256, alg -7) credentials with `cryptography` and produces the JSON that
a browser's ``PublicKeyCredential.toJSON()`` gives, so the tests can post it to the server.
Every piece can be tampered with through keyword arguments (the "knobs"), and the signatures are
computed over the tampered data, so a test isolates exactly one fault.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

# authenticatorData flags (WebAuthn §6.1)
FLAG_UP = 0x01
FLAG_UV = 0x04
FLAG_BE = 0x08
FLAG_BS = 0x10
FLAG_AT = 0x40
FLAG_ED = 0x80

ALG_ES256 = -7


# ---------------------------------------------------------------------------------------------
# base64url


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# ---------------------------------------------------------------------------------------------
# A minimal CBOR encoder (RFC 8949), enough for attestation objects and COSE keys.
# Maps keep their insertion order so a test controls the exact bytes.


class Raw(bytes):
    """Bytes inserted verbatim into CBOR output (for hand-made malformed items)."""


def _head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([(major << 5) | value])
    if value < 0x100:
        return bytes([(major << 5) | 24, value])
    if value < 0x10000:
        return bytes([(major << 5) | 25]) + struct.pack(">H", value)
    if value < 0x100000000:
        return bytes([(major << 5) | 26]) + struct.pack(">I", value)
    return bytes([(major << 5) | 27]) + struct.pack(">Q", value)


def cbor_encode(item: Any) -> bytes:
    if isinstance(item, Raw):
        return bytes(item)
    if item is False:
        return b"\xf4"
    if item is True:
        return b"\xf5"
    if item is None:
        return b"\xf6"
    if isinstance(item, int):
        return _head(0, item) if item >= 0 else _head(1, -1 - item)
    if isinstance(item, (bytes, bytearray)):
        return _head(2, len(item)) + bytes(item)
    if isinstance(item, str):
        data = item.encode("utf-8")
        return _head(3, len(data)) + data
    if isinstance(item, (list, tuple)):
        return _head(4, len(item)) + b"".join(cbor_encode(x) for x in item)
    if isinstance(item, dict):
        out = _head(5, len(item))
        for k, v in item.items():
            out += cbor_encode(k) + cbor_encode(v)
        return out
    raise TypeError(f"cannot CBOR-encode {type(item)!r}")


# ---------------------------------------------------------------------------------------------
# Keys


def cose_ec2_public_key(public_key: ec.EllipticCurvePublicKey, alg: int = ALG_ES256) -> bytes:
    numbers = public_key.public_numbers()
    x = numbers.x.to_bytes(32, "big")
    y = numbers.y.to_bytes(32, "big")
    # kty: EC2 (2), alg, crv: P-256 (1), x, y  -- canonical CTAP2 order
    return cbor_encode({1: 2, 3: alg, -1: 1, -2: x, -3: y})


def es256_sign(private_key: ec.EllipticCurvePrivateKey, data: bytes) -> bytes:
    return private_key.sign(data, ec.ECDSA(hashes.SHA256()))  # DER-encoded ECDSA signature


def flip_byte(data: bytes, index: int = -1) -> bytes:
    buf = bytearray(data)
    buf[index] ^= 0x01
    return bytes(buf)


# ---------------------------------------------------------------------------------------------
# The authenticator


@dataclass
class SoftCredential:
    credential_id: bytes
    private_key: ec.EllipticCurvePrivateKey
    rp_id: str
    user_handle: bytes
    username: str
    sign_count: int = 0
    discoverable: bool = True

    @property
    def id(self) -> str:
        return b64url(self.credential_id)


@dataclass
class SoftAuthenticator:
    """A software authenticator plus the browser-side work (clientDataJSON, JSON encoding).

    ``origin`` is what the "browser" puts in clientDataJSON; ``rp_id`` is hashed into
    authenticatorData unless a ceremony overrides it.
    """

    origin: str
    rp_id: str = "localhost"
    aaguid: bytes = bytes(16)
    counter_step: int = 0  # 0 = an authenticator without a signature counter
    backup_eligible: bool = False
    backed_up: bool = False
    credentials: dict = field(default_factory=dict)

    # -- helpers --------------------------------------------------------------------------

    def client_data(self, ctype: str, challenge: str, *, origin: Optional[str] = None,
                    cross_origin: Optional[bool] = False, extra: Optional[dict] = None,
                    drop: tuple = ()) -> bytes:
        data: dict = {"type": ctype, "challenge": challenge,
                      "origin": self.origin if origin is None else origin}
        if cross_origin is not None:
            data["crossOrigin"] = cross_origin
        if extra:
            data.update(extra)
        for key in drop:
            data.pop(key, None)
        return json.dumps(data, separators=(",", ":")).encode("utf-8")

    def auth_data(self, *, rp_id: Optional[str] = None, flags: int, sign_count: int,
                  attested: bytes = b"", extensions: bytes = b"",
                  rp_id_hash: Optional[bytes] = None) -> bytes:
        if rp_id_hash is None:
            rp_id_hash = hashlib.sha256((self.rp_id if rp_id is None else rp_id).encode()).digest()
        return rp_id_hash + bytes([flags & 0xFF]) + struct.pack(">I", sign_count) + attested + extensions

    def _flags(self, *, up: bool, uv: bool, at: bool = False, ed: bool = False,
               be: Optional[bool] = None, bs: Optional[bool] = None) -> int:
        flags = 0
        if up:
            flags |= FLAG_UP
        if uv:
            flags |= FLAG_UV
        if self.backup_eligible if be is None else be:
            flags |= FLAG_BE
        if self.backed_up if bs is None else bs:
            flags |= FLAG_BS
        if at:
            flags |= FLAG_AT
        if ed:
            flags |= FLAG_ED
        return flags

    # -- registration (navigator.credentials.create) ----------------------------------------

    def create(self, options: dict, *,
               fmt: str = "none",
               att_stmt: Optional[dict] = None,
               packed_alg: int = ALG_ES256,
               client_type: str = "webauthn.create",
               challenge: Optional[str] = None,
               origin: Optional[str] = None,
               cross_origin: Optional[bool] = False,
               client_extra: Optional[dict] = None,
               client_drop: tuple = (),
               client_data_json: Optional[bytes] = None,
               rp_id: Optional[str] = None,
               rp_id_hash: Optional[bytes] = None,
               up: bool = True, uv: bool = True, at: bool = True,
               be: Optional[bool] = None, bs: Optional[bool] = None,
               flags: Optional[int] = None,
               sign_count: int = 0,
               credential_id: Optional[bytes] = None,
               private_key: Optional[ec.EllipticCurvePrivateKey] = None,
               trailing_auth_data: bytes = b"",
               cose_key: Optional[bytes] = None,
               tamper_signature: bool = False,
               attestation_object: Optional[bytes] = None,
               transports: Optional[list] = None,
               store: bool = True) -> dict:
        """Answer creation options (as returned by /attestation/options) with a credential JSON."""
        private_key = private_key or ec.generate_private_key(ec.SECP256R1())
        credential_id = credential_id if credential_id is not None else os.urandom(32)
        if client_data_json is None:
            client_data_json = self.client_data(
                client_type, options["challenge"] if challenge is None else challenge,
                origin=origin, cross_origin=cross_origin, extra=client_extra, drop=client_drop)
        if cose_key is None:
            cose_key = cose_ec2_public_key(private_key.public_key())
        attested = (self.aaguid + struct.pack(">H", len(credential_id)) + credential_id
                    + cose_key)
        if flags is None:
            flags = self._flags(up=up, uv=uv, at=at, be=be, bs=bs)
        auth_data = self.auth_data(rp_id=rp_id, rp_id_hash=rp_id_hash, flags=flags,
                                   sign_count=sign_count, attested=attested) + trailing_auth_data

        if att_stmt is None:
            if fmt == "packed":
                # Self attestation: signed with the credential private key itself.
                signed = auth_data + hashlib.sha256(client_data_json).digest()
                sig = es256_sign(private_key, signed)
                if tamper_signature:
                    sig = flip_byte(sig)
                att_stmt = {"alg": packed_alg, "sig": sig}
            else:
                att_stmt = {}
        if attestation_object is None:
            attestation_object = cbor_encode({"fmt": fmt, "attStmt": att_stmt, "authData": auth_data})

        if store:
            user = options.get("user") or {}
            self.credentials[credential_id] = SoftCredential(
                credential_id=credential_id, private_key=private_key,
                rp_id=self.rp_id if rp_id is None else rp_id,
                user_handle=b64url_decode(user["id"]) if user.get("id") else b"",
                username=user.get("name", ""), sign_count=sign_count)

        return {
            "id": b64url(credential_id),
            "rawId": b64url(credential_id),
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64url(client_data_json),
                "attestationObject": b64url(attestation_object),
                "transports": ["internal"] if transports is None else transports,
            },
        }

    # -- authentication (navigator.credentials.get) ------------------------------------------

    def get(self, options: dict, credential: Optional[SoftCredential] = None, *,
            client_type: str = "webauthn.get",
            challenge: Optional[str] = None,
            origin: Optional[str] = None,
            cross_origin: Optional[bool] = False,
            client_extra: Optional[dict] = None,
            client_drop: tuple = (),
            client_data_json: Optional[bytes] = None,
            rp_id: Optional[str] = None,
            rp_id_hash: Optional[bytes] = None,
            up: bool = True, uv: bool = True,
            be: Optional[bool] = None, bs: Optional[bool] = None,
            flags: Optional[int] = None,
            sign_count: Optional[int] = None,
            user_handle: Any = "stored",
            credential_id: Optional[str] = None,
            trailing_auth_data: bytes = b"",
            tamper_signature: bool = False,
            sign_with: Optional[ec.EllipticCurvePrivateKey] = None,
            signed_data: Optional[Callable[[bytes, bytes], bytes]] = None) -> dict:
        """Answer request options (from /assertion/options) with an assertion JSON.

        ``user_handle``: "stored" = the user.id of the credential; None = omit it; a str is sent
        as is (already base64url or deliberately bad); other values (int...) are sent verbatim.
        """
        if credential is None:
            allowed = [b64url_decode(d["id"]) for d in options.get("allowCredentials") or []]
            candidates = [c for c in self.credentials.values()
                          if (not allowed or c.credential_id in allowed)]
            if not candidates:
                raise LookupError("no matching credential on this soft authenticator")
            credential = candidates[-1]
        if client_data_json is None:
            client_data_json = self.client_data(
                client_type, options["challenge"] if challenge is None else challenge,
                origin=origin, cross_origin=cross_origin, extra=client_extra, drop=client_drop)
        if sign_count is None:
            credential.sign_count += self.counter_step
            sign_count = credential.sign_count
        if flags is None:
            flags = self._flags(up=up, uv=uv, be=be, bs=bs)
        auth_data = self.auth_data(rp_id=credential.rp_id if rp_id is None else rp_id,
                                   rp_id_hash=rp_id_hash, flags=flags,
                                   sign_count=sign_count) + trailing_auth_data
        client_hash = hashlib.sha256(client_data_json).digest()
        to_sign = signed_data(auth_data, client_hash) if signed_data else auth_data + client_hash
        signature = es256_sign(sign_with or credential.private_key, to_sign)
        if tamper_signature:
            signature = flip_byte(signature)

        response: dict = {
            "clientDataJSON": b64url(client_data_json),
            "authenticatorData": b64url(auth_data),
            "signature": b64url(signature),
        }
        if user_handle == "stored":
            response["userHandle"] = b64url(credential.user_handle)
        elif user_handle is not None:
            response["userHandle"] = user_handle
        cid = credential.id if credential_id is None else credential_id
        return {
            "id": cid,
            "rawId": cid,
            "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": response,
        }
