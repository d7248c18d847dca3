from __future__ import annotations

import importlib
import json

from tests.handlers.events import LambdaContext, http_api_event


def test_the_chat_handler_serves_the_app_through_mangum(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("DREAMCHAT_DATA_DIR", str(tmp_path))
    module = importlib.reload(importlib.import_module("functions.chat.handler"))
    response = module.handler(http_api_event("GET", "/api/health"), LambdaContext())
    assert response["statusCode"] == 200
    assert json.loads(response["body"])["status"] == "ok"
