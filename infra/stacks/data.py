"""Where memories live: the single table, the idempotency table, the document bucket (detail documents,
and the pairs' photos and voice notes, all under `pairs/<account>/<ai user>/`)."""

from __future__ import annotations

from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.settings import EnvironmentSettings

STRING = dynamodb.AttributeType.STRING
# dreamchat.keys.pair_blob_prefix's root and PENDING_UPLOAD_TAG (infra does not import the library;
# tests/infra checks they agree)
PAIRS_PREFIX = "pairs/"
PENDING_UPLOAD_TAG = ("state", "pending")


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
    """Long-term memory detail documents, loaded on demand, and media: the pairs' photos and voice notes
    (`pairs/<account>/<ai user>/media/`) and the files clients post straight here (`…/uploads/`), each
    erased with its pair. Clients fetch and post through links the chat function signs; CORS lets the
    web client read what S3 answers."""
    return s3.Bucket(
        scope,
        "Documents",
        versioned=True,
        server_access_logs_bucket=logs,
        server_access_logs_prefix="documents/",
        lifecycle_rules=[
            s3.LifecycleRule(
                id="old-versions",
                noncurrent_version_expiration=Duration.days(90),
                # the app writes single PUTs and POSTs; a multipart upload is only ever someone's leftover
                abort_incomplete_multipart_upload_after=Duration.days(1),
                expired_object_delete_marker=True,  # a deleted key's marker, once no version is left behind it
            ),
            _unclaimed_uploads(),
        ],
        cors=_media_cors(settings),
        **_bucket_defaults(settings),
    )


def _unclaimed_uploads() -> s3.LifecycleRule:
    """A presigned upload no message claimed within a day goes, every version of it. Lifecycle filters match
    a key prefix from the bucket's root only, and a pending upload lies under its pair's prefix (so erasing
    the pair erases it at once): the rule matches `pairs/` and the tag the upload's signed form sets (the
    policy requires it, so no client can drop it); a kept media item is written without the tag."""
    return s3.LifecycleRule(
        id="unclaimed-uploads",
        prefix=PAIRS_PREFIX,
        tag_filters=dict([PENDING_UPLOAD_TAG]),
        expiration=Duration.days(1),
        noncurrent_version_expiration=Duration.days(1),
    )


def _media_cors(settings: EnvironmentSettings) -> list[s3.CorsRule]:
    """The web client posts files from its own origins only. It fetches a photo through the API's 302 to a
    presigned GET: after a redirect from the API's origin the browser sends `Origin: null`, so reads are
    open to any origin. That gives nothing away: the signed URL itself is what grants the read, for
    minutes, and it works without CORS in an `<img>`; CORS only lets a script read the answer."""
    return [
        s3.CorsRule(
            allowed_methods=[s3.HttpMethods.POST],
            allowed_origins=list(settings.frontend_origins),
            allowed_headers=["*"],
            max_age=3600,
        ),
        s3.CorsRule(allowed_methods=[s3.HttpMethods.GET, s3.HttpMethods.HEAD], allowed_origins=["*"], max_age=3600),
    ]


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
