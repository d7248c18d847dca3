"""One log path: an unhandled error is logged once, with its ids and without its message."""

from __future__ import annotations

import io
import logging

from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.logsafe import SafeFormatter, configure_local_logging

SECRET = "what the person wrote"


def capture(logger: logging.Logger) -> io.StringIO:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(SafeFormatter("%(levelname)s %(name)s %(message)s"))
    handler.setLevel(logging.WARNING)  # errors only: other tests may leave INFO logging of HTTP clients on
    logger.addHandler(handler)
    return stream


def test_an_unhandled_error_is_logged_once_with_ids_and_never_its_message(tmp_path) -> None:
    app = create_app(Settings(data_dir=tmp_path))

    @app.get("/api/boom")
    def boom() -> None:
        raise RuntimeError(SECRET)

    root = logging.getLogger()
    stream = capture(root)
    try:
        # raise_server_exceptions=True: an error that escapes the app (to be logged again by
        # the server) would be raised here.
        response = TestClient(app).get("/api/boom")
    finally:
        root.handlers.pop()
    assert response.status_code == 500
    lines = [line for line in stream.getvalue().splitlines() if line.strip()]
    assert len(lines) == 1
    assert "RuntimeError at" in lines[0] and "path=/api/boom" in lines[0] and "method=GET" in lines[0]
    assert SECRET not in stream.getvalue()


def test_the_local_format_prints_extra_ids_and_hides_exception_text() -> None:
    record = logging.LogRecord("dreamchat.x", logging.WARNING, __file__, 1, "chat model failed", (), None)
    record.ai_user_id = "ai_123"
    try:
        raise ValueError(SECRET)
    except ValueError as error:
        record.exc_info = (type(error), error, error.__traceback__)
    line = SafeFormatter("%(levelname)s %(message)s").format(record)
    assert line.startswith("WARNING chat model failed ai_user_id=ai_123")
    assert "ValueError at" in line
    assert SECRET not in line


def test_uvicorn_logs_through_the_one_safe_handler() -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        configure_local_logging()
        assert len(root.handlers) == 1 and isinstance(root.handlers[0].formatter, SafeFormatter)
        for name in ("uvicorn", "uvicorn.error"):
            assert logging.getLogger(name).handlers == [] and logging.getLogger(name).propagate
    finally:
        root.handlers[:], root.level = saved
