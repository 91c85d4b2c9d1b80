"""Group fairness of the recommender libraries over item groups (``item_groups=``).

Each item belongs to at most one group ``G_1 .. G_A`` (``evaluate(..., item_groups={item:
group})``, read once as a :class:`receval.io.groups.Membership`); items without a group count in
no group. Every value below is one number of the whole run, pooled over the evaluated users
from integer counts (or exact sums) kept per group or per raw item id, so blocks of users and
Spark give the same bits as one pass in memory. ``R_k(u)``: the top k of user u's list,
``Rel(u)``: u's truth items with relevance >= rel, ``T(u)``: u's training items (``train=``).

- ``reo`` / ``rsp`` (Zhu, Wang & Caverlee, "Measuring and mitigating item under-recommendation
  bias in personalized ranking systems", SIGIR 2020; Elliot ``fairness/reo/reo.py``,
  ``fairness/rsp/rsp.py``): per group the probability to be ranked
  ``P_a = sum_u |R_k(u) & G_a & X(u)| / sum_u |G_a & D(u)|`` with, for REO (equal opportunity),
  ``X(u) = Rel(u)``, ``D(u) = Rel(u)`` (minus ``T(u)`` with ``train_items=drop``, as Elliot), and
  for RSP (statistical parity) ``X(u)`` = every item, ``D(u)`` = the items not in ``T(u)``
  (``train_items=drop``, the paper and Elliot) or every item (``keep``). The value is
  ``std(P) / mean(P)`` over the groups (population standard deviation, numpy's ``np.std``).
- ``pop_reo`` / ``pop_rsp`` (Elliot ``bias/pop_reo/pop_reo.py``, ``bias/pop_rsp/pop_rsp.py``):
  REO / RSP over two groups from ``train=``: the short head (items by number of distinct
  training users, most popular first, taken until their popularity reaches ``head`` (0.8) of
  the distinct training (user, item) pairs; Elliot ``popularity_utils/popularity.py``) and the
  long tail (the other training items). Items absent from training are in neither group.
  Ties of popularity are ordered by raw item id (Elliot's order is that of a Python set).
- ``item_mad`` (Deldjoo, Anelli, Zamani, Bellogin & Di Noia, "A flexible framework for
  evaluating user and item fairness in recommender systems", UMUAI 2021; Elliot
  ``fairness/MAD/ItemMADranking.py``, ``ItemMADrating.py``): for every recommended item i the
  mean gain over the lists holding it in their top k, ``v_i = sum_u g(u, i) / n_i``; per group
  the mean of ``v_i`` over its recommended items, ``m_a``; the value is the mean over pairs of
  groups ``a < b`` of ``|m_a - m_b|``. ``variant=ranking``: ``g = 2^(r - rel + 1) - 1`` for a
  relevant item of relevance r (Elliot's discounted relevance), else 0; ``variant=rating``:
  ``g`` = the run's score of a relevant item, else 0. Only users with a relevant truth item
  count (Elliot's rule).
- ``bias_disparity`` (Tsintzou, Pitoura & Tsaparas, "Bias disparity in recommendation
  systems", RMSE workshop at RecSys 2018; Elliot ``fairness/BiasDisparity/BiasDisparityBR.py``,
  ``BiasDisparityBS.py``, ``BiasDisparityBD.py``): for the item group ``group``,
  ``PC = |G_a| / |items with a group|``; ``BR = (slots of the top-k lists in G_a / slots in a
  group) / PC`` (the bias of the recommendations), ``BS`` the same over the training pairs (the
  bias of the source data; ``users=train``: every user of ``train=``, Elliot; ``evaluated``:
  the evaluated users' training items), ``BD = (BR - BS) / BS``. Per user group through
  ``groups=`` of the evaluation.

Undefined values (a group without a relevant item, a single group, no slot in a group) are NaN,
and ``info["undefined"]`` says why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..io.groups import Membership
from ..kernels import exact_partials
from ..metrics.spec import MetricSpec, Param, register
from ..pack.packed import Packed
from ._context import REL, beyond_metric, context_cache, per_vocab, top_k, train_of
from ._lists import user_of_position

# -------------------------------------------------------------------------------------------------
# Inputs


def item_groups_of(context: Context, key: str) -> Membership:
    """The ``item_groups=`` of the evaluation, or an error naming the keyword."""
    groups = context.options.get("item_groups")
    if groups is None:
        raise InputError(
            f"{key} needs the items' groups: pass item_groups={{item: group}} (a Series, or a "
            "table with an item column and a group column) to evaluate(), e.g. "
            f"rv.evaluate(run, truth, [{plain(key)}], item_groups=providers).")
    if not isinstance(groups, Membership):
        from ..io.groups import read_groups
        return context.memo("item_groups", (groups,), lambda: read_groups(groups, what="item"))
    return groups


def _codes_of(m: Membership, ids: np.ndarray) -> np.ndarray:
    """Group code of each raw item id (-1: no group)."""
    if not len(ids):
        return np.zeros(0, dtype=np.int64)
    index = pd.Index(np.asarray(m.users, dtype=object))
    rows = index.get_indexer(pd.Index(np.asarray(ids, dtype=object))).astype(np.int64)
    codes = np.asarray(m.codes, dtype=np.int64)
    return np.where(rows >= 0, codes[np.maximum(rows, 0)] if len(codes) else -1, -1)


def _group_sizes(m: Membership) -> np.ndarray:
    return np.bincount(np.asarray(m.codes, dtype=np.int64), minlength=m.n_groups).astype(np.int64)


def _run_codes(context: Context, packed: Packed, m: Membership) -> np.ndarray:
    return per_vocab(context, packed, ("igroup_codes", id(m)),
                     lambda: _codes_of(m, packed.item_vocab))


def _train_rows(context: Context, packed: Packed, key: str) -> tuple[Any, np.ndarray]:
    """The training data and the train-user row of each evaluated user (-1: none)."""
    tr = train_of(context, key)
    if not len(packed.user_ids):
        return tr, np.zeros(0, dtype=np.int64)
    rows = pd.Index(np.asarray(tr.users, dtype=object)).get_indexer(
        pd.Index(np.asarray(packed.user_ids, dtype=object))).astype(np.int64)
    return tr, rows


def _train_group_counts(tr: Any, rows: np.ndarray, item_codes: np.ndarray, n: int) -> np.ndarray:
    """(users x groups) counts of each listed user's distinct training items per group."""
    out = np.zeros((len(rows), n), dtype=np.int64)
    ok = np.flatnonzero(rows >= 0)
    if not len(ok) or not n:
        return out
    starts, ends = tr.indptr[rows[ok]], tr.indptr[rows[ok] + 1]
    lens = ends - starts
    from ._lists import ranges
    hist = tr.hist[ranges(starts, lens)]
    who = np.repeat(ok, lens)
    g = item_codes[hist] if len(hist) else np.zeros(0, dtype=np.int64)
    keep = g >= 0
    np.add.at(out, (who[keep], g[keep]), 1)
    return out


