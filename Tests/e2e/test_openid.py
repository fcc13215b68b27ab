"""Latchkey as an OpenID Connect provider, driven by a client people use: PyPI's authlib (OAuth2Session for the
code flow with PKCE, client authentication, refresh, revocation and introspection; its JOSE and OpenID Connect
classes to verify the ID token, at_hash and nonce included), on SQLite and on PostgreSQL. The person signs in with a software passkey through
the relying party's ceremony routes, as the sign-in page does in a browser (test_browser_openid.py drives that
page in Chromium); the "browser" here is a cookie-keeping HTTP client that follows the provider's redirects by hand.
"""

from __future__ import annotations

import base64
import secrets
import urllib.parse
import uuid

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, JsonWebToken
from authlib.oidc.core import CodeIDToken

from backend import create_admin_key
from conftest import LatchkeyServer, LocalhostCookiePolicy
from test_postgres import SERVER_URL, SKIPPED, psql, with_database


class Browser:
    """One browser profile: cookies, and redirects seen rather than followed."""

    def __init__(self, base: str):
        self.base = base
        self.http = requests.Session()
        self.http.cookies.set_policy(LocalhostCookiePolicy())

    def post_json(self, path: str, body: dict) -> dict:
        reply = self.http.post(self.base + path, json=body, timeout=15)
        assert reply.status_code == 200, reply.text
        return reply.json()

    def open(self, url: str) -> requests.Response:
        return self.http.get(url, allow_redirects=False, timeout=15)


class Provider:
    """A Latchkey server whose issuer is the address the tests call, with an admin key."""

    def __init__(self, server: LatchkeyServer):
        self.server = server
        self.issuer = server.origin
        self.admin_headers = {"Authorization": f"Bearer {create_admin_key(server, 'openid')}"}
        self.metadata = requests.get(self.issuer + "/.well-known/openid-configuration", timeout=15).json()

    def endpoint(self, name: str) -> str:
        return self.metadata[name]

    def admin(self, method: str, path: str, body: dict | None = None) -> requests.Response:
        return requests.request(method, self.server.url + "/admin/v1" + path, json=body, headers=self.admin_headers, timeout=15)

    def client(self, **fields) -> dict:
        body = {"name": "Grafana", "redirectURIs": ["https://app.example/callback"], **fields}
        reply = self.admin("POST", "/oauth-clients", body)
        assert reply.status_code == 201, reply.text
        return reply.json()["client"]

    def person(self, contact: str | None = None) -> tuple[Browser, str, object]:
        """A new account with a passkey (and `contact`, as the account-creation sheet gives it), signed in in a new
        browser: (browser, username, authenticator)."""
        browser = Browser(self.issuer)
        auth = self.server.authenticator()
        username = "oidc-" + uuid.uuid4().hex[:10]
        options = browser.post_json("/attestation/options", {"username": username, "displayName": username.title()})
        answer = auth.create(options)
        if contact:
            answer["contactIdentifier"] = contact
        browser.post_json("/attestation/result", answer)
        return browser, username, auth

    def sign_in_again(self, browser: Browser, auth) -> None:
        options = browser.post_json("/assertion/options", {})
        browser.post_json("/assertion/result", auth.get(options))

    def key_set(self):
        return JsonWebKey.import_key_set(requests.get(self.endpoint("jwks_uri"), timeout=15).json())


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def provider(request):
    """The provider on each store: SQLite, and a database of its own on the test PostgreSQL server."""
    env, database = {}, None
    if request.param == "postgres":
        if SKIPPED:
            pytest.skip("LATCHKEY_TEST_SKIP_POSTGRES is set")
        if not SERVER_URL:
            pytest.fail("the provider's PostgreSQL tests need a server: run them with `scripts/test`, or set LATCHKEY_TEST_POSTGRES_URL")
        database = "latchkey_e2e_oidc_" + uuid.uuid4().hex[:12]
        psql(SERVER_URL, f"CREATE DATABASE {database}")
        env["LATCHKEY_DATABASE"] = with_database(SERVER_URL, database)
    server = LatchkeyServer(f"openid-{request.param}", env).start()
    yield Provider(server)
    server.stop()
    server.cleanup()
    if database:
        psql(SERVER_URL, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def session_for(provider: Provider, client: dict, method: str | None = None, scope: str = "openid profile") -> OAuth2Session:
    return OAuth2Session(
        client["clientID"], client.get("clientSecret"), scope=scope, redirect_uri=client["redirectURIs"][0],
        token_endpoint_auth_method=method or ("none" if client["public"] else "client_secret_basic"), code_challenge_method="S256")


def authorize(provider: Provider, browser: Browser, oauth: OAuth2Session, **extra) -> tuple[str, str, str, str]:
    """The code flow's front half: (location the provider sent the browser to, code verifier, nonce, state)."""
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(16)
    url, state = oauth.create_authorization_url(provider.endpoint("authorization_endpoint"), code_verifier=verifier, nonce=nonce, **extra)
    reply = browser.open(url)
    assert reply.status_code == 302, reply.text[:500]
    return reply.headers["Location"], verifier, nonce, state


def query(location: str) -> dict:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))


def verified_id_token(provider: Provider, token: dict, client_id: str, nonce: str | None):
    claims = JsonWebToken(["ES256"]).decode(
        token["id_token"], key=provider.key_set(), claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": provider.issuer}},
        claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]})
    claims.validate(leeway=30)
    return claims


def signed_in_tokens(provider: Provider, client: dict, method: str | None = None, scope: str = "openid profile"):
    browser, username, auth = provider.person()
    oauth = session_for(provider, client, method, scope)
    location, verifier, nonce, state = authorize(provider, browser, oauth)
    token = oauth.fetch_token(provider.endpoint("token_endpoint"), authorization_response=location, code_verifier=verifier)
    return oauth, token, nonce, username, browser, auth


# ---- discovery ----------------------------------------------------------------------------------


