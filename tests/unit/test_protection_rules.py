"""The rules of a person's protections (`dreamchat.domain.protection`) that a change and the gates read:
values in, values out; the year and the time are passed in."""

from __future__ import annotations

from dreamchat.domain.protection import (
    GUARDIAN_CONSENT_REQUIRED,
    MINOR_PROTECTION,
    Protection,
    change_problem,
    changed,
    withheld,
)

YEAR = 2026
AT = 1_770_000_000


def change(before: Protection, **changes: object) -> tuple[Protection, str | None]:
    after = changed(before, changes, AT)
    return after, change_problem(before, after, set(changes), YEAR, 60)


def test_a_romance_ai_user_is_withheld_in_minors_mode_whatever_the_age() -> None:
    assert withheld(Protection(birth_year=2000, minor_mode=True), YEAR, True) == MINOR_PROTECTION
    assert withheld(Protection(birth_year=2012, guardian_consent=True), YEAR, True, talking=False) == MINOR_PROTECTION
    assert withheld(Protection(birth_year=2000), YEAR, True) is None
    assert withheld(Protection(), YEAR, True) is None  # no age given, not switched on


def test_a_minor_talks_once_a_guardian_consented_and_befriends_meanwhile() -> None:
    young = Protection(birth_year=2015)
    assert withheld(young, YEAR, False) == GUARDIAN_CONSENT_REQUIRED
    assert withheld(young, YEAR, False, talking=False) is None
    assert withheld(young.model_copy(update={"guardian_consent": True}), YEAR, False) is None
    assert withheld(Protection(birth_year=2000, minor_mode=True), YEAR, False) is None  # an adult needs no guardian


def test_a_consent_is_recorded_with_when_and_withdrawn_with_who() -> None:
    given, problem = change(Protection(birth_year=2012), guardian_consent=True, guardian_name="妈妈")
    assert problem is None and (given.guardian_name, given.consent_at) == ("妈妈", AT)
    withdrawn, problem = change(given, guardian_consent=False)
    assert problem is None and (withdrawn.guardian_consent, withdrawn.guardian_name, withdrawn.consent_at) == (
        False,
        None,
        None,
    )
    assert change(Protection(), guardian_consent=True)[1] == "guardian_name: the guardian who consents is named"


def test_what_a_person_under_18_cannot_change() -> None:
    minor = Protection(birth_year=2012)
    assert change(minor, minor_mode=False)[1].startswith("minor_mode:")
    assert change(minor, birth_year=2000)[1].startswith("birth_year:")
    assert change(minor, birth_year=None)[1].startswith("birth_year:")
    assert change(minor, daily_minutes=61)[1].startswith("daily_minutes:")
    assert change(Protection(daily_minutes=300), birth_year=2012)[1].startswith("daily_minutes:")
    assert change(minor, birth_year=2013)[1] is None and change(minor, daily_minutes=45)[1] is None


def test_what_an_adult_may_change() -> None:
    adult = Protection(birth_year=1990, minor_mode=True)
    assert change(adult, minor_mode=False)[1] is None
    assert change(adult, daily_minutes=600)[1] is None
    assert change(adult, birth_year=None)[1] is None
    assert change(adult, birth_year=1899)[1].startswith("birth_year:")
    assert change(adult, birth_year=YEAR + 1)[1].startswith("birth_year:")
