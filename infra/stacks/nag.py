"""cdk-nag acknowledgments: each names one finding and says why it is acceptable here."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Stack, Validations
from constructs import IConstruct


def acknowledge(scope: IConstruct, finding: str, reason: str) -> None:
    """Accept one AwsSolutions finding (e.g. `IAM5[Resource::*]`) on `scope` and its children."""
    Validations.of(scope).acknowledge(Acknowledgment(id=f"AwsSolutions::AwsSolutions-{finding}", reason=reason))


def arn_token(resource: IConstruct) -> str:
    """How cdk-nag prints `Fn::GetAtt [<resource>, Arn]` inside a finding."""
    # an L2 construct's default child is its CfnResource (a CfnElement); CDK types it as any construct
    cfn = resource.node.default_child
    return f"<{Stack.of(resource).get_logical_id(cfn)}.Arn>"  # type: ignore[arg-type]
