"""Lambda code without Docker: the pip recipe, the asset hash, the bundle switch."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from infra.bundling import (
    BundledCode,
    PlaceholderCode,
    build_layer,
    bundling_enabled,
    lambda_code,
    source_hash,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "shared" / "dreamchat").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'dreamchat'\n")
    (root / "README.md").write_text("# DreamChat\n")
    (root / "shared" / "dreamchat" / "__init__.py").write_text("")
    return root


class RecordingPip:
    """Stands in for subprocess: records each pip call and fakes what it would leave behind."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, command: Sequence[str]) -> None:
        self.commands.append(list(command))
        if "wheel" in command:
            wheels = Path(command[command.index("--wheel-dir") + 1])
            wheels.mkdir(parents=True)
            (wheels / "dreamchat-0.1.0-py3-none-any.whl").write_text("")
        else:
            target = Path(command[command.index("--target") + 1])
            (target / "bin").mkdir(parents=True)
            (target / "dreamchat" / "__pycache__").mkdir(parents=True)


def test_the_layer_is_installed_for_the_lambda_platform_from_wheels_only(
    project: Path, tmp_path: Path
) -> None:
    pip = RecordingPip()
    build_layer(project, tmp_path / "layer" / "python", run=pip)
    install = pip.commands[-1]
    for flag, value in (
        ("--platform", "manylinux2014_x86_64"),
        ("--python-version", "3.12"),
        ("--implementation", "cp"),
    ):
        assert install[install.index(flag) + 1] == value
    assert "--only-binary=:all:" in install
    assert install[install.index("--target") + 1] == str(tmp_path / "layer" / "python")
    assert install[install.index("--no-compile") + 1].endswith("dreamchat-0.1.0-py3-none-any.whl")


def test_pip_builds_from_a_copy_so_the_repository_stays_clean(project: Path, tmp_path: Path) -> None:
    pip = RecordingPip()
    build_layer(project, tmp_path / "layer" / "python", run=pip)
    assert not any(str(project) in argument for command in pip.commands for argument in command)


def test_console_scripts_and_bytecode_caches_are_pruned(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "layer" / "python"
    build_layer(project, target, run=RecordingPip())
    assert not (target / "bin").exists()
    assert not list(target.rglob("__pycache__"))


def test_the_hash_changes_with_the_library_source(project: Path) -> None:
    before = source_hash(project)
    (project / "shared" / "dreamchat" / "__init__.py").write_text("VERSION = 2\n")
    assert source_hash(project) != before


def test_the_hash_ignores_bytecode_and_build_metadata(project: Path) -> None:
    before = source_hash(project)
    (project / "shared" / "dreamchat" / "__pycache__").mkdir()
    (project / "shared" / "dreamchat" / "__pycache__" / "x.cpython-312.pyc").write_bytes(b"\0")
    (project / "shared" / "dreamchat.egg-info").mkdir()
    (project / "shared" / "dreamchat.egg-info" / "PKG-INFO").write_text("x")
    assert source_hash(project) == before


@pytest.mark.parametrize("value", [None, True, "true", "1", "yes"])
def test_bundling_is_on_unless_context_turns_it_off(value: object) -> None:
    assert bundling_enabled(value)


@pytest.mark.parametrize("value", [False, "false", "False", "0", "no", "off"])
def test_bundle_false_turns_bundling_off(value: object) -> None:
    assert not bundling_enabled(value)


def test_the_switch_picks_the_code_source() -> None:
    assert isinstance(lambda_code(bundle=True), BundledCode)
    assert isinstance(lambda_code(bundle=False), PlaceholderCode)
