"""Local data is private from the moment it exists: folders 0700, files 0600.

Chats and password hashes live in these files, so they are never created with the default
mode and tightened afterwards (a reader could open them in between).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

from dreamchat.config import Settings

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


def signing_secret(settings: Settings) -> str:
    """The JWT secret; in local mode one is created once and kept under DATA_DIR."""
    if settings.jwt_secret is not None:
        return settings.jwt_secret.get_secret_value()
    if settings.storage == "aws":
        raise ValueError("no JWT secret: set DREAMCHAT_JWT_SECRET or put jwt_secret in DREAMCHAT_SECRETS_ARN")
    path = private_dir(settings.data_dir) / "jwt_secret"
    write_private(path, secrets.token_urlsafe(48))  # 0600 before the secret is in it
    return path.read_text().strip()


def vapid_private_key(settings: Settings, generate: Callable[[], str]) -> str | None:
    """The Web Push (VAPID) private key: set, or in local mode made once and kept beside the JWT
    secret; None in aws mode without one (push is then off)."""
    if settings.vapid_private_key is not None:
        return settings.vapid_private_key.get_secret_value()
    if settings.storage == "aws":
        return None
    path = private_dir(settings.data_dir) / "vapid_private_key"
    write_private(path, generate())  # 0600 before the key is in it
    return path.read_text().strip()
