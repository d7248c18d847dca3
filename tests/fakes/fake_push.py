"""A Web Push service on 127.0.0.1 and the browsers subscribed to it, for tests.

Each `Device` is a browser's side of a subscription: its own P-256 key pair and auth secret. The
server receives each push, checks the VAPID token (RFC 8292: an ES256 JWT for this origin, signed
by the key it carries, which must be the app's) and decrypts the body with the device's private key
(RFC 8291 `aes128gcm`, implemented here from the RFC with `cryptography` alone, not with the
library the app sends with). A scripted status per device plays the push service's answers:

    with FakePushService() as service:
        phone = service.device()
        service.answer(phone, 500, 201)       # first push fails, the next is taken
        ... subscribe phone.subscription ...
        [push] = service.received             # push.payload is the decrypted JSON
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import struct
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _point(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


@dataclass
class Device:
    """One browser's subscription: the endpoint and the keys only it holds."""

    token: str
    endpoint: str
    private_key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        return b64url(_point(self.private_key.public_key()))

    @property
    def subscription(self) -> dict[str, Any]:
        """What `PushSubscription.toJSON()` gives the page."""
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 §3.4 and RFC 8188: one aes128gcm record, keyed from ECDH and the auth secret."""
        salt, record_size, id_length = body[:16], struct.unpack(">I", body[16:20])[0], body[20]
        sender_point = body[21 : 21 + id_length]
        ciphertext = body[21 + id_length :]
        assert id_length == 65 and record_size >= 18 and len(ciphertext) <= record_size
        sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_point)
        shared = self.private_key.exchange(ec.ECDH(), sender)
        key_info = b"WebPush: info\x00" + _point(self.private_key.public_key()) + sender_point
        ikm = _hmac(_hmac(self.auth, shared), key_info + b"\x01")
        prk = _hmac(salt, ikm)
        cek = _hmac(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
        nonce = _hmac(prk, b"Content-Encoding: nonce\x00\x01")[:12]
        padded = AESGCM(cek).decrypt(nonce, ciphertext, None)
        data = padded.rstrip(b"\x00")
        assert data.endswith(b"\x02"), "the last record ends with the 0x02 delimiter"
        return data[:-1]


@dataclass(frozen=True)
class Push:
    device: str
    payload: dict[str, Any]
    headers: dict[str, str]
    claims: dict[str, Any]
    status: int


class FakePushService:
    def __init__(self, server_key: str | None = None) -> None:
        self.server_key = server_key  # the app's VAPID public key, when the test knows it
        self.received: list[Push] = []  # pushes answered 2xx, decrypted
        self.attempts: list[tuple[str, int]] = []  # every POST: (device token, status answered)
        self.problems: list[str] = []  # what a push got wrong (a test asserts this stays empty)
        self.delay = 0.0
        self._answers: dict[str, deque[int]] = defaultdict(deque)
        self._devices: dict[str, Device] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        # shutdown() waits for the loop's next poll: at the default 0.5 s, half a second per test
        serve = {"poll_interval": 0.02}
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs=serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def prefix(self) -> str:
        """What DREAMCHAT_PUSH_ALLOWED_ENDPOINTS lists for this service."""
        return f"{self.base_url}/push/"

    def device(self) -> Device:
        token = secrets.token_urlsafe(24)
        device = Device(token, f"{self.prefix}{token}")
        self._devices[token] = device
        return device

    def answer(self, device: Device, *statuses: int) -> None:
        """The next statuses this device's endpoint answers (then 201)."""
        self._answers[device.token].extend(statuses)

    def pushes_to(self, device: Device) -> list[Push]:
        return [push for push in self.received if push.device == device.token]

    def __enter__(self) -> FakePushService:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handle(self, path: str, headers: dict[str, str], body: bytes) -> int:
        token = path.removeprefix("/push/")
        device = self._devices.get(token)
        if device is None:
            return 404
        with self._lock:
            status = self._answers[token].popleft() if self._answers[token] else 201
            self.attempts.append((token, status))
        if self.delay:
            time.sleep(self.delay)
        claims = self._check(headers, body)
        if 200 <= status < 300:
            try:
                payload = json.loads(device.decrypt(body))
            except (AssertionError, ValueError, InvalidTag) as error:
                self.problems.append(f"not decrypted: {type(error).__name__}")
                return 400
            with self._lock:
                self.received.append(Push(token, payload, headers, claims, status))
        return status

    def _check(self, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        """RFC 8030 headers and the RFC 8292 token; what is wrong goes to `problems`."""
        if headers.get("content-encoding") != "aes128gcm":
            self.problems.append("Content-Encoding is not aes128gcm")
        if not headers.get("ttl", "").isdigit():
            self.problems.append("no TTL")
        topic = headers.get("topic", "")
        if topic and (len(topic) > 32 or not all(c.isalnum() or c in "-_" for c in topic)):
            self.problems.append("Topic is not 32 base64url characters at most")
        try:
            return self._vapid(headers.get("authorization", ""))
        except (AssertionError, ValueError, KeyError, InvalidSignature) as error:
            self.problems.append(f"VAPID: {error}")
            return {}

    def _vapid(self, authorization: str) -> dict[str, Any]:
        scheme, _, params = authorization.partition(" ")
        assert scheme == "vapid", "the scheme is vapid (RFC 8292 §3)"
        fields = dict(part.strip().split("=", 1) for part in params.split(","))
        token, key = fields["t"], fields["k"]
        if self.server_key is not None:
            assert key == self.server_key, "k is the app's public key"
        header, claims, signature = token.split(".")
        assert json.loads(unb64url(header)) == {"typ": "JWT", "alg": "ES256"}
        raw = unb64url(signature)
        assert len(raw) == 64, "an ES256 signature is r || s, 64 bytes"
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
        r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        public.verify(encode_dss_signature(r, s), f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
        decoded = json.loads(unb64url(claims))
        assert decoded["aud"] == self.base_url, "aud is the push service's origin"
        assert time.time() < decoded["exp"] <= time.time() + 24 * 3600, "exp is within 24 hours"
        assert str(decoded["sub"]).startswith(("mailto:", "https://")), "sub is a contact"
        return decoded

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                headers = {name.lower(): value for name, value in self.headers.items()}
                status = service._handle(self.path, headers, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        return Handler
