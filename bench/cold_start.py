"""Cold start of each Lambda handler module: import time, and the first (building) call.

Each measurement runs in a fresh Python subprocess (nothing cached in memory) with a fresh temp
DREAMCHAT_DATA_DIR, local storage, and every inherited DREAMCHAT_* variable removed (offline models).
- chat: import `functions.chat.handler`, then `handler(event, context)` on an API Gateway HTTP API
  (payload 2.0) event for GET /api/health: the first call builds the app; a second call is the warm path.
- compress.handler, extract.handler, heartbeat.sweep, heartbeat.worker: import, then the event
  EventBridge/SQS would send them (TopicEnded for an unknown topic; a scheduled event; an SQS batch of
  one heartbeat for an unknown pair), twice; a failing call is reported, not fatal.
A handler file or entry point that does not exist (yet) is reported as "not present".

    .venv/bin/python bench/cold_start.py [--repeat N] [--only chat.handler] [--no-imports]

With --artifact, the same events run on what `cdk deploy` ships instead of the dev venv: the stack
is synthesized with bundling on (or `--cdk-out DIR` reuses a synthesis), and each function starts in
a clean Python 3.12 (`-S`, PYTHONPATH = its asset folder + its layers) against the stack's
resources on a moto server; the layer's unzipped and zipped sizes are printed first. `--layer DIR`
replaces the synthesized layer by another build of it (e.g. one made by an older recipe).

    .venv/bin/python bench/cold_start.py --artifact [--repeat N] [--cdk-out DIR] [--layer DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEDULED = {
    "version": "0",
    "id": "bench",
    "detail-type": "Scheduled Event",
    "source": "aws.events",
    "account": "123456789012",
    "time": "2026-03-15T12:00:00Z",
    "region": "us-east-1",
    "resources": ["arn:aws:events:us-east-1:123456789012:rule/bench"],
    "detail": {},
}


def http_api_event(method: str, path: str) -> dict:
    """An API Gateway HTTP API (payload format 2.0) request, as the chat Lambda receives it."""
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"content-type": "application/json", "host": "api.example.com"},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api",
            "domainName": "api.example.com",
            "domainPrefix": "api",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.9",
                "userAgent": "bench",
            },
            "requestId": "bench-1",
            "routeKey": "$default",
            "stage": "$default",
            "time": "15/Mar/2026:12:00:00 +0000",
            "timeEpoch": 1773576000000,
        },
        "body": None,
        "isBase64Encoded": False,
    }


def sqs_event(body: dict) -> dict:
    """An SQS batch of one message, as the heartbeat worker receives it."""
    return {
        "Records": [
            {
                "messageId": "bench-1",
                "receiptHandle": "bench",
                "body": json.dumps(body),
                "attributes": {
                    "ApproximateReceiveCount": "1",
                    "SentTimestamp": "1773576000000",
                    "SenderId": "bench",
                    "ApproximateFirstReceiveTimestamp": "1773576000000",
                },
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:dreamchat-heartbeat",
                "awsRegion": "us-east-1",
            }
        ]
    }


# (module under functions/, entry point, the event it is invoked with)
ENTRIES = [
    ("chat", "handler", http_api_event("GET", "/api/health")),
    (
        "compress",
        "handler",
        {
            **SCHEDULED,
            "detail-type": "TopicEnded",
            "source": "dreamchat",
            "resources": [],
            "detail": {"account_id": "acc_bench", "ai_user_id": "ai_bench", "topic_id": "topic_1773576000_000000"},
        },
    ),
    ("extract", "handler", SCHEDULED),
    ("heartbeat", "sweep", SCHEDULED),
    ("heartbeat", "worker", sqs_event({"account_id": "acc_bench", "ai_user_id": "ai_bench", "due": 1773576000})),
]


# What the first call pulls in, each timed alone in a fresh process (its own dependencies included).
HEAVY_IMPORTS = (
    "fastapi",
    "boto3",
    "openai",
    "jieba",
    "jieba.analyse",
    "aws_lambda_powertools.utilities.batch",
    "dreamchat.services.auth",
    "dreamchat.llm.offline",
    "dreamchat.services.container",
)


class LambdaContext:
    function_name = "dreamchat-bench"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:dreamchat-bench"
    aws_request_id = "bench-1"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def child(target: str) -> dict:
    """Runs in the fresh subprocess: times the import, the first call and a warm call."""
    sys.path.insert(0, str(ROOT))
    import importlib

    name, entry = target.split(".")
    event = next(e for n, f, e in ENTRIES if (n, f) == (name, entry))
    started = time.perf_counter()
    module = importlib.import_module(f"functions.{name}.handler")
    result: dict = {"import_ms": 1000 * (time.perf_counter() - started)}
    function = getattr(module, entry, None)
    if function is None:
        result["error"] = "not present"
        return result
    for label in ("first_call_ms", "warm_call_ms"):
        started = time.perf_counter()
        try:
            response = function(json.loads(json.dumps(event)), LambdaContext())
        except Exception as error:  # noqa: BLE001 - reported: a handler still being written may reject the event
            result["error"] = f"{type(error).__name__}: {str(error)[:80]}"
            return result
        result[label] = 1000 * (time.perf_counter() - started)
        if isinstance(response, dict) and "statusCode" in response:
            result["status"] = response["statusCode"]
    return result


def child_import(module: str) -> dict:
    sys.path.insert(0, str(ROOT))
    import importlib

    started = time.perf_counter()
    importlib.import_module(module)
    return {"import_ms": 1000 * (time.perf_counter() - started)}


def measure(target: str, flag: str = "--child") -> dict:
    """One fresh subprocess; also its wall time from spawn to exit."""
    with tempfile.TemporaryDirectory(prefix="dreamchat-cold-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DREAMCHAT_")}
        env.update({"DREAMCHAT_DATA_DIR": tmp, "DREAMCHAT_STORAGE": "local", "DREAMCHAT_RUN_SCHEDULER": "false"})
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, flag, target], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        wall = 1000 * (time.perf_counter() - started)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": last[:100], "process_ms": wall}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "process_ms": wall}


def interpreter_ms() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return 1000 * (time.perf_counter() - started)


def cell(runs: list[dict], key: str) -> str:
    values = [r[key] for r in runs if key in r]
    return f"{statistics.median(values):.0f} ({min(values):.0f})" if values else "-"


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh processes per handler (default: %(default)s)")
    parser.add_argument(
        "--only",
        action="append",
        metavar="MODULE.ENTRY",
        help="measure only this entry point, e.g. chat.handler (repeatable)",
    )
    parser.add_argument("--no-imports", action="store_true", help="skip the per-module import table")
    parser.add_argument("--artifact", action="store_true", help="measure the deployable artifact (see above)")
    parser.add_argument("--cdk-out", type=Path, help="with --artifact: an existing bundled synthesis to use")
    parser.add_argument("--layer", type=Path, help="with --artifact: measure with this layer folder instead")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-import", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child or args.child_import:
        print(json.dumps(child(args.child) if args.child else child_import(args.child_import)), file=out)
        return 0
    if args.artifact:
        sys.path.insert(0, str(ROOT))
        from bench.cold_start_artifact import measure_artifact

        return measure_artifact(ENTRIES, args.repeat, args.cdk_out, args.layer, out)
    print("# Lambda cold start (bench/cold_start.py)", file=out)
    baseline = statistics.median(interpreter_ms() for _ in range(max(1, args.repeat)))
    print(
        f"python {sys.version.split()[0]}, {args.repeat} fresh processes per handler; figures in ms, "
        f"median (min); a bare interpreter start takes {baseline:.0f} ms; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (figures grow with load)",
        file=out,
    )
    print(
        f"{'handler':>17} {'import':>12} {'first call':>12} {'warm call':>12} {'process':>12} {'status':>6}  note",
        file=out,
    )
    for name, entry, _ in ENTRIES:
        target = f"{name}.{entry}"
        if args.only and target not in args.only:
            continue
        if not (ROOT / "functions" / name / "handler.py").exists():
            print(f"{target:>17} {'not present':>12}", file=out)
            continue
        runs = [measure(target) for _ in range(max(1, args.repeat))]
        errors = sorted({r["error"] for r in runs if "error" in r})
        status = next((str(r["status"]) for r in runs if "status" in r), "-")
        print(
            f"{target:>17} {cell(runs, 'import_ms'):>12} {cell(runs, 'first_call_ms'):>12} "
            f"{cell(runs, 'warm_call_ms'):>12} {cell(runs, 'process_ms'):>12} {status:>6}  {'; '.join(errors)}",
            file=out,
        )
    print(
        "import: `import functions.<name>.handler`; first call: the first handler(event, context), which builds "
        "the app or services; warm call: the same event again; process: spawn to exit, interpreter included.",
        file=out,
    )
    if not args.no_imports:
        imports(args.repeat, out)
    return 0


def imports(repeat: int, out) -> None:
    print("\nWhat the first call imports, each module alone in a fresh process (dependencies included), ms:", file=out)
    for module in HEAVY_IMPORTS:
        runs = [measure(module, "--child-import") for _ in range(max(1, repeat))]
        errors = sorted({r["error"] for r in runs if "error" in r})
        print(f"{module:>40} {cell(runs, 'import_ms'):>12}  {'; '.join(errors)}", file=out)


if __name__ == "__main__":
    raise SystemExit(main())
