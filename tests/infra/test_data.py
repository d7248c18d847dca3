"""The memory table, the idempotency table and the document bucket."""

from __future__ import annotations

from typing import Any

from aws_cdk.assertions import Match

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
                "Rules": [Match.object_like({"NoncurrentVersionExpiration": {"NoncurrentDays": 90}})]
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
