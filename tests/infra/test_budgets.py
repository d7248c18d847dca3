"""Every function's model calls fit its Lambda timeout at worst, computed from the settings the
synthesized template gives that function (the same formulas the code spends its time by)."""

from __future__ import annotations

from typing import Any

import pytest

from dreamchat.api.deadline import LAMBDA_RETURN_SECONDS
from dreamchat.budget import FINISH_MARGIN_SECONDS, structured_seconds, worst_case_seconds
from dreamchat.config import Settings
from infra.stacks.functions import SPECS
from infra.stacks.triggers import HEARTBEAT_BATCH_SIZE
from tests.infra.synth import Synth

MARGIN = {"chat": LAMBDA_RETURN_SECONDS + 2.0}  # the chat turn's deadline is also cut to the time left


def function_settings(synth: Synth, key: str) -> tuple[Settings, float]:
    """The settings the function reads from its environment, and its timeout in seconds."""
    properties: dict[str, Any] = synth.function(key)[1]["Properties"]
    variables = properties["Environment"]["Variables"]
    given = {
        name.removeprefix("DREAMCHAT_").lower(): value
        for name, value in variables.items()
        if name.startswith("DREAMCHAT_") and isinstance(value, str)
    }
    return Settings(_env_file=None, **given, jwt_secret="x" * 32), float(properties["Timeout"])


@pytest.mark.parametrize("key", [spec.key for spec in SPECS])
def test_each_functions_worst_case_fits_its_timeout_with_a_margin(each: Synth, key: str) -> None:
    settings, timeout = function_settings(each, key)
    worst = worst_case_seconds(key, settings)
    assert worst + MARGIN.get(key, FINISH_MARGIN_SECONDS) <= timeout, f"{key}: {worst:.0f} s of {timeout:.0f} s"


def test_the_defaults_of_a_laptop_would_not_fit_the_compress_function(each: Synth) -> None:
    settings, timeout = function_settings(each, "compress")
    unbudgeted = settings.model_copy(
        update={"llm_timeout_seconds": 60.0, "llm_max_retries": 3, "background_attempts": 3}
    )
    assert worst_case_seconds("compress", unbudgeted) > timeout  # the check above can fail


def test_a_whole_heartbeat_batch_fits_the_worker_at_worst(each: Synth) -> None:
    settings, timeout = function_settings(each, "heartbeat-worker")
    assert HEARTBEAT_BATCH_SIZE * worst_case_seconds("heartbeat-worker", settings) + FINISH_MARGIN_SECONDS <= timeout


def test_the_extract_worker_has_time_for_a_redo_before_its_pairs_extraction(each: Synth) -> None:
    """A redo of owed work starts only if the pair's extraction still fits after it (`Serverless._extract_pair`):
    a worker whose timeout held only the extraction would never heal (found by an attack, issue 28)."""
    settings, timeout = function_settings(each, "extract-worker")
    needed = worst_case_seconds("extract-worker", settings) + structured_seconds(settings) + FINISH_MARGIN_SECONDS
    assert needed <= timeout, f"{needed:.0f} s of {timeout:.0f} s"
    assert timeout < settings.lease_seconds  # a run still going is never sent to a second worker
