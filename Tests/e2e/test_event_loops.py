"""`eventLoops`: the server on one event loop (the default) and on one per core, through the same
concurrent ceremonies, on SQLite and on PostgreSQL."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from test_faults import register
from test_http_api import new_username
from test_postgres import postgres_url  # noqa: F401 (the fixture)

CLIENTS = 8


def sign_in(server, auth, username: str):
    client = server.client()
    options = client.post("/assertion/options", {"username": username}, timeout=10)
    assert options.status_code == 200, options.text
    return client.post("/assertion/result", auth.get(options.json()), timeout=10)


@pytest.mark.parametrize("loops", ["one", "perCore"])
@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_concurrent_ceremonies_on_either_event_loop_setting(request, server_factory, loops, store):
    env = {"LATCHKEY_EVENT_LOOPS": loops}
    if store == "postgres":
        env["LATCHKEY_DATABASE"] = request.getfixturevalue("postgres_url")  # skipped with PostgreSQL
    server = server_factory(f"event-loops-{loops}-{store}", env)
    auth = server.authenticator()
    usernames = [new_username() for _ in range(CLIENTS)]
    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        registered = list(pool.map(lambda name: register(server, auth, name), usernames))
        assert [reply.status_code for reply in registered] == [200] * CLIENTS, [reply.text for reply in registered]
        for _ in range(3):
            signed_in = list(pool.map(lambda name: sign_in(server, auth, name), usernames))
            assert [reply.status_code for reply in signed_in] == [200] * CLIENTS, [reply.text for reply in signed_in]
            assert [reply.json()["username"] for reply in signed_in] == usernames
    server.assert_alive()
