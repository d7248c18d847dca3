"""What operators do to what a report names and to accounts: resolve a report (a takedown or a dismissal), restore an AI user, suspend an account. 403 unless an operator."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/admin", tags=["admin"])
