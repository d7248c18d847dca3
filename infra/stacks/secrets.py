"""One Secrets Manager secret: the JWT secret (generated) and the model API keys (set by hand)."""

from __future__ import annotations

from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.settings import EnvironmentSettings
from infra.stacks.nag import acknowledge


def app_secret(scope: Construct, settings: EnvironmentSettings) -> secretsmanager.Secret:
    secret = secretsmanager.Secret(
        scope,
        "AppSecret",
        description=f"{settings.prefix}: JSON with jwt_secret and the model API keys (docs/deploy.md)",
        generate_secret_string=secretsmanager.SecretStringGenerator(
            secret_string_template="{}",
            generate_string_key="jwt_secret",
            password_length=64,
            exclude_punctuation=True,
        ),
        removal_policy=settings.removal_policy,
    )
    acknowledge(
        secret,
        "SMG4",
        "Rotating jwt_secret signs every user out and the model keys are issued by their "
        "providers, so rotation is a deliberate manual step described in docs/deploy.md.",
    )
    return secret
