"""Alignment vectors and given target distributions over item groups (TREC Fair Ranking 2022).

An item may belong to several groups with weights: its *alignment vector* ``x_i`` over the
groups G (TREC Fair 2022's page alignments, ``wptrec/dimension.py``, one row per page). receval
reads them from ``item_alignment=`` as

==========================================  =================================================
form                                        alignment of item i
==========================================  =================================================
``{item: {group: weight}}``                 the inner mapping (groups not named: weight 0)
``pandas.DataFrame`` indexed by item,       the item's row (one column per group)
one numeric column per group
``pandas.DataFrame`` with columns           the rows of the item (a group named twice for an
``item``, ``group``, ``weight``             item is refused)
==========================================  =================================================

Each item's weights are made a distribution, ``x_i(g) = v_i(g) / sum_g' v_i(g')`` (a page
that is half in one group and half in another contributes half its attention to each); an item
whose weights are all 0 has no group (``missing=`` decides, as for ``item_groups=``). Weights
must be finite and non-negative. Group labels are text (``str(label)``), as in ``item_groups=``.

A *given target* (``group_target=``, ``{group: weight}``) is a distribution over the same groups:
finite non-negative weights with a positive sum, normalised to 1; groups it does not name get 0,
and a label that is not a group is refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain


@dataclass(frozen=True)
class Alignment:
    """Alignment vectors, CSR over ``items`` (raw ids): item ``items[i]`` has weight
    ``weights[j]`` on group ``labels[codes[j]]`` for ``j`` in ``indptr[i]:indptr[i+1]``
    (normalised: each item's weights sum to 1; an item without weight has an empty row)."""

    items: pd.Index
    indptr: np.ndarray
    codes: np.ndarray
    weights: np.ndarray
    labels: tuple[str, ...]

    @property
    def n_groups(self) -> int:
        return len(self.labels)

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """Row of each raw item id (-1: not in the table, or without weight)."""
        if not len(ids):
            return np.zeros(0, dtype=np.int64)
        rows = self.items.get_indexer(pd.Index(ids)).astype(np.int64)
        empty = np.append(np.diff(self.indptr) == 0, True)  # row -1: the last entry
        return np.where(empty[rows], -1, rows)

    def dense(self) -> np.ndarray:
        """(items x groups) array of the normalised vectors."""
        out = np.zeros((len(self.items), self.n_groups))
        owner = np.repeat(np.arange(len(self.items)), np.diff(self.indptr))
        out[owner, self.codes] = self.weights
        return out


def _number(value: Any, where: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{where}: weight {plain(value)} is not a number; give a finite "
                         "non-negative weight.") from None
    if not math.isfinite(x) or x < 0:
        raise InputError(f"{where}: weight {plain(value)} must be finite and non-negative "
                         "(0 = not in the group).")
    return x


def _triples(obj: Any) -> list[tuple[Any, str, float]]:
    """(item, group label, weight) of every entry of ``item_alignment=``."""
    if isinstance(obj, Mapping):
        out = []
        for item, vec in obj.items():
            if not isinstance(vec, Mapping):
                raise InputError(
                    f"item_alignment: item {plain(item)} maps to {plain(vec)}; give each item a "
                    "mapping {group: weight}, e.g. item_alignment={'a': {'A': 0.5, 'B': 0.5}}.")
            for group, w in vec.items():
                out.append((item, str(group), _number(
                    w, f"item_alignment: item {plain(item)}, group {plain(group)}")))
        return out
    if isinstance(obj, pd.DataFrame):
        cols = [str(c) for c in obj.columns]
        if set(cols) == {"item", "group", "weight"}:
            items, groups, ws = (obj[c].tolist() for c in ("item", "group", "weight"))
            return [(i, str(g), _number(w, f"item_alignment: item {plain(i)}, group "
                                        f"{plain(g)}")) for i, g, w in zip(items, groups, ws,
                                                                            strict=True)]
        out = []
        for item, row in zip(obj.index.tolist(), obj.itertuples(index=False), strict=True):
            for group, w in zip(cols, row, strict=True):
                out.append((item, group, _number(
                    w, f"item_alignment: item {plain(item)}, column {plain(group)}")))
        return out
    raise InputError(
        f"item_alignment: expected {{item: {{group: weight}}}}, a DataFrame indexed by item "
        f"with one column per group, or a DataFrame with item, group and weight columns; got "
        f"{type(obj).__name__}.")


def as_alignment(obj: Any) -> Alignment:
    """Read ``item_alignment=`` (module docstring) into an :class:`Alignment`."""
    if isinstance(obj, Alignment):
        return obj
    triples = _triples(obj)
    items = pd.Index(list(dict.fromkeys(t[0] for t in triples)), dtype=object)
    labels = tuple(dict.fromkeys(t[1] for t in triples))
    if not labels:
        raise InputError("item_alignment is empty: give each item its weights over groups, "
                         "e.g. item_alignment={'a': {'A': 1.0}}.")
    row = items.get_indexer(pd.Index([t[0] for t in triples], dtype=object))
    code = pd.Index(labels).get_indexer(pd.Index([t[1] for t in triples]))
    w = np.array([t[2] for t in triples], dtype=np.float64)
    dup = pd.MultiIndex.from_arrays([row, code]).duplicated()
    if dup.any():
        j = int(np.flatnonzero(dup)[0])
        raise InputError(f"item_alignment: item {plain(triples[j][0])} names group "
                         f"{plain(triples[j][1])} twice; give each (item, group) one weight.")
    keep = w > 0
    row, code, w = row[keep], code[keep], w[keep]
    order = np.lexsort((code, row))
    row, code, w = row[order], code[order], w[order]
    indptr = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(np.bincount(row, minlength=len(items)), out=indptr[1:])
    total = np.add.reduceat(w, indptr[:-1][np.diff(indptr) > 0]) if len(w) else w
    per_row = np.zeros(len(items))
    per_row[np.diff(indptr) > 0] = total
    return Alignment(items, indptr, code.astype(np.int64), w / per_row[row], labels)


def as_group_target(obj: Any, labels: tuple[str, ...], key: str) -> np.ndarray:
    """The distribution over ``labels`` of ``group_target=`` (``{group: weight}``), for the
    metric ``key``."""
    if isinstance(obj, pd.Series):
        obj = obj.to_dict()
    if not isinstance(obj, Mapping):
        raise InputError(f"{key}: group_target must be a mapping {{group: weight}}, got "
                         f"{type(obj).__name__}; e.g. group_target={{"
                         f"{plain(labels[0] if labels else 'A')}: 1.0}}.")
    out = np.zeros(len(labels))
    index = {label: j for j, label in enumerate(labels)}
    for group, w in obj.items():
        j = index.get(str(group))
        if j is None:
            raise InputError(f"{key}: group_target names {plain(group)}, which is not an item "
                             f"group; the groups are {plain(list(labels)[:20])}.")
        out[j] = _number(w, f"{key}: group_target[{plain(group)}]")
    total = math.fsum(out.tolist())
    if not total > 0:
        raise InputError(f"{key}: the weights of group_target sum to 0; give at least one "
                         "group a positive weight.")
    return out / total
