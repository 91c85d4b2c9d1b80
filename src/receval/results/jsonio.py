"""JSON text or file in and out, shared by every result type that serializes itself."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

FORMAT_EVALRESULT = "receval.EvalResult/1"


def number(v: Any) -> Any:
    """A float for JSON: NaN is ``null``; infinities are the strings ``"inf"`` / ``"-inf"``
    (JSON has neither); numpy scalars become Python numbers."""
    if isinstance(v, (np.floating, float)):
        v = float(v)
        if math.isnan(v):
            return None
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


def unnumber(v: Any) -> float:
    """Inverse of :func:`number` for a float field (``null`` -> NaN; ``"nan"`` is accepted)."""
    return float("nan") if v is None else float(v)


def encode_ids(ids: np.ndarray) -> dict[str, Any]:
    """Ids with their type, so that the round trip gives the same ids of the same type.

    ``{"dtype": "int64" | "uint64" | "float64" | "bool" | "str", "values": [...]}``; an object
    array of mixed types keeps each value's type: ``{"dtype": "object", "values": [[type,
    value], ...]}`` with type ``int``, ``float``, ``str`` or ``bool``.
    """
    kind = ids.dtype.kind
    if kind in "iub":
        return {"dtype": str(ids.dtype), "values": ids.tolist()}
    if kind == "f":
        return {"dtype": str(ids.dtype), "values": [number(v) for v in ids.tolist()]}
    if kind == "U":
        return {"dtype": "str", "values": ids.tolist()}
    values = [v.item() if hasattr(v, "item") else v for v in ids.tolist()]
    if all(isinstance(v, str) for v in values):
        return {"dtype": "str", "values": values}
    tagged = []
    for v in values:
        if isinstance(v, bool):
            tagged.append(["bool", v])
        elif isinstance(v, int):
            tagged.append(["int", v])
        elif isinstance(v, float):
            tagged.append(["float", number(v)])
        elif isinstance(v, str):
            tagged.append(["str", v])
        else:
            from ..errors import InputError

            raise InputError(
                f"user id {v!r} of type {type(v).__name__} cannot be written to JSON; ids must "
                "be integers, floats, strings or booleans."
            )
    return {"dtype": "object", "values": tagged}


def decode_ids(data: Any) -> np.ndarray:
    """Inverse of :func:`encode_ids` (a plain list, as older documents hold, is accepted)."""
    if isinstance(data, list):  # older documents: a plain list
        return np.array(data, dtype=object if any(isinstance(u, str) for u in data)
                        else np.int64) if data else np.zeros(0, dtype=np.int64)
    dtype, values = data["dtype"], data["values"]
    if dtype == "str":
        return np.array(values, dtype=object)
    if dtype == "object":
        conv = {"bool": bool, "int": int, "float": unnumber, "str": str}
        out = np.empty(len(values), dtype=object)
        for i, (t, v) in enumerate(values):
            out[i] = conv[t](v)
        return out
    if dtype.startswith("float"):
        return np.array([unnumber(v) for v in values], dtype=dtype)
    return np.array(values, dtype=dtype)


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
