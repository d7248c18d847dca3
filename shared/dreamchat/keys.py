"""Every storage key is composed here, and nowhere else.

Pair data (messages, all memory tiers, souls, relationship, heartbeat) lives under keys that
carry the account id, so one account's keys can never name another's data.
"""

from __future__ import annotations

import hashlib
import zlib
from datetime import UTC, datetime

from dreamchat.domain.accounts import username_skeleton
from dreamchat.domain.models import PairId


def account(account_id: str) -> tuple[str, str]:
    return f"ACCOUNT#{account_id}", "PROFILE"


def account_pk(account_id: str) -> str:
    return f"ACCOUNT#{account_id}"


def username(name: str) -> tuple[str, str]:
    """A name's unique pointer, by how it looks (look-alikes and full-width forms are the same name)."""
    return f"USERNAME#{username_skeleton(name)}", "ACCOUNT"


def legacy_username(name: str) -> tuple[str, str]:
    """The pointer of a name registered before skeletons (folded only)."""
    return f"USERNAME#{name.casefold()}", "ACCOUNT"


def token_family(account_id: str, family: str) -> tuple[str, str]:
    return f"ACCOUNT#{account_id}", f"TOKEN#{family}"


def idempotency(account_id: str, key: str) -> tuple[str, str]:
    """A request's Idempotency-Key, hashed (any characters), in the account's partition."""
    return f"ACCOUNT#{account_id}", f"IDEMPOTENCY#{hashlib.sha256(key.encode()).hexdigest()[:40]}"


def ai_user(ai_user_id: str) -> tuple[str, str]:
    return f"AIUSER#{ai_user_id}", "PROFILE"


def ai_user_pk(ai_user_id: str) -> str:
    return f"AIUSER#{ai_user_id}"


def owned(account_id: str, ai_user_id: str) -> tuple[str, str]:
    return f"ACCOUNT#{account_id}", f"OWNS#{ai_user_id}"


def friend(account_id: str, ai_user_id: str) -> tuple[str, str]:
    return f"ACCOUNT#{account_id}", f"FRIEND#{ai_user_id}"


def pair_member(ai_user_id: str, account_id: str) -> tuple[str, str]:
    """The AI user's list of the accounts it has a pair with (to erase them all on delete)."""
    return f"AIUSER#{ai_user_id}", f"PAIR#{account_id}"


def public_listing(ai_user_id: str) -> tuple[str, str]:
    return "PUBLIC", f"AIUSER#{ai_user_id}"


PUBLIC_PK = "PUBLIC"
OWNS_PREFIX = "OWNS#"
FRIEND_PREFIX = "FRIEND#"
PAIR_MEMBER_PREFIX = "PAIR#"
TOKEN_PREFIX = "TOKEN#"


def pair_pk(pair: PairId) -> str:
    return f"PAIR#{pair.account_id}#{pair.ai_user_id}"


def messages_pk(pair: PairId) -> str:
    return f"{pair_pk(pair)}#MSG"


def short_term_pk(pair: PairId) -> str:
    return f"{pair_pk(pair)}#SHORT"


def media_pk(pair: PairId) -> str:
    """The pair's media records (kept out of the pair's main partition, which a turn reads whole)."""
    return f"{pair_pk(pair)}#MEDIA"


def pair_partitions(pair: PairId) -> list[str]:
    """Every partition that holds the pair's data."""
    main = pair_pk(pair)
    return [main, messages_pk(pair), short_term_pk(pair), f"{main}#HBRUN", f"{main}#EXRUN", media_pk(pair)]


def pair_blob_prefix(pair: PairId) -> str:
    return f"pairs/{pair.account_id}/{pair.ai_user_id}/"


TOPIC_SK = "TOPIC"
SELF_SOUL_SK = "SOUL"
RELATIONSHIP_SK = "RELATIONSHIP"
HEARTBEAT_SK = "HEARTBEAT"
QUALITY_SK = "QUALITY"
GREETED_SK = "GREETED"  # written once, if absent: the opening message was stored
MID_PREFIX = "MID#"
LONG_PREFIX = "LONG#"
CORE_PREFIX = "CORE#"
OWED_PREFIX = "OWED#"
DUE_SHARDS = 16
TOPIC_DUE_KIND = "TOPIC"
COMPRESS_DUE_KIND = "COMPRESS"
EXTRACT_DUE_KIND = "EXTRACT"
HEARTBEAT_DUE_KIND = "HB"
HEAL_DUE_KIND = "HEAL"  # owed work: a degraded result to redo once the model answers again