def _relevant_truth(packed: Packed, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """(user row, raw item id) of every relevant truth item of the evaluated users."""
    ok = packed.t_rel >= rel
    user = user_of_position(packed.t_indptr)[ok]
    items = packed.truth_item_vocab[packed.t_items[ok]] if ok.any() else \
        np.zeros(0, dtype=object)
    return user, items


# -------------------------------------------------------------------------------------------------
# Pooled states


def _ratio_std_mean(p: np.ndarray) -> float:
    mean = float(np.mean(p))
    return float(np.std(p)) / mean


@dataclass
class RankedShare:
    """Per item group: ``num`` ranked (hits) and ``den`` candidates, summed over users; the
    value is REO / RSP's ``std(P) / mean(P)`` of ``P = num / den`` (integer counts: exact)."""

    num: np.ndarray
    den: np.ndarray
    labels: tuple[str, ...]
    empty: str = "nan"

    def merge(self, other: RankedShare) -> RankedShare:
        return RankedShare(self.num + other.num, self.den + other.den, self.labels, self.empty)

    def why(self) -> str:
        kept = int((self.den > 0).sum()) if self.empty == "drop" else len(self.labels)
        if kept < 2:
            return (f"{kept} item group{'' if self.empty == 'nan' else ' with candidates'}: "
                    "a dispersion over groups needs at least two")
        empty = [lab for lab, d in zip(self.labels, self.den, strict=True) if d <= 0]
        if empty and self.empty == "nan":
            return (f"item group(s) {empty[:5]} have no candidate item (denominator 0), so "
                    "their probability to be ranked is undefined (empty=drop leaves them out)")
        if not self.num.any():
            return "no group has a ranked item: the mean probability is 0"
        return ""

    def value(self) -> float:
        if self.why():
            return float("nan")
        ok = self.den > 0
        return _ratio_std_mean(self.num[ok] / self.den[ok])

    def info(self) -> dict[str, Any]:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = self.num / np.where(self.den > 0, self.den, 1)
        out: dict[str, Any] = {
            "groups": list(self.labels), "ranked": self.num.tolist(),
            "candidates": self.den.tolist(),
            "probability": [float(x) if d > 0 else float("nan")
                            for x, d in zip(p, self.den, strict=True)]}
        if self.why():
            out["undefined"] = self.why()
        return out


@dataclass
class ItemGains:
    """Per raw item id: lists holding it (``count``) and the exact partials of its gains; the
    item groups' means of the items' mean gains give ItemMAD."""

    count: dict[Any, int]
    gains: dict[Any, list[float]]
    group: dict[Any, int]
    labels: tuple[str, ...]

    def merge(self, other: ItemGains) -> ItemGains:
        count = dict(self.count)
        gains = {i: list(p) for i, p in self.gains.items()}
        group = dict(self.group)
        for i, c in other.count.items():
            count[i] = count.get(i, 0) + c
            gains[i] = gains.get(i, []) + other.gains[i]
            group[i] = other.group[i]
        return ItemGains(count, gains, group, self.labels)

    def means(self) -> list[float]:
        sums: list[list[float]] = [[] for _ in self.labels]
        for item in sorted(self.count, key=repr):
            sums[self.group[item]].append(math.fsum(self.gains[item]) / self.count[item])
        return [math.fsum(s) / len(s) if s else float("nan") for s in sums]

    def why(self) -> str:
        if len(self.labels) < 2:
            return (f"{len(self.labels)} item group: a difference between groups needs at "
                    "least two")
        m = self.means()
        empty = [lab for lab, x in zip(self.labels, m, strict=True) if math.isnan(x)]
        if empty:
            return f"item group(s) {empty[:5]} have no recommended item"
        return ""

    def value(self) -> float:
        if self.why():
            return float("nan")
        m = self.means()
        diffs = [abs(m[a] - m[b]) for a in range(len(m)) for b in range(a + 1, len(m))]
        return math.fsum(diffs) / len(diffs)

    def info(self) -> dict[str, Any]:
        out: dict[str, Any] = {"groups": list(self.labels), "group_means": self.means(),
                               "items": len(self.count)}
        if self.why():
            out["undefined"] = self.why()
        return out


@dataclass
class GroupSlots:
    """Bias disparity's counts: slots of the top-k lists per item group (summed over users), the
    training pairs per group (``source``; ``source_fixed``: counted once over every training
    user, the same in every block), and the group sizes."""

    slots: np.ndarray
    source: np.ndarray
    sizes: np.ndarray
    labels: tuple[str, ...]
    group: int
    which: str
    source_fixed: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def merge(self, other: GroupSlots) -> GroupSlots:
        src = self.source if self.source_fixed else self.source + other.source
        return GroupSlots(self.slots + other.slots, src, self.sizes, self.labels, self.group,
                          self.which, self.source_fixed)

    def _bias(self, counts: np.ndarray) -> float:
        total = int(counts.sum())
        pc = self.sizes[self.group] / self.sizes.sum()
        return float(counts[self.group] / total / pc) if total else float("nan")

    def parts(self) -> tuple[float, float]:
        return self._bias(self.slots), self._bias(self.source)

    def why(self) -> str:
        br, bs = self.parts()
        if self.which in ("br", "bd") and math.isnan(br):
            return "no recommended item has a group"
        if self.which in ("bs", "bd") and math.isnan(bs):
            return "no training item of the users has a group"
        if self.which == "bd" and bs == 0:
            return f"BS = 0: group {self.labels[self.group]!r} has no training item"
        return ""

    def value(self) -> float:
        br, bs = self.parts()
        if self.why():
            return float("nan")
        return {"br": br, "bs": bs}.get(self.which, (br - bs) / bs if bs else float("nan"))

    def info(self) -> dict[str, Any]:
        br, bs = self.parts()
        out: dict[str, Any] = {"group": self.labels[self.group], "br": br, "bs": bs,
                               "slots": self.slots.tolist(), "source": self.source.tolist(),
                               "group_sizes": self.sizes.tolist()}
        if self.why():
            out["undefined"] = self.why()
        return out


# -------------------------------------------------------------------------------------------------
# Families


TRAIN_ITEMS = Param("train_items", "keep",
                    "relevant items the user has in train=: keep (counted as candidates) | drop "
                    "(Elliot's REO: left out of the denominator; needs train=)", ("keep", "drop"))
TRAIN_ITEMS_RSP = Param("train_items", "drop",
                        "candidates of a group: drop = the group's items not in the user's "
                        "train= history (the paper, Elliot; needs train=) | keep = every item of "
                        "the group", ("drop", "keep"))
EMPTY = Param("empty", "nan", "an item group without a candidate item: nan (the value is "
              "undefined, Elliot's 0/0) | drop (left out of the groups, WarpRec)",
              ("nan", "drop"))
HEAD_SHARE = Param("head", 0.8, "share of the distinct training (user, item) pairs that the "
                   "short head's popularity reaches (Elliot's pop_ratio)", kind=float, low=0.0,
                   high=1.0, low_open=True)
HEAD_RULE = Param("head_rule", "elliot", "the short head stops at the item whose cumulative "
                  "popularity reaches head x pairs (elliot) | exceeds it (warprec)",
                  ("elliot", "warprec"))


def _nan_users(packed: Packed) -> np.ndarray:
    return np.full(len(packed.user_ids), np.nan)


def _hits(spec: MetricSpec, packed: Packed, codes: np.ndarray, n: int, relevant: bool
          ) -> np.ndarray:
    indptr, pos = top_k(packed, spec.k)
    g = codes[packed.items[pos]] if len(pos) else np.zeros(0, dtype=np.int64)
    keep = g >= 0
    if relevant:
        keep &= packed.rel[pos] >= float(spec.get("rel"))
    return np.bincount(g[keep], minlength=n).astype(np.int64)


def _rel_den(spec: MetricSpec, packed: Packed, context: Context, m: Membership,
             codes_of_ids) -> np.ndarray:
    user, ids = _relevant_truth(packed, float(spec.get("rel")))
    g = codes_of_ids(ids)
    n = m.n_groups
    if spec.get("train_items") == "drop" and len(ids):
        tr, rows = _train_rows(context, packed, spec.key)
        titem = pd.Index(np.asarray(tr.items, dtype=object)).get_indexer(
            pd.Index(np.asarray(ids, dtype=object)))
        in_train = np.zeros(len(ids), dtype=bool)
        r = rows[user]
        ok = (r >= 0) & (titem >= 0)
        for j in np.flatnonzero(ok):  # membership of the item in the user's sorted history
            h = tr.hist[tr.indptr[r[j]]:tr.indptr[r[j] + 1]]
            k = np.searchsorted(h, titem[j])
            in_train[j] = k < len(h) and h[k] == titem[j]
        g = np.where(in_train, -1, g)
    return np.bincount(g[g >= 0], minlength=n).astype(np.int64)


def _reo_state(spec: MetricSpec, packed: Packed, context: Context, m: Membership,
               codes: np.ndarray, codes_of_ids) -> RankedShare:
    num = _hits(spec, packed, codes, m.n_groups, True)
    den = _rel_den(spec, packed, context, m, codes_of_ids)
    return RankedShare(num, den, m.labels, spec.get("empty"))


def _rsp_state(spec: MetricSpec, packed: Packed, context: Context, m: Membership,
               codes: np.ndarray, sizes: np.ndarray, train_codes) -> RankedShare:
    num = _hits(spec, packed, codes, m.n_groups, False)
    n_users = len(packed.user_ids)
    den = sizes * n_users
    if spec.get("train_items") == "drop":
        tr, rows = _train_rows(context, packed, spec.key)
        den = den - _train_group_counts(tr, rows, train_codes(tr), m.n_groups).sum(axis=0)
    return RankedShare(num, den.astype(np.int64), m.labels, spec.get("empty"))


def _given_groups(spec: MetricSpec, packed: Packed, context: Context
                  ) -> tuple[Membership, np.ndarray]:
    m = item_groups_of(context, spec.key)
    return m, _run_codes(context, packed, m)


def _reo(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    m, codes = _given_groups(spec, packed, context)
    state = _reo_state(spec, packed, context, m, codes, lambda ids: _codes_of(m, ids))
    return MetricValues(_nan_users(packed), None, {}, pooled=state)


def _train_codes_given(context: Context, m: Membership):
    def make(tr: Any) -> np.ndarray:
        return context.memo("igroup_train_codes", (tr, m), lambda: _codes_of(m, tr.items))
    return make


def _rsp(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    m, codes = _given_groups(spec, packed, context)
    state = _rsp_state(spec, packed, context, m, codes, _group_sizes(m),
                       _train_codes_given(context, m))
    return MetricValues(_nan_users(packed), None, {}, pooled=state)


def short_head(item_users: np.ndarray, item_ids: np.ndarray, pairs: int, head: float,
               strict: bool = False) -> np.ndarray:
    """Mask of the short-head training items (Elliot ``Popularity.get_short_head``): by
    popularity descending (ties: raw id ascending), items are taken until their popularity sum
    reaches ``head * pairs`` (``strict``: exceeds it, WarpRec ``compute_head_tail`` in
    ``evaluation/metrics/base_metric.py``).

    >>> short_head(np.array([1, 5, 3, 1]), np.array(["a", "b", "c", "d"]), 10, 0.8).tolist()
    [False, True, True, False]
    """
    pop = np.asarray(item_users, dtype=np.int64)
    order_ids = np.argsort(np.asarray(item_ids, dtype=object), kind="stable")
    order = order_ids[np.argsort(-pop[order_ids], kind="stable")]
    mask = np.zeros(len(pop), dtype=bool)
    limit = pairs * head
    for i in order:  # integer popularities against a float limit, as Elliot subtracts
        mask[i] = True
        limit -= int(pop[i])
        if limit < 0 or (limit == 0 and not strict):
            break
    return mask


def _pop_membership(context: Context, spec: MetricSpec) -> Membership:
    tr = train_of(context, spec.key)
    cache = context_cache(context)
    strict = spec.get("head_rule") == "warprec"
    k = ("pop_groups", float(spec.get("head")), strict)
    entry = cache.get(k)
    if entry is None or entry[0] is not tr:
        seen = tr.item_users > 0
        ids = np.asarray(tr.items, dtype=object)[seen]
        head = short_head(tr.item_users[seen], ids, int(tr.item_users.sum()),
                          float(spec.get("head")), strict)
        entry = (tr, Membership(ids, np.where(head, 0, 1).astype(np.int64),
                                ("short head", "long tail")))
        cache[k] = entry
    return entry[1]


def _pop_reo(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    m = _pop_membership(context, spec)
    codes = _codes_of(m, packed.item_vocab)
    state = _reo_state(spec, packed, context, m, codes, lambda ids: _codes_of(m, ids))
    return MetricValues(_nan_users(packed), None, {}, pooled=state)


def _pop_rsp(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    m = _pop_membership(context, spec)
    codes = _codes_of(m, packed.item_vocab)
    state = _rsp_state(spec, packed, context, m, codes, _group_sizes(m),
                       lambda tr: _codes_of(m, tr.items))
    return MetricValues(_nan_users(packed), None, {}, pooled=state)


def _item_mad(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    m, codes = _given_groups(spec, packed, context)
    rel = float(spec.get("rel"))
    indptr, pos = top_k(packed, spec.k)
    user = user_of_position(indptr)
    has_rel = np.zeros(len(packed.user_ids), dtype=bool)
    t_user = user_of_position(packed.t_indptr)
    has_rel[t_user[packed.t_rel >= rel]] = True
    if spec.get("users") == "relevant":
        pos = pos[has_rel[user]]
    if spec.get("count") == "hits":
        pos = pos[packed.rel[pos] >= rel]
    r = packed.rel[pos]
    hit = r >= rel
    shift = rel if spec.get("gain") == "elliot" else 0.0
    if spec.get("variant") == "ranking":
        gain = np.where(hit, np.exp2(r - shift + 1.0) - 1.0, 0.0)
    else:
        gain = np.where(hit, packed.scores[pos], 0.0)
    item = packed.items[pos]
    g = codes[item] if len(item) else np.zeros(0, dtype=np.int64)
    order = np.argsort(item, kind="stable")
    item, gain, g = item[order], gain[order], g[order]
    uniq, start, count = np.unique(item, return_index=True, return_counts=True)
    count_d: dict[Any, int] = {}
    gains_d: dict[Any, list[float]] = {}
    group_d: dict[Any, int] = {}
    for code, s, c in zip(uniq.tolist(), start.tolist(), count.tolist(), strict=True):
        if g[s] < 0:
            continue
        raw = packed.item_vocab[code]
        raw = raw.item() if hasattr(raw, "item") else raw
        count_d[raw] = int(c)
        gains_d[raw] = list(exact_partials(np.ascontiguousarray(gain[s:s + c])))
        group_d[raw] = int(g[s])
    state = ItemGains(count_d, gains_d, group_d, m.labels)
    return MetricValues(_nan_users(packed), None, {}, pooled=state)


def _bias_disparity(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    m, codes = _given_groups(spec, packed, context)
    label = spec.get("group")
    if label is None or str(label) not in m.labels:
        raise InputError(
            f"{spec.key}: name the item group with group=, one of {plain(list(m.labels)[:20])}, "
            f"e.g. bias_disparity@10(group={plain(m.labels[0] if m.labels else 'A')}).")
    which = spec.get("measure")
    slots = _hits(spec, packed, codes, m.n_groups, False)
    source = np.zeros(m.n_groups, dtype=np.int64)
    fixed = False
    if which in ("bs", "bd"):
        tr = train_of(context, spec.key)
        tcodes = _train_codes_given(context, m)(tr)
        if spec.get("users") == "train":
            fixed = True
            hist = tcodes[tr.hist] if len(tr.hist) else np.zeros(0, dtype=np.int64)
            source = np.bincount(hist[hist >= 0], minlength=m.n_groups).astype(np.int64)
        else:
            _, rows = _train_rows(context, packed, spec.key)
            source = _train_group_counts(tr, rows, tcodes, m.n_groups).sum(axis=0)
    state = GroupSlots(slots, source, _group_sizes(m), m.labels, m.labels.index(str(label)),
                       which, fixed)
    return MetricValues(_nan_users(packed), None, {}, pooled=state)


_GROUPS_DOC = (" Item groups come from evaluate(..., item_groups={item: group}); one value of "
               "the whole run (no per-user values), pooled from exact counts over the users, "
               "so blocks and Spark give the same bits; per user group with groups=.")


def _def(name: str, title: str, formula: str, doc: str, compute, params, **kw):
    return beyond_metric(name, title, formula, doc + _GROUPS_DOC, compute, params,
                         aggregate="pooled", **kw)


register(_def(
    "reo", "Ranking-based equal opportunity (REO)@k",
    "std_a(P_a) / mean_a(P_a), P_a = sum_u |R_k(u) & Rel(u) & G_a| / sum_u |Rel(u) & G_a|",
    "Zhu, Wang & Caverlee, SIGIR 2020; Elliot fairness/reo/reo.py. Dispersion over the item "
    "groups of the probability that a relevant item of the group is ranked in the top k "
    "(population std over mean; 0: equal opportunity). train_items=drop leaves out of the "
    "denominator the relevant items the user has in train= (Elliot).",
    _reo, (REL, TRAIN_ITEMS, EMPTY), higher_is_better=False, bounds=(0.0, None),
    reference="Zhu, Wang & Caverlee, SIGIR 2020; Elliot REO",
    example="groups A, B; hits 1 of 2 relevant A, 1 of 1 relevant B: P = (1/2, 1): 1/3"))

register(_def(
    "rsp", "Ranking-based statistical parity (RSP)@k",
    "std_a(P_a) / mean_a(P_a), P_a = sum_u |R_k(u) & G_a| / sum_u |G_a - T(u)|",
    "Zhu, Wang & Caverlee, SIGIR 2020; Elliot fairness/rsp/rsp.py. Dispersion over the item "
    "groups of the probability that an item of the group (not in the user's training items, "
    "train_items=drop, which needs train=) is ranked in the top k.",
    _rsp, (TRAIN_ITEMS_RSP, EMPTY), higher_is_better=False, bounds=(0.0, None),
    reference="Zhu, Wang & Caverlee, SIGIR 2020; Elliot RSP",
    example="one user, groups A = {a, b}, B = {c}, top 1 = a, keep: P = (1/2, 0): 1"))

register(_def(
    "pop_reo", "Popularity REO (short head vs long tail)@k",
    "REO over G = (short head, long tail) of train=",
    "Elliot bias/pop_reo/pop_reo.py: REO with two groups, the short head (most popular "
    "training items, by distinct users, until their popularity reaches head of the distinct "
    "training pairs; ties by raw item id) and the long tail (the other training items).",
    _pop_reo, (REL, TRAIN_ITEMS, HEAD_SHARE, HEAD_RULE, EMPTY), higher_is_better=False, bounds=(0.0, None),
    needs=("train",), reference="Elliot PopREO; Zhu, Wang & Caverlee, SIGIR 2020"))

register(_def(
    "pop_rsp", "Popularity RSP (short head vs long tail)@k",
    "RSP over G = (short head, long tail) of train=",
    "Elliot bias/pop_rsp/pop_rsp.py: RSP with the short head and long tail of train= as the "
    "two groups (see pop_reo).",
    _pop_rsp, (TRAIN_ITEMS_RSP, HEAD_SHARE, HEAD_RULE, EMPTY), higher_is_better=False, bounds=(0.0, None),
    needs=("train",), reference="Elliot PopRSP; Zhu, Wang & Caverlee, SIGIR 2020"))

register(_def(
    "item_mad", "Item MAD (mean absolute difference of item groups)@k",
    "mean_{a<b} |m_a - m_b|, m_a = mean_{i in G_a recommended} sum_u g(u, i) / n_i",
    "Deldjoo et al., UMUAI 2021; Elliot fairness/MAD/ItemMADranking.py (variant=ranking: gain "
    "2^(r - rel + 1) - 1 of a relevant item) and ItemMADrating.py (variant=rating: the run's "
    "score of a relevant item); 0 otherwise. Users without a relevant item are left out.",
    _item_mad, (REL, Param("variant", "ranking", "ranking (relevance gain) | rating (the "
                           "run's score of relevant items)", ("ranking", "rating")),
                Param("gain", "elliot", "ranking gain of a relevant item of relevance r: elliot "
                      "(2^(r - rel + 1) - 1) | warprec (2^(r + 1) - 1)", ("elliot", "warprec")),
                Param("users", "relevant", "lists counted: relevant (users with a relevant "
                      "item, Elliot) | all (every evaluated user, WarpRec)",
                      ("relevant", "all")),
                Param("count", "lists", "n_i: lists holding i in their top k (Elliot) | hits "
                      "(lists where i is relevant; WarpRec ItemMADrating)", ("lists", "hits"))),
    higher_is_better=False, bounds=(0.0, None),
    reference="Deldjoo et al., UMUAI 2021; Elliot ItemMADranking / ItemMADrating",
    example="A = {a}, B = {b}; a relevant (r = 1) in 1 of 2 lists, b never: |1/2 - 0| = 1/2"))

register(_def(
    "bias_disparity", "Bias disparity (BD / BR / BS) of an item group@k",
    "BR = (slots in G_a / slots) / PC_a, BS = (training pairs in G_a / pairs) / PC_a, "
    "BD = (BR - BS) / BS, PC_a = |G_a| / |items with a group|",
    "Tsintzou, Pitoura & Tsaparas 2018; Elliot fairness/BiasDisparity/BiasDisparityBR.py (the "
    "recommendations' bias), BiasDisparityBS.py (the source data's bias), BiasDisparityBD.py "
    "(their relative difference) for the item group named by group=. users=train counts every "
    "training user (Elliot); users=evaluated the evaluated users' training items.",
    _bias_disparity, (
        Param("measure", "bd", "bd | br | bs", ("bd", "br", "bs")),
        Param("group", None, "the item group's label (required)"),
        Param("users", "train", "BS over: train (every user of train=, Elliot) | evaluated",
              ("train", "evaluated"))),
    bounds=(-1.0, None), higher_is_better=False, reference="Tsintzou et al. 2018; Elliot BiasDisparity*",
    example="PC_A = 1/2; 3 of 4 slots in A: BR = 3/2"))
