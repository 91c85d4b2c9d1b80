"""The block's lists cut at k as the exposure, provider-fairness and calibration metrics read
them, from one compiled pass (:func:`receval.kernels.list_pass`) instead of per-position
numpy arrays.

A :class:`ListPass` is made once per block and cutoff (kept through ``context.memo``, keyed
by the block's arrays) and holds what its metrics asked for:

- ``counts()``: the lists that hold each vocabulary item at each place (exposure_share and
  exposure_gini's run-wide state);
- ``groups(...)``: per attention model, the (users x groups) attention
  ``A[u, g] = sum_{r: i_r in g} w_r`` and each list's attention over the places whose item
  has a group (exposure_share, awrf);
- ``categories(...)``: per attention model, the (users x categories) mass
  ``sum_r w_r / |C(i_r)|`` over each category of ``i_r`` and each list's weight over its
  categorised places (miscalibration).

Everything one call asks for comes from one pass over the positions; a later call makes only
what is not there yet. Each cell adds its terms in rank order from 0.0, as ``np.bincount``
over the positions does, so the values are the bits of the numpy formulas
(:mod:`receval.beyond.exposure`, :mod:`receval.beyond.miscalibration`), which stay as the
oracle (``receval.beyond._lists.COMPILED = False``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engines.plugins import Context
from ..io.categories import ItemCategories
from ..kernels import list_kl_ratios
from ..kernels import list_pass as _kernel
from ..pack.packed import Packed
from ._context import list_places, top_k
from .attention import RankWeight

_NO_INT = np.zeros(0, dtype=np.int64)
_NO_I32 = np.zeros(0, dtype=np.int32)
_NO_2D = np.zeros((0, 0), dtype=np.float64)
_NO_3D = np.zeros((0, 0, 0), dtype=np.float64)


@dataclass
class GroupTable:
    """One attention model's sums by item group: ``attention`` (users x groups), ``known``
    each list's attention over its places whose item has a group, ``unknown`` the places
    without one."""

    attention: np.ndarray
    known: np.ndarray
    unknown: int


@dataclass
class CategoryTable:
    """One attention model's category mass: ``mass`` (users x categories), ``total`` each
    list's weight over its places whose item has a category, ``unknown`` the places whose
    item is absent from item_categories."""

    mass: np.ndarray
    total: np.ndarray
    unknown: int


class ListPass:
    """What the fairness metrics read of one block's lists cut at k (see the module doc)."""

    def __init__(self, packed: Packed, k: int | None) -> None:
        if packed.absolute_ranks and len(packed.items):
            # ranks="position": refuse lists whose ranks are not their places 1..n
            list_places(packed, *top_k(packed, k))
            k = None  # the block holds the rows of rank <= k already
        self.indptr = np.asarray(packed.indptr, dtype=np.int64)
        lens = np.diff(self.indptr)
        self.lens = lens if k is None else np.minimum(lens, k)
        self.k = -1 if k is None else int(k)
        self.n = len(self.lens)
        self.width = int(self.lens.max(initial=0))
        self.size = int(self.lens.sum())
        items = packed.items
        if items.dtype not in (np.int32, np.int64):
            items = items.astype(np.int64)
        self.items = np.ascontiguousarray(items)
        self.n_vocab = len(packed.item_vocab)
        self._counts: np.ndarray | None = None
        self._groups: dict = {}
        self._cats: dict = {}

    def cut_indptr(self) -> np.ndarray:
        """The CSR offsets of the cut lists."""
        out = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.lens, out=out[1:])
        return out

    def totals(self, model: RankWeight) -> np.ndarray:
        """Each list's attention ``sum_r w_r``, added in rank order (a prefix sum)."""
        weights = model.weights(self.width)  # type: ignore[call-arg]
        return np.concatenate([[0.0], np.cumsum(weights)])[self.lens]

    def counts(self) -> np.ndarray:
        """(vocabulary items x places) int64: the lists holding each item at each place."""
        if self._counts is None:
            self._run(counts=True)
        assert self._counts is not None
        return self._counts

    def groups(self, groups: object, codes: np.ndarray, models: tuple[RankWeight, ...],
               counts: bool = False) -> list[GroupTable]:
        """The :class:`GroupTable` of each model for ``groups`` (``codes``: the group of each
        vocabulary item, -1 none); ``counts``: make :meth:`counts` in the same pass."""
        entry = self._groups.get(id(groups))
        if entry is None or entry[0] is not groups:
            entry = (groups, codes, {})
            self._groups[id(groups)] = entry
        todo = tuple(dict.fromkeys(m for m in models if m not in entry[2]))
        if todo:
            self._run(counts=counts and self._counts is None, groups=(entry, todo))
        return [entry[2][m] for m in models]

    def categories(self, cats: ItemCategories, rows: np.ndarray,
                   models: tuple[RankWeight, ...]) -> list[CategoryTable]:
        """The :class:`CategoryTable` of each model for the categories ``cats`` (``rows``:
        the category row of each vocabulary item, -1 none)."""
        entry = self._category_entry(cats, rows)
        todo = tuple(dict.fromkeys(m for m in models if m not in entry[2]))
        if todo:
            self._run(cats=(entry, todo))
        return [entry[2][m] for m in models]

    def kl_ratios(self, cats: ItemCategories, rows: np.ndarray, model: RankWeight,
                  cstart: np.ndarray, cells: np.ndarray, p: np.ndarray, alpha: float
                  ) -> tuple[np.ndarray, np.ndarray, int]:
        """``(ratios, total, unknown)``: Steck's KL ratios ``p / q~`` on the profile cells
        (``cells`` / ``p``, user u's at ``cstart[u]:cstart[u + 1]``), each list's category
        mass made per user (:func:`receval.kernels.list_kl_ratios`: no (users x categories)
        table), with what :meth:`categories` would give as ``total`` and ``unknown``."""
        c_len, c_one, c_start = self._category_entry(cats, rows)[1]
        if not len(c_len):  # an empty vocabulary
            c_len, c_one, c_start = np.full(1, -1, np.int32), np.full(1, -1, np.int32), \
                np.zeros(1, np.int64)
        cw = self._category_weights(c_len, (model,))[0]
        return list_kl_ratios(self.indptr, self.items, self.k, cw, c_len, c_one, c_start,
                              np.ascontiguousarray(cats.codes, dtype=np.int64),
                              int(cats.n_categories), cstart, cells, p, float(alpha))

    def _category_entry(self, cats: ItemCategories, rows: np.ndarray) -> tuple:
        """``(cats, its item tables, {model: CategoryTable})``, made once per categories."""
        entry = self._cats.get(id(cats))
        if entry is None or entry[0] is not cats:
            entry = (cats, category_tables(cats, rows), {})
            self._cats[id(cats)] = entry
        return entry

    def _category_weights(self, c_len: np.ndarray, models: tuple[RankWeight, ...]
                          ) -> np.ndarray:
        """(models x places x (L + 1)): ``w_r * (1 / L)`` as the numpy formula forms it
        (weight times 1 / L), L up to the most categories of an item."""
        longest = int(c_len.max(initial=0))
        inv = 1.0 / np.maximum(np.arange(longest + 1), 1)
        return np.ascontiguousarray(np.stack(
            [m.weights(self.width)[:, None] * inv[None, :] for m in models]
        ).reshape(len(models), self.width, longest + 1))

    def _run(self, counts: bool = False, groups: tuple | None = None,
             cats: tuple | None = None) -> None:
        """One pass making the counts, the group tables and the category tables asked."""
        n, width = self.n, self.width
        count_arr = np.zeros(self.n_vocab * width if counts else 0, dtype=np.int64)
        if counts and not len(count_arr):  # no item or no place: nothing to count
            self._counts = count_arr.reshape(self.n_vocab, width)
            counts = False
        g_codes, n_g, gw, gout, gknown = _NO_I32, 0, _NO_2D, _NO_2D, _NO_2D
        if groups is not None:
            (grp, g_codes, _), g_models = groups
            n_g = int(grp.n_groups)  # type: ignore[attr-defined]
            gw = np.ascontiguousarray(np.stack(
                [m.weights(width) for m in g_models]).reshape(len(g_models), width))
            gout = np.zeros((len(g_models), n * n_g))
            gknown = np.zeros((len(g_models), n))
            # one byte per item when the groups fit: a table that stays in the first cache
            g_codes = np.ascontiguousarray(g_codes, dtype=np.int8 if n_g < 127 else np.int32)
        c_len, c_one, c_start, c_codes, n_c = _NO_I32, _NO_I32, _NO_INT, _NO_INT, 0
        cw, cout, ctot = _NO_3D, _NO_2D, _NO_2D
        if cats is not None:
            (cat, (c_len, c_one, c_start), _), c_models = cats
            n_c, c_codes = cat.n_categories, np.ascontiguousarray(cat.codes, dtype=np.int64)
            cw = self._category_weights(c_len, c_models)
            cout = np.zeros((len(c_models), n * n_c))
            ctot = np.zeros((len(c_models), n))
        if not len(g_codes) and groups is not None:  # an empty vocabulary
            g_codes = np.full(1, -1, dtype=np.int8)
        if not len(c_len) and cats is not None:
            c_len, c_one, c_start = np.full(1, -1, np.int32), np.full(1, -1, np.int32), \
                np.zeros(1, np.int64)
        unknown_g, unknown_c = _kernel(self.indptr, self.items, self.k, width, count_arr,
                                       g_codes, n_g, gw, gout, gknown, c_len, c_one, c_start,
                                       c_codes, n_c, cw, cout, ctot)
        if counts:
            self._counts = count_arr.reshape(self.n_vocab, width)
        if groups is not None:
            (_, _, tables), g_models = groups
            for j, m in enumerate(g_models):
                tables[m] = GroupTable(gout[j].reshape(n, n_g), gknown[j], int(unknown_g))
        if cats is not None:
            (_, _, tables), c_models = cats
            for j, m in enumerate(c_models):
                # no category at all: one empty column, as the numpy formula's table
                mass = cout[j].reshape(n, n_c) if n_c else np.zeros((n, 1))
                tables[m] = CategoryTable(mass, ctot[j], int(unknown_c))