def test_discovery_names_every_endpoint_under_the_issuer(provider):
    metadata = provider.metadata
    assert metadata["issuer"] == provider.issuer
    for name in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "revocation_endpoint", "introspection_endpoint",
                 "end_session_endpoint", "device_authorization_endpoint", "jwks_uri"):
        assert metadata[name].startswith(provider.issuer + "/"), name
    assert metadata["response_types_supported"] == ["code"]
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert set(metadata["token_endpoint_auth_methods_supported"]) == {"client_secret_basic", "client_secret_post", "none"}
    assert DEVICE_GRANT in metadata["grant_types_supported"]
    # RFC 8414's name for the same document.
    assert requests.get(provider.issuer + "/.well-known/oauth-authorization-server", timeout=15).json() == metadata


# ---- the code flow ------------------------------------------------------------------------------


def test_public_client_signs_in_with_pkce_and_reads_userinfo(provider):
    client = provider.client(public=True, redirectURIs=["http://127.0.0.1:8765/callback"])
    assert "clientSecret" not in client or client["clientSecret"] is None
    oauth, token, nonce, username, _, _ = signed_in_tokens(provider, client)
    assert token["token_type"] == "Bearer" and token["expires_in"] == 600
    assert "refresh_token" not in token, "no offline_access asked: no refresh token"
    claims = verified_id_token(provider, token, client["clientID"], nonce)
    assert claims["preferred_username"] == username
    assert claims["aud"] == client["clientID"]
    # The software passkey cannot be backed up and verified the user: hardware-bound, two factors, phishing-resistant.
    assert claims["amr"] == ["hwk", "user", "mfa"] and claims["acr"] == "phrh"
    info = oauth.get(provider.endpoint("userinfo_endpoint")).json()
    assert info == {"sub": claims["sub"], "preferred_username": username, "name": username.title()}
    # The subject is the user handle's encoding: never the username.
    assert username not in claims["sub"]


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_confidential_client_authenticates_either_way(provider, method):
    client = provider.client()
    assert client["clientSecret"].startswith("lk_secret_")
    _, token, nonce, _, _, _ = signed_in_tokens(provider, client, method)
    verified_id_token(provider, token, client["clientID"], nonce)


def test_the_authorization_response_carries_state_and_iss(provider):
    client = provider.client(public=True)
    browser, _, _ = provider.person()
    location, _, _, state = authorize(provider, browser, session_for(provider, client))
    assert location.startswith("https://app.example/callback?")
    received = query(location)
    assert received["state"] == state and received["iss"] == provider.issuer and len(received["code"]) == 64


def test_a_wrong_secret_or_none_is_invalid_client(provider):
    client = provider.client()
    browser, _, _ = provider.person()
    oauth = session_for(provider, client)
    location, verifier, _, _ = authorize(provider, browser, oauth)
    form = {"grant_type": "authorization_code", "code": query(location)["code"], "redirect_uri": client["redirectURIs"][0],
            "code_verifier": verifier, "client_id": client["clientID"]}
    refused = requests.post(provider.endpoint("token_endpoint"), data=form, timeout=15)
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    wrong = requests.post(provider.endpoint("token_endpoint"), data=form, auth=(client["clientID"], "lk_secret_wrong"), timeout=15)
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    assert wrong.headers["WWW-Authenticate"].startswith("Basic")
    assert wrong.json()["status"] == "failed" and wrong.json()["errorMessage"]
    # The code was not spent by the refusals.
    good = requests.post(provider.endpoint("token_endpoint"), data=form, auth=(client["clientID"], client["clientSecret"]), timeout=15)
    assert good.status_code == 200, good.text


# ---- refresh tokens ------------------------------------------------------------------------------


def test_refresh_tokens_rotate_and_a_reused_one_revokes_the_family(provider):
    client = provider.client(scopes=["openid", "profile", "offline_access"])
    oauth, token, _, _, _, _ = signed_in_tokens(provider, client, scope="openid offline_access")
    first_refresh = token["refresh_token"]
    refreshed = oauth.refresh_token(provider.endpoint("token_endpoint"), refresh_token=first_refresh)
    assert refreshed["refresh_token"] != first_refresh and refreshed["access_token"] != token["access_token"]
    assert "id_token" not in refreshed, "a refresh signs nothing (OpenID Connect Core §12.2)"
    # The rotated-out token, presented again (a thief's copy, or the client's): the whole grant is revoked.
    reused = requests.post(provider.endpoint("token_endpoint"), data={
        "grant_type": "refresh_token", "refresh_token": first_refresh}, auth=(client["clientID"], client["clientSecret"]), timeout=15)
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"
    after = requests.post(provider.endpoint("token_endpoint"), data={
        "grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"]}, auth=(client["clientID"], client["clientSecret"]),
        timeout=15)
    assert after.status_code == 400 and after.json()["error"] == "invalid_grant"
    userinfo = requests.get(provider.endpoint("userinfo_endpoint"), headers={"Authorization": f"Bearer {refreshed['access_token']}"}, timeout=15)
    assert userinfo.status_code == 401 and 'error="invalid_token"' in userinfo.headers["WWW-Authenticate"]
    events = provider.admin("GET", "/events?type=oauth_token.reused").json()["events"]
    assert any(client["clientID"] in (event.get("detail") or "") for event in events)


def test_a_forged_refresh_token_naming_the_grant_revokes_nothing(provider):
    """Every token of a grant carries its ID (a resource server sees it in each access token): a token with that ID and
    a made-up secret is refused without revoking the grant; a refresh token rotated out several times ago is reuse."""
    client = provider.client(scopes=["openid", "offline_access"])
    oauth, token, _, _, _, _ = signed_in_tokens(provider, client, scope="openid offline_access")
    grant_id = base64.urlsafe_b64decode(token["access_token"] + "==")[:16]
    forged = base64.urlsafe_b64encode(grant_id + secrets.token_bytes(32)).decode().rstrip("=")
    auth = (client["clientID"], client["clientSecret"])
    refused = requests.post(provider.endpoint("token_endpoint"), data={"grant_type": "refresh_token", "refresh_token": forged}, auth=auth,
                            timeout=15)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
    chain = [token["refresh_token"]]
    for _ in range(3):
        chain.append(oauth.refresh_token(provider.endpoint("token_endpoint"), refresh_token=chain[-1])["refresh_token"])
    reused = requests.post(provider.endpoint("token_endpoint"), data={"grant_type": "refresh_token", "refresh_token": chain[0]}, auth=auth,
                           timeout=15)
    assert reused.status_code == 400
    latest = requests.post(provider.endpoint("token_endpoint"), data={"grant_type": "refresh_token", "refresh_token": chain[-1]}, auth=auth,
                           timeout=15)
    assert latest.status_code == 400, "the reuse of a token three rotations old revoked the grant"


