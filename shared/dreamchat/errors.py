"""Our own exceptions; the API maps each to one status code in one place (api/errors.py)."""

from __future__ import annotations


class DreamChatError(Exception):
    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(DreamChatError):
    code = "bad_request"


class Unauthorized(DreamChatError):
    code = "unauthorized"


class Forbidden(DreamChatError):
    code = "forbidden"


class Suspended(Forbidden):
    """The account is suspended by an operator: no login, no refresh, no request until it is lifted."""

    code = "account_suspended"


class WrongPassword(Forbidden):
    """The password given to confirm a change is not the account's (403, not 401: the session itself is fine)."""

    code = "wrong_password"


class Protected(Forbidden):
    """A protection of the person stops this (minors' mode, guardian consent, the daily limit): 403 with
    the protection's own code (`dreamchat.domain.protection`), never for a crisis."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class NotFound(DreamChatError):
    code = "not_found"


class Conflict(DreamChatError):
    code = "conflict"


class Contended(Conflict):
    """A lost race: what was read changed before the write landed, nothing was written. A person
    waiting gets 409 (try again, code `conflict` as before); background work is retried."""


class MediaAlreadySent(Conflict):
    """A photo or voice note already went with a message: 409; upload it again to send it again."""

    code = "media_already_sent"


class TooLarge(DreamChatError):
    code = "payload_too_large"


class Invalid(DreamChatError):
    code = "validation_error"


class MediaRefused(Invalid):
    """An upload broke a media rule (`dreamchat.domain.media`): 422 with the code `media_<rule>`."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.code = f"media_{rule}"


class TooManyRequests(DreamChatError):
    code = "too_many_requests"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class UploadsUnavailable(Conflict):
    """Presigned uploads need S3: without it (local mode) a client sends its file to the multipart route (409:
    the server is up, it is this deployment's state that says no; a 5xx would read as a failure)."""

    code = "presigned_uploads_unavailable"


class Unavailable(DreamChatError):
    code = "unavailable"

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
