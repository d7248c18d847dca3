"""Lambda code without Docker: the pip recipe, pruning, the layer cache, the asset hash, the switch.
(tests/artifact builds the real layer and runs it.)"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from infra.bundling import (
    ARCH,
    BundledCode,
    PlaceholderCode,
    build_layer,
    bundling_enabled,
    cached_layer,
    lambda_code,
    prune,
    source_hash,
)
from infra.stacks.functions import ARCHITECTURE

PYTHON = Path("/opt/python3.12")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "shared" / "dreamchat").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'dreamchat'\n")
    (root / "README.md").write_text("# DreamChat\n")
    (root / "requirements.lock").write_text("fastapi==0.165.1\n    # via dreamchat\njieba==0.42.1\n")
    (root / "shared" / "dreamchat" / "__init__.py").write_text("")
    return root


class RecordingPip:
    """Stands in for subprocess: records each command and fakes what pip would leave behind."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, command: Sequence[str]) -> None:
        self.commands.append(list(command))
        if "wheel" in command:
            wheels = Path(command[command.index("--wheel-dir") + 1])
            wheels.mkdir(parents=True)
            (wheels / "dreamchat-0.1.0-py3-none-any.whl").write_text("")
        elif "install" in command:
            target = Path(command[command.index("--target") + 1])
            for folder in (
                "bin",
                "dreamchat/__pycache__",
                "jieba/lac_small",
                "numpy/_core/tests",
                "botocore/data/dynamodb",
                "botocore/data/ec2",
            ):
                (target / folder).mkdir(parents=True)
            (target / "numpy" / "__init__.pyi").write_text("")
            (target / "dreamchat" / "__init__.py").write_text("")

    def install(self) -> list[str]:
        return next(command for command in self.commands if "install" in command)


def test_the_layer_is_installed_at_the_locked_versions_for_the_lambda_platform_from_wheels_only(
    project: Path, tmp_path: Path
) -> None:
    pip = RecordingPip()
    build_layer(project, tmp_path / "layer" / "python", run=pip, python=PYTHON)
    install = pip.install()
    assert install[0] == str(PYTHON)
    platforms = [install[i + 1] for i, flag in enumerate(install) if flag == "--platform"]
    assert platforms[0] == "manylinux_2_34_x86_64" and "manylinux_2_28_x86_64" in platforms
    assert platforms[-1] == "manylinux2014_x86_64"  # pip widens the legacy name to every older tag
    for flag, value in (("--python-version", "3.12"), ("--implementation", "cp")):
        assert install[install.index(flag) + 1] == value
    assert install[install.index("--constraint") + 1].endswith("requirements.lock")
    assert "--only-binary=:all:" in install
    assert install[install.index("--target") + 1] == str(tmp_path / "layer" / "python")
    assert [a for a in install if a.endswith(".whl")][-1].endswith("dreamchat-0.1.0-py3-none-any.whl")


def test_sdist_only_dependencies_are_built_as_wheels_at_their_locked_version(project: Path, tmp_path: Path) -> None:
    pip = RecordingPip()
    build_layer(project, tmp_path / "layer" / "python", run=pip, python=PYTHON)
    wheel = pip.commands[0]
    assert "wheel" in wheel and "--no-deps" in wheel and "jieba==0.42.1" in wheel and "fastapi==0.165.1" not in wheel


def test_the_layer_is_compiled_by_the_runtime_python_into_unchecked_hash_bytecode(
    project: Path, tmp_path: Path
) -> None:
    pip = RecordingPip()
    build_layer(project, tmp_path / "layer" / "python", run=pip, python=PYTHON)
    compile_ = pip.commands[-1]
    assert compile_[:3] == [str(PYTHON), "-m", "compileall"]
    assert compile_[compile_.index("--invalidation-mode") + 1] == "unchecked-hash"


