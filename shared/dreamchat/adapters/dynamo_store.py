"""Item store on one DynamoDB table: `pk`/`sk`, the sparse `due` index, TTL on `expires_at`.

DynamoDB numbers come back as Decimal; this adapter turns them into int or float so callers
see the dicts they wrote. TTL deletion is lazy in DynamoDB (and never happens under moto),
so expired items are filtered out on every read.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from dreamchat.adapters import cursor as cursors
from dreamchat.adapters.item_store_base import TransactingStore
from dreamchat.ports import (
    DUE_PK,
    DUE_SK,
    TTL_ATTRIBUTE,
    Check,
    Clock,
    ConditionFailed,
    Delete,
    Item,
    ItemPage,
    KeyRange,
    Operation,
    Put,
    StoreError,
    check_transaction,
)

DUE_INDEX = "due"
_CONFLICT_RETRIES = 4
_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def create_table(client: Any, name: str) -> None:
    """Create the single table as the CDK stack does (for moto, LocalStack and tests)."""
    client.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": attribute, "AttributeType": "S"} for attribute in ("pk", "sk", DUE_PK, DUE_SK)
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": DUE_INDEX,
                "KeySchema": [
                    {"AttributeName": DUE_PK, "KeyType": "HASH"},
                    {"AttributeName": DUE_SK, "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    client.get_waiter("table_exists").wait(TableName=name)
    # DynamoDB deletes an item some time after its `expires_at` (reads here skip it at once)
    client.update_time_to_live(
        TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
    )


class DynamoItemStore(TransactingStore):
    def __init__(self, client: Any, table: str, clock: Clock) -> None:
        self._client = client
        self._table = table
        self._clock = clock

    def get(self, pk: str, sk: str) -> Item | None:
        response = self._client.get_item(TableName=self._table, Key=_key(pk, sk), ConsistentRead=True)
        item = response.get("Item")
        if item is None:
            return None
        decoded = _decode(item)
        return decoded if self._alive(decoded) else None

    def transact(self, operations: Sequence[Operation]) -> None:
        check_transaction(operations)  # so a lone operation is a write, never a bare check
        only = operations[0]
        if len(operations) == 1 and not isinstance(only, Check):  # atomic alone, at half a transaction's units
            self._write_one(only)
            return
        request = [self._transact_item(operation) for operation in operations]
        for attempt in range(_CONFLICT_RETRIES):
            try:
                self._client.transact_write_items(TransactItems=request)
                return
            except ClientError as error:
                reasons = {r.get("Code") for r in error.response.get("CancellationReasons", [])}
                if "ConditionalCheckFailed" in reasons:
                    raise ConditionFailed("transaction condition failed") from error
                if "TransactionConflict" not in reasons and _code(error) != "TransactionConflictException":
                    raise
            time.sleep(0.05 * 2**attempt)
        raise StoreError("transaction kept conflicting")

    def _write_one(self, operation: Put | Delete) -> None:
        try:
            if isinstance(operation, Delete):
                key = _key(operation.pk, operation.sk)
                condition = self._version_condition(operation.expected_version) if operation.expected_version else {}
                self._client.delete_item(TableName=self._table, Key=key, **condition)
                return
            self._client.put_item(TableName=self._table, Item=_encode(operation.item), **self._condition(operation))
        except ClientError as error:
            if _code(error) == "ConditionalCheckFailedException":
                raise ConditionFailed("condition failed") from error
            raise

    def query(
        self,
        pk: str,
        key: KeyRange = KeyRange(),
        *,
        limit: int | None = None,
        descending: bool = False,
        cursor: str | None = None,
        consistent: bool = True,
    ) -> ItemPage:
        condition, values = _key_condition(key)
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "pk = :pk" + condition,
            "ExpressionAttributeValues": {":pk": {"S": pk}, **values},
            "ScanIndexForward": not descending,
            "ConsistentRead": consistent,
        }
        if cursor is not None:
            request["ExclusiveStartKey"] = _key(pk, cursors.decode(cursor, ("sk",))["sk"])
        items = self._collect(request, limit)
        return cursors.page(items, limit, lambda item: {"sk": item["sk"]})

    def query_due(self, due_pk: str, until: str, *, limit: int | None = None, cursor: str | None = None) -> ItemPage:
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": DUE_INDEX,
            "KeyConditionExpression": "#dp = :dp AND #ds <= :until",
            "ExpressionAttributeNames": {"#dp": DUE_PK, "#ds": DUE_SK},
            "ExpressionAttributeValues": {":dp": {"S": due_pk}, ":until": {"S": until}},
        }
        if cursor is not None:
            position = cursors.decode(cursor, ("due_sk", "pk", "sk"))
            request["ExclusiveStartKey"] = {
                **_key(position["pk"], position["sk"]),
                DUE_PK: {"S": due_pk},
                DUE_SK: {"S": position["due_sk"]},
            }
        items = self._collect(request, limit)
        return cursors.page(items, limit, lambda item: {"due_sk": item[DUE_SK], "pk": item["pk"], "sk": item["sk"]})

    def _collect(self, request: dict[str, Any], limit: int | None) -> list[Item]:
        """Read pages until limit + 1 live items are found (to know whether more follow)."""
        items: list[Item] = []
        while True:
            if limit is not None:
                request["Limit"] = limit + 1 - len(items)
            response = self._client.query(**request)
            items += [item for item in map(_decode, response.get("Items", [])) if self._alive(item)]
            last = response.get("LastEvaluatedKey")
            if last is None or (limit is not None and len(items) > limit):
                return items
            request["ExclusiveStartKey"] = last

    def _transact_item(self, operation: Operation) -> dict[str, Any]:
        if isinstance(operation, Check):
            key = _key(operation.pk, operation.sk)
            condition = (
                self._absent_condition() if operation.absent else self._version_condition(operation.expected_version)
            )
            return {"ConditionCheck": {"TableName": self._table, "Key": key, **condition}}
        if isinstance(operation, Delete):
            delete = {"TableName": self._table, "Key": _key(operation.pk, operation.sk)}
            if operation.expected_version:
                delete |= self._version_condition(operation.expected_version)
            return {"Delete": delete}
        return {"Put": {"TableName": self._table, "Item": _encode(operation.item), **self._condition(operation)}}

    def _condition(self, operation: Put) -> dict[str, Any]:
        if operation.if_absent or operation.expected_version == 0:
            return self._absent_condition()
        if operation.if_unversioned:
            return {"ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(version)"}
        if operation.expected_version is None:
            return {}
        return self._version_condition(operation.expected_version)

    @staticmethod
    def _version_condition(expected: int | None) -> dict[str, Any]:
        return {
            "ConditionExpression": "version = :expected",
            "ExpressionAttributeValues": {":expected": {"N": str(expected)}},
        }

    def _absent_condition(self) -> dict[str, Any]:
        # An item past its TTL may linger until DynamoDB deletes it; it counts as absent.
        return {
            "ConditionExpression": "attribute_not_exists(pk) OR #ttl <= :now",
            "ExpressionAttributeNames": {"#ttl": TTL_ATTRIBUTE},
            "ExpressionAttributeValues": {":now": {"N": str(self._now())}},
        }

    def _alive(self, item: Item) -> bool:
        expires = item.get(TTL_ATTRIBUTE)
        return expires is None or expires > self._now()

    def _now(self) -> int:
        return int(self._clock.now().timestamp())


def _key_condition(key: KeyRange) -> tuple[str, dict[str, Any]]:
    if key.prefix is not None:
        return " AND begins_with(sk, :prefix)", {":prefix": {"S": key.prefix}}
    if key.start is not None and key.end is not None:
        return " AND sk BETWEEN :start AND :end", {":start": {"S": key.start}, ":end": {"S": key.end}}
    if key.start is not None:
        return " AND sk >= :start", {":start": {"S": key.start}}
    if key.end is not None:
        return " AND sk <= :end", {":end": {"S": key.end}}
    return "", {}


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _encode(item: Item) -> dict[str, Any]:
    return {name: _serializer.serialize(_to_dynamo(value)) for name, value in item.items()}


def _decode(item: dict[str, Any]) -> Item:
    return {name: _from_dynamo(_deserializer.deserialize(value)) for name, value in item.items()}


def _to_dynamo(value: Any) -> Any:
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {k: _to_dynamo(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_dynamo(v) for v in value]
    return value


def _from_dynamo(value: Any) -> Any:
    if isinstance(value, Decimal):
        exponent = value.as_tuple().exponent
        return int(value) if isinstance(exponent, int) and exponent >= 0 else float(value)
    if isinstance(value, dict):
        return {k: _from_dynamo(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_dynamo(v) for v in value]
    return value


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))
