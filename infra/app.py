"""CDK entry point (`cdk.json`: `python infra/app.py`): `cdk deploy -c env=dev|prod`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python infra/app.py` puts infra/, not the repo root, on sys.path
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
import aws_cdk as cdk  # noqa: E402
from cdk_nag import AwsSolutionsChecks  # noqa: E402

from infra.bundling import bundling_enabled, lambda_code  # noqa: E402
from infra.settings import settings_from_context  # noqa: E402
from infra.stacks.dreamchat_stack import DreamChatStack  # noqa: E402


def build(app: cdk.App, env: cdk.Environment | None = None) -> DreamChatStack:
    """The environment named by context `env`, checked by cdk-nag's AWS Solutions rules."""
    get = app.node.try_get_context
    stack = DreamChatStack(
        app,
        settings=settings_from_context(get),
        code=lambda_code(bundle=bundling_enabled(get("bundle"))),
        env=env,
    )
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return stack


def main() -> None:
    app = cdk.App()
    account, region = os.environ.get("CDK_DEFAULT_ACCOUNT"), os.environ.get("CDK_DEFAULT_REGION")
    build(app, cdk.Environment(account=account, region=region) if account and region else None)
    app.synth()


if __name__ == "__main__":
    main()
