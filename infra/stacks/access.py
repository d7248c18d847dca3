"""Least-privilege grants: each function gets exactly the resources its spec `uses`."""

from __future__ import annotations

from collections.abc import Callable

from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sqs as sqs
from constructs import IConstruct

from infra.stacks.data import Data
from infra.stacks.nag import acknowledge, arn_token

# What CDK's bucket grants contain: object-level action families, acknowledged below.
S3_READ_ACTIONS = ("s3:GetObject*", "s3:GetBucket*", "s3:List*")
S3_WRITE_ACTIONS = ("s3:DeleteObject*", "s3:Abort*")
# An AI's voice note: written under its pair's media/ folder, deleted again if its record cannot be kept.
MEDIA_OBJECTS = "pairs/*/media/*"
MEDIA_WRITE_ACTIONS = ("s3:PutObject", "s3:DeleteObject")


class Access:
    def __init__(
        self,
        *,
        data: Data,
        bus: events.IEventBus,
        heartbeat_queue: sqs.IQueue,
        extract_queue: sqs.IQueue,
        operator_topic: sns.ITopic,
        secret: secretsmanager.ISecret,
    ) -> None:
        self.data, self.bus, self.secret = data, bus, secret
        self._grants: dict[str, Callable[[lambda_.Function], object]] = {
            "table": self._table,
            "documents": self._documents,
            "documents-read": self._documents_read,
            "media-write": self._media_write,
            "idempotency": lambda fn: self.data.idempotency_table.grant_read_write_data(fn),
            "events": lambda fn: self.bus.grant_put_events_to(fn),
            "heartbeat-queue": lambda fn: heartbeat_queue.grant_send_messages(fn),
            "extract-queue": lambda fn: extract_queue.grant_send_messages(fn),
            "operator-alerts": lambda fn: operator_topic.grant_publish(fn),
        }

    def grant(self, function: lambda_.Function, uses: tuple[str, ...]) -> None:
        """Every function reads the app secret (the JWT secret and model keys) plus its `uses`."""
        self.secret.grant_read(function)
        for use in uses:
            self._grants[use](function)

    def _table(self, function: lambda_.Function) -> None:
        self.data.table.grant_read_write_data(function)
        _accept(
            function,
            [f"Resource::{arn_token(self.data.table)}/index/*"],
            "Queries on the memory table's own GSIs (the sparse 'due' index); the grant is scoped to this one table.",
        )

    def _documents(self, function: lambda_.Function) -> None:
        self.data.documents.grant_read_write(function)
        self._accept_objects(function, S3_READ_ACTIONS + S3_WRITE_ACTIONS)

    def _documents_read(self, function: lambda_.Function) -> None:
        self.data.documents.grant_read(function)
        self._accept_objects(function, S3_READ_ACTIONS)

    def _media_write(self, function: lambda_.Function) -> None:
        """Writes media (an AI's voice note) and nothing else: `pairs/<account>/<ai user>/media/<id>` only."""
        media = self.data.documents.arn_for_objects(MEDIA_OBJECTS)
        function.add_to_role_policy(iam.PolicyStatement(actions=list(MEDIA_WRITE_ACTIONS), resources=[media]))
        _accept(
            function,
            [f"Resource::{arn_token(self.data.documents)}/{MEDIA_OBJECTS}"],
            "Media items are objects under keys created at run time, one per photo or voice note of a pair; "
            "the grant covers only the media/ folders of this one bucket's pair prefixes.",
        )

    def _accept_objects(self, function: lambda_.Function, actions: tuple[str, ...]) -> None:
        _accept(
            function,
            [f"Action::{action}" for action in actions] + [f"Resource::{arn_token(self.data.documents)}/*"],
            "Detail documents are objects under keys created at run time, one per long-term "
            "memory; CDK's bucket grant covers this one bucket's objects and nothing else.",
        )


def _accept(function: lambda_.Function, findings: list[str], reason: str) -> None:
    # a Function built here always has its role (CDK makes one); only imported functions have none
    role: IConstruct = function.role  # type: ignore[assignment]
    for finding in findings:
        acknowledge(role, f"IAM5[{finding}]", reason)