def test_offline_access_is_only_for_clients_allowed_it(provider):
    client = provider.client()  # the default scopes leave offline_access out
    _, token, _, _, _, _ = signed_in_tokens(provider, client, scope="openid offline_access")
    assert "refresh_token" not in token and token["scope"] == "openid"


def test_revoking_the_refresh_token_ends_the_access_token(provider):
    client = provider.client(scopes=["openid", "offline_access"])
    oauth, token, _, _, _, _ = signed_in_tokens(provider, client, scope="openid offline_access")
    revoked = oauth.revoke_token(provider.endpoint("revocation_endpoint"), token=token["refresh_token"], token_type_hint="refresh_token")
    assert revoked.status_code == 200
    assert oauth.get(provider.endpoint("userinfo_endpoint")).status_code == 401
    # Revoking an unknown token is answered the same way (RFC 7009 §2.2).
    assert oauth.revoke_token(provider.endpoint("revocation_endpoint"), token="x" * 64).status_code == 200


def test_introspection_for_a_resource_server(provider):
    app = provider.client(scopes=["openid", "offline_access"])
    api = provider.client(name="API")
    oauth, token, _, username, _, _ = signed_in_tokens(provider, app, scope="openid offline_access")
    resource = OAuth2Session(api["clientID"], api["clientSecret"])
    live = resource.introspect_token(provider.endpoint("introspection_endpoint"), token=token["access_token"]).json()
    assert live["active"] is True and live["client_id"] == app["clientID"] and live["username"] == username
    assert live["token_type"] == "Bearer" and live["scope"] == "openid offline_access" and live["iss"] == provider.issuer
    refresh = resource.introspect_token(provider.endpoint("introspection_endpoint"), token=token["refresh_token"]).json()
    assert refresh["active"] is True and refresh["token_type"] == "refresh_token"
    assert resource.introspect_token(provider.endpoint("introspection_endpoint"), token="garbage").json() == {"active": False}
    oauth.revoke_token(provider.endpoint("revocation_endpoint"), token=token["access_token"])
    assert resource.introspect_token(provider.endpoint("introspection_endpoint"), token=token["access_token"]).json() == {"active": False}
    # A public client is no resource server.
    public = provider.client(public=True)
    refused = requests.post(provider.endpoint("introspection_endpoint"), data={"token": token["access_token"], "client_id": public["clientID"]},
                            timeout=15)
    assert refused.status_code == 400 and refused.json()["error"] == "unauthorized_client"


# ---- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize("near_miss", [
    "https://app.example/callback/", "https://APP.example/callback", "https://app.example/Callback",
    "https://app.example/callback?x=1", "https://app.example/callback#f", "https://app.example.evil/callback",
    "http://app.example/callback",
])
def test_a_redirect_uri_not_registered_gets_a_page_never_a_redirect(provider, near_miss):
    client = provider.client()
    browser, _, _ = provider.person()
    url, _ = session_for(provider, client).create_authorization_url(
        provider.endpoint("authorization_endpoint"), redirect_uri=near_miss, code_verifier=secrets.token_urlsafe(48))
    reply = browser.open(url)
    assert reply.status_code == 400 and "Location" not in reply.headers
    assert reply.headers["Content-Type"].startswith("text/html") and "not a redirect URI registered" in reply.text


def test_an_unknown_client_gets_a_page(provider):
    browser, _, _ = provider.person()
    reply = browser.open(provider.endpoint("authorization_endpoint") + "?response_type=code&scope=openid&client_id=nobody"
                         "&redirect_uri=https%3A%2F%2Fevil.example%2F")
    assert reply.status_code == 400 and "Location" not in reply.headers


def error_of(provider: Provider, browser: Browser, client: dict, **parameters) -> dict:
    base = {"response_type": "code", "scope": "openid", "client_id": client["clientID"], "redirect_uri": client["redirectURIs"][0],
            "state": "s1"}
    base.update(parameters)
    reply = browser.open(provider.endpoint("authorization_endpoint") + "?" + urllib.parse.urlencode(
        {key: value for key, value in base.items() if value is not None}))
    assert reply.status_code == 302, reply.text[:300]
    received = query(reply.headers["Location"])
    assert received["state"] == "s1" and received["iss"] == provider.issuer
    return received


def test_authorization_errors_go_back_to_the_client(provider):
    public = provider.client(public=True)
    confidential = provider.client()
    browser, _, _ = provider.person()
    challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    assert error_of(provider, browser, confidential, response_type="token")["error"] == "unsupported_response_type"
    assert error_of(provider, browser, confidential, response_type="code id_token")["error"] == "unsupported_response_type"
    assert error_of(provider, browser, public)["error"] == "invalid_request"  # no PKCE
    plain = error_of(provider, browser, public, code_challenge=challenge, code_challenge_method="plain")
    assert plain["error"] == "invalid_request" and "plain" in plain["error_description"]
    assert error_of(provider, browser, confidential, scope="profile")["error"] == "invalid_scope"
    assert error_of(provider, browser, confidential, request="eyJ")["error"] == "request_not_supported"
    assert error_of(provider, browser, confidential, prompt="none login")["error"] == "invalid_request"


def test_prompt_none_without_a_session_is_login_required(provider):
    client = provider.client()
    stranger = Browser(provider.issuer)
    assert error_of(provider, stranger, client, prompt="none")["error"] == "login_required"


def test_without_a_session_the_sign_in_page_is_shown(provider):
    client = provider.client(name="Wiki <b>")
    stranger = Browser(provider.issuer)
    url, _ = session_for(provider, client).create_authorization_url(
        provider.endpoint("authorization_endpoint"), code_verifier=secrets.token_urlsafe(48), login_hint="alice")
    page = stranger.open(url)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "Sign in to Wiki &lt;b&gt;" in page.text and "<b>" not in page.text.split("<body")[1].split("Sign in to")[1][:20]
    assert 'data-login-hint="alice"' in page.text and 'src="../oidc.js"' in page.text


