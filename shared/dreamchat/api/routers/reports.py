"""A person's reports (举报/投诉) of a public AI user or a message in their own chat, and their answers."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(prefix="/api/reports", tags=["reports"])
