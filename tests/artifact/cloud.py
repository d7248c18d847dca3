"""The stack's data resources created on a moto server from the synthesized template, so the
functions run with the environment CloudFormation would give them (Refs and GetAtts resolved)."""

from __future__ import annotations

import json
from typing import Any

import boto3

REGION = "us-east-1"
ACCOUNT = "123456789012"
SECRET = {"jwt_secret": "artifact-test-" + "x" * 40, "llm_api_key": "test-key"}
# What CreateTable accepts of a CloudFormation AWS::DynamoDB::Table
TABLE_FIELDS = ("KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "BillingMode", "ProvisionedThroughput")


class Cloud:
    def __init__(self, endpoint: str, template: dict[str, Any]) -> None:
        self.endpoint = endpoint
        self._refs: dict[str, str] = {
            "AWS::Region": REGION,
            "AWS::AccountId": ACCOUNT,
            "AWS::Partition": "aws",
            "AWS::URLSuffix": "amazonaws.com",
        }
        self._attributes: dict[tuple[str, str], str] = {}
        for logical_id, resource in template["Resources"].items():
            create = CREATORS.get(resource["Type"])
            if create is not None:
                create(self, logical_id, resource.get("Properties", {}))

    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            region_name=REGION,
            endpoint_url=self.endpoint,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def resolve(self, value: Any) -> str:
        """A function environment value with its CloudFormation intrinsic resolved."""
        if isinstance(value, str):
            return value
        if isinstance(value, dict) and "Ref" in value:
            return self._refs[value["Ref"]]
        if isinstance(value, dict) and "Fn::GetAtt" in value:
            logical_id, attribute = value["Fn::GetAtt"]
            return self._attributes[(logical_id, attribute)]
        raise AssertionError(f"the test cannot resolve {value!r}: teach tests/artifact/cloud.py")

    def ref(self, logical_id: str) -> str:
        return self._refs[logical_id]

    def _table(self, logical_id: str, props: dict[str, Any]) -> None:
        name = props.get("TableName", logical_id)
        fields = {key: props[key] for key in TABLE_FIELDS if key in props}
        for index in fields.get("GlobalSecondaryIndexes", []):
            index.pop("ContributorInsightsSpecification", None)
        self.client("dynamodb").create_table(TableName=name, **fields)
        self._refs[logical_id] = name
        self._attributes[(logical_id, "Arn")] = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{name}"

    def _bucket(self, logical_id: str, props: dict[str, Any]) -> None:
        name = props.get("BucketName", logical_id.lower())
        self.client("s3").create_bucket(Bucket=name)
        self._refs[logical_id] = name
        self._attributes[(logical_id, "Arn")] = f"arn:aws:s3:::{name}"

    def _queue(self, logical_id: str, props: dict[str, Any]) -> None:
        name = props.get("QueueName", logical_id)
        url = self.client("sqs").create_queue(QueueName=name)["QueueUrl"]
        self._refs[logical_id] = url
        self._attributes[(logical_id, "QueueUrl")] = url
        self._attributes[(logical_id, "QueueName")] = name
        self._attributes[(logical_id, "Arn")] = f"arn:aws:sqs:{REGION}:{ACCOUNT}:{name}"

    def _bus(self, logical_id: str, props: dict[str, Any]) -> None:
        name = props["Name"]
        arn = self.client("events").create_event_bus(Name=name)["EventBusArn"]
        self._refs[logical_id] = name
        self._attributes[(logical_id, "Name")] = name
        self._attributes[(logical_id, "Arn")] = arn

    def _secret(self, logical_id: str, props: dict[str, Any]) -> None:
        name = props.get("Name", logical_id)
        arn = self.client("secretsmanager").create_secret(Name=name, SecretString=json.dumps(SECRET))["ARN"]
        self._refs[logical_id] = arn

    def _topic(self, logical_id: str, props: dict[str, Any]) -> None:
        name = props.get("TopicName", logical_id)
        self._refs[logical_id] = self.client("sns").create_topic(Name=name)["TopicArn"]

    def capture(self, bus: str, detail_type: str) -> str:
        """A queue that receives the bus's `detail_type` events (as the rule's Lambda target would)."""
        sqs = self.client("sqs")
        url = sqs.create_queue(QueueName=f"capture-{detail_type}")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events = self.client("events")
        events.put_rule(
            Name=f"capture-{detail_type}", EventBusName=bus, EventPattern=json.dumps({"detail-type": [detail_type]})
        )
        events.put_targets(Rule=f"capture-{detail_type}", EventBusName=bus, Targets=[{"Id": "capture", "Arn": arn}])
        return url

    def subscribe(self, topic_arn: str, name: str) -> str:
        """A queue subscribed to an SNS topic (as the operators' e-mail subscription would be): each message
        arrives in SNS's envelope (`Subject`, `Message`)."""
        sqs = self.client("sqs")
        url = sqs.create_queue(QueueName=f"subscribed-{name}")["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        self.client("sns").subscribe(TopicArn=topic_arn, Protocol="sqs", Endpoint=arn)
        return url

    def receive(self, url: str) -> list[dict[str, Any]]:
        found = self.client("sqs").receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
        return [{"id": m["MessageId"], "body": m["Body"]} for m in found.get("Messages", [])]


CREATORS = {
    "AWS::DynamoDB::Table": Cloud._table,
    "AWS::DynamoDB::GlobalTable": Cloud._table,
    "AWS::S3::Bucket": Cloud._bucket,
    "AWS::SQS::Queue": Cloud._queue,
    "AWS::Events::EventBus": Cloud._bus,
    "AWS::SecretsManager::Secret": Cloud._secret,
    "AWS::SNS::Topic": Cloud._topic,
}