def test_prompt_login_and_max_age_ask_for_a_new_sign_in(provider):
    client = provider.client()
    browser, _, auth = provider.person()
    oauth = session_for(provider, client)
    for extra in ({"prompt": "login"}, {"max_age": "0"}):
        url, _ = oauth.create_authorization_url(provider.endpoint("authorization_endpoint"), code_verifier=secrets.token_urlsafe(48), **extra)
        page = browser.open(url)
        assert page.status_code == 200 and 'data-step="sign-in"' in page.text
        # The page signs in again and repeats the request without what asked for it: a code comes back.
        continued = page.text.split('data-continue="')[1].split('"')[0].replace("&amp;", "&")
        assert continued.startswith("authorize?") and "prompt=login" not in continued and "max_age" not in continued
        provider.sign_in_again(browser, auth)
        # Relative to the page, as the page's script follows it.
        again = browser.open(urllib.parse.urljoin(provider.endpoint("authorization_endpoint"), continued))
        assert again.status_code == 302 and "code" in query(again.headers["Location"])


def test_codes_are_single_use_and_a_replay_revokes_the_tokens(provider):
    client = provider.client()
    browser, _, _ = provider.person()
    oauth = session_for(provider, client)
    location, verifier, _, _ = authorize(provider, browser, oauth)
    token = oauth.fetch_token(provider.endpoint("token_endpoint"), authorization_response=location, code_verifier=verifier)
    replay = requests.post(provider.endpoint("token_endpoint"), data={
        "grant_type": "authorization_code", "code": query(location)["code"], "redirect_uri": client["redirectURIs"][0],
        "code_verifier": verifier}, auth=(client["clientID"], client["clientSecret"]), timeout=15)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert oauth.get(provider.endpoint("userinfo_endpoint")).status_code == 401, "what the first use issued is revoked"
    assert token["access_token"]


@pytest.mark.parametrize("verifier", [None, "wrong-" + "v" * 50])
def test_a_missing_or_wrong_code_verifier_is_refused(provider, verifier):
    client = provider.client()
    browser, _, _ = provider.person()
    location, _, _, _ = authorize(provider, browser, session_for(provider, client))
    form = {"grant_type": "authorization_code", "code": query(location)["code"], "redirect_uri": client["redirectURIs"][0]}
    if verifier:
        form["code_verifier"] = verifier
    refused = requests.post(provider.endpoint("token_endpoint"), data=form, auth=(client["clientID"], client["clientSecret"]), timeout=15)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"


def test_a_code_of_another_client_is_refused(provider):
    mine, theirs = provider.client(), provider.client(name="Other")
    browser, _, _ = provider.person()
    location, verifier, _, _ = authorize(provider, browser, session_for(provider, mine))
    refused = requests.post(provider.endpoint("token_endpoint"), data={
        "grant_type": "authorization_code", "code": query(location)["code"], "redirect_uri": mine["redirectURIs"][0],
        "code_verifier": verifier}, auth=(theirs["clientID"], theirs["clientSecret"]), timeout=15)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"


def test_a_disabled_users_refresh_token_stops_at_once(provider):
    client = provider.client(scopes=["openid", "offline_access"])
    oauth, token, _, username, _, _ = signed_in_tokens(provider, client, scope="openid offline_access")
    assert provider.admin("PATCH", f"/users/{username}", {"disabled": True}).status_code == 200
    refused = requests.post(provider.endpoint("token_endpoint"), data={
        "grant_type": "refresh_token", "refresh_token": token["refresh_token"]}, auth=(client["clientID"], client["clientSecret"]),
        timeout=15)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
    assert oauth.get(provider.endpoint("userinfo_endpoint")).status_code == 401
    # Enabled again, the account's old grants stay revoked.
    assert provider.admin("PATCH", f"/users/{username}", {"disabled": False}).status_code == 200
    again = requests.post(provider.endpoint("token_endpoint"), data={
        "grant_type": "refresh_token", "refresh_token": token["refresh_token"]}, auth=(client["clientID"], client["clientSecret"]),
        timeout=15)
    assert again.status_code == 400


def test_a_deleted_clients_tokens_stop_at_once(provider):
    client = provider.client(scopes=["openid", "offline_access"])
    oauth, token, _, _, _, _ = signed_in_tokens(provider, client, scope="openid offline_access")
    assert provider.admin("DELETE", f"/oauth-clients/{client['clientID']}").status_code == 200
    assert oauth.get(provider.endpoint("userinfo_endpoint")).status_code == 401
    assert provider.admin("GET", f"/oauth-clients/{client['clientID']}").status_code == 404


# ---- consent ---------------------------------------------------------------------------------------


def test_a_client_that_asks_for_consent_gets_it_from_the_person(provider):
    client = provider.client(consent=True, name="Nextcloud")
    browser, username, _ = provider.person()
    oauth = session_for(provider, client, scope="openid profile email")
    url, state = oauth.create_authorization_url(provider.endpoint("authorization_endpoint"), code_verifier=secrets.token_urlsafe(48))
    page = browser.open(url)
    assert page.status_code == 200 and 'data-step="consent"' in page.text and username in page.text
    allow = page.text.split('id="oidc-allow" class="button" href="')[1].split('"')[0].replace("&amp;", "&")
    deny = page.text.split('id="oidc-deny" class="button secondary" href="')[1].split('"')[0].replace("&amp;", "&")
    base = provider.endpoint("authorization_endpoint").rsplit("/", 1)[0] + "/"
    denied = browser.open(base + deny)
    assert query(denied.headers["Location"])["error"] == "access_denied"
    allowed = browser.open(base + allow)
    assert "code" in query(allowed.headers["Location"]) and query(allowed.headers["Location"])["state"] == state
    # The consent link is bound to the session: another person's browser cannot use it.
    other, _, _ = provider.person()
    assert 'data-step="consent"' in other.open(base + allow).text
    # What the person agreed to is remembered: the next authorization goes straight back; prompt=consent asks again,
    # and so does a scope they did not agree to.
    url, _ = oauth.create_authorization_url(provider.endpoint("authorization_endpoint"), code_verifier=secrets.token_urlsafe(48))
    assert "code" in query(browser.open(url).headers["Location"])
    url, _ = oauth.create_authorization_url(provider.endpoint("authorization_endpoint"), code_verifier=secrets.token_urlsafe(48),
                                            prompt="consent")
    assert 'data-step="consent"' in browser.open(url).text
    wider = session_for(provider, client, scope="openid profile email phone")
    url, _ = wider.create_authorization_url(provider.endpoint("authorization_endpoint"), code_verifier=secrets.token_urlsafe(48))
    assert 'data-step="consent"' in browser.open(url).text
    # prompt=none cannot show the page: someone who never agreed gets consent_required.
    assert error_of(provider, other, client, prompt="none")["error"] == "consent_required"