def pending_compression(topic_id: str) -> str:
    """Marks an ended topic until its mid-term memory exists (a safety net for lost events)."""
    return f"PENDING#{topic_id}"


def mid_term(topic_id: str) -> str:
    return f"{MID_PREFIX}{topic_id}"


def long_term(long_id: str) -> str:
    return f"{LONG_PREFIX}{long_id}"


def core(core_id: str) -> str:
    return f"{CORE_PREFIX}{core_id}"


def owed(kind: str, subject: str) -> str:
    """Work owed for a degraded result: one per kind and subject ("" for the pair's own)."""
    return f"{OWED_PREFIX}{kind}#{subject}"


def short_term_sk(topic_id: str, message_id: str) -> str:
    return f"{topic_id}#{message_id}"


def detail_file_blob(pair: PairId, detail_file: str, revision: str = "") -> str:
    """A long-term detail document by its file name (a long-term index item's `detail_file`) and
    revision (its `detail_revision`, "" for a document written before revisions: the name alone)."""
    name = f"{detail_file.removesuffix('.json')}.{revision}.json" if revision else detail_file
    return f"{pair_blob_prefix(pair)}long_term_details/{name}"


MEDIA_PREFIX = "MEDIA#"


def media(media_id: str) -> str:
    """A media record's sort key in the pair's media partition (`media_pk`)."""
    return f"{MEDIA_PREFIX}{media_id}"


def media_blob(pair: PairId, media_id: str) -> str:
    """A photo's or a voice note's bytes, under the pair's prefix: erased with the pair."""
    return f"{pair_blob_prefix(pair)}media/{media_id}"


def media_upload_blob(pair: PairId, media_id: str) -> str:
    """A file a client posted straight to S3 (a presigned upload), until a message or the client claims it:
    under the pair's prefix, so erasing the pair erases it too; tagged `PENDING_UPLOAD_TAG`."""
    return f"{pair_blob_prefix(pair)}uploads/{media_id}"


# The tag a presigned upload's form sets on its object: S3 lifecycle filters match a prefix from the bucket's
# root only, so `pairs/*/*/uploads/` is out of reach, and the rule that expires unclaimed uploads after a day
# matches `pairs/` and this tag (infra/stacks/data.py; tests/infra checks they agree).
PENDING_UPLOAD_TAG = ("state", "pending")


def ai_user_blob_prefix(ai_user_id: str) -> str:
    """Every blob of one AI user (its avatar, its character card): erased with it."""
    return f"ai_users/{ai_user_id}/"


def avatar_blob(ai_user_id: str, token: str) -> str:
    """An uploaded avatar; a new upload gets a new random token, so its URL never changes meaning."""
    return f"{ai_user_blob_prefix(ai_user_id)}avatar/{token}.png"


def card_blob(ai_user_id: str) -> str:
    """The character card an AI user was imported from: its data verbatim and what was taken from it."""
    return f"{ai_user_blob_prefix(ai_user_id)}card.json"


def shard(pair: PairId) -> int:
    """A stable shard for the due index, so no single partition holds every due pair."""
    return zlib.crc32(pair_pk(pair).encode()) % DUE_SHARDS


def due_time(moment: datetime) -> str:
    """The due index sorts by this text: UTC to the second, so text order is time order."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def due_until(moment: datetime) -> str:
    """The bound of a due query that takes every entry due at or before `moment`."""
    return due_time(moment) + "~"


def due_sort(when: str, *parts: str) -> str:
    """A due-index sort key: the due time (`due_time`), then what makes the entry unique."""
    return "#".join((when, *parts))


def due_partition(kind: str, shard_number: int) -> str:
    return f"{kind}#{shard_number:02d}"


def pair_from_pk(pk: str) -> PairId:
    _, account_id, ai_user_id = pk.split("#")[:3]
    return PairId(account_id=account_id, ai_user_id=ai_user_id)


def profile(account_id: str) -> tuple[str, str]:
    """The person's own 关于我, given to every AI friend (deleted with the account)."""
    return f"ACCOUNT#{account_id}", "ABOUT_ME"


def person_locale(account_id: str) -> tuple[str, str]:
    """The person's own locale (zh-CN, en-US, ...): whose help lines a crisis shows, when they set one."""
    return f"ACCOUNT#{account_id}", "LOCALE"


