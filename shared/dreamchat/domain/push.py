"""Web Push rules without I/O: which endpoints a subscription may name, and what a notification says.

The server POSTs to whatever URL a subscription names, so an endpoint is accepted only under one of
the configured prefixes (the browsers' push services), compared part by part, never as a string:
scheme, host (a `*` stands for exactly one DNS label), port and path prefix. A URL with userinfo, a
fragment, an odd port or a host spelled to confuse a parser is refused, and so is any IP literal
unless a prefix names that very address (the tests' loopback push service). Link-local addresses and
cloud metadata names are refused even then.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from pydantic import BaseModel

MAX_ENDPOINT_CHARS = 1024
DEFAULT_ALLOWED_ENDPOINTS = (
    "https://fcm.googleapis.com/",  # Chrome, Android, Opera, Samsung Internet
    "https://updates.push.services.mozilla.com/",  # Firefox
    "https://web.push.apple.com/",  # Safari on macOS, iOS and iPadOS 16.4+
    "https://*.notify.windows.com/",  # Edge on Windows (WNS)
)
HIDDEN_TEXT = "发来一条消息"
VOICE_MARK = "[语音]"  # before the words of the AI's voice message, as a chat list shows one
MAX_BODY_CHARS = 400  # a lock screen shows a few lines; the encrypted record must stay under 4 KB
MAX_AVATAR_CHARS = 512
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_DEFAULT_PORTS = {"https": 443, "http": 80}
_METADATA_HOSTS = frozenset(
    {"metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"}
)


class Subscription(BaseModel):
    """One device's PushSubscription: its id is a hash of the endpoint (the endpoint is the device's secret)."""

    id: str
    endpoint: str
    p256dh: str
    auth: str
    created_at: float


class PushSettings(BaseModel):
    """The person's one switch: whether a notification shows the text or only that a message came."""

    show_content: bool = True


class BadEndpoint(ValueError):
    """A subscription's endpoint the server will not send to; the message says why, without the URL."""


@dataclass(frozen=True)
class EndpointRule:
    """One allowed prefix: `https://*.notify.windows.com/` or `http://127.0.0.1:8123/push/`."""

    scheme: str
    host: str  # lower case; may start with "*." (one label)
    port: int
    path: str

    def allows(self, scheme: str, host: str, port: int, path: str) -> bool:
        if (scheme, port) != (self.scheme, self.port) or not path.startswith(self.path):
            return False
        if self.host.startswith("*."):
            label, _, rest = host.partition(".")
            return rest == self.host[2:] and _LABEL.fullmatch(label) is not None
        return host == self.host


def parse_rules(prefixes: list[str] | tuple[str, ...]) -> tuple[EndpointRule, ...]:
    """The allowed prefixes as rules; a malformed one is a ValueError naming it (checked at start)."""
    rules = []
    for prefix in prefixes:
        parts = urlsplit(prefix.strip())
        wildcard = parts.hostname is not None and parts.hostname.startswith("*.")
        host = parts.hostname[2:] if wildcard and parts.hostname else parts.hostname
        if parts.scheme not in _DEFAULT_PORTS or not host or parts.username is not None or parts.query:
            raise ValueError(f"DREAMCHAT_PUSH_ALLOWED_ENDPOINTS: {prefix!r} is not an http(s) URL prefix")
        _check_host(host, ip_allowed=not wildcard)
        port = parts.port if parts.port is not None else _DEFAULT_PORTS[parts.scheme]
        rules.append(EndpointRule(parts.scheme, ("*." if wildcard else "") + host, port, parts.path or "/"))
    return tuple(rules)


def check_endpoint(url: str, rules: tuple[EndpointRule, ...]) -> str:
    """The endpoint, if the server may POST to it; else BadEndpoint."""
    if len(url) > MAX_ENDPOINT_CHARS or any(ord(c) <= 0x20 or ord(c) >= 0x7F or c == "\\" for c in url):
        raise BadEndpoint("the endpoint is not a plain URL")
    parts = _split(url)
    if parts.scheme not in _DEFAULT_PORTS:
        raise BadEndpoint("the endpoint must be an https URL")
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise BadEndpoint("the endpoint may not carry a user name or password")
    if parts.fragment:
        raise BadEndpoint("the endpoint may not have a fragment")
    host = parts.hostname or ""
    if not host:
        raise BadEndpoint("the endpoint has no host")
    literal = _ip(host)
    _check_host(host, ip_allowed=True)
    port = _port(parts)
    path = parts.path or "/"
    listed = [rule for rule in rules if rule.allows(parts.scheme, host, port, path)]
    if not listed:
        raise BadEndpoint("the endpoint is not at a known push service")
    if literal is not None and not any(rule.host == host for rule in listed):
        raise BadEndpoint("the endpoint's host must be a name")
    return url