# ---- logout ------------------------------------------------------------------------------------------


def test_logout_with_a_hint_and_a_registered_uri_redirects_and_ends_the_session(provider):
    client = provider.client(postLogoutRedirectURIs=["https://app.example/signed-out"])
    _, token, _, _, browser, _ = signed_in_tokens(provider, client)
    end = provider.endpoint("end_session_endpoint")
    unregistered = browser.open(end + "?" + urllib.parse.urlencode({
        "id_token_hint": token["id_token"], "post_logout_redirect_uri": "https://evil.example/"}))
    assert unregistered.status_code == 200 and "Location" not in unregistered.headers
    reply = browser.open(end + "?" + urllib.parse.urlencode({
        "id_token_hint": token["id_token"], "post_logout_redirect_uri": "https://app.example/signed-out", "state": "bye"}))
    assert reply.status_code == 302 and reply.headers["Location"] == "https://app.example/signed-out?state=bye"
    assert browser.http.get(provider.issuer + "/site", timeout=15).json()["signedIn"] is False


def test_logout_without_a_hint_asks_and_never_redirects(provider):
    browser, _, _ = provider.person()
    end = provider.endpoint("end_session_endpoint")
    page = browser.open(end + "?post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F")
    assert page.status_code == 200 and "Location" not in page.headers and 'data-step="logout"' in page.text
    assert browser.http.get(provider.issuer + "/site", timeout=15).json()["signedIn"] is True
    confirmed = browser.http.post(end, data={"confirm": "yes"}, headers={"Origin": provider.issuer}, allow_redirects=False, timeout=15)
    assert confirmed.status_code == 200 and 'data-step="signed-out"' in confirmed.text
    assert browser.http.get(provider.issuer + "/site", timeout=15).json()["signedIn"] is False


# ---- clients -------------------------------------------------------------------------------------------


def test_clients_are_managed_through_the_admin_api(provider):
    client = provider.client(name="Gitea")
    listed = provider.admin("GET", "/oauth-clients").json()["clients"]
    assert any(c["clientID"] == client["clientID"] and c.get("clientSecret") is None for c in listed)
    changed = provider.admin("PATCH", f"/oauth-clients/{client['clientID']}", {"name": "Gitea 2", "consent": True}).json()["client"]
    assert changed["name"] == "Gitea 2" and changed["consent"] is True
    rotated = provider.admin("POST", f"/oauth-clients/{client['clientID']}/secret").json()["client"]
    assert rotated["clientSecret"] != client["clientSecret"]
    # The old secret stops working at once.
    old = requests.post(provider.endpoint("token_endpoint"), data={"grant_type": "refresh_token", "refresh_token": "x"},
                        auth=(client["clientID"], client["clientSecret"]), timeout=15)
    assert old.status_code == 401
    for bad in ({"name": "x", "redirectURIs": []}, {"name": "x", "redirectURIs": ["http://evil.example/cb"]},
                {"name": "x", "redirectURIs": ["https://a.example/cb#frag"]}, {"name": "x", "redirectURIs": ["https://a.example/cb"],
                                                                             "scopes": ["profile"]}):
        refused = provider.admin("POST", "/oauth-clients", bad)
        assert refused.status_code == 400 and refused.json()["status"] == "failed", bad
    kinds = {event["type"] for event in provider.admin("GET", "/events?limit=200").json()["events"]}
    assert {"oauth_client.created", "oauth_client.updated", "oauth_token.issued"} <= kinds


# ---- tenants -------------------------------------------------------------------------------------------


def test_a_client_of_one_tenant_is_unknown_at_another(server_factory):
    """Each tenant is its own issuer with its own clients: tenant A's client, its code and its secret mean nothing at
    tenant B, and each discovery document names its own tenant's issuer."""
    from test_tenants import Tenant, cli, make_tenant

    server = LatchkeyServer("openid-tenants")
    operator = cli(server, "admin-keys", "create", "--operator", "--name", "ops")
    server.start()
    try:
        tenants = {}
        for name in ("alpha", "beta"):
            make_tenant(server, operator, name, tokenIssuer=f"http://{name}.localhost:{server.port}")
            key = cli(server, "admin-keys", "create", "--tenant", name, "--name", "apps")
            tenants[name] = (Tenant(server, name), {"Authorization": f"Bearer {key}"})
        alpha, alpha_admin = tenants["alpha"]
        beta, _ = tenants["beta"]
        assert alpha.request("GET", "/.well-known/openid-configuration").json()["issuer"] == alpha.origin
        assert beta.request("GET", "/.well-known/openid-configuration").json()["issuer"] == beta.origin
        made = alpha.request("POST", "/admin/v1/oauth-clients", {"name": "Alpha app", "redirectURIs": ["https://alpha.example/cb"]},
                             headers=alpha_admin)
        assert made.status_code == 201, made.text
        client = made.json()["client"]

        query = urllib.parse.urlencode({"response_type": "code", "scope": "openid", "client_id": client["clientID"],
                                        "redirect_uri": "https://alpha.example/cb"})
        # A person of beta, signed in at beta: alpha's client is no client there.
        auth = beta.authenticator()
        beta.register(auth, "beta-person")
        refused = beta.http.get(beta.url("/oidc/authorize?" + query), headers={"Host": f"beta.localhost:{server.port}"},
                                allow_redirects=False, timeout=15)
        assert refused.status_code == 400 and "Location" not in refused.headers and "no client" in refused.text
        token = requests.post(beta.url("/oidc/token"), data={"grant_type": "refresh_token", "refresh_token": "x"},
                              auth=(client["clientID"], client["clientSecret"]), headers={"Host": f"beta.localhost:{server.port}"},
                              timeout=15)
        assert token.status_code == 401 and token.json()["error"] == "invalid_client"
        # At alpha, beta's session is no session: the sign-in page, not a code.
        page = beta.http.get(alpha.url("/oidc/authorize?" + query), headers={"Host": f"alpha.localhost:{server.port}"},
                             allow_redirects=False, timeout=15)
        assert page.status_code == 200 and 'data-step="sign-in"' in page.text
    finally:
        server.stop()
        server.cleanup()


