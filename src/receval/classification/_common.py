"""Shared input checks and the small result type of the classification metrics."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, plain


@dataclass(frozen=True)
class Score:
    """A metric value computed from tables: the summary ``value``, the per-user values (a pandas
    Series indexed by user, or ``None`` for a global metric) and ``info`` (counts, conventions
    used). ``float(score)`` gives the value."""

    key: str
    value: float
    per_user: Any = None
    info: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.value)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "value": float(self.value), "info": dict(self.info)}
        if self.per_user is not None:
            out["per_user"] = {str(k): float(v) for k, v in self.per_user.items()}
        return out


def as_float_array(values: Any, name: str, *, finite: bool = True) -> np.ndarray:
    """1-D float64 array, with a clear error for other shapes, non-numbers and NaN / inf."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(
            f"{name} must be a 1-D sequence of numbers, got {type(values).__name__} that cannot "
            "be converted to float."
        ) from None
    if arr.ndim != 1:
        raise InputError(f"{name} must be 1-D, got an array of shape {arr.shape}; flatten it.")
    if finite:
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{name} has {int(bad.sum())} NaN/infinite value(s) (first at index {i}: "
                f"{plain(arr[i])}); drop or fill them first."
            )
    return arr


def as_binary(values: Any, name: str = "y_true") -> np.ndarray:
    """Labels as a bool array; accepts bools and the numbers 0 / 1 only."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InputError(f"{name} must be 1-D, got an array of shape {arr.shape}; flatten it.")
    if arr.dtype == bool:
        return arr
    try:
        num = arr.astype(np.float64)
    except (TypeError, ValueError):
        raise InputError(
            f"{name} must hold binary labels (0/1 or True/False), got values such as "
            f"{plain(arr[:3].tolist())}; map your labels to 0/1 first."
        ) from None
    bad = (num != 0) & (num != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{name} must hold binary labels (0/1 or True/False), got {plain(arr[i])} at index {i}; "
            "binarize graded labels with a threshold, e.g. y_true = rel >= 1."
        )
    return num == 1


def same_length(**arrays: np.ndarray) -> None:
    lengths = {k: len(v) for k, v in arrays.items()}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {n}" for k, n in lengths.items())
        raise InputError(f"length mismatch: {desc} elements; they must be aligned one to one.")


def as_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    if sample_weight is None:
        return None
    w = as_float_array(sample_weight, "sample_weight")
    same_length(y_true=np.empty(n), sample_weight=w)
    if (w < 0).any():
        raise InputError("sample_weight must be >= 0; got negative weights.")
    return w


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    from ..errors import PolicyError, suggest

    if value not in choices:
        raise PolicyError(
            f"{name}={plain(value)} is not valid; choose one of {list(choices)}."
            + suggest(str(value), choices)
        )
    return value


def order_desc(scores: np.ndarray, group: np.ndarray | None = None) -> np.ndarray:
    """Permutation sorting by score descending (within ``group`` ascending when given)."""
    if group is None:
        return np.argsort(-scores, kind="stable")
    return np.lexsort((-scores, group))


def tie_groups(sorted_scores: np.ndarray, starts: np.ndarray | None = None) -> np.ndarray:
    """Group id of each position of a sorted score array: a new group starts where the score
    changes, and at every index in ``starts`` (user boundaries)."""
    n = len(sorted_scores)
    brk = np.ones(n, dtype=bool)
    if n > 1:
        brk[1:] = sorted_scores[1:] != sorted_scores[:-1]
    if starts is not None and len(starts):
        brk[starts[starts < n]] = True
    return np.cumsum(brk) - 1