def _split(url: str) -> SplitResult:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is no number or out of range
    except ValueError as error:
        raise BadEndpoint("the endpoint is not a valid URL") from error
    return parts


def _port(parts: SplitResult) -> int:
    netloc_port = parts.netloc.rpartition("]")[2].rpartition(":")
    if netloc_port[1] and not netloc_port[2].isdigit():
        raise BadEndpoint("the endpoint's port is not a number")
    return parts.port if parts.port is not None else _DEFAULT_PORTS[parts.scheme]


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _check_host(host: str, *, ip_allowed: bool) -> None:
    address = _ip(host)
    if address is not None:
        if not ip_allowed:
            raise BadEndpoint("a wildcard host cannot be an address")
        if address.is_link_local or address.is_multicast or address.is_unspecified or address.is_reserved:
            raise BadEndpoint("the endpoint's address is link-local or reserved")
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            raise BadEndpoint("the endpoint's address is an IPv4-mapped IPv6 address")
        return
    labels = host.split(".")
    if host in _METADATA_HOSTS or host.endswith((".internal", ".local", ".localhost")) or host == "localhost":
        raise BadEndpoint("the endpoint's host is an internal name")
    if len(host) > 253 or len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels):
        raise BadEndpoint("the endpoint's host is not a DNS name")
    if labels[-1].isdigit() or labels[-1].startswith("0x"):
        raise BadEndpoint("the endpoint's host looks like a number")


@dataclass(frozen=True)
class Notification:
    """What one push carries (JSON in the encrypted payload); the service worker shows it."""

    ai_user_id: str
    name: str
    avatar: str
    body: str
    count: int
    message_id: str
    timestamp: float

    @property
    def tag(self) -> str:
        """One notification per friend: a later one replaces it on the lock screen."""
        return f"chat-{self.ai_user_id}"

    def as_dict(self) -> dict[str, object]:
        return {
            "v": 1,
            "ai_user_id": self.ai_user_id,
            "name": self.name,
            "avatar": self.avatar,
            "body": self.body,
            "count": self.count,
            "tag": self.tag,
            "url": f"/#/chat/{self.ai_user_id}",
            "message_id": self.message_id,
            "timestamp": self.timestamp,
        }


def said(content: str, media_kind: str | None) -> str:
    """What a notification shows of one message: its words, a voice message's marked as one (never empty)."""
    return f"{VOICE_MARK} {content}".strip() if media_kind == "audio" else content


def notification(
    ai_user_id: str,
    name: str,
    avatar: str,
    texts: list[str],
    message_id: str,
    timestamp: float,
    *,
    show_content: bool,
) -> Notification:
    """One notification for the messages of one turn (or heartbeat): their text joined, or only
    "发来一条消息" when the person hides content (then no word of theirs is in the payload)."""
    body = "\n".join(texts) if show_content else HIDDEN_TEXT
    if len(body) > MAX_BODY_CHARS:
        body = body[: MAX_BODY_CHARS - 1] + "…"
    shown_avatar = avatar if len(avatar) <= MAX_AVATAR_CHARS else ""
    return Notification(ai_user_id, name, shown_avatar, body, len(texts), message_id, timestamp)


@dataclass(frozen=True)
class Delivery:
    """What a push service answered: its status (0 when it could not be reached) and Retry-After."""

    status: int
    retry_after: float | None = None

    @property
    def gone(self) -> bool:
        """The subscription expired or was revoked (RFC 8030 §7.3): it is deleted."""
        return self.status in (404, 410)

    @property
    def delivered(self) -> bool:
        return 200 <= self.status < 300

    @property
    def retryable(self) -> bool:
        return self.status == 0 or self.status == 429 or self.status >= 500