def test_sign_ins_by_client_are_in_the_statistics(provider):
    client = provider.client(name="Counted")
    for _ in range(2):
        signed_in_tokens(provider, client)
    stats = provider.admin("GET", "/stats").json()
    assert stats["totals"]["openIDSignInsByClient"].get(client["clientID"]) == 2, stats["totals"]


# ---- accounts created with a contact ----------------------------------------------------------------------


def test_the_contact_an_account_was_made_with_is_released_under_its_scope(provider):
    """iOS 26's account-creation sheet hands the app a contact with the passkey: registration keeps it (unverified),
    the admin API shows it, and the provider releases it as `email` or `phone_number` under its scope only."""
    client = provider.client(public=True)
    for contact, scope, claim, shown in [("ana@example.com", "email", "email", "ana@example.com"),
                                         ("+1 (555) 010-7788", "phone", "phone_number", "+15550107788")]:
        browser, username, _ = provider.person(contact)
        user = provider.admin("GET", f"/users/{username}").json()["user"]
        assert user["contact"] == {"kind": scope, "value": shown}
        oauth = session_for(provider, client, scope=f"openid profile {scope}")
        location, verifier, nonce, _ = authorize(provider, browser, oauth)
        token = oauth.fetch_token(provider.endpoint("token_endpoint"), authorization_response=location, code_verifier=verifier)
        claims = verified_id_token(provider, token, client["clientID"], nonce)
        assert claims[claim] == shown and claims[f"{claim}_verified"] is False
        info = oauth.get(provider.endpoint("userinfo_endpoint")).json()
        assert info[claim] == shown and info[f"{claim}_verified"] is False
        # Without its scope, nothing of it.
        plain = session_for(provider, client, scope="openid profile")
        location, verifier, nonce, _ = authorize(provider, browser, plain)
        token = plain.fetch_token(provider.endpoint("token_endpoint"), authorization_response=location, code_verifier=verifier)
        assert claim not in verified_id_token(provider, token, client["clientID"], nonce)


@pytest.mark.parametrize("contact", ["not-an-address", "a@b", "+12", "ana @example.com", "+1555abc0000"])
def test_a_contact_that_is_neither_an_address_nor_a_number_is_refused_spending_nothing(provider, contact):
    browser = Browser(provider.issuer)
    auth = provider.server.authenticator()
    username = "oidc-" + uuid.uuid4().hex[:10]
    options = browser.post_json("/attestation/options", {"username": username})
    answer = auth.create(options)
    refused = browser.http.post(provider.issuer + "/attestation/result", json={**answer, "contactIdentifier": contact}, timeout=15)
    assert refused.status_code == 400 and "contactIdentifier" in refused.json()["errorMessage"]
    # The challenge was not spent: the same answer without the bad contact registers.
    browser.post_json("/attestation/result", answer)
    assert provider.admin("GET", f"/users/{username}").json()["user"].get("contact") is None


def test_a_hint_naming_someone_else_ends_nothing_and_sends_no_one_back(provider):
    client = provider.client(postLogoutRedirectURIs=["https://app.example/bye"])
    _, bobs, _, _, _, _ = signed_in_tokens(provider, client)
    alice, _, _ = provider.person()
    end = provider.endpoint("end_session_endpoint")
    reply = alice.open(end + "?" + urllib.parse.urlencode({"id_token_hint": bobs["id_token"], "post_logout_redirect_uri": "https://app.example/bye"}))
    assert reply.status_code == 200 and "Location" not in reply.headers and 'data-step="logout"' in reply.text
    assert "Set-Cookie" not in reply.headers
    assert alice.http.get(provider.issuer + "/site", timeout=15).json()["signedIn"] is True
    # Bob's own browser goes back, without a stray "?" when there is no state.
    _, token, _, _, bob, _ = signed_in_tokens(provider, client)
    back = bob.open(end + "?" + urllib.parse.urlencode({"id_token_hint": token["id_token"], "post_logout_redirect_uri": "https://app.example/bye"}))
    assert back.status_code == 302 and back.headers["Location"] == "https://app.example/bye"


def test_userinfo_without_a_token_names_the_scheme_without_an_error(provider):
    reply = requests.get(provider.endpoint("userinfo_endpoint"), timeout=15)
    assert reply.status_code == 401 and reply.headers["WWW-Authenticate"] == 'Bearer realm="latchkey"'
    confidential = provider.client()
    refused = requests.post(provider.endpoint("token_endpoint"), data={"grant_type": "refresh_token", "refresh_token": "x",
                                                                        "client_id": confidential["clientID"]}, timeout=15)
    assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Basic")


# ---- groups ---------------------------------------------------------------------------------------------


def test_groups_are_a_claim_and_a_client_may_admit_only_members(provider):
    """Users belong to groups the admin API sets; the `groups` scope releases them; a client limited to some groups
    shows anyone else a page saying so (403, never a redirect) and records `oauth_access.denied`."""
    staff_only = provider.client(public=True, name="Grafana", allowedGroups=["staff", "team:ops"], scopes=["openid", "profile", "groups"])
    assert staff_only["allowedGroups"] == ["staff", "team:ops"]
    browser, username, _ = provider.person()
    oauth = session_for(provider, staff_only, scope="openid groups")
    url, _ = oauth.create_authorization_url(provider.endpoint("authorization_endpoint"), code_verifier=secrets.token_urlsafe(48))
    denied = browser.open(url)
    assert denied.status_code == 403 and "Location" not in denied.headers and "staff" in denied.text
    events = provider.admin("GET", f"/events?user={username}&type=oauth_access.denied").json()["events"]
    assert len(events) == 1 and staff_only["clientID"] in events[0]["detail"]

    changed = provider.admin("PUT", f"/users/{username}/groups", {"groups": ["team:ops", "readers", "team:ops"]})
    assert changed.status_code == 200, changed.text
    assert changed.json()["user"]["groups"] == ["readers", "team:ops"]
    location, verifier, nonce, _ = authorize(provider, browser, oauth)
    token = oauth.fetch_token(provider.endpoint("token_endpoint"), authorization_response=location, code_verifier=verifier)
    assert verified_id_token(provider, token, staff_only["clientID"], nonce)["groups"] == ["readers", "team:ops"]
    assert oauth.get(provider.endpoint("userinfo_endpoint")).json()["groups"] == ["readers", "team:ops"]
    # A group removed shows at the next userinfo.
    provider.admin("PUT", f"/users/{username}/groups", {"groups": ["readers"]})
    assert oauth.get(provider.endpoint("userinfo_endpoint")).json()["groups"] == ["readers"]
    for bad in (["a b"], ["x" * 65], ["é"], [""]):
        refused = provider.admin("PUT", f"/users/{username}/groups", {"groups": bad})
        assert refused.status_code == 400 and "group name" in refused.json()["errorMessage"], bad


