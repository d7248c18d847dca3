"""`bench/cold_start.py --artifact`: cold starts of the functions `cdk deploy` ships, from their
real asset folders and layer, each in a fresh clean Python 3.12 against moto (see cold_start.py)."""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from moto.server import ThreadedMotoServer  # noqa: E402

from tests.artifact.bundle import Artifact, Function, FunctionProcess, synthesize_bundled  # noqa: E402
from tests.artifact.cloud import Cloud  # noqa: E402
from tests.fakes.server import free_port  # noqa: E402

Entries = list[tuple[str, str, dict[str, Any]]]


def measure_artifact(entries: Entries, repeat: int, cdk_out: Path | None, layer: Path | None, out: TextIO) -> int:
    with tempfile.TemporaryDirectory(prefix="cold-artifact-") as tmp:
        artifact = _artifact(cdk_out, Path(tmp))
        functions = [_with_layer(f, layer) for f in artifact.functions()]
        print("# Lambda cold start of the deployable artifact (bench/cold_start.py --artifact)", file=out)
        _sizes(functions, out)
        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log
        port = free_port()
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        server.start()
        try:
            cloud = Cloud(f"http://127.0.0.1:{port}", artifact.template)
            _table(functions, entries, cloud, repeat, out)
        finally:
            server.stop()
    return 0


def _artifact(cdk_out: Path | None, tmp: Path) -> Artifact:
    if cdk_out is not None:
        import json

        [template] = cdk_out.glob("*.template.json")
        return Artifact(cdk_out, json.loads(template.read_text()))
    return synthesize_bundled(tmp / "cdk.out")


def _with_layer(function: Function, layer: Path | None) -> Function:
    return function if layer is None else dataclasses.replace(function, layers=(layer,))


def _sizes(functions: list[Function], out: TextIO) -> None:
    layers = sorted({layer for f in functions for layer in f.layers})
    for layer in layers:
        files = [p for p in layer.rglob("*") if p.is_file()]
        unzipped = sum(p.stat().st_size for p in files)
        print(
            f"layer {layer.name[:18]}: {unzipped / 2**20:.1f} MB unzipped, {_zipped(layer) / 2**20:.1f} MB zipped, "
            f"{len(files)} files, {sum(p.suffix == '.pyc' for p in files)} .pyc",
            file=out,
        )


def _zipped(folder: Path) -> int:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(folder))
    return buffer.tell()


def _table(functions: list[Function], entries: Entries, cloud: Cloud, repeat: int, out: TextIO) -> None:
    print(
        f"python 3.12 -S, {repeat} fresh processes per function; ms, median (min); load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
        file=out,
    )
    print(f"{'function':>17} {'import':>12} {'first call':>12} {'warm call':>12} {'process':>12}  note", file=out)
    for function in functions:
        event = _event(function, entries)
        if event is None:
            print(f"{function.key:>17} {'no event':>12}", file=out)
            continue
        runs = [_run(function, event, cloud) for _ in range(max(1, repeat))]
        errors = sorted({r["error"] for r in runs if "error" in r})
        print(
            f"{function.key:>17} {_cell(runs, 'import_ms'):>12} {_cell(runs, 'first_call_ms'):>12} "
            f"{_cell(runs, 'warm_call_ms'):>12} {_cell(runs, 'process_ms'):>12}  {'; '.join(errors)}",
            file=out,
        )
    print(
        "import: the handler module alone; first call: the first handler(event, context), which builds the app "
        "or services; warm call: the same event again; process: spawn until the first call has answered.",
        file=out,
    )


def _event(function: Function, entries: Entries) -> dict[str, Any] | None:
    folder = function.key.split("-")[0]
    return next((event for name, entry, event in entries if (name, entry) == (folder, function.entry)), None)


def _run(function: Function, event: dict[str, Any], cloud: Cloud) -> dict[str, Any]:
    environment = {name: cloud.resolve(value) for name, value in function.environment.items()}
    environment.update({"DREAMCHAT_AWS_ENDPOINT_URL": cloud.endpoint, "DRIVER_IMPORT_ALL": "0"})
    started = time.perf_counter()
    with FunctionProcess(function, environment) as process:
        result: dict[str, Any] = {"import_ms": 1000 * process.start["import_seconds"]}
        if process.start["imports"]:
            return {**result, "error": process.start["imports"][0]["error"][:80]}
        for label in ("first_call_ms", "warm_call_ms"):
            called = time.perf_counter()
            try:
                process.call(function.entry, event)
            except AssertionError as error:
                return {**result, "error": str(error).splitlines()[0][:80]}
            result[label] = 1000 * (time.perf_counter() - called)
            if label == "first_call_ms":
                result["process_ms"] = 1000 * (time.perf_counter() - started)
    return result


def _cell(runs: list[dict[str, Any]], key: str) -> str:
    values = [r[key] for r in runs if key in r]
    return f"{statistics.median(values):.0f} ({min(values):.0f})" if values else "-"
