"""One synthesis per environment for the whole session (cdk-nag runs inside it)."""

from __future__ import annotations

import os

import pytest

# The machine's node is past jsii's support window; the banner says nothing about our code.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from tests.infra.synth import Synth, synthesize


@pytest.fixture(scope="session")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize("dev", tmp_path_factory.mktemp("cdk-dev"))


@pytest.fixture(scope="session")
def prod(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize("prod", tmp_path_factory.mktemp("cdk-prod"))


@pytest.fixture(params=["dev", "prod"])
def each(request: pytest.FixtureRequest) -> Synth:
    synth: Synth = request.getfixturevalue(request.param)
    return synth
