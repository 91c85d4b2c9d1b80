"""JSON text or file in and out, shared by every result type that serializes itself."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from ..errors import InputError

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
    value], ...]}`` with type ``int``, ``float``, ``str`` or ``bool``. Integers are written
    exactly (uint64 ids >= 2**63 included), floats with the shortest text that reads back to
    the same float (``1.5`` stays ``1.5``).

    Evaluation ids are integers or strings (the id policy of :mod:`receval.pack.vocab`); other
    ids (bytes, dates, ...) raise :class:`~receval.errors.InputError`: convert them with
    ``.astype(str)`` first.
    """
    kind = ids.dtype.kind
    if kind in "iub":
        return {"dtype": str(ids.dtype), "values": ids.tolist()}
    if kind == "f":
        return {"dtype": str(ids.dtype), "values": [number(v) for v in ids.tolist()]}
    if kind == "U":
        return {"dtype": "str", "values": ids.tolist()}
    if kind != "O":
        raise _bad_id(ids[0] if len(ids) else None, str(ids.dtype))
    values = [_plain_id(v) for v in ids]
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
        else:
            tagged.append(["str", v])
    return {"dtype": "object", "values": tagged}


def _plain_id(v: Any) -> Any:
    """An id as a Python bool / int / float / str; anything else raises."""
    if isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (np.bool_, np.integer, np.floating, np.str_)):
        return v.item()
    raise _bad_id(v, type(v).__name__)


def _bad_id(v: Any, kind: str) -> InputError:
    if isinstance(v, (np.datetime64, np.timedelta64)):
        shown = repr(str(v))
    elif isinstance(v, np.bytes_):
        shown = repr(bytes(v))
    else:
        shown = repr(v.item() if isinstance(v, np.generic) else v)
    return InputError(
        f"user id {shown} of type {kind} cannot be written to JSON: ids are integers or strings "
        "(or floats and booleans); convert them first, e.g. with .astype(str)."
    )


_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOAT_DTYPES = ("float16", "float32", "float64")


def decode_ids(data: Any) -> np.ndarray:
    """Inverse of :func:`encode_ids` (a plain list, as older documents hold, is accepted).

    Values are checked against their declared type: an ``int64`` list holding ``1.5`` is an
    :class:`~receval.errors.InputError`, never a silent ``1``.
    """
    if isinstance(data, list):  # older documents: a plain list, typed by its values
        return _from_plain_list(data)
    if not isinstance(data, dict) or not isinstance(data.get("dtype"), str) \
            or not isinstance(data.get("values"), list):
        raise InputError(
            "user_ids: expected {'dtype': ..., 'values': [...]} or a list, got "
            f"{type(data).__name__}; the document is not a receval result (or is damaged)."
        )
    dtype, values = data["dtype"], data["values"]
    if dtype == "str":
        if not all(isinstance(v, str) for v in values):
            raise _bad_doc(dtype, next(v for v in values if not isinstance(v, str)))
        return _objects(values)
    if dtype == "object":
        conv = {"bool": bool, "int": int, "float": unnumber, "str": str}
        want = {"bool": (bool,), "int": (int,), "float": (int, float, str, type(None)),
                "str": (str,)}
        out = np.empty(len(values), dtype=object)
        for i, pair in enumerate(values):
            if not (isinstance(pair, list) and len(pair) == 2 and pair[0] in conv
                    and isinstance(pair[1], want[pair[0]])
                    and not (pair[0] == "int" and isinstance(pair[1], bool))):
                raise _bad_doc(dtype, pair)
            out[i] = conv[pair[0]](pair[1])
        return out
    if dtype in _FLOAT_DTYPES:
        if not all(isinstance(v, (int, float, str, type(None))) and not isinstance(v, bool)
                   for v in values):
            raise _bad_doc(dtype, values)
        try:
            return np.array([unnumber(v) for v in values], dtype=dtype)
        except ValueError:
            raise _bad_doc(dtype, values) from None
    if dtype == "bool":
        if not all(isinstance(v, bool) for v in values):
            raise _bad_doc(dtype, next(v for v in values if not isinstance(v, bool)))
        return np.array(values, dtype=bool)
    if dtype in _INT_DTYPES:
        bad = [v for v in values if not isinstance(v, int) or isinstance(v, bool)]
        if bad:
            raise _bad_doc(dtype, bad[0])
        try:
            return np.array(values, dtype=dtype)
        except OverflowError:
            raise _bad_doc(dtype, max(values, key=abs)) from None
    raise InputError(f"user_ids: unknown id type {dtype!r}; the document is damaged.")


def _from_plain_list(values: list) -> np.ndarray:
    if not values:
        return np.zeros(0, dtype=np.int64)
    if all(isinstance(v, str) for v in values):
        return _objects(values)
    if all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        for dtype in (np.int64, np.uint64):
            try:
                return np.array(values, dtype=dtype)
            except OverflowError:
                continue
        return _objects(values)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        if all(isinstance(v, float) for v in values):
            return np.array(values, dtype=np.float64)
    if all(isinstance(v, (bool, int, float, str)) for v in values):
        return _objects(values)  # a mix keeps each value as it is: 1.5 stays 1.5, 1 stays 1
    raise _bad_doc("list", next(v for v in values if not isinstance(v, (bool, int, float, str))))


def _objects(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _bad_doc(dtype: str, value: Any) -> InputError:
    return InputError(
        f"user_ids: the document declares ids of type {dtype!r} but holds {value!r}; the "
        "document is damaged."
    )


def numbers(values: np.ndarray) -> list:
    """:func:`number` of every element of a float array, as nested lists (vectorized)."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    if finite.all():
        return values.tolist()
    out = values.astype(object)
    out[np.isnan(values)] = None
    out[np.isposinf(values)] = "inf"
    out[np.isneginf(values)] = "-inf"
    return out.tolist()


def dump(data: dict[str, Any], path: str | None = None, **kwargs: Any) -> str:
    """``json.dumps(data)``; also written to ``path`` when given.

    With ``indent``, a document's top-level keys go one per line and each value is written
    compactly: Python's indenting encoder is pure Python, and a million users' rows would take
    it seconds."""
    indent = kwargs.pop("indent", None)
    if indent is None or not isinstance(data, dict):
        text = json.dumps(data, indent=indent, **kwargs)
    else:
        pad = " " * indent if isinstance(indent, int) else str(indent)
        items = [f"{pad}{json.dumps(str(k))}: {json.dumps(v, **kwargs)}" for k, v in data.items()]
        text = "{\n" + ",\n".join(items) + "\n}" if items else "{}"
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
