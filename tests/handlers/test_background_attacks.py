"""Attacks on the deployed shape (handlers, Powertools idempotency, SQS, Secrets Manager under
moto): a worker killed mid-heartbeat, a model that fails, a rotated jwt_secret, a 5xx answer.

Time moves by shifting the app's clock and Powertools' clocks (the parameter cache, the
idempotency records' expiries), never by sleeping.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta
from types import SimpleNamespace

import boto3
import jwt
import pytest

from dreamchat.adapters import runtime as clocks
from dreamchat.services.heartbeat import HeartbeatService
from functions.heartbeat import handler as heartbeat
from tests.fakes.fake_llm import Reply
from tests.handlers.events import LambdaContext, scheduled_event, sqs_batch
from tests.handlers.test_serverless_flow import call, signed_up

LEASE = 900


class Killed(BaseException):
    """A Lambda timeout: the run stops where it is; no except or finally of ours runs."""


IDEMPOTENCY_CLOCKS = [
    "aws_lambda_powertools.utilities.idempotency.persistence.base",
    "aws_lambda_powertools.utilities.idempotency.persistence.dynamodb",
    "aws_lambda_powertools.utilities.idempotency.persistence.datarecord",
    "aws_lambda_powertools.utilities.idempotency.base",
]


class Shift:
    """Moves the app's clock and Powertools' clocks forward together."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = timedelta()
        shift = self

        class ShiftedDatetime(datetime):
            @classmethod
            def now(cls, tz=None):  # noqa: ANN001, ANN206 - datetime's signature
                return datetime.now(tz) + shift.offset

        monkeypatch.setattr(clocks.SystemClock, "now", lambda _self: datetime.now(UTC) + shift.offset)
        monkeypatch.setattr("aws_lambda_powertools.utilities.parameters.base.datetime", ShiftedDatetime)
        shifted = SimpleNamespace(datetime=ShiftedDatetime, timedelta=timedelta, date=date, time=time)
        for module in IDEMPOTENCY_CLOCKS:
            monkeypatch.setattr(f"{module}.dt", shifted)

    def by(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)

    def to(self, epoch: float) -> None:
        self.offset = timedelta(seconds=epoch - datetime.now(UTC).timestamp() + 1)


@pytest.fixture
def shift(monkeypatch) -> Shift:
    return Shift(monkeypatch)


def heartbeats(ai_id: str) -> list[str]:
    """The heartbeat messages in the history (read with a fresh login: time moved by days)."""
    login = call("POST", "/api/auth/login", {"username": "alice", "password": "correct-horse"})
    token = json.loads(login["body"])["access_token"]
    history = json.loads(call("GET", f"/api/ai-users/{ai_id}/messages", token=token)["body"])["messages"]
    return [m["content"] for m in history if m["kind"] == "heartbeat"]


def due_pair(fake_llm, shift: Shift) -> tuple[str, str]:
    token, ai_id = signed_up()
    fake_llm.script("deepseek-chat", Reply.text("好呀"))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "我在"}, token)
    status = json.loads(call("GET", "/api/heartbeat/status", token=token)["body"])
    shift.to(status["ai_users"][0]["next_due"])
    return token, ai_id


def test_a_worker_killed_mid_heartbeat_sends_it_in_a_later_run_exactly_once(
    cloud, fake_llm, shift, monkeypatch
) -> None:
    _, ai_id = due_pair(fake_llm, shift)
    assert heartbeat.sweep(scheduled_event(), LambdaContext())["due"] == 1
    batch = sqs_batch(cloud.receive(cloud.heartbeat_queue))
    with monkeypatch.context() as patch:
        patch.setattr(HeartbeatService, "_generate", lambda *a, **k: (_ for _ in ()).throw(Killed()))
        with pytest.raises(Killed):
            heartbeat.worker(batch, LambdaContext())  # its idempotency record stays INPROGRESS
    assert heartbeat.sweep(scheduled_event(), LambdaContext())["due"] == 0  # in flight: not sent twice
    shift.by(LEASE + 1)  # past the lease, and past the dead invocation's deadline (300 s)
    assert heartbeat.sweep(scheduled_event(), LambdaContext())["due"] == 1  # the lease lapsed
    retry = sqs_batch(cloud.receive(cloud.heartbeat_queue))
    fake_llm.script("deepseek-chat", Reply.text("在干嘛呀"))
    assert heartbeat.worker(retry, LambdaContext()) == {"batchItemFailures": []}
    assert heartbeat.worker(batch, LambdaContext()) == {"batchItemFailures": []}  # SQS redelivers the first
    assert heartbeats(ai_id) == ["在干嘛呀"]


