"""Local data is private from creation: folders 0700, the database, its WAL files and every
blob 0600, and the JWT secret is 0600 before the secret is written into it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from dreamchat.adapters.blobs import DirectoryBlobStore
from dreamchat.adapters.private import signing_secret, write_private
from dreamchat.adapters.sqlite_store import SqliteItemStore
from dreamchat.config import Settings


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_and_its_wal_files_are_owner_only(tmp_path, clock) -> None:
    os.umask(0o022)
    store = SqliteItemStore(tmp_path / "data" / "dreamchat.db", clock)
    store.put({"pk": "a", "sk": "b", "secret": "password hash"})
    files = sorted((tmp_path / "data").iterdir())
    assert [f.name for f in files] == ["dreamchat.db", "dreamchat.db-shm", "dreamchat.db-wal"]
    assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    assert mode(tmp_path / "data") == 0o700
    store.close()


def test_an_existing_world_readable_database_is_tightened(tmp_path, clock) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    (folder / "dreamchat.db").touch(mode=0o644)
    SqliteItemStore(folder / "dreamchat.db", clock).close()
    assert mode(folder / "dreamchat.db") == 0o600
    assert mode(folder) == 0o700


def test_blob_folders_and_files_are_owner_only(tmp_path) -> None:
    os.umask(0o022)
    blobs = DirectoryBlobStore(tmp_path / "blobs")
    blobs.put("pairs/acc/ai/long_term_details/2026-03-15_x.json", b"{}")
    folders = [tmp_path / "blobs", *(tmp_path / "blobs").rglob("*")]
    assert {str(p): mode(p) for p in folders} == {str(p): 0o600 if p.is_file() else 0o700 for p in folders}


def test_the_jwt_secret_is_created_owner_only(tmp_path) -> None:
    os.umask(0o022)
    settings = Settings(data_dir=tmp_path / "data")
    secret = signing_secret(settings)
    assert len(secret) > 40
    assert mode(tmp_path / "data" / "jwt_secret") == 0o600
    assert signing_secret(settings) == secret


def test_a_private_file_has_its_mode_before_any_byte_is_written(tmp_path, monkeypatch) -> None:
    seen = []
    real_fdopen = os.fdopen

    def watching_fdopen(handle, *args, **kwargs):
        seen.append(stat.S_IMODE(os.fstat(handle).st_mode))
        return real_fdopen(handle, *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", watching_fdopen)
    assert write_private(tmp_path / "secret", "s3cret")
    assert seen == [0o600]
    assert not write_private(tmp_path / "secret", "other")
    assert (tmp_path / "secret").read_text() == "s3cret"
