"""JSON text or file in and out, shared by every result type that serializes itself."""

from __future__ import annotations

import json
from typing import Any


def dump(data: dict[str, Any], path: str | None = None, **kwargs: Any) -> str:
    """``json.dumps(data)``; also written to ``path`` when given."""
    text = json.dumps(data, **kwargs)
    if path is not None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    return text


def load(text_or_path: str) -> dict[str, Any]:
    """A JSON document given as text (starting with ``{``) or as a file path."""
    text = text_or_path
    if not text_or_path.lstrip().startswith("{"):
        with open(text_or_path, encoding="utf-8") as fh:
            text = fh.read()
    return json.loads(text)