def category_tables(cats: ItemCategories, rows: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per item (``rows``: its category row, -1 none) what the compiled passes read of its
    categories: ``(L, the category when L = 1 else -1, where its codes start)``, L = -1 for
    an item absent from the categories."""
    rows = np.asarray(rows, dtype=np.int64)
    ok = rows >= 0
    at = np.where(ok, rows, 0)
    start = np.asarray(cats.indptr, dtype=np.int64)[at] if len(cats.indptr) > 1 \
        else np.zeros(len(rows), dtype=np.int64)
    length = np.where(ok, np.asarray(cats.indptr, dtype=np.int64)[at + 1] - start, -1) \
        if len(cats.indptr) > 1 else np.full(len(rows), -1, dtype=np.int64)
    codes = np.asarray(cats.codes, dtype=np.int64)
    one = np.where(length == 1, codes[np.minimum(start, max(len(codes) - 1, 0))], -1) \
        if len(codes) else np.full(len(rows), -1, dtype=np.int64)
    return (np.ascontiguousarray(length, dtype=np.int32), np.ascontiguousarray(one, dtype=np.int32),
            np.ascontiguousarray(start))


def list_pass(context: Context, packed: Packed, k: int | None) -> ListPass:
    """The block's :class:`ListPass` at cutoff k (one per block and cutoff)."""
    return context.memo(("list_pass", k), (packed.items, packed.indptr),
                        lambda: ListPass(packed, k))
