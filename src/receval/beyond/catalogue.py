"""Catalogue-level metrics of exposure: coverage, entropy, Gini, effective coverage, tail share.

Every metric here is a function of the *exposure counts* ``c_i`` (how many of the evaluated
lists, cut at k, contain item i) and of the catalogue size ``n = |I|``. The counts are a
mergeable partial state (:class:`ExposureState`): blocks of users, or partitions of a
distributed engine, each build one and :meth:`ExposureState.merge` adds them, with integer
arithmetic, so the final value does not depend on how users were split. Items of the catalogue
that no list contains have ``c_i = 0``; they count in ``n``.

Exposure share ``p_i = c_i / sum_j c_j``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError
from ..kernels import exact_partials
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ..validation import LOG_BASE, Boolean, Options, validate_params
from ._context import BLOCK_USERS, beyond_metric, catalog_of, top_k
from ._lists import as_csr, blocks, distinct, truncate
from .inputs import Catalog

LOG_BASES = {"2": 2.0, "e": float(np.e), "10": 10.0}


@dataclass
class ExposureState:
    """Partial state of catalogue metrics over a set of users.

    ``counts[i]``: lists containing item code i; ``tail_slots``: positions holding a tail item
    (when a tail mask was given); ``n_users``, ``n_nonempty``: lists seen / non-empty;
    ``slots``: recommended positions in total.
    """

    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    n_users: int = 0
    n_nonempty: int = 0
    slots: int = 0
    tail_slots: int = 0

    @classmethod
    def from_lists(cls, lists, *, k: int | None = None, n_items: int | None = None,
                   tail: np.ndarray | None = None,
                   assume_distinct: bool = False) -> ExposureState:
        """State of a block of lists (item codes; a list counts an item once).

        ``assume_distinct=True`` skips the check for items repeated inside a list.
        """
        indptr, items = truncate(*as_csr(lists), k)
        if len(items) and items.min() < 0:
            raise InputError("lists: item codes must be >= 0.")
        size = max(int(items.max()) + 1 if len(items) else 0, n_items or 0)
        uniq, _ = distinct(indptr, items, assume_distinct=assume_distinct)
        counts = np.bincount(uniq, minlength=size).astype(np.int64)
        lens = np.diff(indptr)
        tail_slots = int(tail[items].sum()) if tail is not None and len(items) else 0
        return cls(counts, len(lens), int((lens > 0).sum()), int(len(items)), tail_slots)

    def merge(self, other: ExposureState) -> ExposureState:
        """Sum of two states (exact: integer counts)."""
        size = max(len(self.counts), len(other.counts))
        counts = np.zeros(size, dtype=np.int64)
        counts[: len(self.counts)] += self.counts
        counts[: len(other.counts)] += other.counts
        return ExposureState(counts, self.n_users + other.n_users,
                             self.n_nonempty + other.n_nonempty, self.slots + other.slots,
                             self.tail_slots + other.tail_slots)


def _counts(counts) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64).ravel()
    if c.size and (c.min() < 0 or not np.isfinite(c).all()):
        raise InputError("counts: exposure counts must be finite and >= 0.")
    return c


def _n(c: np.ndarray, n_items: int | None, over: str = "catalog") -> int:
    if over == "recommended":
        return int((c > 0).sum())
    n = len(c) if n_items is None else int(n_items)
    if n < int((c > 0).sum()):
        raise InputError(
            f"n_items={n_items}: fewer catalogue items than items with exposure "
            f"({int((c > 0).sum())})."
        )
    return n


def catalog_coverage(counts, n_items: int | None = None, *, kind: str = "catalog") -> float:
    """Catalogue coverage: ``|union_u R_k(u)| / |I|`` (Ge et al. 2010).

    ``kind="count"`` returns the numerator ``|union_u R_k(u)|`` (Elliot's ItemCoverage).
    ``n_items`` is |I| (default: ``len(counts)``).

    >>> catalog_coverage([2, 0, 1, 0])     # 2 of 4 items recommended
    0.5
    """
    c = _counts(counts)
    covered = int((c > 0).sum())
    if kind == "count":
        return float(covered)
    n = _n(c, n_items)
    return covered / n if n else float("nan")


@validate_params({"base": [Options(tuple(LOG_BASES)), *LOG_BASE], "normalize": [Boolean()]})
def entropy(counts, n_items: int | None = None, *, base: float | str = 2,
            normalize: bool = False, over: str = "catalog") -> float:
    """Shannon entropy of exposure: ``H = -sum_i p_i log_b p_i`` (Shani & Gunawardana 2011), 0 log 0 = 0.

    ``normalize=True`` divides by ``log_b n`` (n = catalogue size, or the number of recommended
    items with ``over="recommended"``) so that uniform exposure over the n items gives 1; the
    base then cancels. (RecBole's ShannonEntropy divides by the number of distinct items
    instead; that is not a normalization to [0, 1].) Higher = exposure spread over more items.

    >>> entropy([1, 1, 2])                  # p = 1/4, 1/4, 1/2
    1.5
    """
    b = LOG_BASES[base] if isinstance(base, str) else float(base)
    c = _counts(counts)
    total = c.sum()
    if total == 0:
        return float("nan")
    p = c[c > 0] / total
    # the exact sum, correctly rounded: the value does not depend on the order of the items
    h = -math.fsum(exact_partials(np.ascontiguousarray(p * np.log(p)))) / float(np.log(b))
    h = h + 0.0  # -0.0 -> 0.0
    if normalize:
        n = _n(c, n_items, over)
        return h / (np.log(n) / np.log(b)) if n > 1 else float("nan")
    return h


def effective_coverage(counts, n_items: int | None = None) -> float:
    """Distributional (effective) coverage: ``exp(H_e) / |I|`` with ``H_e`` in nats.

    ``exp(H)`` is the perplexity of the exposure distribution: the number of equally exposed
    items that would give the same entropy. It equals plain coverage when the recommended items
    are exposed equally and falls toward ``1 / |I|`` as exposure concentrates on one item.

    >>> effective_coverage([1, 1, 0, 0])    # two items, equal exposure: 2 / 4
    0.5
    """
    c = _counts(counts)
    n = _n(c, n_items)
    h = entropy(c, n, base="e")
    return float(np.exp(h) / n) if n and h == h else float("nan")


def gini(counts, n_items: int | None = None, *, denominator: str = "n-1",
         over: str = "catalog") -> float:
    """Gini index of exposure (Shani & Gunawardana 2011): ``G = 1/(n-1) sum_j (2j - n - 1) p_(j)``.

    ``p_(1) <= ... <= p_(n)`` are the exposure shares sorted ascending, over the n catalogue
    items (``over="recommended"``: only items with exposure). 0 = every item equally exposed;
    1 = all exposure on one item. **Lower is better** (fairer exposure); Elliot reports
    ``1 - G``. ``denominator="n"`` gives the classic ``1/n`` form (Lorenz-curve Gini, equal to
    ``sum_ij |p_i - p_j| / 2n``), whose maximum for one item is ``(n-1)/n``.

    >>> gini([0, 1, 3])                     # p = 0, 1/4, 3/4: (0*0 + 0*1/4 + 2*3/4) / 2
    0.75
    """
    c = _counts(counts)
    n = _n(c, n_items, over)
    total = c.sum()
    if total == 0 or n == 0 or (denominator == "n-1" and n == 1):
        return float("nan")
    nz = np.sort(c[c > 0]) / total
    j = np.arange(n - len(nz) + 1, n + 1, dtype=np.float64)
    s = float(((2 * j - n - 1) * nz).sum())
    return s / (n - 1 if denominator == "n-1" else n) + 0.0


def tail_share(state: ExposureState) -> float:
    """Share of all recommended positions that hold a long-tail item."""
    return state.tail_slots / state.slots if state.slots else float("nan")

# -------------------------------------------------------------------------------------------------
# Coverage, entropy and Gini of exposure:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

OVER = Param("over", "catalog",
             "items n counted: catalog = every catalogue item (unrecommended ones have zero "
             "exposure) | recommended = only items with exposure", ("catalog", "recommended"))


def _outside_items(cat: Catalog, packed: Packed, counts: np.ndarray) -> np.ndarray:
    """Mask over the run's item codes: recommended items that are not in the catalogue (none
    when the catalogue is a count, which has no ids)."""
    out = np.zeros(len(counts), dtype=bool)
    if cat.ids is not None and len(counts):
        rec = np.flatnonzero(counts > 0)
        out[rec] = cat.ids.get_indexer(pd.Index(packed.item_vocab[rec])) < 0
    return out


def packed_exposure(packed: Packed, k: int | None, tail: np.ndarray | None = None,
              context: Context | None = None) -> ExposureState:
    """Exposure counts over the run vocabulary, merged from blocks of users.

    Without a tail mask the state is cached per run and cutoff (coverage, Gini and entropy at
    the same k share it).
    """
    if context is not None and tail is None:
        return context.memo(("exposure", k), (packed.items,), lambda: packed_exposure(packed, k))
    indptr, pos = top_k(packed, k)
    items = packed.items[pos]
    state = ExposureState(np.zeros(len(packed.item_vocab), dtype=np.int64))
    for lo, hi in blocks(len(indptr) - 1, BLOCK_USERS):
        ip = indptr[lo:hi + 1] - indptr[lo]
        # packed lists never repeat an item (duplicates are rejected or removed when packing)
        part = ExposureState.from_lists((ip, items[indptr[lo]:indptr[hi]]),
                                        n_items=len(packed.item_vocab), tail=tail,
                                        assume_distinct=True)
        state = state.merge(part)
    return state


def _coverage(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = packed_exposure(packed, spec.k, context=context)
    if spec.get("kind") == "count":
        return MetricValues(None, catalog_coverage(state.counts, kind="count"),
                            {"recommended_items": int((state.counts > 0).sum())})
    rule = spec.get("outside")
    cat = catalog_of(context, packed, state.counts, rule, spec.key)
    outside = _outside_items(cat, packed, state.counts)
    covered = int((state.counts > 0).sum())
    info = {"catalog": cat.source, "catalog_size": cat.size, "recommended_items": covered,
            "outside_catalog": int(outside.sum())}
    if rule == "ignore":
        covered -= int(outside.sum())
    return MetricValues(None, covered / cat.size, info)


def _dist_coverage(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = packed_exposure(packed, spec.k, context=context)
    cat = catalog_of(context, packed, state.counts, key=spec.key)
    return MetricValues(None, effective_coverage(state.counts, cat.size),
                        {"catalog": cat.source, "catalog_size": cat.size})


def _entropy(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = packed_exposure(packed, spec.k, context=context)
    if spec.get("normalize") == "distinct":  # RecBole ShannonEntropy: H / distinct items
        seen = state.counts[state.counts > 0]
        h = entropy(seen, base=LOG_BASES[spec.get("base")])
        return MetricValues(None, h / len(seen) if len(seen) else float("nan"),
                            {"base": spec.get("base"), "recommended_items": int(len(seen))})
    normalize = spec.get("normalize") == "true"
    info: dict[str, Any] = {"base": spec.get("base")}
    n = None
    if normalize and spec.get("over") == "catalog":
        cat = catalog_of(context, packed, state.counts, key=spec.key)
        n = cat.size
        info.update(catalog=cat.source, catalog_size=cat.size)
    value = entropy(state.counts[state.counts > 0] if n is None else state.counts, n,
                    base=LOG_BASES[spec.get("base")], normalize=normalize,
                    over=spec.get("over") if normalize else "catalog")
    return MetricValues(None, value, info)


def _gini(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    state = packed_exposure(packed, spec.k, context=context)
    info: dict[str, Any] = {}
    if spec.get("over") == "catalog":
        cat = catalog_of(context, packed, state.counts, key=spec.key)
        n = cat.size
        info.update(catalog=cat.source, catalog_size=cat.size)
    else:
        n = None
    return MetricValues(None, gini(state.counts, n, denominator=spec.get("denominator"),
                                   over=spec.get("over")), info)


register(beyond_metric(
    "coverage", "Catalogue coverage@k", "|union_u R_k(u)| / |I|",
    "Share of the catalogue that appears in at least one evaluated list (Shani & Gunawardana 2011). The "
    "catalogue I is evaluate(catalog=...): None/'all' = items of train + truth + run (default), "
    "'train' (Microsoft Recommenders), 'train+truth', ..., an item count, or an id list. "
    "kind=count gives the number of distinct recommended items (Elliot ItemCoverage). "
    "outside: recommended items missing from an explicit catalogue raise (error, the "
    "default), are not covered (ignore: |union_u R_k(u) & I| / |I|) or are covered (count: "
    "|union_u R_k(u)| / |I|, which can exceed 1).",
    _coverage, (Param("kind", "catalog", "catalog = share of |I| | count = distinct items",
                      ("catalog", "count")),
                Param("outside", "error",
                      "a recommended item that is not in an explicit catalogue (an id list, "
                      "or a source such as catalog='train'): error (default) | ignore = not "
                      "covered, left out of the numerator | count = counted as covered, so "
                      "the value can exceed 1 (recmetrics prediction_coverage, RecTools "
                      "CatalogCoverage, Microsoft Recommenders catalog_coverage)",
                      ("error", "ignore", "count"))),
    bounds=(0.0, None), reference="Ge, Delgado-Battenfeld & Jannach, RecSys 2010",
    example="lists [a, b], [a, c], catalogue of 6 items: 3/6",
), ("catalog_coverage", "item_coverage"))


register(beyond_metric(
    "dist_coverage", "Distributional (effective) coverage@k", "exp(H_e) / |I|",
    "Perplexity of the exposure distribution (the number of equally exposed items with the same "
    "entropy) over the catalogue size; equals coverage when recommended items are exposed "
    "equally, tends to 1/|I| when one item takes all exposure.",
    _dist_coverage, example="exposure [1, 1, 0, 0]: 2/4",
), ("effective_coverage",))


register(beyond_metric(
    "entropy", "Shannon entropy of exposure@k", "H = -sum_i p_i log_b p_i, p_i = c_i / sum_j c_j",
    "Entropy of how often each item appears in the evaluated top-k lists (Shani & Gunawardana 2011). "
    "normalize=true divides by log_b n (n = catalogue size, or recommended items with "
    "over=recommended) so uniform exposure gives 1. Higher = exposure spread more evenly.",
    _entropy, (Param("base", "2", "logarithm base: 2 (bits) | e (nats) | 10", ("2", "e", "10")),
               Param("normalize", "false",
                     "false | true = divide by log_b n (1 for uniform exposure) | distinct = "
                     "divide by the number of distinct recommended items (RecBole "
                     "ShannonEntropy, with base=e; not a [0, 1] scale)",
                     ("false", "true", "distinct")), OVER),
    bounds=(0.0, None), reference="Shani & Gunawardana 2011",
    example="exposure counts [1, 1, 2]: H = 1.5 bits",
), ("shannon_entropy",))


register(beyond_metric(
    "gini", "Gini index of exposure@k", "G = 1/(n-1) sum_j (2j - n - 1) p_(j), p ascending",
    "Inequality of exposure over the n catalogue items sorted by exposure ascending (Shani & Gunawardana 2011). "
    "0 = equal exposure, 1 = everything on one item; lower is better. denominator=n gives the "
    "classic Lorenz Gini (maximum (n-1)/n). Elliot reports 1 - G.",
    _gini, (Param("denominator", "n-1", "n-1 (maximum 1) | n (classic)",
                  ("n-1", "n")), OVER),
    higher_is_better=False, reference="Shani & Gunawardana 2011",
    example="exposure [0, 1, 3]: (2 * 3/4) / 2 = 0.75",
), ("gini_index",))
