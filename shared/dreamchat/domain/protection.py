"""The protections a companion gives a person: age and minors' mode, guardian consent, an emergency contact,
the daily limit. Pure rules; the year and the time are passed in.

A person under 18 (by the birth year they gave) is in minors' mode and cannot leave it before 18; an adult
may switch it on for themselves. A minor needs a guardian's recorded consent before chat and heartbeats
(under 14 in any case). None of this ever blocks a crisis: the chat turn answers a crisis with the help
lines whatever a protection says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from dreamchat.domain.models import Entity

ADULT_AGE = 18
OLDER_AGE = 60  # from this age the settings suggest an emergency contact
EARLIEST_BIRTH_YEAR = 1900
CURFEW_START_HOUR = 22  # no heartbeats to a minor from 22:00 ...
CURFEW_END_HOUR = 8  # ... to 08:00, in the person's zone
REALITY_MINUTES = 30  # a reality reminder every this many minutes of continuous talk in minors' mode
LIMIT_WARNING_MINUTES = 10  # the notice before the daily limit

# the codes of the 403s a protection answers with (`dreamchat.errors.Protected`)
MINOR_PROTECTION = "minor_protection"
GUARDIAN_CONSENT_REQUIRED = "guardian_consent_required"
DAILY_LIMIT = "daily_limit"
REFUSALS = {  # what each 403 tells the person
    MINOR_PROTECTION: "in minors' mode this AI user (a romantic or intimate partner) is not available",
    GUARDIAN_CONSENT_REQUIRED: "a guardian's consent comes first: PUT /api/profile/protection "
    '{"guardian_consent": true, "guardian_name": ...}',
}


class EmergencyContact(Entity):
    """Someone to call in a crisis: never shown to the AI or in any prompt; an operator sees it in an
    escalation, and it is in the account export."""

    name: str = Field(min_length=1, max_length=40)
    phone: str = Field(min_length=3, max_length=32, pattern=r"^\+?[0-9][0-9 ()-]{1,30}[0-9]$")


class Protection(Entity):
    birth_year: int | None = None
    minor_mode: bool = False  # switched on by the person (an adult may); a minor is in it whatever this says
    guardian_consent: bool = False
    guardian_name: str | None = Field(default=None, max_length=40)
    consent_at: int | None = None  # when the consent was recorded
    emergency_contact: EmergencyContact | None = None
    daily_minutes: int | None = Field(default=None, ge=1, le=24 * 60)  # minors' mode: None is the server's


def age(protection: Protection, year: int) -> int | None:
    """The person's age this year (by birth year alone: at most one year young), None when not given."""
    return None if protection.birth_year is None else year - protection.birth_year


def is_minor(protection: Protection, year: int) -> bool:
    """In minors' mode now: under 18, or an adult who switched it on."""
    years = age(protection, year)
    return protection.minor_mode or (years is not None and years < ADULT_AGE)


def birth_year_problem(birth_year: int | None, year: int) -> str | None:
    if birth_year is None or EARLIEST_BIRTH_YEAR <= birth_year <= year:
        return None
    return f"birth_year: a year from {EARLIEST_BIRTH_YEAR} to {year}, not {birth_year}"


def switch_off_problem(protection: Protection, year: int) -> str | None:
    """Why minors' mode cannot be switched off (the person is under 18), or None."""
    years = age(protection, year)
    if years is not None and years < ADULT_AGE:
        return "minor_mode: a person under 18 stays in minors' mode until they are 18"
    return None


def needs_consent(protection: Protection, year: int) -> bool:
    """Chat and heartbeats wait for a guardian's recorded consent: every person under 18 (so under 14 in any
    case, as the rules ask); an adult who chose minors' mode needs none."""
    years = age(protection, year)
    return years is not None and years < ADULT_AGE and not protection.guardian_consent


def withheld(protection: Protection, year: int, romance: bool, *, talking: bool = True) -> str | None:
    """The code of the protection that keeps the person from an AI user now, or None: a `romance` one in
    minors' mode (befriending and talking alike), and before a guardian's consent a minor's talk (chat and
    heartbeats). The caller lets a crisis or distress through whatever this says."""
    if romance and is_minor(protection, year):
        return MINOR_PROTECTION
    if talking and needs_consent(protection, year):
        return GUARDIAN_CONSENT_REQUIRED
    return None


def changed(protection: Protection, changes: Mapping[str, Any], at: int) -> Protection:
    """The protection with the fields `changes` names: a consent recorded with who gave it and when (`at`),
    one withdrawn with both cleared."""
    updated = {**protection.model_dump(), **changes}
    if "guardian_consent" in changes:
        consent = bool(changes["guardian_consent"])
        updated |= {
            "consent_at": at if consent else None,
            "guardian_name": updated["guardian_name"] if consent else None,
        }
    return Protection.model_validate(updated)


def change_problem(before: Protection, after: Protection, names: set[str], year: int, minutes: int) -> str | None:
    """Why a change cannot be made (naming its field), or None. A person under 18 by the birth year given
    cannot give an earlier year or clear it, switch minors' mode off, or allow themselves more than the
    server's daily `minutes`."""
    if "birth_year" in names and (problem := birth_year_problem(after.birth_year, year)):
        return problem
    earlier = after.birth_year is None or (before.birth_year is not None and after.birth_year < before.birth_year)
    if "birth_year" in names and _young(before, year) and earlier:
        return "birth_year: a person under 18 cannot give an earlier birth year or clear it"
    if "minor_mode" in names and not after.minor_mode and (problem := switch_off_problem(after, year)):
        return problem
    if "guardian_consent" in names and after.guardian_consent and not after.guardian_name:
        return "guardian_name: the guardian who consents is named"
    over = after.daily_minutes is not None and after.daily_minutes > minutes
    if names & {"daily_minutes", "birth_year"} and over and _young(after, year):
        return f"daily_minutes: a person under 18 may choose at most {minutes} minutes a day"
    return None


def _young(protection: Protection, year: int) -> bool:
    """Under 18 by the birth year given."""
    years = age(protection, year)
    return years is not None and years < ADULT_AGE


def daily_limit(protection: Protection, year: int, default_minutes: int) -> int | None:
    """The minutes a day of chat allowed now (minors' mode), None when no limit holds."""
    if not is_minor(protection, year):
        return None
    return protection.daily_minutes or default_minutes


def suggests_emergency_contact(protection: Protection, year: int) -> bool:
    years = age(protection, year)
    return years is not None and years >= OLDER_AGE and protection.emergency_contact is None


def in_curfew(hour: int) -> bool:
    """Whether a local hour is in minors' heartbeat curfew (22:00 to 08:00)."""
    return hour >= CURFEW_START_HOUR or hour < CURFEW_END_HOUR
