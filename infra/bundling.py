"""Lambda code without Docker.

Bundled (real synth/deploy): one layer holds `dreamchat` and every dependency, installed by
pip for the Lambda platform (manylinux2014_x86_64, CPython 3.12) through CDK local bundling;
each function's asset is its own `functions/<name>/` folder (the thin handler).

Placeholder (`-c bundle=false`, the unit tests): a tiny folder stands in for every asset, so
synthesis takes seconds and needs neither pip nor the network.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Protocol

import jsii
from aws_cdk import AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_

REPO_ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = Path(__file__).resolve().parent / "placeholder"
PLATFORM = "manylinux2014_x86_64"
PYTHON_VERSION = "3.12"
# What the layer is built from; the asset hash covers exactly these, so an unchanged
# library is not rebuilt and a changed one always is.
PROJECT_FILES = ("pyproject.toml", "README.md", "shared")
SKIPPED = ("__pycache__", "*.pyc", "*.egg-info", ".pytest_cache")
BUNDLER_VERSION = "1"  # bump to force a rebuild when the recipe below changes

Runner = Callable[[Sequence[str]], Any]


class LambdaCode(Protocol):
    def layer(self) -> lambda_.Code: ...

    def function(self, folder: str) -> lambda_.Code: ...


def lambda_code(bundle: bool, root: Path = REPO_ROOT) -> LambdaCode:
    return BundledCode(root) if bundle else PlaceholderCode()


def bundling_enabled(value: object) -> bool:
    """Context `bundle` is on unless it says false (CLI context values arrive as strings)."""
    return str(value).strip().lower() not in ("false", "0", "no", "off")


class BundledCode:
    def __init__(self, root: Path) -> None:
        self.root = root

    def layer(self) -> lambda_.Code:
        return lambda_.Code.from_asset(
            str(self.root),
            asset_hash_type=AssetHashType.CUSTOM,
            asset_hash=source_hash(self.root),
            bundling=BundlingOptions(
                image=DockerImage.from_registry("dummy"),  # required by the API, never pulled
                # jsii calls try_bundle(output_dir, options), unlike the keyword-style stub
                local=PipLayerBundler(self.root),  # type: ignore[arg-type]
            ),
        )

    def function(self, folder: str) -> lambda_.Code:
        return lambda_.Code.from_asset(str(self.root / "functions" / folder), exclude=list(SKIPPED))


class PlaceholderCode:
    def layer(self) -> lambda_.Code:
        return lambda_.Code.from_asset(str(PLACEHOLDER))

    def function(self, folder: str) -> lambda_.Code:
        return lambda_.Code.from_asset(str(PLACEHOLDER))


@jsii.implements(ILocalBundling)
class PipLayerBundler:
    def __init__(self, root: Path) -> None:
        self.root = root

    def try_bundle(self, output_dir: str, options: BundlingOptions) -> bool:
        build_layer(self.root, Path(output_dir) / "python")
        return True


def build_layer(root: Path, target: Path, run: Runner | None = None) -> None:
    """pip-install the project and its dependencies for the Lambda platform into `target`."""
    run = run or _run
    with tempfile.TemporaryDirectory(prefix="dreamchat-layer-") as tmp:
        source, wheels = Path(tmp) / "source", Path(tmp) / "wheels"
        copy_project(root, source)
        # Wheels for the project and for any dependency published only as an sdist (jieba):
        # the cross-platform install below accepts nothing but wheels.
        run(_pip("wheel", "--wheel-dir", str(wheels), str(source)))
        run(_pip(*install_args(target, wheels), str(_project_wheel(wheels))))
    _prune(target)


def install_args(target: Path, find_links: Path) -> list[str]:
    return [
        "install",
        "--target", str(target),
        "--platform", PLATFORM,
        "--implementation", "cp",
        "--python-version", PYTHON_VERSION,
        "--only-binary=:all:",
        "--find-links", str(find_links),
        "--no-compile",
    ]  # fmt: skip


def copy_project(root: Path, destination: Path) -> None:
    """Build from a copy, so pip's in-tree build leaves nothing behind in the repository."""
    destination.mkdir(parents=True)
    for name in PROJECT_FILES:
        path = root / name
        if path.is_dir():
            shutil.copytree(path, destination / name, ignore=shutil.ignore_patterns(*SKIPPED))
        elif path.exists():
            shutil.copy2(path, destination / name)


def source_hash(root: Path) -> str:
    digest = hashlib.sha256(f"{BUNDLER_VERSION}|{PLATFORM}|{PYTHON_VERSION}".encode())
    for path in _project_files(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _project_files(root: Path) -> Iterator[Path]:
    for name in PROJECT_FILES:
        path = root / name
        candidates = sorted(path.rglob("*")) if path.is_dir() else [path]
        yield from (p for p in candidates if p.is_file() and not _skipped(p.relative_to(root)))


def _skipped(relative: Path) -> bool:
    return any(fnmatch(part, pattern) for part in relative.parts for pattern in SKIPPED)


def _project_wheel(wheels: Path) -> Path:
    found = sorted(wheels.glob("dreamchat-*.whl"))
    if not found:
        raise RuntimeError(f"pip built no dreamchat wheel in {wheels}")
    return found[-1]


def _prune(target: Path) -> None:
    shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts: unused in Lambda
    for cache in list(target.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def _pip(*args: str) -> list[str]:
    return [sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "--quiet"]


def _run(command: Sequence[str]) -> None:
    print("bundling:", " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True)
