"""The person's 关于我: what every AI friend knows of them from the start."""

from __future__ import annotations

from dreamchat.services.memory_repo import MemoryRepository


class Profiles:
    def __init__(self, repo: MemoryRepository) -> None:
        self._repo = repo

    def about_me(self, account_id: str) -> str:
        return self._repo.about.get(account_id)

    def set_about_me(self, account_id: str, about_me: str) -> str:
        """Write it (surrounding spaces dropped; empty clears it) and return what was kept."""
        about = about_me.strip()
        self._repo.about.set(account_id, about)
        return about
