"""Crisis escalations: the pairs the crisis protocol fired on, read (audited), taken over, written to as staff, released; and the referral report. 403 unless an operator."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/admin", tags=["admin"])
