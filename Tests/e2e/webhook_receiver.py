"""A webhook receiver as a backend would run one: it verifies every delivery with the
`standardwebhooks` library from PyPI (not Latchkey's code), and keeps the verified ones.

It can be down (not listening at all) and come back on the same port, answer with an error, or
hold each request for a while before answering (to kill a sender mid-delivery). With `credentials`
set it refuses (401) every request without them in HTTP Basic authentication."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from conftest import free_port


def new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(32)).decode()


class Receiver:
    """Verified deliveries, in arrival order, as (webhook-id, payload) pairs."""

    def __init__(self, secret: str, port: int | None = None):
        self.verifier = Webhook(secret)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/hooks/latchkey"
        self.deliveries: list[tuple[str, dict]] = []
        self.refused: list[str] = []
        self.lock = threading.Lock()
        self.status = 204
        self.hold_seconds = 0.0
        self.credentials: tuple[str, str] | None = None
        self.unauthorized = 0
        self.requests_seen = 0
        # webhook-id -> requests for it being handled right now; any id ever above 1 was sent twice at once.
        self.in_flight: dict[str, int] = {}
        self.sent_twice_at_once: set[str] = set()
        # webhook-id -> every distinct body received under it, verified or not: one delivery is one body.
        self.bodies: dict[str, set[bytes]] = {}
        self._server: ThreadingHTTPServer | None = None

    def start(self) -> "Receiver":
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                delivery_id = self.headers.get("webhook-id", "")
                with receiver.lock:
                    receiver.requests_seen += 1
                    receiver.bodies.setdefault(delivery_id, set()).add(body)
                    receiver.in_flight[delivery_id] = receiver.in_flight.get(delivery_id, 0) + 1
                    if receiver.in_flight[delivery_id] > 1:
                        receiver.sent_twice_at_once.add(delivery_id)
                try:
                    self.handle_delivery(body)
                finally:
                    with receiver.lock:
                        receiver.in_flight[delivery_id] -= 1

            def handle_delivery(self, body: bytes):
                if receiver.hold_seconds:
                    time.sleep(receiver.hold_seconds)
                if receiver.credentials is not None:
                    expected = "Basic " + base64.b64encode(":".join(receiver.credentials).encode()).decode()
                    if self.headers.get("Authorization") != expected:
                        with receiver.lock:
                            receiver.unauthorized += 1
                        self.send_response(401)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                try:
                    payload = receiver.verifier.verify(body, dict(self.headers.items()))
                except WebhookVerificationError as error:
                    with receiver.lock:
                        receiver.refused.append(str(error))
                    self.send_response(400)
                    self.end_headers()
                    return
                if receiver.status < 300:
                    with receiver.lock:
                        receiver.deliveries.append((self.headers["webhook-id"], payload))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def ids(self) -> list[str]:
        with self.lock:
            return [delivery_id for delivery_id, _ in self.deliveries]

    def payloads(self) -> list[dict]:
        with self.lock:
            return [payload for _, payload in self.deliveries]

    def ids_sent_with_other_bytes(self) -> dict[str, list[bytes]]:
        """Deliveries whose attempts did not all send the same bytes (the signature covers bytes)."""
        with self.lock:
            return {delivery_id: sorted(bodies) for delivery_id, bodies in self.bodies.items() if len(bodies) > 1}

    def wait_for(self, predicate, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return
            time.sleep(0.2)
        raise AssertionError(f"the receiver did not get {what} in {timeout:.0f} s: "
                             f"{len(self.deliveries)} verified, refused {self.refused[:3]}")

    def wait_for_events(self, count: int, timeout: float = 30):
        self.wait_for(lambda r: len(set(r.ids())) >= count, timeout, f"{count} distinct events")


def webhook_env(receiver: Receiver, secret: str) -> dict:
    return {"LATCHKEY_WEBHOOK_URLS": receiver.url, "LATCHKEY_WEBHOOK_SECRET": secret,
            "LATCHKEY_WEBHOOK_ALLOW_HTTP": "true"}


def running_receiver():
    """A started receiver with a new secret (as `secret`), stopped afterwards: for fixtures."""
    secret = new_secret()
    receiver = Receiver(secret).start()
    receiver.secret = secret
    yield receiver
    receiver.stop()
