"""Lambda code without Docker.

Bundled (real synth/deploy): one layer holds `dreamchat` and every runtime dependency, at the
versions of `requirements.lock` (the file the test venv installs from), as wheels for the
functions' platform (Amazon Linux 2023: glibc 2.34, x86_64, CPython 3.12), pruned of what never
runs in Lambda, with jieba's dictionary prebuilt, and compiled to bytecode by the runtime's Python. Each function's asset is its
own `functions/<name>/` folder (the thin handler). A built layer is kept in a cache keyed by the
asset hash, so an unchanged library is never rebuilt (`DREAMCHAT_LAYER_CACHE`, default
`~/.cache/dreamchat/layers`).

Placeholder (`-c bundle=false`, the infra unit tests): a tiny folder stands in for every asset,
so synthesis takes seconds and needs neither pip nor the network. `tests/artifact` builds and
runs the real thing.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
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

from infra.runtime import VERSION as PYTHON_VERSION
from infra.runtime import runtime_python

REPO_ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = Path(__file__).resolve().parent / "placeholder"
LOCK = "requirements.lock"
ARCH = "x86_64"  # infra.stacks.functions.ARCHITECTURE
GLIBC_MINOR = 34  # the python3.12 runtime is Amazon Linux 2023, glibc 2.34
# pip expands only the legacy manylinux2014/2010 names to older tags, so list the newer ones.
PLATFORMS = (*(f"manylinux_2_{minor}_{ARCH}" for minor in range(GLIBC_MINOR, 17, -1)), f"manylinux2014_{ARCH}")
# What the layer is built from; the asset hash covers exactly these.
PROJECT_FILES = ("pyproject.toml", "README.md", LOCK, "shared")
SKIPPED = ("__pycache__", "*.pyc", "*.egg-info", ".pytest_cache")
# Never imported in Lambda: console scripts, jieba's paddle-only model, numpy's Fortran wrapper
# generator, test suites, type stubs; pip's bytecode (compiled again below).
PRUNED_PATHS = ("bin", "jieba/lac_small", "numpy/f2py", "numpy/_pyinstaller")
PRUNED_DIR_NAMES = ("tests", "__pycache__")
PRUNED_FILES = ("*.pyi", "*.pyc")
# botocore ships models of ~450 services (28 MB); the code creates clients for these only
# (tests/artifact checks every `aws_client(..., "<service>")` against this list).
AWS_SERVICES = ("dynamodb", "s3", "sqs", "events", "sns", "secretsmanager", "ssm", "sts")
BUNDLER_VERSION = "3"  # bump to force a rebuild when the recipe below changes

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
        cached_layer(self.root, Path(output_dir) / "python")
        return True


def cached_layer(root: Path, target: Path, cache: Path | None = None) -> None:
    """The layer for `root`'s current sources, from the cache or built (then cached)."""
    cache = cache or layer_cache()
    built = cache / source_hash(root)
    if not built.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="building-", dir=cache) as tmp:
            build_layer(root, Path(tmp) / "python")
            with contextlib.suppress(OSError):  # another synth cached it first: as good as ours
                (Path(tmp) / "python").rename(built)  # atomic: a half-built layer is never cached
    shutil.copytree(built, target, symlinks=True, dirs_exist_ok=True)