def person_nickname(account_id: str) -> tuple[str, str]:
    """What the person wants every AI friend to call them, when they set it."""
    return f"ACCOUNT#{account_id}", "NICKNAME"


def person_zone(account_id: str) -> tuple[str, str]:
    """The person's own time zone (an IANA name), when they set one."""
    return f"ACCOUNT#{account_id}", "TIMEZONE"


def heartbeat_prefs(account_id: str) -> tuple[str, str]:
    return f"ACCOUNT#{account_id}", "HEARTBEAT_PREFS"


def protection(account_id: str) -> tuple[str, str]:
    """The person's protections: birth year, minors' mode, guardian consent, emergency contact, daily limit."""
    return f"ACCOUNT#{account_id}", "PROTECTION"


def conversation_time(account_id: str) -> tuple[str, str]:
    """The person's conversation time by day (the last 7) and their reminders, across every AI friend."""
    return f"ACCOUNT#{account_id}", "USAGE"


def session(account_id: str) -> tuple[str, str]:
    """The person's continuous use (for the break reminder), across every AI friend."""
    return f"ACCOUNT#{account_id}", "SESSION"


def heartbeat_run(pair: PairId, due: str) -> tuple[str, str]:
    """Marks that the heartbeat due at `due` ran (or was skipped): each runs at most once.

    Kept out of the pair's main partition, which a turn reads whole.
    """
    return f"{pair_pk(pair)}#HBRUN", due


TOMBSTONE_SK = "TOMBSTONE"
ERASE_DUE_KIND = "ERASE"
_OWNER_PREFIXES = ("PAIR#", "ACCOUNT#", "AIUSER#")


def owner_pk(pk: str) -> str | None:
    """The partition that owns an item's data and can be erased: a pair's, an account's or an
    AI user's (a pair's extra partitions `#MSG`, `#SHORT`, ... belong to the pair)."""
    if is_pair_pk(pk):
        return pair_pk(pair_from_pk(pk))
    if pk.startswith(_OWNER_PREFIXES[1:]):
        return "#".join(pk.split("#")[:2])
    return None


def is_pair_pk(pk: str) -> bool:
    return pk.startswith(_OWNER_PREFIXES[0])


def public_listing_of(owner: str) -> tuple[str, str] | None:
    """The public listing an erased owner may have left: only an AI user has one."""
    if owner.startswith(_OWNER_PREFIXES[2]):
        return PUBLIC_PK, owner
    return None


def ai_user_of(owner: str) -> str | None:
    """The AI user id of an erased owner that is an AI user (its blobs are erased with it)."""
    return owner.removeprefix(_OWNER_PREFIXES[2]) if owner.startswith(_OWNER_PREFIXES[2]) else None


def tombstone(owner: str) -> tuple[str, str]:
    """Left by an erasure: later writes of the owner's partitions check that it is absent."""
    return f"TOMBSTONE#{owner}", TOMBSTONE_SK


def extraction_run(pair: PairId, lease: str) -> tuple[str, str]:
    """The lease of one round of a pair's extraction (`lease`: when the sweep's lease ends)."""
    return f"{pair_pk(pair)}#EXRUN", lease


def rate_window(scope: str, window_start: int) -> tuple[str, str]:
    """One fixed window of a request limit, e.g. scope `MSG#<account id>`."""
    return f"LIMIT#{scope}", f"W#{window_start}"


def message_limit_scope(account_id: str) -> str:
    return f"MSG#{account_id}"


def model_call_scope(account_id: str) -> str:
    return f"MODEL#{account_id}"


def import_limit_scope(account_id: str) -> str:
    """Memory imports of one account."""
    return f"IMPORT#{account_id}"


def card_limit_scope(account_id: str) -> str:
    """Character card uploads (previews and imports) of one account."""
    return f"CARD#{account_id}"


def media_limit_scope(account_id: str) -> str:
    """Media uploads (photos, voice notes) of one account."""
    return f"MEDIA#{account_id}"


def media_role_scope(role: str, account_id: str) -> str:
    """A media role's calls (`speech_to_text`, `vision`) made for one account's messages."""
    return f"ROLE#{role}#{account_id}"


def export_limit_scope(account_id: str) -> str:
    """Exports of one account's whole data."""
    return f"EXPORT#{account_id}"