def test_a_failed_model_call_fails_the_record_and_the_redelivery_sends(cloud, fake_llm, shift, capsys) -> None:
    _, ai_id = due_pair(fake_llm, shift)
    heartbeat.sweep(scheduled_event(), LambdaContext())
    batch = sqs_batch(cloud.receive(cloud.heartbeat_queue))
    fake_llm.script("deepseek-chat", Reply.error(500))
    assert heartbeat.worker(batch, LambdaContext()) == {"batchItemFailures": [{"itemIdentifier": "msg-0"}]}
    fake_llm.script("deepseek-chat", Reply.text("早呀"))
    assert heartbeat.worker(batch, LambdaContext()) == {"batchItemFailures": []}  # not answered from a record
    assert heartbeats(ai_id) == ["早呀"]
    assert '"HeartbeatsFailed"' in capsys.readouterr().out


def test_a_rotated_jwt_secret_reaches_warm_containers_within_the_max_age(cloud, fake_llm, shift) -> None:
    token, _ = signed_up()
    secrets = boto3.client("secretsmanager", region_name="us-east-1")
    arn = secrets.list_secrets()["SecretList"][0]["ARN"]
    old = json.loads(secrets.get_secret_value(SecretId=arn)["SecretString"])
    rotated_at = int(datetime.now(UTC).timestamp() + shift.offset.total_seconds())
    secrets.put_secret_value(
        SecretId=arn,
        SecretString=json.dumps(
            {**old, "jwt_secret": "y" * 48, "jwt_previous_secret": old["jwt_secret"], "jwt_rotated_at": rotated_at}
        ),
    )
    assert call("GET", "/api/auth/user", token=token)["statusCode"] == 200  # the warm container's cached secret
    shift.by(301)  # past the 5-minute max age: the container reads the rotated secret
    assert call("GET", "/api/auth/user", token=token)["statusCode"] == 200  # inside the rotation window
    login = call("POST", "/api/auth/login", {"username": "alice", "password": "correct-horse"})
    fresh = json.loads(login["body"])["access_token"]
    assert call("GET", "/api/auth/user", token=fresh)["statusCode"] == 200
    assert jwt.decode(
        fresh, "y" * 48, algorithms=["HS256"], options={"verify_exp": False, "verify_iat": False}
    )  # signed with the new one
    shift.by(60 * 60)  # the window (DREAMCHAT_JWT_ROTATION_MINUTES, 60) is over
    assert call("GET", "/api/auth/user", token=token)["statusCode"] == 401
    login = call("POST", "/api/auth/login", {"username": "alice", "password": "correct-horse"})
    newest = json.loads(login["body"])["access_token"]
    assert call("GET", "/api/auth/user", token=newest)["statusCode"] == 200


def test_a_rotated_model_key_reaches_warm_background_containers(cloud, fake_llm, shift) -> None:
    due_pair(fake_llm, shift)
    heartbeat.sweep(scheduled_event(), LambdaContext())
    secrets = boto3.client("secretsmanager", region_name="us-east-1")
    arn = secrets.list_secrets()["SecretList"][0]["ARN"]
    old = json.loads(secrets.get_secret_value(SecretId=arn)["SecretString"])
    secrets.put_secret_value(SecretId=arn, SecretString=json.dumps({**old, "llm_api_key": "rotated-key"}))
    shift.by(301)
    fake_llm.script("deepseek-chat", Reply.text("嗨"))
    heartbeat.worker(sqs_batch(cloud.receive(cloud.heartbeat_queue)), LambdaContext())
    assert fake_llm.requests_for("deepseek-chat")[-1].headers["authorization"] == "Bearer rotated-key"


def test_a_5xx_answer_of_the_chat_function_is_counted(cloud, monkeypatch, capsys) -> None:
    token, ai_id = signed_up()
    capsys.readouterr()

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("dreamchat.services.ai_users.AIUserService.visible", broken)
    answer = call("GET", f"/api/ai-users/{ai_id}", token=token)
    assert answer["statusCode"] == 500
    emitted = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    counted = [e for e in emitted if "ChatServerErrors" in e]
    assert counted and counted[0]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "DreamChat"
    assert counted[0]["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]]  # what the alarm names
    assert counted[0]["service"] == "dreamchat-test" and counted[0]["ChatServerErrors"] == [1.0]


def test_a_crisis_referral_is_counted_by_the_chat_function_without_its_text(cloud, capsys) -> None:
    token, ai_id = signed_up()
    capsys.readouterr()
    crisis = "我真的不想活了"
    answer = call("POST", f"/api/ai-users/{ai_id}/save-message", {"content": crisis}, token=token)
    assert answer["statusCode"] == 201 and json.loads(answer["body"])["safety"]["kind"] == "crisis"
    out = capsys.readouterr().out
    emitted = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    counted = [e for e in emitted if "CrisisReferrals" in e]
    assert len(counted) == 1 and counted[0]["CrisisReferrals"] == [1.0]
    assert counted[0]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "DreamChat"
    assert crisis not in out and "不想活" not in out
