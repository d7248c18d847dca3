"""Media through the real chat handler on moto, configured as the stack configures it: a photo posted
straight to S3 with the presigned form, claimed, then fetched through a 302 to a presigned GET; a
multipart body over DREAMCHAT_MEDIA_BODY_MAX_BYTES, base64 in the event as API Gateway sends it, is 413;
the media roles' API keys come from the app secret like the chat models' keys."""

from __future__ import annotations

import base64
import importlib
import io
import json
from urllib.parse import urlsplit

import boto3
import requests
from moto import mock_aws
from PIL import Image

from dreamchat.config import MEDIA_KEYS, Settings
from dreamchat.serverless import load_settings
from functions.chat import handler as chat
from tests.handlers.events import LambdaContext, http_api_event
from tests.handlers.test_serverless_flow import call, signed_up


def photo(size: tuple[int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (30, 120, 200)).save(out, format="PNG")
    return out.getvalue()


def test_a_photo_goes_to_s3_and_comes_back_through_a_signed_link(cloud) -> None:
    token, ai_id = signed_up()
    data = photo((1800, 1200))
    started = call(
        "POST", f"/api/ai-users/{ai_id}/media/uploads", {"content_type": "image/png", "size": len(data)}, token
    )
    assert started["statusCode"] == 201, started["body"]
    form = json.loads(started["body"])
    assert urlsplit(form["url"]).hostname == "dreamchat-test-docs.s3.amazonaws.com"
    posted = requests.post(form["url"], data=form["fields"], files={"file": ("p.png", data)}, timeout=5)
    assert posted.status_code == 204
    done = call("POST", f"/api/ai-users/{ai_id}/media/uploads/{form['media_id']}/done", None, token)
    assert done["statusCode"] == 200, done["body"]
    assert json.loads(done["body"]) == {"media_id": form["media_id"], "kind": "image", "width": 1600, "height": 1067}
    fetched = call("GET", f"/api/media/{form['media_id']}", None, token)
    assert fetched["statusCode"] == 302 and fetched["headers"]["cache-control"] == "private, no-store"
    location = fetched["headers"]["location"]
    assert urlsplit(location).path.endswith(f"/media/{form['media_id']}")
    served = requests.get(location, timeout=5)
    assert served.status_code == 200 and Image.open(io.BytesIO(served.content)).size == (1600, 1067)
    keys = [o["Key"] for o in cloud.s3.list_objects_v2(Bucket="dreamchat-test-docs")["Contents"]]
    assert [k for k in keys if "/media/" in k or "/uploads/" in k] == [urlsplit(location).path.lstrip("/")]


def test_a_multipart_body_over_the_lambdas_limit_is_413_naming_the_uploads_route(cloud, monkeypatch) -> None:
    monkeypatch.setenv("DREAMCHAT_MEDIA_BODY_MAX_BYTES", str(4 * 1024 * 1024))  # as the stack sets it
    importlib.reload(chat)
    token, ai_id = signed_up()
    boundary = "dreamchatboundary"
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.png"\r\n\r\n'.encode()
    body = head + photo((64, 64)) + b"\0" * (4 * 1024 * 1024) + f"\r\n--{boundary}--\r\n".encode()
    event = http_api_event(
        "POST",
        f"/api/ai-users/{ai_id}/media",
        headers={"authorization": f"Bearer {token}", "content-type": f"multipart/form-data; boundary={boundary}"},
    )
    event |= {"body": base64.b64encode(body).decode(), "isBase64Encoded": True}
    answer = chat.handler(event, LambdaContext())
    assert answer["statusCode"] == 413
    assert "/media/uploads" in json.loads(answer["body"])["error"]["message"]


def test_the_media_roles_keys_come_from_the_app_secret() -> None:
    keys = {f"{key}_api_key": f"sk-{key}" for key in MEDIA_KEYS}
    with mock_aws():
        secret = boto3.client("secretsmanager", region_name="us-east-1").create_secret(
            Name="app", SecretString=json.dumps({"jwt_secret": "x" * 48, **keys})
        )
        settings = load_settings(Settings(storage="aws", secrets_arn=secret["ARN"], aws_region="us-east-1"))
    assert {key: settings.model_override(key, "api_key") for key in MEDIA_KEYS} == {
        key: f"sk-{key}" for key in MEDIA_KEYS
    }
