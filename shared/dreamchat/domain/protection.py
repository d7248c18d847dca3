"""The protections a companion gives a person: age and minors' mode, guardian consent, an emergency contact,
the daily limit. Pure rules; the year and the time are passed in.

A person under 18 (by the birth year they gave) is in minors' mode and cannot leave it before 18; an adult
may switch it on for themselves. A minor needs a guardian's recorded consent before chat and heartbeats
(under 14 in any case). None of this ever blocks a crisis: the chat turn answers a crisis with the help
lines whatever a protection says."""

from __future__ import annotations

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
