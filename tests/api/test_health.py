from __future__ import annotations

from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from tests.fakes.fake_llm import Reply


def client(tmp_path, **overrides) -> TestClient:
    return TestClient(create_app(Settings(data_dir=tmp_path, **overrides)))


def test_health_reports_local_storage_and_offline_model(tmp_path) -> None:
    response = client(tmp_path).get("/api/health")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "storage": "local",
        "llm": "offline",
        "retrieval": "BM25 alone (no embedding model)",
        "embedding_model": "none",
        "usage": {},
    }


def test_health_says_the_embeddings_api_ranks_when_a_key_is_set(tmp_path) -> None:
    found = client(tmp_path, embedding_provider="auto", embedding_api_key="sk-test").get("/api/health").json()
    assert found["retrieval"] == "hybrid (BM25 + embeddings API)"
    assert found["embedding_model"] == "text-embedding-v4"


def test_health_names_the_local_model_when_it_runs(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("dreamchat.adapters.embeddings.local_model_installed", lambda: True)
    found = client(tmp_path, embedding_provider="auto").get("/api/health").json()
    assert found["retrieval"] == "hybrid (BM25 + local embedding model)"


def test_health_reports_a_configured_model(tmp_path) -> None:
    response = client(tmp_path, qwen_short_to_mid_api_key="sk-test").get("/api/health")
    assert response.json()["llm"] == "configured"


def test_health_shows_each_model_key_s_usage_with_its_cached_share(person, ai, fake_llm) -> None:
    fake_llm.script("deepseek-chat", Reply.cached("在呢", "deepseek", prompt_tokens=2000, cached_tokens=1500))
    person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"})
    usage = person.client.get("/api/health").json()["usage"]
    assert usage["deepseek_chat"] == {
        "calls": 1,
        "failures": 0,
        "prompt_tokens": 2000,
        "cached_prompt_tokens": 1500,
        "completion_tokens": 5,
        "cached_share": 0.75,
    }
    assert "在呢" not in str(usage) and "在吗" not in str(usage)  # counts only


def test_unknown_route_is_a_json_404(tmp_path) -> None:
    response = client(tmp_path).get("/api/nowhere")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_wrong_method_is_a_json_405(tmp_path) -> None:
    response = client(tmp_path).delete("/api/health")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_a_body_over_64_kib_is_refused_with_413(tmp_path) -> None:
    response = client(tmp_path).post("/api/health", content=b"x" * (64 * 1024 + 1))
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


def test_an_unexpected_error_is_a_500_without_internals(tmp_path) -> None:
    app = create_app(Settings(data_dir=tmp_path))

    @app.get("/api/boom")
    def boom() -> None:
        raise RuntimeError("secret internals")

    response = TestClient(app, raise_server_exceptions=False).get("/api/boom")
    assert response.status_code == 500
    assert response.json() == {"error": {"code": "internal_error", "message": "something went wrong on our side"}}
