"""One dependency truth: what the code imports is declared, the lock pins what is declared, and
the venv the tests run in holds exactly the lock's versions (the layer is built from the same lock:
tests/artifact/test_artifact.py checks that side)."""

from __future__ import annotations

import ast
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, packages_distributions, version
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from infra.bundling import locked

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
OURS = ("dreamchat", "functions", "infra", "tests")


def requirements(extra: str | None = None) -> list[Requirement]:
    listed = PROJECT["dependencies"] if extra is None else PROJECT["optional-dependencies"][extra]
    return [Requirement(line) for line in listed]


def pins() -> dict[str, str]:
    return {canonicalize_name(line.split("==")[0]): line.split("==")[1] for line in locked(ROOT)}


def third_party_imports(module_level: bool) -> dict[str, set[str]]:
    """Top-level names imported by the library and the handlers -> the files importing them."""
    found: dict[str, set[str]] = {}
    for path in [*(ROOT / "shared" / "dreamchat").rglob("*.py"), *(ROOT / "functions").rglob("*.py")]:
        tree = ast.parse(path.read_text())
        nodes = tree.body if module_level else ast.walk(tree)
        for node in nodes:
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in OURS:
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def distributions(module: str) -> set[str]:
    return {canonicalize_name(d) for d in packages_distributions().get(module, [])}


def test_every_module_level_import_of_the_library_is_a_declared_runtime_dependency() -> None:
    declared = {canonicalize_name(r.name) for r in requirements()}
    undeclared = {
        module: sorted(files)
        for module, files in third_party_imports(module_level=True).items()
        if not distributions(module) & declared
    }
    assert undeclared == {}, "import these lazily or declare them in [project.dependencies]"


def test_every_import_anywhere_is_declared_at_run_time_or_in_an_optional_extra_other_than_dev() -> None:
    extras = [extra for extra in PROJECT.get("optional-dependencies", {}) if extra != "dev"]
    declared = {canonicalize_name(r.name) for r in requirements() + [r for e in extras for r in requirements(e)]}
    undeclared = {
        module: sorted(files)
        for module, files in third_party_imports(module_level=False).items()
        if not distributions(module) & declared
    }
    assert undeclared == {}


def test_the_lock_pins_every_declared_requirement_within_its_specifier() -> None:
    locked_versions = pins()
    wanted = requirements() + [r for extra in PROJECT.get("optional-dependencies", {}) for r in requirements(extra)]
    problems = {
        r.name: locked_versions.get(canonicalize_name(r.name))
        for r in wanted
        if locked_versions.get(canonicalize_name(r.name)) not in r.specifier
    }
    assert problems == {}, "run `make lock` after changing pyproject.toml"


def test_the_test_venv_runs_exactly_the_locked_versions() -> None:
    environment = default_environment()
    mismatched = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        requirement_text = line.split("#")[0].strip()
        if "==" not in requirement_text:
            continue
        requirement = Requirement(requirement_text)
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            installed = None
        if installed is None or installed not in requirement.specifier:
            mismatched[requirement.name] = (str(requirement.specifier), installed)
    assert mismatched == {}, "reinstall with `make test` (it installs from requirements.lock)"
