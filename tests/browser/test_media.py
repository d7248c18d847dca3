"""Voice notes and photos in the web client (issue 41), at phone size, against the real server: Chromium's fake
microphone (`--use-fake-device-for-media-stream`, a beep) records while the button is held, the note is uploaded,
sent by its media id and drawn with its length, and plays; a photo chosen in the file picker is scaled down in the
page before it is uploaded, shown as a thumbnail and opened full size; sliding away cancels a recording; the
server's refusals are explained and what was typed stays. The speech, voice and vision roles are a fake on
127.0.0.1 (tests/fakes/fake_media.py)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, Stack, bearer, companion, screenshot, server_env
from tests.browser.conftest import PHONE as PHONE_SIZE
from tests.browser.test_look import small_targets, violations
from tests.browser.test_web_client import open_logged_in
from tests.fakes.fake_llm import FakeLLMServer
from tests.fakes.fake_media import SPEECH, TRANSCRIPTIONS, FakeMediaServer, MediaReply
from tests.fakes.server import running_server

pytestmark = pytest.mark.browser

MEDIA = Path(__file__).resolve().parents[1] / "data" / "media"
FAKE_MICROPHONE = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
UPLOAD = re.compile(r"/api/ai-users/[^/]+/media$")
CHAT = re.compile(r"/api/ai-users/[^/]+/chat$")
HEARD = "今天下班路上看到一只橘猫"  # what the fake speech role hears in any recording
SEEN = "一只橘猫趴在窗台上晒太阳。"  # what the fake vision role sees in any photo
PHONE = {**PHONE_SIZE, "permissions": ["microphone"]}
# Playwright does not hand over a body holding a Blob, so the page keeps each file it puts in a form
KEEP_UPLOADS = """(() => {
  const append = FormData.prototype.append;
  window.uploadedFiles = [];
  FormData.prototype.append = function (name, value, ...rest) {
    if (value instanceof Blob) window.uploadedFiles.push(value);
    return append.call(this, name, value, ...rest);
  };
})();"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The browser tests' server, with the three media roles pointed at the fake media server."""
    with FakeLLMServer(default=companion) as llm, FakeMediaServer() as media:
        roles = {
            f"DREAMCHAT_{role}_{name}": value
            for role in ("SPEECH_TO_TEXT", "TEXT_TO_SPEECH", "VISION")
            for name, value in (("BASE_URL", media.base_url), ("API_KEY", "test"), ("MODEL", role.lower()))
        }
        env = server_env(tmp_path_factory.mktemp("media") / "data", llm, **roles)
        with running_server(env) as base:
            stack = Stack(base, llm)
            stack.media = media  # type: ignore[attr-defined]  # a test scripts a role's failure
            yield stack


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium with a fake microphone that needs no permission prompt."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: see docs/web-client.md (apt-get install chromium)", pytrace=False)
    from playwright.sync_api import sync_playwright

    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, *FAKE_MICROPHONE])
        yield launched
        launched.close()


def chat_page(stack: Stack, open_context: Any, init: str = "") -> tuple[Any, dict[str, Any]]:
    account = stack.register("media")
    ai_user = stack.create_ai_user(account, name="小梦")
    context = open_context(PHONE)
    context.add_init_script(KEEP_UPLOADS + init)
    page = context.new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    expect(page.get_by_role("button", name="按住说话")).to_be_visible()
    return page, ai_user


def press_mic(page: Any) -> tuple[float, float]:
    box = page.get_by_role("button", name="按住说话").bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    return x, y


def record(page: Any, seconds: int) -> None:
    """Hold the button until the timer shows `seconds`, then let go."""
    press_mic(page)
    expect(page.locator(".recording .rec-time")).to_have_text(f"0:{seconds:02d}", timeout=(seconds + 5) * 1000)
    page.mouse.up()


def uploads(page: Any) -> list[Any]:
    seen: list[Any] = []
    page.on("request", lambda request: UPLOAD.search(request.url) and request.method == "POST" and seen.append(request))
    return seen


def uploaded_file(page: Any, index: int = 0) -> tuple[str, bytes]:
    """The type and bytes of the `index`th file the page put in an upload form."""
    kind, data = page.evaluate(
        """async (index) => {
            const blob = window.uploadedFiles[index];
            return [blob.type, Array.from(new Uint8Array(await blob.arrayBuffer()))];
        }""",
        index,
    )
    return kind, bytes(data)


