"""The JSON response our own code builds (errors, a card's preview and export): strict JSON
(`dreamchat.domain.strict_json.dumps`), as the routes' response models already are."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse

from dreamchat.domain import strict_json


class StrictJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return strict_json.dumps(content)
