"""The Lambda runtime's Python, found on this machine: the venv, the layer's bytecode and the
artifact test all use it, so what is tested runs on the interpreter that ships.

Standard library only: the Makefile runs it (`python3 infra/runtime.py`) before any venv exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

VERSION = "3.12"  # infra.stacks.functions.RUNTIME is PYTHON_3_12


def runtime_python(version: str = VERSION) -> Path | None:
    """An interpreter of `version`: this one, `python3.12` on PATH, or pyenv's newest 3.12.x."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return Path(sys.executable)
    on_path = shutil.which(f"python{version}")
    if on_path and _runs(Path(on_path)):
        return Path(on_path)
    found = sorted(_pyenv_root().glob(f"versions/{version}.*/bin/python{version}"), key=_patch_level)
    return next((path for path in reversed(found) if _runs(path)), None)


def _pyenv_root() -> Path:
    if os.environ.get("PYENV_ROOT"):
        return Path(os.environ["PYENV_ROOT"])
    pyenv = shutil.which("pyenv")
    if pyenv:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    return Path.home() / ".pyenv"


def _patch_level(path: Path) -> tuple[int, ...]:
    version = path.parent.parent.name  # versions/3.12.1/bin/python3.12
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _runs(path: Path) -> bool:
    # pyenv's shims exist for every installed version but fail for one not selected
    return subprocess.run([str(path), "-c", ""], capture_output=True, check=False).returncode == 0


if __name__ == "__main__":
    python = runtime_python()
    if python is None:
        sys.exit(
            f"Python {VERSION} (the Lambda runtime) was not found: put python{VERSION} on PATH "
            f"or install it with pyenv (`pyenv install {VERSION}`)."
        )
    print(python)