# ---- the device authorization grant (RFC 8628) ------------------------------------------------------

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def start_device(provider: Provider, client: dict, scope: str = "openid profile offline_access") -> requests.Response:
    return requests.post(provider.endpoint("device_authorization_endpoint"), data={"client_id": client["clientID"], "scope": scope},
                         timeout=15)


def poll_device(provider: Provider, client: dict, device_code: str) -> requests.Response:
    return requests.post(provider.endpoint("token_endpoint"), timeout=15, data={
        "grant_type": DEVICE_GRANT, "device_code": device_code, "client_id": client["clientID"]})


def hidden_field(html: str, name: str) -> str:
    marker = f'name="{name}" value="'
    start = html.index(marker) + len(marker)
    return html[start:html.index('"', start)]


def test_a_device_is_signed_in_by_a_person_who_approves_it_with_their_passkey(provider):
    client = provider.client(name="Terminal", public=True, redirectURIs=[], deviceAuthorization=True,
                             scopes=["openid", "profile", "offline_access"])
    assert client["deviceAuthorization"] is True and client["redirectURIs"] == []
    reply = start_device(provider, client)
    assert reply.status_code == 200, reply.text
    assert reply.headers["Cache-Control"] == "no-store"
    started = reply.json()
    assert started["verification_uri"] == provider.issuer + "/oidc/device"
    assert started["verification_uri_complete"] == started["verification_uri"] + "?user_code=" + started["user_code"]
    assert started["interval"] == 5 and started["expires_in"] == 600

    # The person opens the page with the code, signed in with their passkey: the page asks, every time.
    browser, username, _ = provider.person()
    page = browser.open(started["verification_uri_complete"])
    assert page.status_code == 200 and 'data-step="device-confirm"' in page.text and started["user_code"] in page.text
    assert "Terminal" in page.text and username in page.text
    approved = browser.http.post(provider.issuer + "/oidc/device", timeout=15, allow_redirects=False, data={
        "user_code": started["user_code"], "answer": hidden_field(page.text, "answer"), "decision": "approve"})
    assert approved.status_code == 200 and 'data-step="device-approved"' in approved.text

    # The device's next poll gets the tokens, once.
    tokens = poll_device(provider, client, started["device_code"])
    assert tokens.status_code == 200, tokens.text
    token = tokens.json()
    claims = verified_id_token(provider, token, client["clientID"], None)
    assert claims["preferred_username"] == username and "refresh_token" in token
    info = requests.get(provider.endpoint("userinfo_endpoint"), headers={"Authorization": f"Bearer {token['access_token']}"}, timeout=15)
    assert info.status_code == 200 and info.json()["sub"] == claims["sub"]
    replay = poll_device(provider, client, started["device_code"])
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    revoked = requests.get(provider.endpoint("userinfo_endpoint"), headers={"Authorization": f"Bearer {token['access_token']}"}, timeout=15)
    assert revoked.status_code == 401, "a replayed device code revokes what it gave"


def test_a_device_waits_until_the_person_answers_and_a_denial_is_final(provider):
    client = provider.client(name="TV", public=True, redirectURIs=[], deviceAuthorization=True)
    started = start_device(provider, client).json()
    pending = poll_device(provider, client, started["device_code"])
    assert pending.status_code == 400 and pending.json()["error"] == "authorization_pending"
    assert pending.json()["status"] == "failed" and pending.json()["errorMessage"]
    hasty = poll_device(provider, client, started["device_code"])
    assert hasty.status_code == 400 and hasty.json()["error"] == "slow_down"

    # Without a session the page signs the person in first, coming back to the same code.
    anonymous = Browser(provider.issuer).open(started["verification_uri_complete"])
    assert anonymous.status_code == 200 and 'data-step="sign-in"' in anonymous.text
    assert f'data-continue="device?user_code={started["user_code"]}"' in anonymous.text

    browser, _, _ = provider.person()
    page = browser.open(started["verification_uri"] + "?user_code=" + started["user_code"].lower().replace("-", " "))
    assert 'data-step="device-confirm"' in page.text
    # Another site cannot post the answer: the cross-site guard, and the answer's token bound to the session.
    forged = browser.http.post(provider.issuer + "/oidc/device", timeout=15, data={
        "user_code": started["user_code"], "answer": "forged", "decision": "approve"})
    assert forged.status_code == 400 and 'data-step="device-code"' in forged.text
    denied = browser.http.post(provider.issuer + "/oidc/device", timeout=15, data={
        "user_code": started["user_code"], "answer": hidden_field(page.text, "answer"), "decision": "deny"})
    assert 'data-step="device-denied"' in denied.text
    refused = poll_device(provider, client, started["device_code"])
    assert refused.status_code == 400 and refused.json()["error"] == "access_denied"
    again = browser.open(started["verification_uri_complete"])
    assert again.status_code == 400 and "expired or was answered" in again.text


