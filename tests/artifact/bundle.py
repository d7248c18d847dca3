"""The deployable artifact as `cdk deploy` builds it, and a way to run its functions.

`synthesize_bundled` runs `python infra/app.py` the way the CDK CLI does (cdk.json's context,
asset metadata on, CDK_OUTDIR), so the layer is really pip-built (or taken from the layer cache).
`Artifact.functions` reads every Lambda function of the template with the folders of its code
asset and its layers; `FunctionProcess` starts the runtime's Python on exactly those folders.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.runtime import runtime_python

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).resolve().parent / "driver.py"


@dataclass(frozen=True)
class Function:
    logical_id: str
    key: str  # DreamChat-<env>-<key>
    handler: str  # handler.<entry>
    code: Path
    layers: tuple[Path, ...]
    environment: dict[str, Any]  # values may be CloudFormation intrinsics
    timeout: int

    @property
    def module(self) -> str:
        return self.handler.rsplit(".", 1)[0]

    @property
    def entry(self) -> str:
        return self.handler.rsplit(".", 1)[1]

    @property
    def python_path(self) -> list[Path]:
        return [self.code, *(layer / "python" for layer in self.layers)]


@dataclass(frozen=True)
class Artifact:
    outdir: Path
    template: dict[str, Any]

    def resources(self, type_: str) -> dict[str, dict[str, Any]]:
        return {lid: r for lid, r in self.template["Resources"].items() if r["Type"] == type_}

    def asset_folder(self, logical_id: str) -> Path:
        metadata = self.template["Resources"][logical_id].get("Metadata", {})
        assert "aws:asset:path" in metadata, f"{logical_id} has no asset metadata: was it synthesized with bundling?"
        return self.outdir / metadata["aws:asset:path"]

    def functions(self) -> list[Function]:
        """Our Python functions."""
        found = []
        for logical_id, resource in self.resources("AWS::Lambda::Function").items():
            props = resource["Properties"]
            if not str(props.get("Runtime", "")).startswith("python"):
                continue  # CDK's own Node.js custom-resource providers
            name = props.get("FunctionName", logical_id)
            layers = tuple(self.asset_folder(layer["Ref"]) for layer in props.get("Layers", []))
            found.append(
                Function(
                    logical_id,
                    name.split("-", 2)[-1],
                    props["Handler"],
                    self.asset_folder(logical_id),
                    layers,
                    props.get("Environment", {}).get("Variables", {}),
                    props.get("Timeout", 3),
                )
            )
        return sorted(found, key=lambda f: f.key)


def synthesize_bundled(outdir: Path, env: str = "dev") -> Artifact:
    context = {
        **json.loads((ROOT / "cdk.json").read_text())["context"],
        "env": env,
        "aws:cdk:enable-asset-metadata": True,
        "aws:cdk:enable-path-metadata": True,
    }
    environment = {
        **os.environ,
        "CDK_OUTDIR": str(outdir),
        "CDK_CONTEXT_JSON": json.dumps(context),
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }
    done = subprocess.run(
        [sys.executable, "infra/app.py"], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=1500
    )
    assert done.returncode == 0, f"synthesis failed:\n{done.stderr[-4000:]}"
    [template] = outdir.glob("*.template.json")
    return Artifact(outdir, json.loads(template.read_text()))


def python312() -> Path:
    python = runtime_python()
    assert python is not None, "Python 3.12 (the Lambda runtime) is needed: put it on PATH or install it with pyenv"
    return python


class FunctionProcess:
    """One warm Lambda container of `function`: a clean interpreter that answers handler calls."""

    def __init__(self, function: Function, environment: dict[str, str]) -> None:
        self.function = function
        self.home = self._home = Path(tempfile.mkdtemp(prefix="lambda-"))  # also the container's TMPDIR
        shutil.copy(DRIVER, self._home / "driver.py")  # the driver's folder is on sys.path: keep it empty
        self.stderr = (self._home / "stderr.log").open("w+")
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self._home),
            "TMPDIR": str(self._home),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",  # Lambda's /opt and /var/task are read-only
            "PYTHONPATH": os.pathsep.join(str(p) for p in function.python_path),
            "LAMBDA_TASK_ROOT": str(function.code),
            "AWS_LAMBDA_FUNCTION_NAME": f"DreamChat-test-{function.key}",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024",
            "AWS_REGION": "us-east-1",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0",
            **environment,
        }
        self._process = subprocess.Popen(
            [str(python312()), "-S", "driver.py", function.module],
            cwd=self._home,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            encoding="utf-8",
        )
        self.start = self._read()

    def call(self, entry: str, event: dict[str, Any], remaining_ms: int | None = None) -> dict[str, Any]:
        """Invoke `entry` with Lambda's context: by default the whole of the function's timeout left."""
        assert self._process.stdin is not None
        remaining_ms = self.function.timeout * 1000 if remaining_ms is None else remaining_ms
        self._process.stdin.write(json.dumps({"entry": entry, "event": event, "remaining_ms": remaining_ms}) + "\n")
        self._process.stdin.flush()
        answer = self._read()
        assert answer["ok"], f"{entry} raised {answer['error']}\n{answer['traceback']}\n{self.log()[-3000:]}"
        return dict(answer["response"])

    def log(self) -> str:
        self.stderr.flush()
        return (self._home / "stderr.log").read_text(errors="replace")

    def close(self) -> None:
        if self._process.stdin:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        finally:
            self._process.kill()
            self.stderr.close()
            shutil.rmtree(self._home, ignore_errors=True)

    def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        assert line, f"the function's interpreter exited ({self._process.poll()}):\n{self.log()[-4000:]}"
        return dict(json.loads(line))

    def __enter__(self) -> FunctionProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
