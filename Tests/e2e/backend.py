"""A small backend, as a team that owns the accounts would write one: it holds an admin key,
creates users for its accounts, hands out enrollment tickets, and accepts Latchkey's sign-in tokens
after verifying them offline with PyJWT against the published key set."""

from __future__ import annotations

import subprocess
import urllib.parse

import jwt
import requests

from conftest import LATCHKEY_BIN, REPO, require_binary


def latchkey_command(server, *arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs `latchkey ARGUMENTS` on `server`'s configuration (its store), as an operator would."""
    require_binary()
    return subprocess.run([str(LATCHKEY_BIN), *arguments], cwd=str(REPO), env=server.env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60, check=check)


def create_admin_key(server, name: str) -> str:
    made = latchkey_command(server, "admin-keys", "create", "--name", name)
    key = made.stdout.strip()
    assert key.startswith("lk_admin_") and len(key) >= len("lk_admin_") + 43, made.stdout
    return key


class Backend:
    """The backend's view of Latchkey: the admin API with its key, and token verification."""

    def __init__(self, admin_url: str, admin_key: str, jwks_url: str, issuer: str, audience: str, key_set_lifespan: float = 60):
        self.admin_url = admin_url.rstrip("/") + "/admin/v1"
        self.headers = {"Authorization": f"Bearer {admin_key}"}
        # Kept as long as the server's Cache-Control allows (60 s), or as a test says.
        self.jwks = jwt.PyJWKClient(jwks_url, cache_keys=True, lifespan=key_set_lifespan)
        self.issuer = issuer
        self.audience = audience

    def admin(self, method: str, path: str, body: dict | None = None) -> requests.Response:
        return requests.request(method, self.admin_url + path, json=body, headers=self.headers, timeout=10)

    def create_user(self, username: str, external_id: str | None = None) -> dict:
        body = {"username": username}
        if external_id is not None:
            body["externalId"] = external_id
        reply = self.admin("POST", "/users", body)
        assert reply.status_code == 201, reply.text
        return reply.json()["user"]

    def ticket(self, username: str, expires_in: int | None = None) -> dict:
        body = None if expires_in is None else {"expiresIn": expires_in}
        reply = self.admin("POST", f"/users/{urllib.parse.quote(username, safe='')}/enrollment-tickets", body)
        assert reply.status_code == 201, reply.text
        return reply.json()

    def verify(self, token: str, **options) -> dict:
        """The token's claims, once its signature, issuer, audience and expiry have been checked."""
        key = self.jwks.get_signing_key_from_jwt(token)
        return jwt.decode(
            token, key.key, algorithms=["ES256"], audience=self.audience, issuer=self.issuer,
            options={"require": ["exp", "iat", "iss", "aud", "sub"]}, **options)
