"""The push rules as plain values: allowed prefixes, and what one notification carries."""

from __future__ import annotations

import pytest

from dreamchat.domain.push import (
    DEFAULT_ALLOWED_ENDPOINTS,
    MAX_BODY_CHARS,
    BadEndpoint,
    check_endpoint,
    notification,
    parse_rules,
)

RULES = parse_rules(DEFAULT_ALLOWED_ENDPOINTS)


def test_a_wildcard_stands_for_exactly_one_dns_label() -> None:
    assert check_endpoint("https://db5p.notify.windows.com/w/?token=x", RULES)
    for host in ("notify.windows.com", "a.b.notify.windows.com", "-a.notify.windows.com", "a_b.notify.windows.com"):
        with pytest.raises(BadEndpoint):
            check_endpoint(f"https://{host}/w/", RULES)


def test_an_explicit_port_must_be_the_prefixs_port() -> None:
    assert check_endpoint("https://fcm.googleapis.com:443/fcm/send/x", RULES)
    with pytest.raises(BadEndpoint):
        check_endpoint("https://fcm.googleapis.com:444/fcm/send/x", RULES)


def test_a_path_prefix_is_honoured() -> None:
    rules = parse_rules(["http://127.0.0.1:8123/push/"])
    assert check_endpoint("http://127.0.0.1:8123/push/abc", rules)
    for url in ("http://127.0.0.1:8123/other", "http://127.0.0.2:8123/push/abc", "http://127.0.0.1:8124/push/abc"):
        with pytest.raises(BadEndpoint):
            check_endpoint(url, rules)


@pytest.mark.parametrize(
    "prefix",
    ["ftp://x.example/", "https://*.10.0.0.1/", "https://169.254.169.254/", "https://u@fcm.googleapis.com/", "nothing"],
)
def test_a_malformed_or_inside_prefix_is_refused_at_start(prefix: str) -> None:
    with pytest.raises(ValueError):
        parse_rules([prefix])


def test_a_link_local_address_is_refused_even_when_listed() -> None:
    with pytest.raises(ValueError):
        parse_rules(["http://[fe80::1]/push/"])


def test_hidden_content_says_only_that_a_message_came() -> None:
    note = notification("a1", "小梦", "🌙", ["秘密"], "m1", 1.0, show_content=False)
    assert note.body == "发来一条消息" and "秘密" not in str(note.as_dict())


def test_a_long_turn_is_cut_to_what_a_lock_screen_shows() -> None:
    note = notification("a1", "小梦", "", ["字" * 300, "句" * 300], "m2", 1.0, show_content=True)
    assert len(note.body) == MAX_BODY_CHARS and note.body.endswith("…") and note.count == 2
    assert note.tag == "chat-a1" and note.as_dict()["url"] == "/#/chat/a1"
