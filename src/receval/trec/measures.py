"""trec_eval measures: names, parameters, and values computed on receval's packed arrays.

Each trec_eval measure is either mapped to a receval metric with matching conventions (computed
by the compiled kernel) or computed here in numpy from the same :class:`~receval.pack.Packed`
arrays. Conventions of trec_eval 9.x reproduced here:

- ordering: score as a 32-bit float descending, then docno descending (``ties="trec_eval"``);
- relevant means ``rel >= l`` (``-l``, default 1); qrels lines with ``rel < 0`` are "in the pool
  but unjudged": neither relevant nor judged non-relevant (they matter to ``infAP`` and
  ``relstring`` only);
- per query, only queries in both qrels and run are evaluated; ``all`` is the mean over them, or
  over every qrels query with ``-c`` (missing queries count 0; ``gm_*`` add ``log(1e-5)``);
- ``-M N`` keeps the first N documents of each ranked list;
- counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``) are summed.

=====================  ===========================================  ==========================
trec_eval              definition (per query)                       receval
=====================  ===========================================  ==========================
map                    (1/R) sum_{relevant retrieved r} P@rank(r)    ``map(rel=l)``
map_cut.k              same, ranks <= k                            ``map@k(rel=l)``
P.k                    h_k / k                                     ``precision@k(rel=l)``
recall.k               h_k / R                                     ``recall@k(rel=l)``
relative_P.k           h_k / min(k, R)                             ``precision@k(denominator=min_k_rel)``
success.k              [h_k > 0]                                   ``hit_rate@k(rel=l)``
recip_rank             1 / rank of the first relevant document     ``mrr(rel=l)``
Rprec                  h_R / R                                     ``r_precision(rel=l)``
bpref                  see receval ``bpref``                       ``bpref(rel=l)``
ndcg / ndcg_cut.k      DCG / ideal DCG, gain = relevance level     ``ndcg`` / ``ndcg@k``
ndcg.g1=v1,...         same with gains per level                   numpy
gm_map, gm_bpref       exp(mean(log(max(x, 1e-5))))                numpy
iprec_at_recall.p      max precision at ranks >= rank of the       ``iprec(recall=p)``
                       c-th relevant document, c = floor(p R + 0.9)
11pt_avg               mean of iprec_at_recall at the levels        ``iprec(recall=p)``
                                                                    (``iprec_avg`` at the
                                                                    default 11 levels)
Rprec_mult.x           precision at floor(x R + 0.9)                numpy
infAP                  inferred AP (Yilmaz & Aslam, CIKM 2006)      ``infap(rel=l)``
utility.a,b,c,d        a h + b (ret - h) + c (R - h) + d (N + h - ret - R)   numpy
set_P, set_recall,     h/ret, h/R, h/min(ret, R),                   numpy (= receval
set_relative_P, set_F  2 P R / (P + R)                              precision, recall, f1
                                                                    without a cutoff)
set_map                h^2 / (ret R)                               ``set_map(rel=l)``
relstring.n            relevance codes of the first n documents    numpy
=====================  ===========================================  ==========================

binG, G, ndcg_rel, Rndcg  trec_eval's experimental gain measures        numpy

Not supported (an error names them): measures outside all_trec (prefs, yaap, rbp, ...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import MetricError, plain, suggest
from ..metrics.spec import MAX_CUTOFF

MIN_GEO_MEAN = 1e-5
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class MeasureDef:
    """One trec_eval measure: parameter kind, default parameters, how 'all' is summarised."""

    name: str
    kind: str            # "cut_long" | "cut_double" | "params" | "single" | "count" | "string"
    default: tuple = ()
    summary: str = "mean"  # "mean" | "sum" | "gm" | "count" | "none" | "runid"
    per_query: bool = True
    doc: str = ""


# in trec_eval's table order (the output order)
TABLE: tuple[MeasureDef, ...] = (
    MeasureDef("runid", "string", summary="runid", per_query=False, doc="run tag"),
    MeasureDef("num_q", "count", summary="count", per_query=False, doc="number of queries"),
    MeasureDef("num_ret", "count", summary="sum", doc="documents retrieved"),
    MeasureDef("num_rel", "count", summary="sum", doc="relevant documents (rel >= l)"),
    MeasureDef("num_rel_ret", "count", summary="sum", doc="relevant documents retrieved"),
    MeasureDef("map", "single", doc="mean average precision"),
    MeasureDef("gm_map", "single", summary="gm", per_query=False, doc="geometric mean of AP"),
    MeasureDef("Rprec", "single", doc="precision at rank R"),
    MeasureDef("bpref", "single", doc="binary preference"),
    MeasureDef("recip_rank", "single", doc="reciprocal rank of the first relevant document"),
    MeasureDef("iprec_at_recall", "cut_double", tuple(i / 10 for i in range(11)),
               doc="interpolated precision at recall levels"),
    MeasureDef("P", "cut_long", CUTS, doc="precision at k"),
    MeasureDef("relstring", "params", ("10",), summary="none",
               doc="relevance codes of the first n documents (per query only)"),
    MeasureDef("recall", "cut_long", CUTS, doc="recall at k"),
    MeasureDef("infAP", "single", doc="inferred average precision"),
    MeasureDef("gm_bpref", "single", summary="gm", per_query=False, doc="geometric mean of bpref"),
    MeasureDef("Rprec_mult", "cut_double", tuple(i / 10 for i in range(2, 21, 2)),
               doc="precision at multiples of R"),
    MeasureDef("utility", "params", ("1", "-1", "0", "0"), doc="set utility a h + b (ret-h) + ..."),
    MeasureDef("11pt_avg", "params", tuple(f"{i / 10}" for i in range(11)),
               doc="mean interpolated precision at 11 recall levels"),
    MeasureDef("binG", "single", doc="binary G: mean over relevant of 1/log2(2 + nonrel above)"),
    MeasureDef("G", "params", (), doc="normalized gain G (trec_eval, experimental)"),
    MeasureDef("ndcg", "params", (), doc="nDCG over the whole list, gain = relevance level"),
    MeasureDef("ndcg_rel", "params", (), doc="nDCG averaged over the relevant documents"),
    MeasureDef("Rndcg", "params", (), doc="nDCG averaged at the R-level boundaries"),
    MeasureDef("ndcg_cut", "cut_long", CUTS, doc="nDCG at k"),
    MeasureDef("map_cut", "cut_long", CUTS, doc="AP over the top k"),
    MeasureDef("relative_P", "cut_long", CUTS, doc="h_k / min(k, R)"),
    MeasureDef("success", "cut_long", (1, 5, 10), doc="a relevant document in the top k"),
    MeasureDef("set_P", "single", doc="relevant retrieved / retrieved"),
    MeasureDef("set_relative_P", "single", doc="relevant retrieved / min(retrieved, R)"),
    MeasureDef("set_recall", "single", doc="relevant retrieved / R"),
    MeasureDef("set_map", "single", doc="(relevant retrieved)^2 / (retrieved R)"),
    MeasureDef("set_F", "single", doc="F1 of set precision and set recall"),
    MeasureDef("num_nonrel_judged_ret", "count", summary="sum",
               doc="judged non-relevant documents retrieved"),
)
BY_NAME = {m.name: m for m in TABLE}
UNSUPPORTED: tuple[str, ...] = ()
ORDER = {m.name: i for i, m in enumerate(TABLE)}
SETS = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": tuple(m.name for m in TABLE),
}


@dataclass(frozen=True)
class Measure:
    """A requested measure with its parameters (``params``: numbers, or the raw text)."""

    defn: MeasureDef
    params: tuple = ()
    text: str | None = None  # parameter text as typed, None = defaults

    @property
    def name(self) -> str:
        return self.defn.name

    def columns(self) -> list[str]:
        """Printed names of the values this measure produces, in output order."""
        d = self.defn
        if d.kind == "cut_long":
            return [f"{d.name}_{int(c)}" for c in self.params]
        if d.kind == "cut_double":
            return [f"{d.name}_{c:.2f}" for c in self.params]
        if d.kind == "params" and self.text is not None:
            return [f"{d.name}_{self.text}"]
        return [d.name]


def _parse_params(defn: MeasureDef, text: str | None) -> Measure:
    if text is None or text == "":
        if defn.kind == "cut_long":
            return Measure(defn, tuple(int(c) for c in defn.default))
        if defn.kind == "cut_double":
            return Measure(defn, tuple(float(c) for c in defn.default))
        return Measure(defn, defn.default)
    parts = [p for p in text.split(",") if p != ""]
    if defn.kind in ("cut_long", "cut_double"):
        vals = []
        for p in parts:
            try:
                v = float(p)
            except ValueError:
                v = None
            if v is None or not math.isfinite(v):  # five, nan, inf, 1e400
                raise MetricError(
                    f"trec measure {defn.name}.{text}: parameter {plain(p)} is not a "
                    f"{'number' if v is None else 'finite number'}; write e.g. {defn.name}.5,10."
                ) from None
            if defn.kind == "cut_long":
                if not 1 <= int(v) <= MAX_CUTOFF:  # trec_eval truncates 2.5 to 2 (atol)
                    raise MetricError(
                        f"trec measure {defn.name}.{text}: cutoffs must be positive integers up "
                        f"to {MAX_CUTOFF}, got {plain(p)}."
                    )
                vals.append(int(v))
            else:
                vals.append(v)
        return Measure(defn, tuple(sorted(set(vals))))
    if defn.kind != "params":
        raise MetricError(f"trec measure {defn.name} takes no parameters, got {defn.name}.{text}.")
    return Measure(defn, tuple(parts), text)


def parse_measures(names: list[str]) -> list[Measure]:
    """Parse trec_eval ``-m`` values (``map``, ``P.5,10``, ``all_trec``...) in output order.

    A measure named twice keeps its last parameters (trec_eval does the same).
    """
    chosen: dict[str, Measure] = {}
    explicit: set[str] = set()
    for raw in names or ["official"]:
        for token in [raw]:
            base, _, text = token.partition(".")
            if base in SETS:
                for n in SETS[base]:
                    if n in UNSUPPORTED:
                        continue
                    chosen.setdefault(n, _parse_params(BY_NAME[n], None))
                continue
            if base not in BY_NAME:
                valid = sorted(BY_NAME) + sorted(SETS)
                raise MetricError(
                    f"unknown trec_eval measure {plain(token)}." + suggest(base, valid)
                    + f" Supported: {', '.join(n for n in BY_NAME if n not in UNSUPPORTED)}; "
                    "sets: official, all_trec."
                )
            if base in UNSUPPORTED:
                raise MetricError(
                    f"trec_eval measure {plain(base)} is not supported by receval yet (unsupported: "
                    f"{', '.join(UNSUPPORTED)}); leave it out."
                )
            chosen[base] = _parse_params(BY_NAME[base], text or None)
            explicit.add(base)
    return sorted(chosen.values(), key=lambda m: ORDER[m.name])


# ---- computation --------------------------------------------------------------------------
@dataclass
class QueryArrays:
    """Per-position and per-query arrays of one run (queries = packed users)."""

    qids: np.ndarray
    indptr: np.ndarray
    rel: np.ndarray          # relevance level at each position (0 when not judged)
    code: np.ndarray         # trec_eval code: level >= 0 judged, -1 not in qrels, -2 unjudged
    t_indptr: np.ndarray
    t_rel: np.ndarray        # judged (>= 0) qrels levels per query
    level: float
    seg: np.ndarray = field(init=False)
    pos: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        n = len(self.qids)
        lens = np.diff(self.indptr)
        self.seg = np.repeat(np.arange(n, dtype=np.int64), lens)
        self.pos = np.arange(len(self.rel), dtype=np.int64) - self.indptr[self.seg]

    @property
    def n(self) -> int:
        return len(self.qids)

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.indptr).astype(np.float64)

    @property
    def isrel(self) -> np.ndarray:
        return (self.code >= 0) & (self.rel >= self.level)

    def seg_sum(self, x: np.ndarray) -> np.ndarray:
        return np.bincount(self.seg, weights=x.astype(np.float64), minlength=self.n)

    @property
    def num_rel(self) -> np.ndarray:
        tseg = np.repeat(np.arange(self.n), np.diff(self.t_indptr))
        return np.bincount(tseg, weights=(self.t_rel >= self.level).astype(np.float64),
                           minlength=self.n)

    @property
    def num_nonrel(self) -> np.ndarray:
        tseg = np.repeat(np.arange(self.n), np.diff(self.t_indptr))
        return np.bincount(tseg, weights=(self.t_rel < self.level).astype(np.float64),
                           minlength=self.n)

    def cumhits(self) -> np.ndarray:
        """Relevant documents at or above each position, per query."""
        c = np.cumsum(self.isrel.astype(np.int64))
        start = np.concatenate([[0], c])[self.indptr[:-1]]
        return c - start[self.seg]

    def hits_at(self, k: np.ndarray) -> np.ndarray:
        """Relevant documents in the top k[q] of each query (k may exceed the list)."""
        c = np.concatenate([[0], np.cumsum(self.isrel.astype(np.int64))])
        lens = np.diff(self.indptr)
        end = self.indptr[:-1] + np.minimum(np.maximum(k, 0), lens)
        return (c[end] - c[self.indptr[:-1]]).astype(np.float64)


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(a, b).shape, dtype=np.float64)
    np.divide(a, b, out=out, where=np.asarray(b) != 0)
    return out


def _ndcg_gains(q: QueryArrays, gains: dict[int, float]) -> np.ndarray:
    """nDCG over the whole list with a gain per relevance level (trec_eval ``ndcg.l=g,...``)."""
    def gain_of(levels: np.ndarray) -> np.ndarray:
        out = levels.astype(np.float64).copy()
        for lev, g in gains.items():
            out[levels == lev] = g
        return out

    g_pos = np.where(q.code >= 0, gain_of(np.where(q.code >= 0, q.rel, 0)), 0.0)
    disc = 1.0 / np.log2(q.pos + 2.0)
    dcg = q.seg_sum(g_pos * disc)
    # ideal: positive gains of all judged documents, sorted descending
    g_t = gain_of(q.t_rel)
    tseg = np.repeat(np.arange(q.n), np.diff(q.t_indptr))
    keep = g_t > 0
    g_t, tseg = g_t[keep], tseg[keep]
    order = np.lexsort((-g_t, tseg))
    g_t, tseg = g_t[order], tseg[order]
    cnt = np.bincount(tseg, minlength=q.n)
    start = np.concatenate([[0], np.cumsum(cnt)])[:-1]
    tpos = np.arange(len(g_t)) - start[tseg]
    idcg = np.bincount(tseg, weights=g_t / np.log2(tpos + 2.0), minlength=q.n)
    return _div(dcg, idcg)


def _gain_arrays(q: QueryArrays, gains: dict[int, float]) -> tuple[np.ndarray, ...]:
    """Gain at each position, the ideal gain at each position (0 past the ideal list), the
    ideal gains per query (positive gains of judged documents, descending) and its CSR."""
    def gain_of(levels: np.ndarray) -> np.ndarray:
        out = levels.astype(np.float64).copy()
        for lev, g in gains.items():
            out[levels == lev] = g
        return out

    g_pos = np.where(q.code >= 0, gain_of(np.where(q.code >= 0, q.rel, 0)), 0.0)
    g_t = gain_of(q.t_rel)
    tseg = np.repeat(np.arange(q.n), np.diff(q.t_indptr))
    keep = g_t > 0
    g_t, tseg = g_t[keep], tseg[keep]
    order = np.lexsort((-g_t, tseg))
    g_t = g_t[order]
    cnt = np.bincount(tseg, minlength=q.n)
    tptr = np.concatenate([[0], np.cumsum(cnt)])
    inside = q.pos < cnt[q.seg]
    ideal_pos = np.zeros(len(q.pos))
    ideal_pos[inside] = g_t[tptr[:-1][q.seg[inside]] + q.pos[inside]]
    return g_pos, ideal_pos, g_t, tptr


def _seg_cumsum(q: QueryArrays, x: np.ndarray) -> np.ndarray:
    c = np.cumsum(x)
    start = np.concatenate([[0.0], c])[q.indptr[:-1]]
    return c - start[q.seg]


def _binG(q: QueryArrays) -> np.ndarray:
    isrel = q.isrel
    ch = q.cumhits()
    term = np.where(isrel, 1.0 / np.log2(3.0 + q.pos - ch), 0.0)
    return _div(q.seg_sum(term), q.num_rel)


def _G(q: QueryArrays, gains: dict[int, float]) -> np.ndarray:
    g, ideal, g_t, tptr = _gain_arrays(q, gains)
    sum_cost = _seg_cumsum(q, np.maximum(ideal, 1.0))
    sum_res = _seg_cumsum(q, g)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(g != 0, g / np.log2(2.0 + sum_cost - sum_res), 0.0)
    tseg = np.repeat(np.arange(q.n), np.diff(tptr))
    sum_ideal = np.bincount(tseg, weights=g_t, minlength=q.n)
    return _div(q.seg_sum(term), sum_ideal)


def _ndcg_rel(q: QueryArrays, gains: dict[int, float]) -> np.ndarray:
    g, ideal, g_t, tptr = _gain_arrays(q, gains)
    disc = 1.0 / np.log2(q.pos + 2.0)
    res_cum = _seg_cumsum(q, g * disc)
    ideal_cum = _seg_cumsum(q, ideal * disc)
    tseg = np.repeat(np.arange(q.n), np.diff(tptr))
    tpos = np.arange(len(g_t)) - tptr[:-1][tseg]
    ideal_total = np.bincount(tseg, weights=g_t / np.log2(tpos + 2.0), minlength=q.n)
    n_pos = np.diff(tptr).astype(np.float64)
    s = q.seg_sum(np.where(g > 0, _div(res_cum, ideal_cum), 0.0))
    n_pos_ret = q.seg_sum(g > 0)
    s = s + (n_pos - n_pos_ret) * _div(q.seg_sum(g * disc), ideal_total)
    return np.where(s > 0, _div(s, n_pos), 0.0)


def _Rndcg(q: QueryArrays, gains: dict[int, float]) -> np.ndarray:
    """nDCG averaged where the ideal gain level changes (trec_eval's experimental Rndcg)."""
    g_all, _, g_t, tptr = _gain_arrays(q, gains)
    R = q.num_rel
    out = np.zeros(q.n)
    for u in range(q.n):
        if R[u] == 0:
            continue
        g = g_all[q.indptr[u]:q.indptr[u + 1]].tolist()
        ideal = g_t[tptr[u]:tptr[u + 1]].tolist()
        n_ret, n_ideal = len(g), len(ideal)
        cur = ideal[0] if n_ideal else 0.0
        old = cur
        res_dcg = id_dcg = total = 0.0
        count = 0
        i = 0
        while i < n_ret and cur > 0:
            cur = ideal[i] if i < n_ideal else 0.0
            if old != cur:
                if id_dcg > 0:
                    total += res_dcg / id_dcg
                    count += 1
                old = cur
            if g[i] != 0:
                res_dcg += g[i] / np.log2(i + 2.0)
            if cur > 0:
                id_dcg += cur / np.log2(i + 2.0)
            i += 1
        if i < n_ret:
            while i < n_ret:
                if g[i] != 0:
                    res_dcg += g[i] / np.log2(i + 2.0)
                i += 1
            if id_dcg > 0:
                total += res_dcg / id_dcg
                count += 1
        while cur > 0:
            cur = ideal[i] if i < n_ideal else 0.0
            if old != cur:
                if id_dcg > 0:
                    total += res_dcg / id_dcg
                    count += 1
                old = cur
            if cur > 0:
                id_dcg += cur / np.log2(i + 2.0)
            i += 1
        out[u] = total / count if count else 0.0
    return out


def _relstring(q: QueryArrays, n: int) -> list[str]:
    out = []
    for u in range(q.n):
        codes = q.code[q.indptr[u]: q.indptr[u] + max(n, 0)]
        levels = q.rel[q.indptr[u]: q.indptr[u] + max(n, 0)]
        chars = []
        for c, lev in zip(codes.tolist(), levels.tolist(), strict=True):
            if c == -1:
                chars.append("-")
            elif c == -2:
                chars.append(".")
            elif lev > 9:
                chars.append(">")
            else:
                chars.append(str(int(lev)))
        out.append("'" + "".join(chars) + "'")
    return out


def core_specs(measures: list[Measure], level: float) -> dict[str, Any]:
    """receval metric keys for the measures computed by the compiled kernel.

    ``infAP`` needs the pooled-but-unjudged marks (``judged == 2``) in the packed arrays; the
    caller evaluates it on those (:func:`receval.trec.evaluate.trec_eval`).
    """
    from ..metrics import metric

    rel = {"rel": level}
    out: dict[str, Any] = {}
    for m in measures:
        n = m.name
        if n == "infAP":
            out["infAP"] = metric("infap", **rel)
        elif n == "set_map":
            out["set_map"] = metric("set_map", **rel)
        elif n == "iprec_at_recall":
            for c in m.params:
                out[f"iprec_at_recall@{float(c)!r}"] = metric("iprec", recall=float(c), **rel)
        elif n == "11pt_avg":
            for c in _levels(m):
                out[f"iprec_at_recall@{c!r}"] = metric("iprec", recall=c, **rel)
        if n in ("map", "gm_map"):
            out["map"] = metric("map", **rel)
        elif n in ("bpref", "gm_bpref"):
            out["bpref"] = metric("bpref", **rel)
        elif n == "Rprec":
            out["Rprec"] = metric("r_precision", **rel)
        elif n == "recip_rank":
            out["recip_rank"] = metric("mrr", **rel)
        elif n == "ndcg" and m.text is None:
            out["ndcg"] = metric("ndcg")
        elif n in ("P", "recall", "map_cut", "ndcg_cut", "relative_P", "success"):
            for c in m.params:
                key = f"{n}_{int(c)}"
                if n == "P":
                    out[key] = metric("precision", int(c), **rel)
                elif n == "recall":
                    out[key] = metric("recall", int(c), **rel)
                elif n == "map_cut":
                    out[key] = metric("map", int(c), **rel)
                elif n == "ndcg_cut":
                    out[key] = metric("ndcg", int(c))
                elif n == "relative_P":
                    out[key] = metric("precision", int(c), denominator="min_k_rel", **rel)
                else:
                    out[key] = metric("hit_rate", int(c), **rel)
    return out


def compute(measures: list[Measure], q: QueryArrays, core: dict[str, np.ndarray],
            num_docs: float = 0.0) -> dict[str, np.ndarray | list]:
    """Per-query values of every printed column (``core``: kernel values by key)."""
    vals: dict[str, Any] = {}
    R = q.num_rel
    ret = q.num_ret
    h = q.seg_sum(q.isrel)
    for m in measures:
        n = m.name
        cols = m.columns()
        if n in ("runid", "num_q"):
            continue
        if n == "num_ret":
            vals[cols[0]] = ret
        elif n == "num_rel":
            vals[cols[0]] = R
        elif n == "num_rel_ret":
            vals[cols[0]] = h
        elif n == "num_nonrel_judged_ret":
            vals[cols[0]] = q.seg_sum((q.code >= 0) & ~q.isrel)
        elif n in ("map", "bpref", "Rprec", "recip_rank"):
            vals[cols[0]] = core[n]
        elif n == "gm_map":
            vals[cols[0]] = core["map"]
        elif n == "gm_bpref":
            vals[cols[0]] = core["bpref"]
        elif n == "ndcg":
            if m.text is None:
                vals[cols[0]] = core["ndcg"]
            else:
                vals[cols[0]] = _ndcg_gains(q, _gain_params(m))
        elif n in ("P", "recall", "map_cut", "ndcg_cut", "relative_P", "success"):
            for c in cols:
                vals[c] = core[c]
        elif n == "iprec_at_recall":
            for c, p in zip(cols, m.params, strict=True):
                vals[c] = core[f"iprec_at_recall@{float(p)!r}"]
        elif n == "11pt_avg":
            levels = _levels(m)
            iv = [core[f"iprec_at_recall@{p!r}"] for p in levels]
            vals[cols[0]] = np.sum(iv, axis=0) / len(levels) if levels else np.zeros(q.n)
        elif n == "Rprec_mult":
            for c, x in zip(cols, m.params, strict=True):
                cut = np.floor(x * R + 0.9).astype(np.int64)
                vals[c] = _div(q.hits_at(cut), cut.astype(np.float64))
        elif n in ("infAP", "set_map"):
            vals[cols[0]] = core[n]
        elif n == "utility":
            try:
                a, b, c, d = (float(p) for p in m.params)
            except ValueError:
                raise MetricError(
                    f"trec measure utility.{m.text}: needs 4 numbers a,b,c,d (utility = a*relret "
                    "+ b*nonrelret + c*relnotret + d*nonrelnotret)."
                ) from None
            vals[cols[0]] = a * h + b * (ret - h) + c * (R - h) + d * (num_docs + h - ret - R)
        elif n == "set_P":
            vals[cols[0]] = _div(h, ret)
        elif n == "set_recall":
            vals[cols[0]] = _div(h, R)
        elif n == "set_relative_P":
            vals[cols[0]] = np.where((ret > 0) & (R > 0), _div(h, np.minimum(ret, R)), 0.0)
        elif n == "set_F":
            p, r = _div(h, ret), _div(h, R)
            vals[cols[0]] = _div(2 * p * r, p + r)
        elif n == "binG":
            vals[cols[0]] = _binG(q)
        elif n == "G":
            vals[cols[0]] = _G(q, _gain_params(m))
        elif n == "ndcg_rel":
            vals[cols[0]] = _ndcg_rel(q, _gain_params(m))
        elif n == "Rndcg":
            vals[cols[0]] = _Rndcg(q, _gain_params(m))
        elif n == "relstring":
            try:
                length = int(float(m.params[0])) if m.params else 10
            except ValueError:
                raise MetricError(f"trec measure relstring.{m.text}: needs a number.") from None
            vals[cols[0]] = _relstring(q, length)
    return vals


def _levels(m: Measure) -> tuple[float, ...]:
    """The recall levels of ``11pt_avg`` (its parameters)."""
    try:
        return tuple(float(p) for p in m.params)
    except ValueError:
        raise MetricError(
            f"trec measure 11pt_avg.{m.text}: recall levels must be numbers."
        ) from None


def _gain_params(m: Measure) -> dict[int, float]:
    gains = {}
    for p in m.params:
        lev, sep, g = p.partition("=")
        try:
            gains[int(lev)] = float(g)
        except ValueError:
            if not sep:
                continue
            raise MetricError(
                f"trec measure ndcg.{m.text}: gains are written level=gain, e.g. ndcg.1=1,2=3."
            ) from None
    return gains