def login_limit_scope(name: str) -> str:
    """Login attempts on one username, from any address."""
    return f"LOGIN#{name.casefold()}"


def client_limit_scope(client: str) -> str:
    """Register and login requests from one client address."""
    return f"AUTH#{client}"


def answering(pair: PairId, message_id: str) -> tuple[str, str]:
    """Who may answer a person's message again: left free by a failed turn, leased by a retry."""
    return pair_pk(pair), f"ANSWER#{message_id}"


def answering_anew(pair: PairId, message_id: str) -> tuple[str, str]:
    """Who is making a new answer to a person's message (换一个回答): leased while it runs."""
    return pair_pk(pair), f"ANEW#{message_id}"


# Web Push and presence: in the account's partition, so erasing the account erases them
PUSH_PREFIX = "PUSH#"
PUSH_SETTINGS_SK = "PUSH_SETTINGS"
PRESENCE_PREFIX = "PRESENCE#"


def push_subscription_id(endpoint: str) -> str:
    """A subscription's id: a hash of its endpoint (the endpoint itself is a device's secret token)."""
    return hashlib.sha256(endpoint.encode()).hexdigest()[:32]


def push_subscription(account_id: str, subscription_id: str) -> tuple[str, str]:
    return f"ACCOUNT#{account_id}", f"{PUSH_PREFIX}{subscription_id}"


def push_endpoint_owner(subscription_id: str) -> tuple[str, str]:
    """Which account an endpoint is subscribed for: a device that changes hands pushes for one account."""
    return f"PUSHEP#{subscription_id}", "OWNER"


def push_settings(account_id: str) -> tuple[str, str]:
    return f"ACCOUNT#{account_id}", PUSH_SETTINGS_SK


def last_present(account_id: str, ai_user_id: str) -> tuple[str, str]:
    """When a device of the account last showed the chat with this AI user: its timed heartbeat's
    silence counts from then."""
    return f"ACCOUNT#{account_id}", f"LAST_PRESENT#{ai_user_id}"


def presence(account_id: str, device: str) -> tuple[str, str]:
    """Where one device of the account is looking now (kept a short while: `expires_at`)."""
    return f"ACCOUNT#{account_id}", f"{PRESENCE_PREFIX}{device}"


# Running the service: reports, escalations, the audit log, the crisis referral counts. A list's sort
# key is `<epoch, 10 digits>-<id>`: oldest first, and a page cursor can name it.
REPORTS_PK = "REPORTS"
ESCALATIONS_PK = "ESCALATIONS"
AUDIT_PK = "AUDIT"
REPORT_PREFIX = "REPORT#"


def listed(at: int, item_id: str) -> str:
    """The sort key of an entry in a list kept in time order."""
    return f"{at:010d}-{item_id}"


def report(report_id: str) -> tuple[str, str]:
    return f"REPORT#{report_id}", "REPORT"


def report_listing(status: str, at: int, report_id: str) -> tuple[str, str]:
    """A report in its status's list (`REPORTS#open`, oldest first)."""
    return f"{REPORTS_PK}#{status}", listed(at, report_id)


def reports_of(account_id: str, at: int, report_id: str) -> tuple[str, str]:
    """A report in its reporter's list, in their own partition."""
    return f"ACCOUNT#{account_id}", f"{REPORT_PREFIX}{listed(at, report_id)}"


def escalation(escalation_id: str) -> tuple[str, str]:
    return f"ESCALATION#{escalation_id}", "ESCALATION"


def escalation_listing(status: str, at: int, escalation_id: str) -> tuple[str, str]:
    return f"{ESCALATIONS_PK}#{status}", listed(at, escalation_id)


def pair_escalation(pair: PairId) -> tuple[str, str]:
    """The pair's escalation still open or taken over (erased with the pair)."""
    return pair_pk(pair), "ESCALATION"


def audit_entry(at: int, entry_id: str) -> tuple[str, str]:
    return AUDIT_PK, listed(at, entry_id)


def crisis_counts(month: str) -> tuple[str, str]:
    """The crisis protocol's counts for one month (`YYYY-MM`): numbers only."""
    return "CRISIS_COUNTS", month


def rating_counts(month: str) -> tuple[str, str]:
    """The month's 👍 and 👎 on the AI's messages (`YYYY-MM`, UTC): counts only, for the operators' console."""
    return "RATING_COUNTS", month
