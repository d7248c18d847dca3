"""Real-shaped AWS events for handler tests."""

from __future__ import annotations

import json
from typing import Any


def http_api_event(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """An API Gateway HTTP API (payload format 2.0) request."""
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"content-type": "application/json", "host": "api.example.com", **(headers or {})},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api",
            "domainName": "api.example.com",
            "domainPrefix": "api",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.9",
                "userAgent": "test",
            },
            "requestId": "req-1",
            "routeKey": "$default",
            "stage": "$default",
            "time": "15/Mar/2026:12:00:00 +0000",
            "timeEpoch": 1773576000000,
        },
        "body": None if body is None else json.dumps(body),
        "isBase64Encoded": False,
    }


class LambdaContext:
    function_name = "dreamchat-test"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:dreamchat-test"
    aws_request_id = "req-1"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000  # time enough for any one step; tests of the time budget count down instead


def scheduled_event(rule: str = "dreamchat-schedule") -> dict[str, Any]:
    """An EventBridge scheduled event."""
    return {
        "version": "0",
        "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": "2026-03-15T12:00:00Z",
        "region": "us-east-1",
        "resources": [f"arn:aws:events:us-east-1:123456789012:rule/{rule}"],
        "detail": {},
    }


def sqs_batch(bodies: list[str], queue: str = "dreamchat-heartbeat") -> dict[str, Any]:
    """An SQS event source batch."""
    return {
        "Records": [
            {
                "messageId": f"msg-{i}",
                "receiptHandle": f"handle-{i}",
                "body": body,
                "attributes": {
                    "ApproximateReceiveCount": "1",
                    "SentTimestamp": "1773576000000",
                    "SenderId": "AIDA",
                    "ApproximateFirstReceiveTimestamp": "1773576000000",
                },
                "messageAttributes": {},
                "md5OfBody": "0" * 32,
                "eventSource": "aws:sqs",
                "eventSourceARN": f"arn:aws:sqs:us-east-1:123456789012:{queue}",
                "awsRegion": "us-east-1",
            }
            for i, body in enumerate(bodies)
        ]
    }