def layer_cache() -> Path:
    configured = os.environ.get("DREAMCHAT_LAYER_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "dreamchat" / "layers"


def build_layer(root: Path, target: Path, run: Runner | None = None, python: Path | None = None) -> None:
    """pip-install the project at its locked versions for the Lambda platform into `target`,
    prune it and compile it to bytecode with the runtime's Python."""
    run = run or _run
    python = python or _require_runtime_python()
    with tempfile.TemporaryDirectory(prefix="dreamchat-layer-") as tmp:
        source, wheels = Path(tmp) / "source", Path(tmp) / "wheels"
        copy_project(root, source)
        # The project, and any locked dependency published only as an sdist (jieba, http-ece), as wheels:
        # the cross-platform install below accepts nothing but wheels.
        run(_pip(python, "wheel", "--no-deps", "--wheel-dir", str(wheels), str(source), *sdist_pins(root)))
        run(_pip(python, *install_args(target, wheels, source / LOCK), str(_project_wheel(wheels))))
    prune(target)
    run(prebuild_jieba_dictionary(python, target))
    run([str(python), "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", str(target)])


def install_args(target: Path, find_links: Path, lock: Path) -> list[str]:
    platforms = [argument for platform in PLATFORMS for argument in ("--platform", platform)]
    return [
        "install",
        "--target", str(target),
        *platforms,
        "--implementation", "cp",
        "--python-version", PYTHON_VERSION,
        "--only-binary=:all:",
        "--find-links", str(find_links),
        "--constraint", str(lock),
        "--no-compile",  # compiled afterwards by the runtime's Python, not pip's
    ]  # fmt: skip


def prebuild_jieba_dictionary(python: Path, target: Path) -> list[str]:
    """jieba's prefix dictionary, built once here instead of on every cold start
    (`dreamchat.adapters.jieba_dictionary` points jieba at it; marshal format: built by the runtime's Python)."""
    folder = target / "jieba"
    code = (
        f"import sys; sys.path.insert(0, {str(target)!r}); import jieba; "
        f"jieba.dt.tmp_dir = {str(folder)!r}; jieba.initialize()"
    )
    return [str(python), "-S", "-c", code]


def sdist_pins(root: Path) -> list[str]:
    """Locked requirements that PyPI has only as source distributions."""
    return [line for line in locked(root) if line.split("==")[0] in SDIST_ONLY]


SDIST_ONLY = ("jieba", "http-ece")


def locked(root: Path) -> list[str]:
    """The `name==version` lines of the lock (comments and markers dropped)."""
    lines = (line.split("#")[0].split(";")[0].strip() for line in (root / LOCK).read_text().splitlines())
    return [line for line in lines if "==" in line]


def copy_project(root: Path, destination: Path) -> None:
    """Build from a copy, so pip's in-tree build leaves nothing behind in the repository."""
    destination.mkdir(parents=True)
    for name in PROJECT_FILES:
        path = root / name
        if path.is_dir():
            shutil.copytree(path, destination / name, ignore=shutil.ignore_patterns(*SKIPPED))
        elif path.exists():
            shutil.copy2(path, destination / name)


def prune(target: Path) -> None:
    """Remove what never runs in Lambda (see PRUNED_PATHS, PRUNED_DIR_NAMES, PRUNED_FILES, AWS_SERVICES)."""
    for relative in PRUNED_PATHS:
        shutil.rmtree(target / relative, ignore_errors=True)
    for name in PRUNED_DIR_NAMES:
        for folder in [path for path in target.rglob(name) if path.is_dir()]:
            shutil.rmtree(folder, ignore_errors=True)
    for pattern in PRUNED_FILES:
        for path in target.rglob(pattern):
            path.unlink()
    models = target / "botocore" / "data"
    for service in (p for p in models.iterdir() if p.is_dir()) if models.is_dir() else ():
        if service.name not in AWS_SERVICES:
            shutil.rmtree(service)


def source_hash(root: Path) -> str:
    recipe = "|".join(
        (BUNDLER_VERSION, *PLATFORMS, PYTHON_VERSION, *PRUNED_PATHS, *PRUNED_DIR_NAMES, *PRUNED_FILES, *AWS_SERVICES)
    )
    digest = hashlib.sha256(recipe.encode())
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


def _require_runtime_python() -> Path:
    python = runtime_python()
    if python is None:
        raise RuntimeError(
            f"the layer's bytecode needs Python {PYTHON_VERSION} (the Lambda runtime): "
            "put it on PATH or install it with pyenv"
        )
    return python


def _pip(python: Path, *args: str) -> list[str]:
    return [str(python), "-m", "pip", *args, "--disable-pip-version-check", "--quiet"]


def _run(command: Sequence[str]) -> None:
    print("bundling:", " ".join(command), file=sys.stderr)
    subprocess.run(command, check=True)
