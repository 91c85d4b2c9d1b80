"""User groups as an input (``groups=``): which group each user belongs to.

A :class:`Membership` maps each user to one group label. ``groups=`` may be

==========================================  =================================================
form                                        group of a user
==========================================  =================================================
``dict`` ``{user: label}``                  the value (a tuple: one label of several columns)
``pandas.Series``                           the value at the user's index
table (pandas / polars / pyarrow / dict     the ``group_col`` column(s) of the user's row; the
of columns) with a user column              user column is found as in a run (``user``,
                                            ``user_id``, ...; ``user_col=`` names it)
:class:`Membership`                         as built (:func:`receval.groups` builders)
==========================================  =================================================

Several group columns (``group_col=["country", "device"]``) form their intersections: one group
per combination present, labelled ``"FR & mobile"``. A user listed twice must have one label
(repeated rows with the same label are one); a missing label is an error naming the column and
the user. Labels are kept as text (``str(label)``), so ``1`` and ``"1"`` are one group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import pandas
from ..errors import InputError, plain
from .frames import (
    ITEM_NAMES,
    USER_NAMES,
    _check_names,
    _column_names,
    _find,
    _id_column,
    _to_frame,
    first_unhashable,
)

#: how the labels of several group columns are joined into one intersection's label
JOIN = " & "


@dataclass(frozen=True)
class Membership:
    """One label per user: ``users[i]`` (raw ids, distinct) is in group ``labels[codes[i]]``.

    ``columns``: the group column(s) read (empty for a mapping); ``labels`` in first-seen
    order."""

    users: np.ndarray
    codes: np.ndarray
    labels: tuple[str, ...]
    columns: tuple[str, ...] = ()

    @property
    def n_groups(self) -> int:
        return len(self.labels)

    def describe(self) -> dict[str, Any]:
        """The facts a result records in ``info["groups"]``."""
        return {"columns": list(self.columns), "labels": list(self.labels),
                "users_listed": int(len(self.users))}


def read_groups(groups: Any, *, user_col: str | None = None,
                group_col: str | Sequence[str] | None = None, what: str = "user") -> Membership:
    """The :class:`Membership` of ``groups=`` (module docstring for the forms read);
    ``what="item"`` reads item groups (``item_groups=``: an item column, ``item_col`` given
    as ``user_col``)."""
    if isinstance(groups, Membership):
        return groups
    role = "groups" if what == "user" else "item_groups"
    pd = pandas()
    if isinstance(groups, pd.Series):
        if group_col is not None:
            raise InputError(f"{role}: a Series maps ids (its index) to groups (its values); "
                             "group_col= names a column of a table, not of a Series.")
        return _from_pairs(np.asarray(groups.index, dtype=object),
                           [np.asarray(groups.to_numpy(), dtype=object)],
                           (str(groups.name),) if groups.name is not None else (), role)
    if isinstance(groups, Mapping) and groups and not _columns_dict(groups):
        if group_col is not None:
            raise InputError(f"{role}: a dict {{{what}: label}} needs no group_col=; to read a "
                             "dict of columns, give each column as a sequence.")
        keys = np.empty(len(groups), dtype=object)
        keys[:] = list(groups.keys())
        vals = list(groups.values())
        if any(isinstance(v, tuple) for v in vals):
            width = {len(v) if isinstance(v, tuple) else 1 for v in vals}
            if len(width) > 1:
                raise InputError(f"{role}: a dict's tuple labels must all have one length (one "
                                 f"value per group column); found lengths {sorted(width)}.")
            parts = [_objects([v[j] for v in vals]) for j in range(width.pop())]
        else:
            parts = [_objects(vals)]
        return _from_pairs(keys, parts, (), role)
    if isinstance(groups, Mapping) and not groups:
        raise InputError(f"{role}: the dict is empty; give {{{what}: group}} for the {what}s "
                         "to group.")
    frame, kind = _to_frame(groups, role)
    names = _column_names(frame, kind)
    _check_names(names, role)
    ucol = _find(names, user_col, USER_NAMES if what == "user" else ITEM_NAMES, what, role,
                 f"{what}_col")
    if group_col is None:
        rest = [n for n in names if n != ucol]
        if len(rest) != 1:
            raise InputError(
                f"{role}: the table has columns {names}; name the group column(s) with "
                "group_col= (a name, or a list of names for their intersections).")
        cols = rest
    else:
        cols = [group_col] if isinstance(group_col, str) else list(group_col)
        if not cols or not all(isinstance(c, str) for c in cols):
            raise InputError(f"group_col={group_col!r}: give a column name or a list of "
                             "column names.")
        for c in cols:
            if c not in names or c == ucol:
                raise InputError(f"group_col={c!r}: {role} has no such group column; its "
                                 f"columns are {names} ({what} column {ucol!r}).")
    users = _id_column(frame, kind, ucol, role)
    if kind == "arrow":
        users = users.to_pandas() if hasattr(users, "to_pandas") else np.asarray(users)
    parts = [frame.column(c).to_pandas() if kind == "arrow" else frame[c] for c in cols]
    return _from_pairs(users, parts, tuple(cols), role)


def _columns_dict(data: Mapping) -> bool:
    """A dict of columns (every value a sequence, not a label)."""
    return all(isinstance(v, (list, np.ndarray)) or type(v).__name__ in ("Series", "Array")
               for v in data.values())


def _objects(values: list) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr


def _from_pairs(users: Any, parts: list[Any], columns: tuple[str, ...],
                role: str = "groups") -> Membership:
    """One label per distinct id from (id, label parts) rows, without a pass in Python over
    the rows: missing labels and ids with two labels refused."""
    pd = pandas()
    ids = pd.Series(np.asarray(users)) if not isinstance(users, pd.Series) else users
    ids = ids.reset_index(drop=True)
    bad = ids.isna().to_numpy()
    if bad.any():
        raise InputError(f"{role}: {int(bad.sum())} missing id(s); drop those rows.")
    combined: np.ndarray | None = None
    uniques: list[np.ndarray] = []
    col_codes: list[np.ndarray] = []
    for j, part in enumerate(parts):
        col = part if isinstance(part, pd.Series) else pd.Series(part)
        col = col.reset_index(drop=True)
        missing = col.isna().to_numpy()
        where = f"column {columns[j]!r}" if j < len(columns) else "the mapping"
        if missing.any():
            first = int(np.flatnonzero(missing)[0])
            raise InputError(
                f"{role}: {where} has {int(missing.sum())} missing label(s) (first: id "
                f"{plain(ids.iloc[first])}); give every listed id a group, or leave it out (ids "
                "without a group are counted, as ungrouped).")
        try:
            codes_j, uniq_j = pd.factorize(col)
        except TypeError as exc:  # a label pandas cannot hash: a list, a set, a dict
            found = first_unhashable(col.tolist())
            if found is None:  # pragma: no cover - pandas hashes every hashable label
                raise InputError(f"{role}: {where} cannot be read as labels: {exc}.") from None
            first, label = found
            alignment = " (an item's alignment over several groups, as TREC Fair Ranking " \
                "gives it: item_alignment=)" if role == "item_groups" else ""
            raise InputError(
                f"{role}: {where} gives id {plain(ids.iloc[first])} the label {plain(label)}, "
                f"a {type(label).__name__}; each id belongs to one group: give one label per "
                f"id{alignment}, or several columns of a table for their intersections "
                "(group_col=[...]).") from None
        uniques.append(np.asarray(uniq_j, dtype=object))
        col_codes.append(codes_j)
        combined = codes_j.astype(np.int64) if combined is None else \
            pd.factorize(combined * len(uniq_j) + codes_j)[0].astype(np.int64)
    assert combined is not None
    label_codes, first_rows = np.unique(combined, return_index=True)
    # a label's text: each column's value at the label's first row, as text; labels in
    # first-seen order
    order = np.argsort(first_rows, kind="stable")
    remap = np.empty(len(label_codes), dtype=np.int64)
    remap[order] = np.arange(len(order))
    per_row = remap[np.searchsorted(label_codes, combined)]
    texts = []
    for row in first_rows[order].tolist():
        values = [str(u[c[row]]) for u, c in zip(uniques, col_codes, strict=True)]
        texts.append(JOIN.join(values))
    # several spellings of one value (1 and "1") are one label
    text_codes, labels = pd.factorize(pd.Series(texts, dtype=object))
    per_row = text_codes[per_row].astype(np.int64)
    user_codes, distinct = pd.factorize(ids)
    codes = np.full(len(distinct), -1, dtype=np.int64)
    codes[user_codes] = per_row  # the last row of an id wins here; conflicts refused below
    conflict = codes[user_codes] != per_row
    if conflict.any():
        i = int(np.flatnonzero(conflict)[0])
        u = int(user_codes[i])
        raise InputError(
            f"{role}: {plain(distinct[u])} is listed in two groups ({labels[per_row[i]]!r} "
            f"and {labels[codes[u]]!r}); each id belongs to one group (several columns give "
            "their intersections: group_col=[...]).")
    return Membership(_typed(np.asarray(distinct)), codes, tuple(str(x) for x in labels),
                      columns)


def _typed(ids: np.ndarray) -> np.ndarray:
    """Integer ids as int64 (uint64 beyond it), other ids as they are."""
    if ids.dtype.kind in "iu" or not len(ids):
        return ids
    pd = pandas()
    if ids.dtype == object and pd.api.types.infer_dtype(ids, skipna=False) == "integer":
        try:
            return ids.astype(np.int64)
        except OverflowError:
            return ids.astype(np.uint64)
    return ids
