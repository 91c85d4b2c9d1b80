"""Personalization: how different the users' lists are from each other.

``Personalization = 1 - mean_{u < v} cos(R(u), R(v))`` over the ``n(n-1)/2`` pairs of non-empty
lists, with ``cos(R(u), R(v)) = |R(u) & R(v)| / sqrt(|R(u)| |R(v)|)`` (the cosine of binary item
vectors, as in recmetrics; for lists of equal length k it is the overlap share
``|R(u) & R(v)| / k``). 1 = no two users share an item, 0 = everyone gets the same list.

Exact, without a users x users matrix: with ``w_i = sum_{u: i in R(u)} 1 / sqrt(|R(u)|)``,
``sum_{u<v} cos(R(u), R(v)) = (sum_i w_i^2 - n) / 2``. The partial state is, for each list
length L, the number of lists of that length and how many of them contain each item (integer
counts, merged by addition), so the value does not depend on how users are split in blocks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engines.plugins import Context, MetricValues
from ..kernels import exact_partials
from ..metrics.spec import MetricSpec, register
from ..pack.packed import Packed
from ._context import BLOCK_USERS, beyond_metric, top_k
from ._lists import as_csr, blocks, distinct, truncate


@dataclass
class PersonalizationState:
    """Per list length L: ``lists[L]`` = lists of length L, ``counts[L][i]`` = those holding i."""

    lists: dict[int, int] = field(default_factory=dict)
    counts: dict[int, np.ndarray] = field(default_factory=dict)

    @classmethod
    def from_lists(cls, lists: Any, *, k: int | None = None,
                   assume_distinct: bool = False) -> PersonalizationState:
        """State of a block of lists (``assume_distinct``: lists never repeat an item)."""
        indptr, items = truncate(*as_csr(lists), k)
        # distinct items per list (the cosine of binary vectors counts each item once)
        s_items, s_user = distinct(indptr, items, assume_distinct=assume_distinct)
        lens = np.bincount(s_user, minlength=len(indptr) - 1)
        size = int(items.max()) + 1 if len(items) else 0
        state = cls()
        for length in np.unique(lens[lens > 0]):
            sel = lens[s_user] == length
            state.lists[int(length)] = int((lens == length).sum())
            state.counts[int(length)] = np.bincount(s_items[sel], minlength=size).astype(np.int64)
        return state

    def merge(self, other: PersonalizationState) -> PersonalizationState:
        out = PersonalizationState(dict(self.lists), {k: v.copy() for k, v in self.counts.items()})
        for length, n in other.lists.items():
            c = other.counts[length]
            if length in out.counts:
                a = out.counts[length]
                size = max(len(a), len(c))
                merged = np.zeros(size, dtype=np.int64)
                merged[: len(a)] += a
                merged[: len(c)] += c
                out.counts[length] = merged
                out.lists[length] += n
            else:
                out.counts[length] = c.copy()
                out.lists[length] = n
        return out

    def value(self) -> float:
        """Personalization from the state (NaN with fewer than two non-empty lists)."""
        n = sum(self.lists.values())
        if n < 2:
            return float("nan")
        # sum_i w_i^2 summed exactly and correctly rounded, so the value does not depend on
        # the order of the item codes (a run's rows in another order code its items
        # differently). Lists of one length L (the usual top-k): sum_i c_i^2 / L, from the
        # integer counts with one rounding.
        if len(self.counts) == 1:
            (length, c), = self.counts.items()
            squares = math.fsum(exact_partials(c.astype(np.float64), 1)) / length
        else:
            size = max(len(c) for c in self.counts.values())
            w = np.zeros(size, dtype=np.float64)
            for length in sorted(self.counts):
                c = self.counts[length]
                w[: len(c)] += c / np.sqrt(length)
            squares = math.fsum(exact_partials(w, 1))
        pair_sum = (squares - n) / 2.0
        return 1.0 - pair_sum / (n * (n - 1) / 2.0)


def personalization(lists: Any, *, k: int | None = None) -> float:
    """``1 - mean_{u<v} cos(R_k(u), R_k(v))`` over non-empty lists (see module doc).

    >>> personalization([[0, 1], [0, 2], [3, 4]])   # overlaps 1/2, 0, 0: 1 - (1/2) / 3
    0.8333333333333334
    """
    return PersonalizationState.from_lists(lists, k=k).value()

# -------------------------------------------------------------------------------------------------
# Personalization:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

def _personalization(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    indptr, pos = top_k(packed, spec.k)
    items = packed.items[pos]
    state = PersonalizationState()
    for lo, hi in blocks(len(indptr) - 1, BLOCK_USERS):
        ip = indptr[lo:hi + 1] - indptr[lo]
        state = state.merge(PersonalizationState.from_lists((ip, items[indptr[lo]:indptr[hi]]),
                                                            assume_distinct=True))
    return MetricValues(None, state.value(), {"lists": sum(state.lists.values())})


register(beyond_metric(
    "personalization", "Personalization@k", "1 - mean_{u<v} |R(u) & R(v)| / sqrt(|R(u)| |R(v)|)",
    "1 minus the mean cosine similarity between the binary item vectors of every pair of "
    "non-empty lists; computed exactly from item counts per list length (no users x users "
    "matrix, no sampling).",
    _personalization, reference="recmetrics personalization (exact form)",
    example="lists [a, b], [a, c], [d, e]: 1 - (1/2) / 3",
))