def test_jiebas_dictionary_is_prebuilt_into_the_layer_by_the_runtime_python(project: Path, tmp_path: Path) -> None:
    pip = RecordingPip()
    target = tmp_path / "layer" / "python"
    build_layer(project, target, run=pip, python=PYTHON)
    [prebuild] = [command for command in pip.commands if "jieba.initialize()" in command[-1]]
    assert prebuild[:2] == [str(PYTHON), "-S"] and repr(str(target / "jieba")) in prebuild[-1]


def test_pip_builds_from_a_copy_so_the_repository_stays_clean(project: Path, tmp_path: Path) -> None:
    pip = RecordingPip()
    build_layer(project, tmp_path / "layer" / "python", run=pip, python=PYTHON)
    assert not any(argument.startswith(str(project)) for command in pip.commands for argument in command)


def test_what_never_runs_in_lambda_is_pruned(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "layer" / "python"
    build_layer(project, target, run=RecordingPip(), python=PYTHON)
    for gone in (
        "bin",
        "jieba/lac_small",
        "numpy/_core/tests",
        "numpy/__init__.pyi",
        "botocore/data/ec2",
        "dreamchat/__pycache__",
    ):
        assert not (target / gone).exists(), gone
    assert (target / "botocore" / "data" / "dynamodb").is_dir() and (target / "dreamchat" / "__init__.py").exists()


def test_pruning_leaves_packages_that_only_look_alike(tmp_path: Path) -> None:
    (tmp_path / "mypkg" / "testsuite").mkdir(parents=True)
    (tmp_path / "mypkg" / "tests.py").write_text("")
    prune(tmp_path)
    assert (tmp_path / "mypkg" / "testsuite").is_dir() and (tmp_path / "mypkg" / "tests.py").exists()


def test_a_built_layer_is_cached_by_its_source_hash(project: Path, tmp_path: Path, monkeypatch) -> None:
    builds: list[Path] = []

    def build(root: Path, target: Path, **_: object) -> None:
        builds.append(target)
        (target / "dreamchat").mkdir(parents=True)

    monkeypatch.setattr("infra.bundling.build_layer", build)
    cache = tmp_path / "cache"
    cached_layer(project, tmp_path / "one" / "python", cache)
    cached_layer(project, tmp_path / "two" / "python", cache)
    assert len(builds) == 1 and (tmp_path / "two" / "python" / "dreamchat").is_dir()
    (project / "requirements.lock").write_text("fastapi==0.166.0\n")
    cached_layer(project, tmp_path / "three" / "python", cache)
    assert len(builds) == 2


def test_the_hash_changes_with_the_library_source_and_the_lock(project: Path) -> None:
    before = source_hash(project)
    (project / "shared" / "dreamchat" / "__init__.py").write_text("VERSION = 2\n")
    after_source = source_hash(project)
    (project / "requirements.lock").write_text("fastapi==0.166.0\n")
    assert len({before, after_source, source_hash(project)}) == 3


def test_the_hash_ignores_bytecode_and_build_metadata(project: Path) -> None:
    before = source_hash(project)
    (project / "shared" / "dreamchat" / "__pycache__").mkdir()
    (project / "shared" / "dreamchat" / "__pycache__" / "x.cpython-312.pyc").write_bytes(b"\0")
    (project / "shared" / "dreamchat.egg-info").mkdir()
    (project / "shared" / "dreamchat.egg-info" / "PKG-INFO").write_text("x")
    assert source_hash(project) == before


def test_the_wheels_are_for_the_functions_architecture() -> None:
    assert ARCHITECTURE.name == ARCH


@pytest.mark.parametrize("value", [None, True, "true", "1", "yes"])
def test_bundling_is_on_unless_context_turns_it_off(value: object) -> None:
    assert bundling_enabled(value)


@pytest.mark.parametrize("value", [False, "false", "False", "0", "no", "off"])
def test_bundle_false_turns_bundling_off(value: object) -> None:
    assert not bundling_enabled(value)


def test_the_switch_picks_the_code_source() -> None:
    assert isinstance(lambda_code(bundle=True), BundledCode)
    assert isinstance(lambda_code(bundle=False), PlaceholderCode)