def test_the_device_grant_is_only_for_clients_allowed_it(provider):
    ordinary = provider.client(public=True)
    refused = start_device(provider, ordinary)
    assert refused.status_code == 400 and refused.json()["error"] == "unauthorized_client"
    reply = provider.admin("POST", "/oauth-clients", {"name": "Nowhere", "redirectURIs": []})
    assert reply.status_code == 400 and "redirectURIs" in reply.json()["errorMessage"]
    # A device code is its client's: another client allowed the grant cannot redeem it.
    owner = provider.client(name="Owner", public=True, redirectURIs=[], deviceAuthorization=True)
    other = provider.client(name="Other", public=True, redirectURIs=[], deviceAuthorization=True)
    started = start_device(provider, owner).json()
    stolen = poll_device(provider, other, started["device_code"])
    assert stolen.status_code == 400 and stolen.json()["error"] == "invalid_grant"
    # Allowed later, through the admin API.
    changed = provider.admin("PATCH", f"/oauth-clients/{ordinary['clientID']}", {"deviceAuthorization": True})
    assert changed.status_code == 200 and changed.json()["client"]["deviceAuthorization"] is True
    assert start_device(provider, ordinary).status_code == 200



# ---- single-page apps: CORS on the provider's public endpoints ----------------------------------------------------


def test_a_page_on_another_origin_may_call_the_token_endpoint_without_credentials(provider):
    """OAuth 2.0 for Browser-Based Apps: the token, userinfo, revocation endpoints, discovery and the key set answer
    any origin's preflight and replies with `Access-Control-Allow-Origin: *`, never with credentials; the pages and
    the admin API do not."""
    spa = "https://spa.example"
    token_endpoint = provider.endpoint("token_endpoint")
    preflight = requests.options(token_endpoint, timeout=15, headers={
        "Origin": spa, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
    assert preflight.status_code == 204, preflight.text
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    assert "content-type" in preflight.headers["Access-Control-Allow-Headers"].lower()
    assert "Access-Control-Allow-Credentials" not in preflight.headers

    client = provider.client(public=True, redirectURIs=[spa + "/callback"], scopes=["openid", "profile"])
    browser, username, _ = provider.person()
    oauth = session_for(provider, client)
    location, verifier, nonce, _ = authorize(provider, browser, oauth)
    code = query(location)["code"]
    exchanged = requests.post(token_endpoint, headers={"Origin": spa}, timeout=15, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": spa + "/callback", "client_id": client["clientID"],
        "code_verifier": verifier})
    assert exchanged.status_code == 200, exchanged.text
    assert exchanged.headers["Access-Control-Allow-Origin"] == "*" and "Access-Control-Allow-Credentials" not in exchanged.headers
    token = exchanged.json()
    refused = requests.post(token_endpoint, headers={"Origin": spa}, timeout=15, data={"grant_type": "authorization_code", "code": code,
                                                                                       "client_id": client["clientID"]})
    assert refused.status_code == 400 and refused.headers["Access-Control-Allow-Origin"] == "*", "a page reads the refusal too"
    assert "WWW-Authenticate" in refused.headers.get("Access-Control-Expose-Headers", "")
    info = requests.get(provider.endpoint("userinfo_endpoint"), timeout=15,
                        headers={"Origin": spa, "Authorization": f"Bearer {token['access_token']}"})
    assert info.status_code == 401 and info.headers["Access-Control-Allow-Origin"] == "*", "the replayed code revoked the token"
    for url in (provider.issuer + "/.well-known/openid-configuration", provider.endpoint("jwks_uri")):
        public = requests.get(url, headers={"Origin": spa}, timeout=15)
        assert public.status_code == 200 and public.headers["Access-Control-Allow-Origin"] == "*"

    # The browser's own pages and the admin API stay closed to other origins.
    page = requests.options(provider.endpoint("authorization_endpoint"), timeout=15,
                            headers={"Origin": spa, "Access-Control-Request-Method": "POST"})
    assert page.status_code == 403 and "Access-Control-Allow-Origin" not in page.headers
    admin = requests.options(provider.server.url + "/admin/v1/oauth-clients", timeout=15,
                             headers={"Origin": spa, "Access-Control-Request-Method": "GET"})
    assert admin.status_code == 403 and "Access-Control-Allow-Origin" not in admin.headers


def test_an_administrator_sets_changes_and_removes_a_contact(provider):
    """`PUT /admin/v1/users/{username}/contact`: a backend gives an account a contact (form-checked, unverified), changes
    or removes it; the provider releases what is there at the next token, and an event records each change."""
    client = provider.client(public=True)
    browser, username, _ = provider.person()
    assert provider.admin("GET", f"/users/{username}").json()["user"].get("contact") is None
    changed = provider.admin("PUT", f"/users/{username}/contact", {"contact": "+44 20 7946 0958"})
    assert changed.status_code == 200, changed.text
    assert changed.json()["user"]["contact"] == {"kind": "phone", "value": "+442079460958"}
    assert provider.admin("PUT", f"/users/{username}/contact", {"contact": "ana@example.com"}).json()["user"]["contact"]["kind"] == "email"

    oauth = session_for(provider, client, scope="openid email")
    location, verifier, nonce, _ = authorize(provider, browser, oauth)
    token = oauth.fetch_token(provider.endpoint("token_endpoint"), authorization_response=location, code_verifier=verifier)
    claims = verified_id_token(provider, token, client["clientID"], nonce)
    assert claims["email"] == "ana@example.com" and claims["email_verified"] is False

    for bad in ["nobody", "+12", "a @b.example"]:
        refused = provider.admin("PUT", f"/users/{username}/contact", {"contact": bad})
        assert refused.status_code == 400 and "contact" in refused.json()["errorMessage"]
    assert provider.admin("GET", f"/users/{username}").json()["user"]["contact"]["value"] == "ana@example.com", "a refusal changes nothing"
    empty = provider.admin("PUT", f"/users/{username}/contact", {})
    assert empty.status_code == 400 and "contact" in empty.json()["errorMessage"], "an empty body removes nothing"
    removed = provider.admin("PUT", f"/users/{username}/contact", {"contact": None})
    assert removed.status_code == 200 and removed.json()["user"].get("contact") is None
    assert provider.admin("PUT", "/users/nobody-" + uuid.uuid4().hex[:6] + "/contact", {"contact": "x@y.example"}).status_code == 404
    events = provider.admin("GET", f"/events?user={username}&type=user.updated").json()["events"]
    assert [event["detail"] for event in events] == ["contact removed", "contact: email", "contact: phone"]
