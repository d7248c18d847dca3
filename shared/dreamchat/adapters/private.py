"""Local data is private from the moment it exists: folders 0700, files 0600.

Chats and password hashes live in these files, so they are never created with the default
mode and tightened afterwards (a reader could open them in between).
"""

from __future__ import annotations

import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path) -> Path:
    """Create the folder (and its missing parents) readable by the owner only; tighten it if it exists."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    path.chmod(DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create an empty file readable by the owner only, unless it exists; tighten it either way."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
    path.chmod(FILE_MODE)
    return path


def write_private(path: Path, text: str) -> bool:
    """Write a new file that is 0600 before it holds anything; False if it already exists."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return False
    with os.fdopen(handle, "w") as file:
        file.write(text)
    return True
