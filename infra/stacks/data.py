"""Where memories live: the single table, the idempotency table, the detail-document bucket."""

from __future__ import annotations

from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.settings import EnvironmentSettings

STRING = dynamodb.AttributeType.STRING


class Data(Construct):
    def __init__(self, scope: Construct, id: str, *, settings: EnvironmentSettings) -> None:
        super().__init__(scope, id)
        self.table = _memory_table(self, settings)
        self.idempotency_table = _idempotency_table(self)
        self.access_logs = _access_log_bucket(self, settings)
        self.documents = _document_bucket(self, settings, self.access_logs)


def _memory_table(scope: Construct, settings: EnvironmentSettings) -> dynamodb.Table:
    table = dynamodb.Table(
        scope,
        "Table",
        partition_key=dynamodb.Attribute(name="pk", type=STRING),
        sort_key=dynamodb.Attribute(name="sk", type=STRING),
        time_to_live_attribute="expires_at",
        deletion_protection=settings.retain_data,
        removal_policy=settings.removal_policy,
        **_table_defaults(),
    )
    # Sparse: only pairs with pending heartbeat work carry due_pk/due_sk.
    table.add_global_secondary_index(
        index_name="due",
        partition_key=dynamodb.Attribute(name="due_pk", type=STRING),
        sort_key=dynamodb.Attribute(name="due_sk", type=STRING),
        projection_type=dynamodb.ProjectionType.ALL,
    )
    return table


def _idempotency_table(scope: Construct) -> dynamodb.Table:
    """Powertools Idempotency records: short-lived by design, so never worth retaining."""
    return dynamodb.Table(
        scope,
        "IdempotencyTable",
        partition_key=dynamodb.Attribute(name="id", type=STRING),
        time_to_live_attribute="expiration",
        removal_policy=RemovalPolicy.DESTROY,
        **_table_defaults(),
    )


def _table_defaults() -> dict[str, Any]:
    return {
        "billing_mode": dynamodb.BillingMode.PAY_PER_REQUEST,
        "encryption": dynamodb.TableEncryption.AWS_MANAGED,
        "point_in_time_recovery_specification": dynamodb.PointInTimeRecoverySpecification(
            point_in_time_recovery_enabled=True
        ),
    }


def _document_bucket(scope: Construct, settings: EnvironmentSettings, logs: s3.IBucket) -> s3.Bucket:
    """Long-term memory detail documents, loaded on demand."""
    return s3.Bucket(
        scope,
        "Documents",
        versioned=True,
        server_access_logs_bucket=logs,
        server_access_logs_prefix="documents/",
        lifecycle_rules=[
            s3.LifecycleRule(
                noncurrent_version_expiration=Duration.days(90),
                abort_incomplete_multipart_upload_after=Duration.days(7),
            )
        ],
        **_bucket_defaults(settings),
    )


def _access_log_bucket(scope: Construct, settings: EnvironmentSettings) -> s3.Bucket:
    return s3.Bucket(
        scope,
        "AccessLogs",
        object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(365 if settings.retain_data else 30))],
        **_bucket_defaults(settings),
    )


def _bucket_defaults(settings: EnvironmentSettings) -> dict[str, Any]:
    return {
        "encryption": s3.BucketEncryption.S3_MANAGED,  # access logs accept SSE-S3 only
        "block_public_access": s3.BlockPublicAccess.BLOCK_ALL,
        "enforce_ssl": True,
        "removal_policy": settings.removal_policy,
        "auto_delete_objects": not settings.retain_data,
    }
