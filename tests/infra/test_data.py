"""The memory table, the idempotency table and the document bucket."""

from __future__ import annotations

from typing import Any

from aws_cdk.assertions import Match

from dreamchat import keys
from dreamchat.config import MEDIA_BODY_MAX_BYTES as APP_MEDIA_BODY_MAX_BYTES
from dreamchat.domain.media import AUDIO_MAX_BYTES
from dreamchat.domain.models import PairId
from infra.stacks import data, functions
from tests.infra.synth import Synth


def memory_table(synth: Synth) -> Any:
    keyed_by_pk = {"KeySchema": Match.array_with([{"AttributeName": "pk", "KeyType": "HASH"}])}
    (table,) = synth.resources("AWS::DynamoDB::Table", {"Properties": keyed_by_pk}).values()
    return table


def test_the_memory_table_is_keyed_by_pk_and_sk(each: Synth) -> None:
    properties = memory_table(each)["Properties"]
    assert properties["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]


def test_the_memory_table_has_the_sparse_due_index(each: Synth) -> None:
    (index,) = memory_table(each)["Properties"]["GlobalSecondaryIndexes"]
    assert index == {
        "IndexName": "due",
        "KeySchema": [
            {"AttributeName": "due_pk", "KeyType": "HASH"},
            {"AttributeName": "due_sk", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    }


def test_the_memory_table_is_on_demand_encrypted_recoverable_and_expires_items(each: Synth) -> None:
    properties = memory_table(each)["Properties"]
    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    assert properties["SSESpecification"] == {"SSEEnabled": True}
    assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert properties["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}


def test_the_idempotency_table_is_keyed_by_id_and_expires_records(each: Synth) -> None:
    each.template.has_resource_properties(
        "AWS::DynamoDB::Table",
        {
            "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
            "SSESpecification": {"SSEEnabled": True},
            "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
            "TimeToLiveSpecification": {"AttributeName": "expiration", "Enabled": True},
        },
    )


def test_every_bucket_is_private_encrypted_and_tls_only(each: Synth) -> None:
    buckets = each.resources("AWS::S3::Bucket")
    assert len(buckets) == 2  # documents and their access logs
    for logical_id, bucket in buckets.items():
        properties = bucket["Properties"]
        assert properties["PublicAccessBlockConfiguration"] == {
            "BlockPublicAcls": True,
            "BlockPublicPolicy": True,
            "IgnorePublicAcls": True,
            "RestrictPublicBuckets": True,
        }
        encryption = properties["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        assert encryption == [{"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
        assert_denies_plain_http(each, logical_id)


def assert_denies_plain_http(synth: Synth, bucket_id: str) -> None:
    synth.template.has_resource_properties(
        "AWS::S3::BucketPolicy",
        {
            "Bucket": {"Ref": bucket_id},
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {
                                "Effect": "Deny",
                                "Action": "s3:*",
                                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                            }
                        )
                    ]
                )
            },
        },
    )


def test_the_document_bucket_is_versioned_and_logs_access(each: Synth) -> None:
    each.template.has_resource_properties(
        "AWS::S3::Bucket",
        {
            "VersioningConfiguration": {"Status": "Enabled"},
            "LifecycleConfiguration": {
                "Rules": Match.array_with([Match.object_like({"NoncurrentVersionExpiration": {"NoncurrentDays": 90}})])
            },
            "LoggingConfiguration": {
                "DestinationBucketName": {"Ref": Match.string_like_regexp("DataAccessLogs")},
                "LogFilePrefix": "documents/",
            },
        },
    )


def test_dev_destroys_its_data_and_empties_its_buckets(dev: Synth) -> None:
    for type_ in ("AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::SecretsManager::Secret"):
        for resource in dev.resources(type_).values():
            assert resource["DeletionPolicy"] == "Delete", type_
    assert len(dev.resources("Custom::S3AutoDeleteObjects")) == 2
    assert memory_table(dev)["Properties"]["DeletionProtectionEnabled"] is False


def test_prod_retains_its_data_and_protects_the_memory_table(prod: Synth) -> None:
    retained = [memory_table(prod), *prod.resources("AWS::S3::Bucket").values()]
    retained += prod.resources("AWS::SecretsManager::Secret").values()
    for resource in retained:
        assert resource["DeletionPolicy"] == "Retain"
        assert resource["UpdateReplacePolicy"] == "Retain"
    assert prod.resources("Custom::S3AutoDeleteObjects") == {}
    assert memory_table(prod)["Properties"]["DeletionProtectionEnabled"] is True


def test_idempotency_records_are_never_retained(prod: Synth) -> None:
    idempotency = prod.resources(
        "AWS::DynamoDB::Table", {"Properties": {"KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}}
    )
    assert [table["DeletionPolicy"] for table in idempotency.values()] == ["Delete"]


# --- media: under the pairs' prefixes of the document bucket ----------------------------------------


def document_bucket(synth: Synth) -> Any:
    (bucket,) = [b for logical_id, b in synth.resources("AWS::S3::Bucket").items() if "Documents" in logical_id]
    return bucket["Properties"]


def rule(synth: Synth, rule_id: str) -> dict[str, Any]:
    (found,) = [r for r in document_bucket(synth)["LifecycleConfiguration"]["Rules"] if r["Id"] == rule_id]
    return dict(found)


def test_unclaimed_uploads_expire_after_a_day_by_their_tag_under_the_pairs_prefix(each: Synth) -> None:
    assert rule(each, "unclaimed-uploads") == {
        "Id": "unclaimed-uploads",
        "Status": "Enabled",
        "Prefix": "pairs/",
        "TagFilters": [{"Key": "state", "Value": "pending"}],
        "ExpirationInDays": 1,
        "NoncurrentVersionExpiration": {"NoncurrentDays": 1},  # the versions a claim or a re-post left
    }


def test_the_rule_matches_where_the_app_puts_pending_uploads_and_the_tag_it_signs(each: Synth) -> None:
    pair = PairId(account_id="acc", ai_user_id="ai")
    pending = keys.media_upload_blob(pair, "md1.ai")
    assert pending.startswith(data.PAIRS_PREFIX) and keys.pair_blob_prefix(pair).startswith(data.PAIRS_PREFIX)
    assert "/uploads/" in pending and "/uploads/" not in keys.media_blob(pair, "md1.ai")
    assert data.PENDING_UPLOAD_TAG == keys.PENDING_UPLOAD_TAG
    assert rule(each, "unclaimed-uploads")["TagFilters"] == [
        dict(zip(("Key", "Value"), keys.PENDING_UPLOAD_TAG, strict=True))
    ]


def test_incomplete_multipart_uploads_are_aborted_after_a_day(each: Synth) -> None:
    old_versions = rule(each, "old-versions")
    assert old_versions["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}
    assert old_versions["ExpiredObjectDeleteMarker"] is True and "Prefix" not in old_versions


def test_the_web_client_may_post_files_from_its_origins_and_read_signed_gets(dev: Synth, prod: Synth) -> None:
    for synth, origins in (
        (dev, ["http://localhost:8000", "http://127.0.0.1:8000"]),
        (prod, ["https://chat.example.com"]),
    ):
        rules = document_bucket(synth)["CorsConfiguration"]["CorsRules"]
        assert rules == [
            {"AllowedHeaders": ["*"], "AllowedMethods": ["POST"], "AllowedOrigins": origins, "MaxAge": 3600},
            {"AllowedMethods": ["GET", "HEAD"], "AllowedOrigins": ["*"], "MaxAge": 3600},
        ]
        assert not any(m in r["AllowedMethods"] for r in rules for m in ("PUT", "DELETE"))


def test_the_multipart_route_fits_the_lambda_event_in_base64_and_still_takes_any_voice_note(each: Synth) -> None:
    variables = each.function("chat")[1]["Properties"]["Environment"]["Variables"]
    body = int(variables["DREAMCHAT_MEDIA_BODY_MAX_BYTES"])
    assert body == functions.MEDIA_BODY_MAX_BYTES
    in_base64 = 4 * -(-body // 3)
    assert in_base64 + 512 * 1024 <= functions.LAMBDA_EVENT_BYTES  # room for headers and the request context
    assert AUDIO_MAX_BYTES + 64 * 1024 <= body < APP_MEDIA_BODY_MAX_BYTES  # a voice note never needs S3
    for key in ("compress", "heartbeat-worker"):
        assert "DREAMCHAT_MEDIA_BODY_MAX_BYTES" not in each.function(key)[1]["Properties"]["Environment"]["Variables"]
