"""Results per item (``per_item=``): how often each item is recommended, exposed and hit.

For the evaluated users' lists cut at ``k`` (the lists the metrics on the recommended items
read: condensed under ``unjudged="remove"``, rows with rank <= k under ``ranks="position"``),
and an item ``i`` at positions ``r`` (1-based; the rank itself under ``ranks="position"``):

=====================  ==========================================================================
column                 value
=====================  ==========================================================================
``recommended``        the number of lists holding ``i`` in their top ``k`` (exposure count)
``exposure``           ``sum 1 / log2(r + 1)`` over those lists (rank-weighted exposure, the
                       DCG discount; Singh & Joachims, KDD 2018, "Fairness of exposure")
``hits``               the lists holding ``i`` in their top ``k`` whose user holds ``i`` as
                       relevant (truth relevance ``>= rel``)
``holders``            the evaluated users holding ``i`` as relevant
``recall``             ``hits / holders`` (NaN for an item no evaluated user holds)
``truth_share``        ``holders / sum over items of holders`` (its share of the relevant truth)
=====================  ==========================================================================

Every item recommended or held appears once. Blocks of users add up (the counts are sums), so
the table is the same in memory and in blocks. ``item_groups=`` (``{item: group}``, a Series
or a table, read as user groups are: :mod:`receval.io.groups`) sums the counts per item group
(``recall = sum hits / sum holders``; items without a group are counted in the frame's
``info``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._lazy import pandas
from ..errors import InputError, PolicyError
from ..pack import Packed
from ..pack.positions import metric_lists, top_rows

#: the columns of ``EvalResult.per_item``, after ``item``
ITEM_FIELDS = ("recommended", "exposure", "hits", "holders", "recall", "truth_share")


def item_cutoff(per_item: Any, depth: int) -> int | None:
    """The cutoff ``per_item=`` asks for: ``True`` the plan's depth (0: whole lists, None),
    an integer ``k >= 1``; a ``k`` beyond the depth the metrics read is refused."""
    if per_item is True:
        return depth or None
    if isinstance(per_item, bool) or not isinstance(per_item, (int, np.integer)) \
            or per_item < 1:
        raise PolicyError(f"per_item={per_item!r}: True (the metrics' deepest cutoff) or a "
                          "cutoff k >= 1.")
    if depth and int(per_item) > depth:
        raise PolicyError(
            f"per_item={int(per_item)}: the lists are read down to rank {depth} (the deepest "
            f"cutoff of the metrics); ask for a metric at @{int(per_item)} too, or use "
            f"per_item=True or a cutoff <= {depth}.")
    return int(per_item)


class ItemTotals:
    """Per-item sums of the blocks of one evaluation (raw item ids)."""

    def __init__(self, k: int | None, rel: float = 1.0) -> None:
        self.k = k
        self.rel = rel
        self.parts: list[Any] = []

    def add(self, packed: Packed) -> None:
        """Add one packed block's lists and truth."""
        pd = pandas()
        lists = top_rows(metric_lists(packed), self.k)
        lens = np.diff(lists.indptr)
        if len(lists.items) != len(lists.rel) and len(lists.rel):
            raise RuntimeError("per_item needs the item at each position")
        start = np.repeat(lists.indptr[:-1], lens)
        pos = (-lists.scores).astype(np.int64) if lists.absolute_ranks and len(lists.scores) \
            else np.arange(len(lists.rel), dtype=np.int64) - start + 1
        keep = pos <= self.k if self.k is not None else np.ones(len(pos), dtype=bool)
        items = lists.item_vocab[lists.items[keep]] if keep.any() else lists.item_vocab[:0]
        rec = pd.DataFrame({
            "item": items, "recommended": np.ones(len(items), dtype=np.int64),
            "exposure": 1.0 / np.log2(pos[keep] + 1.0),
            "hits": (lists.rel[keep] >= self.rel).astype(np.int64)})
        held = packed.t_rel >= self.rel  # the truth rows of the block's users
        t_items = packed.truth_item_vocab[packed.t_items[held]] if held.any() \
            else packed.truth_item_vocab[:0]
        hold = pd.DataFrame({"item": t_items, "holders": np.ones(len(t_items), np.int64)})
        self.parts.append(rec.groupby("item", sort=False).sum())
        self.parts.append(hold.groupby("item", sort=False).sum())

    def merge(self, other: ItemTotals) -> None:
        self.parts += other.parts

    def frame(self) -> Any:
        """The per-item table (:data:`ITEM_FIELDS`), items by decreasing exposure count."""
        pd = pandas()
        if not self.parts:
            return pd.DataFrame(columns=list(ITEM_FIELDS)).rename_axis("item")
        total = pd.concat(self.parts).groupby(level=0, sort=False).sum(min_count=0)
        for col in ("recommended", "hits", "holders"):
            total[col] = total.get(col, 0).fillna(0).astype(np.int64) if col in total \
                else np.int64(0)
        total["exposure"] = total["exposure"].fillna(0.0) if "exposure" in total else 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            total["recall"] = np.where(total["holders"] > 0,
                                       total["hits"] / total["holders"].where(
                                           total["holders"] > 0, 1), np.nan)
        held = int(total["holders"].sum())
        total["truth_share"] = total["holders"] / held if held else np.nan
        total = total[list(ITEM_FIELDS)]
        order = np.lexsort((-total["exposure"].to_numpy(), -total["recommended"].to_numpy()))
        return total.iloc[order].rename_axis("item")


def by_item_group(per_item: Any, item_groups: Any, group_col: Any = None) -> Any:
    """The per-item table summed per item group (module docstring); ``info``: the items
    without a group."""
    from ..io.groups import read_groups

    pd = pandas()
    m = read_groups(item_groups, group_col=group_col, what="item")
    label = pd.Series(np.asarray(m.labels, dtype=object)[m.codes],
                      index=pd.Index(m.users, dtype=object))
    ids = pd.Index(per_item.index.to_numpy(dtype=object), dtype=object)
    of = label.reindex(ids).to_numpy()
    missing = pd.isna(of)
    if missing.all() and len(of):
        raise InputError("item_groups: no item of the result has a group (check that the ids "
                         "have the same type and spelling as the run's items).")
    frame = per_item.iloc[~missing].assign(group=of[~missing])
    out = frame.groupby("group", sort=False)[["recommended", "exposure", "hits",
                                              "holders"]].sum()
    out["items"] = frame.groupby("group", sort=False).size()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["recall"] = np.where(out["holders"] > 0, out["hits"] / out["holders"].where(
            out["holders"] > 0, 1), np.nan)
    out["exposure_share"] = out["exposure"] / per_item["exposure"].sum() \
        if per_item["exposure"].sum() > 0 else np.nan
    out.attrs["ungrouped_items"] = int(missing.sum())
    return out
