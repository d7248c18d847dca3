"""Telling the operators of a new crisis escalation (`dreamchat.ports.OperatorAlerts`): a message on an
SNS topic in AWS (its subscriptions, e-mail for one, reach the operators), a log line locally. Either
carries the escalation's id and time only: never a name, never a word of the chat."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

log = logging.getLogger(__name__)

SUBJECT = "DreamChat: crisis escalation"


def alert_text(escalation_id: str, opened_at: int) -> str:
    """What an operator reads: the escalation to open in the console, and when it was opened (UTC)."""
    when = datetime.fromtimestamp(opened_at, UTC)
    return f"Crisis escalation {escalation_id} opened at {when:%Y-%m-%d %H:%M:%S} UTC. Open it in the console (/admin)."


class LogAlerts:
    """Locally: a log line (the console's badge shows the open escalations)."""

    def escalation_opened(self, escalation_id: str, opened_at: int) -> None:
        log.warning("crisis escalation opened", extra={"escalation_id": escalation_id, "opened_at": opened_at})


class SnsAlerts:
    """In AWS: one message on the operators' SNS topic (`DREAMCHAT_OPERATOR_TOPIC_ARN`)."""

    def __init__(self, client: Any, topic_arn: str) -> None:
        self._client = client
        self._topic_arn = topic_arn

    def escalation_opened(self, escalation_id: str, opened_at: int) -> None:
        self._client.publish(TopicArn=self._topic_arn, Subject=SUBJECT, Message=alert_text(escalation_id, opened_at))
        log.info("operators alerted", extra={"escalation_id": escalation_id, "opened_at": opened_at})
