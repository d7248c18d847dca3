"""Synthesize one environment the way `cdk synth` does, minus pip: bundling off, nag on."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk.assertions import Template

from infra.app import build

ROOT = Path(__file__).resolve().parents[2]
CDK_JSON_CONTEXT = json.loads((ROOT / "cdk.json").read_text())["context"]
ENVIRONMENTS = {
    "dev": {"env": "dev"},
    "prod": {
        "env": "prod",
        "frontendOrigin": "https://chat.example.com",
        "alarmEmail": "ops@example.com",
        "operatorEmail": "duty@example.com",
        "operators": "alice, bob",
        "functionEnvironment": '{"DREAMCHAT_LLM_BASE_URL": "https://llm.example.com/v1"}',
    },
}


@dataclass(frozen=True)
class Synth:
    stack: cdk.Stack
    template: Template
    outdir: Path

    def resources(self, type_: str, props: Any = None) -> dict[str, Any]:
        return dict(self.template.find_resources(type_, props))

    def function(self, key: str) -> tuple[str, dict[str, Any]]:
        """(logical id, resource) of the function named DreamChat-<env>-<key>."""
        name = f"{self.stack.stack_name}-{key}"
        found = self.resources("AWS::Lambda::Function", {"Properties": {"FunctionName": name}})
        assert len(found) == 1, f"no single function {name}"
        return next(iter(found.items()))

    def logical_id(self, construct: Any) -> str:
        return self.stack.get_logical_id(construct.node.default_child)


def synthesize(env: str, outdir: Path) -> Synth:
    """Raises ValidationFailed when cdk-nag finds anything not acknowledged."""
    context = {**CDK_JSON_CONTEXT, **ENVIRONMENTS[env], "bundle": "false"}
    app = cdk.App(context=context, outdir=str(outdir))
    stack = build(app)
    app.synth()
    return Synth(stack, Template.from_stack(stack), outdir)
