"""The crisis check's data, read once per process from `dreamchat/data/`: the lexicon
(`crisis_lexicon.toml`), the classifier's weights (`crisis_classifier.json`, built by
`bench/train_crisis_classifier.py`) and the help-line directory (`help_lines.json`)."""

from __future__ import annotations

import json
import tomllib
from functools import cache
from importlib import resources

from dreamchat.domain.crisis import Classifier, CrisisCheck, Lexicon
from dreamchat.domain.help_lines import CrisisResource, parse_resources

LEXICON = "crisis_lexicon.toml"
CLASSIFIER = "crisis_classifier.json"
HELP_LINES = "help_lines.json"


def _file(name: str) -> bytes:
    return resources.files("dreamchat").joinpath("data", name).read_bytes()


@cache
def lexicon() -> Lexicon:
    return Lexicon.from_records(tomllib.loads(_file(LEXICON).decode("utf-8")))


@cache
def crisis_check() -> CrisisCheck:
    """The shipped check: the lexicon and the trained classifier."""
    return CrisisCheck(lexicon(), Classifier.from_weights(json.loads(_file(CLASSIFIER))))


@cache
def default_help_lines() -> dict[str, tuple[CrisisResource, ...]]:
    """The help-line directory shipped with the server (`DREAMCHAT_CRISIS_RESOURCES` replaces it)."""
    return parse_resources(json.loads(_file(HELP_LINES))["lines"])