def test_a_held_button_records_a_voice_note_that_is_uploaded_sent_drawn_with_its_length_and_played(
    stack: Stack, open_context: Any
) -> None:
    page, _ = chat_page(stack, open_context)
    sent = uploads(page)
    press_mic(page)
    recording = page.locator(".recording")
    expect(recording).to_contain_text("上滑或左滑取消")
    expect(recording.locator(".rec-time")).to_have_text("0:02", timeout=8000)
    screenshot(page, "media-recording-phone")
    with page.expect_request(CHAT) as chat:
        page.mouse.up()
    expect(recording).to_be_hidden()
    kind, data = uploaded_file(page)
    assert len(sent) == 1 and kind == "audio/webm" and data[:4] == b"\x1a\x45\xdf\xa3"  # WebM from MediaRecorder
    body = json.loads(chat.value.post_data or "{}")
    assert set(body) == {"media_id"}, body

    note = page.locator(".msg-me .bubble-voice")
    expect(note).to_have_count(1)
    expect(note.locator(".voice-time")).to_have_text(re.compile(r"^[23]″$"))
    expect(page.locator(".msg-list .msg-ai .bubble")).not_to_have_count(0, timeout=15_000)

    note.get_by_role("button", name=re.compile("播放语音")).click()
    expect(note).to_have_class(re.compile("voice-playing"))
    expect(note.locator(".voice-time")).to_have_text(re.compile(r"^0:0[1-3]$"), timeout=5000)
    assert float(note.locator(".voice-track").get_attribute("aria-valuenow") or 0) > 0
    screenshot(page, "media-voice-phone")
    expect(note).not_to_have_class(re.compile("voice-playing"), timeout=8000)  # it ends by itself

    note.get_by_role("button", name="显示语音的文字").click()
    expect(page.locator(".msg-me .voice-words")).to_have_text(HEARD)


def test_a_note_nobody_could_hear_says_so_on_tap(stack: Stack, open_context: Any) -> None:
    page, _ = chat_page(stack, open_context)
    stack.media.script(TRANSCRIPTIONS, *[MediaReply.error(500)] * 5)  # type: ignore[attr-defined]
    record(page, 2)
    expect(page.locator(".msg-list .msg-ai .bubble")).not_to_have_count(0, timeout=15_000)
    page.locator(".msg-me").get_by_role("button", name="显示语音的文字").click()
    expect(page.locator(".msg-me .voice-words")).to_contain_text("未转写")
    stack.media.scripts[TRANSCRIPTIONS].clear()  # type: ignore[attr-defined]


def test_sliding_up_cancels_and_a_short_press_is_dropped_nothing_uploaded(stack: Stack, open_context: Any) -> None:
    page, _ = chat_page(stack, open_context)
    sent = uploads(page)
    x, y = press_mic(page)
    expect(page.locator(".recording .rec-time")).to_have_text("0:01", timeout=8000)
    page.mouse.move(x, y - 120, steps=4)
    hint = page.locator(".recording .rec-hint")
    expect(hint).to_have_text("松开手指，取消发送")
    expect(page.locator(".recording")).to_have_class(re.compile("rec-cancel"))
    screenshot(page, "media-cancel-phone")
    page.mouse.up()
    expect(page.locator(".toast")).to_have_text("已取消，没有发送")

    # sliding back before letting go keeps it
    press_mic(page)
    expect(page.locator(".recording")).to_be_visible()
    page.mouse.up()
    expect(page.locator(".toast")).to_have_text("说话时间太短，没有发送")
    page.wait_for_timeout(500)
    assert sent == []
    expect(page.locator(".msg-me")).to_have_count(0)


def test_a_denied_microphone_says_so(stack: Stack, open_context: Any) -> None:
    denied = "if (navigator.mediaDevices) navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('no', 'NotAllowedError'));"
    page, _ = chat_page(stack, open_context, init=denied)
    press_mic(page)
    page.mouse.up()
    expect(page.locator(".notice")).to_contain_text("没有麦克风权限")
    expect(page.locator(".recording")).to_be_hidden()


