"""Runs inside the Lambda artifact: `python3.12 -S driver.py` with PYTHONPATH = the function's asset
folder and its layers, nothing else. Standard library only (it must not need what it checks).

First it imports the handler module (timed), then every `dreamchat` module (unless
DRIVER_IMPORT_ALL=0, for cold-start figures), and reports what failed, by module name.
Then it answers one request per stdin line, `{"entry": "worker", "event": {...},
"remaining_ms": 29000}`, by calling the handler, and writes one JSON line per answer to stdout.
Whatever the handler prints (logs, metrics) goes to stderr.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pkgutil
import sys
import time
import traceback

RESULTS = sys.stdout
sys.stdout = sys.stderr  # Powertools writes logs and metrics to stdout: keep ours clean


class LambdaContext:
    """What the Lambda runtime passes as `context`, with a clock that really counts down."""

    function_name = "dreamchat-artifact-test"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:dreamchat-artifact-test"
    aws_request_id = "artifact-test"

    def __init__(self, remaining_ms: int) -> None:
        self._deadline = time.monotonic() + remaining_ms / 1000

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def import_everything(handler_module: str) -> list[dict[str, str]]:
    failures = []
    names = [handler_module]
    try:
        if os.environ.get("DRIVER_IMPORT_ALL") != "0":  # "0": a cold-start figure, only what the handler pulls in
            import dreamchat

            names += sorted(info.name for info in pkgutil.walk_packages(dreamchat.__path__, "dreamchat."))
    except Exception as error:  # noqa: BLE001 - reported, not fatal: the test names the module
        failures.append({"module": "dreamchat", "error": f"{type(error).__name__}: {error}"})
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - same
            failures.append({"module": name, "error": f"{type(error).__name__}: {error}"})
    return failures


def answer(module: object, request: dict) -> dict:
    started = time.monotonic()
    try:
        entry = getattr(module, request["entry"])
        response = entry(request["event"], LambdaContext(request.get("remaining_ms", 29_000)))
        return {"ok": True, "response": response, "seconds": time.monotonic() - started}
    except Exception as error:  # noqa: BLE001 - reported to the test with its traceback
        return {
            "ok": False,
            "error": f"{type(error).__name__}: {error}",
            "traceback": traceback.format_exc(),
            "seconds": time.monotonic() - started,
        }


def write(value: dict) -> None:
    RESULTS.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
    RESULTS.flush()


def main() -> None:
    handler_module = sys.argv[1]
    started = time.monotonic()
    with contextlib.suppress(Exception):  # reported below, by module, with the rest
        importlib.import_module(handler_module)
    handler_seconds = time.monotonic() - started
    failures = import_everything(handler_module)
    write(
        {
            "imports": failures,
            "import_seconds": handler_seconds,
            "path": sys.path,
            "no_site": bool(sys.flags.no_site),
            "version": list(sys.version_info[:3]),
            "loaded": sorted(name for name in sys.modules if "." not in name),
        }
    )
    module = sys.modules.get(handler_module)
    for line in sys.stdin:
        if line.strip():
            write(answer(module, json.loads(line)))


if __name__ == "__main__":
    main()
