"""Web Push over HTTP: RFC 8291 message encryption (`http_ece`), RFC 8292 VAPID (`py_vapid`),
RFC 8030 delivery (httpx, the HTTP client the app already ships).

pywebpush composes the same two libraries but brings requests and aiohttp into the Lambda layer
and follows redirects; here a push is one POST that never follows a redirect, never reads proxy
settings from the environment, and gives up after a short timeout. Logs name the subscription by
its short id and the status, never the endpoint (its path is the device's token), a key or the text.
"""

from __future__ import annotations

import base64
import logging
import os
import time
from urllib.parse import urlsplit

import http_ece
import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from dreamchat.domain.push import Delivery

log = logging.getLogger(__name__)

JWT_HOURS = 12  # RFC 8292: at most 24 h; Apple refuses tokens older than one hour only when reused past exp


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    """Base64url with or without padding; binascii.Error (a ValueError) when it is not."""
    stripped = text.rstrip("=")
    return base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))


def new_private_key() -> str:
    """A fresh VAPID private key: the raw 32-byte P-256 scalar, base64url (as web-push tools print it)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


class VapidKey:
    """The application server's key pair: signs the VAPID token of each push."""

    def __init__(self, private_key: str) -> None:
        text = private_key.strip()
        self._vapid = Vapid02.from_pem(text.encode()) if text.startswith("-----BEGIN") else Vapid02.from_string(text)
        point = self._vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public_key = b64url(point)  # what `PushManager.subscribe({applicationServerKey})` takes

    def authorization(self, endpoint: str, contact: str, now: float) -> str:
        """`vapid t=<JWT>,k=<public key>` for the endpoint's push service (the JWT's `aud`)."""
        parts = urlsplit(endpoint)
        audience = f"{parts.scheme}://{parts.netloc}"
        claims = {"aud": audience, "exp": int(now) + JWT_HOURS * 3600, "sub": contact}
        return str(self._vapid.sign(claims)["Authorization"])


def public_point(p256dh: str) -> bytes:
    """The browser's P-256 key as the uncompressed point; ValueError if it is not one on the curve."""
    raw = unb64url(p256dh)
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)  # raises ValueError off the curve
    if len(raw) != 65 or raw[0] != 4:
        raise ValueError("not an uncompressed P-256 point")
    return raw


def encrypt(payload: bytes, p256dh: str, auth: str) -> bytes:
    """RFC 8291 `aes128gcm`: an ephemeral ECDH key per message, the subscription's key and auth secret."""
    return bytes(
        http_ece.encrypt(
            payload,
            salt=os.urandom(16),
            private_key=ec.generate_private_key(ec.SECP256R1()),
            dh=public_point(p256dh),
            auth_secret=unb64url(auth),
            version="aes128gcm",
        )
    )


class WebPushSender:
    """Encrypts and POSTs one push; one HTTP client (connection pool) per process."""

    def __init__(self, key: VapidKey, contact: str, client: httpx.Client | None = None) -> None:
        self.key = key
        self._contact = contact
        self._client = client or httpx.Client(follow_redirects=False, trust_env=False)

    @property
    def public_key(self) -> str:
        return self.key.public_key

    @staticmethod
    def accepts(p256dh: str, auth: str) -> bool:
        try:
            public_point(p256dh)
            return len(unb64url(auth)) == 16
        except (ValueError, TypeError):
            return False

    def send(
        self, endpoint: str, p256dh: str, auth: str, payload: bytes, *, ttl: int, topic: str, timeout: float
    ) -> Delivery:
        body = encrypt(payload, p256dh, auth)
        headers = {
            "Authorization": self.key.authorization(endpoint, self._contact, time.time()),
            "Content-Encoding": "aes128gcm",
            "Content-Type": "application/octet-stream",
            "TTL": str(ttl),
            "Urgency": "high",  # a message from a friend; the phone may wake for it
            "Topic": topic,  # a newer push for the same friend replaces one still queued
        }
        try:
            response = self._client.post(endpoint, content=body, headers=headers, timeout=timeout)
        except httpx.HTTPError as error:
            log.info("push not delivered", extra={"error": type(error).__name__})
            return Delivery(0)
        return Delivery(response.status_code, _retry_after(response.headers.get("Retry-After")))

    def close(self) -> None:
        self._client.close()


def _retry_after(value: str | None) -> float | None:
    if value is None or not value.strip().isdigit():
        return None  # an HTTP date is not waited for: the push gives up within its budget anyway
    return float(value.strip())
