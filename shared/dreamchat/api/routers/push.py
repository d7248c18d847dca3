"""Web Push: the server's public key, the caller's devices, and whether notifications show the text."""

from __future__ import annotations

from fastapi import APIRouter, status
from pydantic import Field, StrictBool

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import PublicKeyOut, PushSettingsOut, RemovedOut, SubscribedOut
from dreamchat.api.schemas import Body
from dreamchat.domain.push import MAX_ENDPOINT_CHARS
from dreamchat.errors import NotFound
from dreamchat.services.push import PushSettings

router = APIRouter(prefix="/api/push", tags=["push"], responses=documented(401))


class SubscriptionKeys(Body):
    p256dh: str = Field(min_length=1, max_length=200)
    auth: str = Field(min_length=1, max_length=100)


class PushSubscriptionBody(Body):
    """The browser's `PushSubscription.toJSON()`."""

    endpoint: str = Field(min_length=1, max_length=MAX_ENDPOINT_CHARS)
    expirationTime: float | None = None  # noqa: N815 - the browser's name
    keys: SubscriptionKeys


class Endpoint(Body):
    endpoint: str = Field(min_length=1, max_length=MAX_ENDPOINT_CHARS)


class SettingsBody(Body):
    show_content: StrictBool


@router.get("/key", response_model=PublicKeyOut, responses=documented(503))
def public_key(caller: CurrentCaller, services: ServicesDep) -> PublicKeyOut:
    """The VAPID public key (base64url) to pass as `applicationServerKey` to `PushManager.subscribe`."""
    return PublicKeyOut(public_key=services.push.public_key())


@router.post(
    "/subscriptions",
    status_code=status.HTTP_201_CREATED,
    response_model=SubscribedOut,
    responses=documented(400, 413, 422, 503),
)
def subscribe(body: PushSubscriptionBody, caller: CurrentCaller, services: ServicesDep) -> SubscribedOut:
    """Keep this device's push subscription (one per device; several devices per account).

    422 unless the endpoint is under `DREAMCHAT_PUSH_ALLOWED_ENDPOINTS` and the keys are a P-256 key and an auth secret."""
    subscription = services.push.subscribe(caller.id, body.endpoint, body.keys.p256dh, body.keys.auth)
    return SubscribedOut(id=subscription.id, devices=len(services.push.subscriptions(caller.id)))


@router.delete("/subscriptions", response_model=RemovedOut, responses=documented(400, 404, 413, 422))
def unsubscribe(body: Endpoint, caller: CurrentCaller, services: ServicesDep) -> RemovedOut:
    """Forget the device with this endpoint (the browser unsubscribed, or the person turned notifications off)."""
    if not services.push.unsubscribe(caller.id, body.endpoint):
        raise NotFound("no such subscription")
    return RemovedOut(removed=True)


@router.get("/settings", response_model=PushSettingsOut)
def get_settings(caller: CurrentCaller, services: ServicesDep) -> PushSettingsOut:
    """`show_content`: whether notifications show the message (else "发来一条消息")."""
    return PushSettingsOut.model_validate(services.push.settings_of(caller.id))


@router.put("/settings", response_model=PushSettingsOut, responses=documented(400, 413, 422))
def put_settings(body: SettingsBody, caller: CurrentCaller, services: ServicesDep) -> PushSettingsOut:
    """Set `show_content` (通知显示消息内容) for every device of the account."""
    return PushSettingsOut.model_validate(
        services.push.save_settings(caller.id, PushSettings(show_content=body.show_content))
    )