def photo(size: tuple[int, int], orientation: int | None = None) -> bytes:
    """A JPEG of `size` (a red left half, so its turn shows), with an EXIF orientation when given."""
    image = Image.new("RGB", size, (40, 90, 200))
    image.paste((220, 40, 40), (0, 0, size[0] // 2, size[1]))
    out = io.BytesIO()
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    image.save(out, format="JPEG", quality=90, exif=exif.tobytes())
    return out.getvalue()


def test_a_photo_is_scaled_down_upright_in_the_page_uploaded_with_its_caption_and_opens_full_size(
    stack: Stack, open_context: Any, tmp_path: Path
) -> None:
    page, _ = chat_page(stack, open_context)
    sent = uploads(page)
    picture = tmp_path / "IMG_0001.jpg"
    picture.write_bytes(photo((4000, 3000), orientation=6))  # taken on its side: stands 3000 × 4000
    page.get_by_label("输入消息").fill("我家的猫")
    page.get_by_role("button", name="图片：拍照或从相册选择").click()
    expect(page.get_by_role("menuitem", name="拍照")).to_be_visible()
    expect(page.get_by_role("menuitem", name="从相册选择")).to_be_visible()
    screenshot(page, "media-photo-menu-phone")
    with page.expect_request(CHAT) as chat:
        page.locator("#photo-album").set_input_files(str(picture))
    expect(page.get_by_label("输入消息")).to_have_value("")

    kind, data = uploaded_file(page)
    assert len(sent) == 1 and kind == "image/jpeg" and len(data) < picture.stat().st_size
    uploaded = Image.open(io.BytesIO(data))
    assert uploaded.format == "JPEG" and uploaded.size == (1200, 1600), uploaded.size  # upright, 1600 at most
    assert 0x0112 not in uploaded.getexif()  # drawn anew: no EXIF (orientation, place) travels
    red = uploaded.getpixel((600, 100))
    assert red[0] > 150 and red[2] < 120, red  # the red half is on top once turned upright
    body = json.loads(chat.value.post_data or "{}")
    assert body["content"] == "我家的猫" and body["media_id"]

    thumb = page.locator(".msg-me .bubble-photo img")
    expect(thumb).to_have_count(1)
    expect(page.locator(".msg-me .bubble", has_text="我家的猫")).to_be_visible()
    expect(page.locator(".msg-list .msg-ai .bubble")).not_to_have_count(0, timeout=15_000)
    page.reload()  # from the server now: fetched with the login, shown from a blob: URL
    thumb = page.locator(".msg-me .bubble-photo img")
    expect(thumb).to_have_attribute("src", re.compile("^blob:"))
    expect(thumb).to_have_attribute("alt", SEEN.rstrip("。") + "。")
    assert thumb.evaluate("img => img.complete && img.naturalWidth") == 1200
    box = thumb.bounding_box()
    assert box and box["width"] <= 221 and box["height"] <= 281
    screenshot(page, "media-photo-phone")

    page.locator(".msg-me .bubble-photo").click()
    viewer = page.get_by_role("dialog", name="查看图片")
    expect(viewer).to_be_visible()
    full = viewer.locator("img")
    expect(full).to_have_attribute("src", re.compile("^blob:"))
    size = full.bounding_box()
    assert size and size["width"] >= 380 or size["height"] >= 500, size
    screenshot(page, "media-viewer-phone")
    page.keyboard.press("Escape")
    expect(viewer).to_have_count(0)
    page.locator(".msg-me .bubble-photo").click()
    page.get_by_role("dialog", name="查看图片").click()
    expect(page.get_by_role("dialog", name="查看图片")).to_have_count(0)


@pytest.mark.parametrize(
    ("status", "code", "said"),
    [
        (422, "media_duration", "语音最长 60 秒"),
        (422, "media_size", "文件太大了"),
        (422, "media_pixels", "像素太多"),
        (422, "media_decode", "打不开"),
        (413, "payload_too_large", "文件太大了：图片最多 8 MB，语音最多 2 MB。"),
        (429, "rate_limited", "操作太频繁了，请 30 秒后再试。"),
    ],
)
def test_a_refused_upload_says_why_and_keeps_the_caption(
    stack: Stack, open_context: Any, tmp_path: Path, status: int, code: str, said: str
) -> None:
    page, _ = chat_page(stack, open_context)
    body = json.dumps({"error": {"code": code, "message": "refused"}})
    headers = {"Retry-After": "30"} if status == 429 else {}
    page.route(
        UPLOAD, lambda route: route.fulfill(status=status, body=body, content_type="application/json", headers=headers)
    )
    picture = tmp_path / "cat.jpg"
    picture.write_bytes(photo((800, 600)))
    page.get_by_label("输入消息").fill("看看这个")
    page.locator("#photo-album").set_input_files(str(picture))
    expect(page.locator(".toast-error")).to_contain_text(said)
    expect(page.get_by_label("输入消息")).to_have_value("看看这个")
    expect(page.locator(".msg-me")).to_have_count(0)
    if code == "media_duration":
        screenshot(page, "media-error-phone")


def test_a_file_that_is_no_picture_is_refused_by_the_server_by_its_bytes(
    stack: Stack, open_context: Any, tmp_path: Path
) -> None:
    page, _ = chat_page(stack, open_context)
    fake = tmp_path / "cat.png"
    fake.write_text("not a picture at all", encoding="utf-8")
    with page.expect_response(UPLOAD) as answer:
        page.locator("#photo-album").set_input_files(str(fake))
    assert answer.value.status == 422
    expect(page.locator(".toast-error")).to_contain_text("这种文件发不了")


def seeded_media(stack: Stack, account: dict[str, Any], ai_user: dict[str, Any]) -> None:
    """A voice note and a photo with a caption saved in the chat (issue 41's save-message with `media_id`), and the
    AI's answer in words."""
    with httpx.Client(base_url=stack.base, headers=bearer(account), timeout=30) as api:
        for name, data, caption in (
            ("voice.webm", (MEDIA / "voice.webm").read_bytes(), ""),
            ("cat.jpg", photo((900, 1200)), "我家的猫"),
        ):
            upload = api.post(f"/api/ai-users/{ai_user['id']}/media", files={"file": (name, data)})
            assert upload.status_code == 201, upload.text
            body = {"media_id": upload.json()["media_id"], **({"content": caption} if caption else {})}
            saved = api.post(f"/api/ai-users/{ai_user['id']}/save-message", json=body)
            assert saved.status_code == 201, saved.text


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_media_bubbles_menu_recording_and_viewer_pass_axe_contrast_and_44_px_targets(
    stack: Stack, open_context: Any, scheme: str
) -> None:
    account = stack.register("media")
    ai_user = stack.create_ai_user(account, name="小梦")
    seeded_media(stack, account, ai_user)
    context = open_context(PHONE, color_scheme=scheme)
    page = context.new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    expect(page.locator(".msg-me .bubble-photo img")).to_have_attribute("src", re.compile("^blob:"))
    page.locator(".msg-me .voice-words-btn").click()
    expect(page.locator(".msg-me .voice-words")).to_have_text(HEARD)
    page.wait_for_timeout(300)
    found = {"chat": violations(page) + small_targets(page)}
    screenshot(page, f"media-look-{scheme}-phone")

    page.get_by_role("button", name="图片：拍照或从相册选择").click()
    expect(page.locator(".photo-menu")).to_be_visible()
    found["photo menu"] = violations(page) + small_targets(page)
    page.keyboard.press("Escape")
    page.locator(".log").click(position={"x": 10, "y": 10})

    press_mic(page)
    expect(page.locator(".recording .rec-time")).to_have_text("0:01", timeout=8000)
    found["recording"] = violations(page)
    page.mouse.move(200, 300, steps=3)
    expect(page.locator(".recording")).to_have_class(re.compile("rec-cancel"))
    found["cancelling"] = violations(page)
    page.mouse.up()

    page.locator(".msg-me .bubble-photo").click()
    expect(page.get_by_role("dialog", name="查看图片").locator("img")).to_have_attribute("src", re.compile("^blob:"))
    found["viewer"] = violations(page) + small_targets(page)
    problems = {name: lines for name, lines in found.items() if lines}
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(lines) for name, lines in problems.items())


def test_an_ai_voice_reply_is_a_voice_bubble_that_plays_one_at_a_time_and_shows_its_words_on_tap(
    stack: Stack, open_context: Any
) -> None:
    page, ai_user = chat_page(stack, open_context)
    account = json.loads(page.evaluate("() => localStorage.getItem('dreamchat.session')"))
    replies = []
    with httpx.Client(base_url=stack.base, headers=bearer(account), timeout=30) as api:
        for index, name in enumerate(("voice.webm", "voice.ogg")):
            upload = api.post(
                f"/api/ai-users/{ai_user['id']}/media", files={"file": (name, (MEDIA / name).read_bytes())}
            )
            assert upload.status_code == 201, upload.text
            said = {"message_id": f"voice-reply-{index}", "content": ("早安呀，今天也要好好吃早饭", "记得带伞")[index]}
            media = {"media_id": upload.json()["media_id"], "media_kind": "audio", "duration_s": 3.0}
            replies.append({**said, "delay_ms": 0, "index": index, "timestamp": 1_900_000_000 + index, **media})
    voices = "".join(f"event: message\r\ndata: {json.dumps(r, ensure_ascii=False)}\r\n\r\n" for r in replies)

    def with_voices(route: Any) -> None:  # the ai-voice branch's event, added to the real stream
        response = route.fetch()
        route.fulfill(response=response, body=voices + response.text())

    page.route(CHAT, with_voices)
    page.get_by_label("输入消息").fill("早")
    page.get_by_role("button", name="发送", exact=True).click()
    first, second = page.locator(".msg-ai .bubble-voice").first, page.locator(".msg-ai .bubble-voice").nth(1)
    expect(page.locator(".msg-ai .bubble-voice")).to_have_count(2)
    expect(first.locator(".voice-time")).to_have_text("3″")
    expect(page.locator(".msg-ai", has_text="早安呀")).to_have_count(0)  # its words wait for a tap
    first.get_by_role("button", name=re.compile("播放语音")).click()
    expect(first).to_have_class(re.compile("voice-playing"))
    second.get_by_role("button", name=re.compile("播放语音")).click()
    expect(second).to_have_class(re.compile("voice-playing"))
    expect(first).not_to_have_class(re.compile("voice-playing"))  # one at a time
    expect(first.locator(".voice-track")).to_have_attribute("aria-valuenow", "0")
    expect(second).not_to_have_class(re.compile("voice-playing"), timeout=8000)  # it ends by itself
    first.get_by_role("button", name="显示语音的文字").click()
    expect(page.locator(".msg-ai .voice-words")).to_have_text(replies[0]["content"])
    screenshot(page, "media-ai-voice-phone")


def test_the_owner_turns_on_voice_replies_and_the_ai_answers_in_the_chosen_voice(
    stack: Stack, open_context: Any
) -> None:
    """End to end on the real server: the editor's 用语音回复 总是 and a voice, then a real voice reply
    (the fake speech role's MP3) arrives as a voice bubble whose words open on tap."""
    page, ai_user = chat_page(stack, open_context)
    page.goto(f"{stack.base}/#/edit/{ai_user['id']}")
    page.get_by_text("总是", exact=True).click()
    page.get_by_label("声音").select_option("nova")
    page.get_by_role("button", name="保存").click()
    expect(page.get_by_text("已保存")).to_be_visible()
    account = json.loads(page.evaluate("() => localStorage.getItem('dreamchat.session')"))
    saved = httpx.get(f"{stack.base}/api/ai-users/{ai_user['id']}", headers=bearer(account)).json()
    assert (saved["voice_replies"], saved["voice"]) == ("always", "nova")

    spoken = len([r for r in stack.media.requests if r.path.endswith(SPEECH)])  # type: ignore[attr-defined]
    page.goto(f"{stack.base}/#/chat/{ai_user['id']}")
    page.get_by_label("输入消息").fill("你在干嘛呀？")  # a question: always answered, never 已读不回
    page.get_by_role("button", name="发送", exact=True).click()
    voice = page.locator(".msg-ai .bubble-voice")
    expect(voice).to_have_count(1, timeout=15_000)
    expect(voice.locator(".voice-time")).to_have_text(re.compile(r"^[1-9]\d*″$"))
    asked = [r for r in stack.media.requests if r.path.endswith(SPEECH)][spoken:]  # type: ignore[attr-defined]
    assert [r.json()["voice"] for r in asked] == ["nova"]
    voice.get_by_role("button", name="显示语音的文字").click()
    expect(page.locator(".msg-ai .voice-words")).not_to_be_empty()
