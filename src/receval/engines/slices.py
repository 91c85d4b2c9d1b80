"""Slices of the truth (``slices=``): the same run measured on parts of each user's truth.

``"repeat"``: the truth items the user interacted with in training (``train=``); ``"explore"``:
the others, new to the user. Li, Jiang, Sun, de Rijke & Kanoulas ("A next basket
recommendation reality check", ACM TOIS 2023) measure next-basket recommenders this way: the
run is unchanged and each slice's metrics read only that slice's truth items, so that a
recommender that repeats the user's history is credited on ``repeat`` alone. A user without
truth items in a slice is not a truth user of that slice (under ``users="truth"``, the default,
it is not evaluated there; a run user is then counted as missing from the slice's truth); one
whose slice items are all non-relevant falls under ``empty_truth``. ``result.slices[name]`` is
the whole result of that slice, with its own counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._lazy import pandas
from ..errors import InputError, PolicyError
from ..io.frames import Columns, read_columns

SLICES = ("repeat", "explore")


def slice_names(slices: Any) -> tuple[str, ...]:
    """The slices asked for: ``True`` (both), a name, or a list of names."""
    if slices is True:
        return SLICES
    names = (slices,) if isinstance(slices, str) else tuple(slices) \
        if isinstance(slices, (list, tuple)) else None
    if not names or any(n not in SLICES for n in names) or len(set(names)) != len(names):
        raise PolicyError(f"slices={slices!r}: True, or one or both of {list(SLICES)} "
                          "(each once).")
    return names


def _pairs(user: Any, item: Any, users: Any, items: Any) -> np.ndarray:
    """Whether each (user, item) row is among the (users, items) pairs."""
    pd = pandas()
    left = pd.MultiIndex.from_arrays([pd.Index(np.asarray(user, dtype=object)),
                                      pd.Index(np.asarray(item, dtype=object))])
    right = pd.MultiIndex.from_arrays([pd.Index(np.asarray(users, dtype=object)),
                                       pd.Index(np.asarray(items, dtype=object))])
    return np.asarray(left.isin(right), dtype=bool)


def sliced_truths(truth: Columns, train: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """Each slice's truth as a dict of columns (user, item, relevance) from the truth's
    columns and the training (user, item) rows."""
    if train is None:
        raise InputError("slices= needs train= (the training interactions): 'repeat' is the "
                         "truth items each user interacted with in training.")
    try:
        hist = read_columns(train, role="train")
    except InputError as exc:
        raise InputError(f"slices=: train= must be (user, item) rows for slices; {exc}") \
            from None
    seen = _pairs(truth.user, truth.item, hist.user, hist.item)
    rel = truth.value if truth.value is not None else np.ones(truth.n_rows)
    out = {}
    for name in names:
        keep = seen if name == "repeat" else ~seen
        out[name] = {"user": np.asarray(truth.user)[keep],
                     "item": np.asarray(truth.item)[keep],
                     "relevance": np.asarray(rel, dtype=np.float64)[keep]}
    return out
