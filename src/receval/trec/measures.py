"""trec_eval measures: parameters, output columns, and values computed on receval's packed arrays.

The measures, their parameters, summaries and receval metrics are one table,
:data:`receval.metrics.foreign.TREC_EVAL`: a measure that maps to a receval metric is computed by
that metric (the compiled kernel, as ``rv.evaluate`` computes it), the others here in numpy from
the same :class:`~receval.pack.Packed` arrays. Conventions of trec_eval 9.x reproduced here:

- ordering: score as a 32-bit float descending, then docno descending (``ties="trec_eval"``);
- relevant means ``rel >= l`` (``-l``, default 1; receval's ``rel=l``); qrels lines with
  ``rel < 0`` are "in the pool but unjudged": neither relevant nor judged non-relevant (they
  matter to ``infAP`` and ``relstring`` only);
- per query, only queries in both qrels and run are evaluated; ``all`` is the mean over them, or
  over every qrels query with ``-c`` (missing queries count 0; ``gm_*`` add ``log(1e-5)``);
- ``-M N`` keeps the first N documents of each ranked list;
- counts (``num_ret``, ``num_rel``, ``num_rel_ret``, ``num_nonrel_judged_ret``) are summed.

Computed here (no kernel metric; the plugin families of :mod:`receval.trec.registered` call
this code for ``rv.evaluate``): ``gm_map``, ``gm_bpref`` (per query log(max(x, 1e-5)),
``all`` exp of their mean),
``Rprec_mult.x`` (precision at floor(x R + 0.9)), ``utility.a,b,c,d`` (a h + b (ret - h) +
c (R - h) + d (N + h - ret - R)), ``ndcg.l=g,...`` (gains per level), ``11pt_avg`` at other
recall levels, ``binG``, ``G``, ``ndcg_rel``, ``Rndcg`` (trec_eval's experimental gain
measures), ``relstring.n`` and ``num_nonrel_judged_ret``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import MetricError, plain, suggest
from ..metrics.foreign import BY_NAME, SETS, TREC_EVAL, TrecMeasure
from ..metrics.spec import REGISTRY

MIN_GEO_MEAN = 1e-5
#: a measure's place in trec_eval's output
ORDER = {m.name: i for i, m in enumerate(TREC_EVAL)}


@dataclass(frozen=True)
class Measure:
    """A requested measure with its parameters (``params``: numbers, or the raw text)."""

    defn: TrecMeasure
    params: tuple = ()
    text: str | None = None  # parameter text as typed, None = defaults

    @property
    def name(self) -> str:
        return self.defn.name

    @property
    def mapped(self) -> bool:
        """Whether the compiled kernel computes it, as the receval metric of the table (else it
        is computed here; a plugin family of :mod:`receval.trec.registered` calls the same
        code)."""
        family = REGISTRY.get(self.defn.family or "")
        return self.defn.maps(self.text) and family is not None and family.kernel is not None

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


def _measure(defn: TrecMeasure, text: str | None) -> Measure:
    params = defn.parse(text)
    return Measure(defn, params, text if text and defn.kind == "params" else None)


def parse_measures(names: list[str]) -> list[Measure]:
    """Parse trec_eval ``-m`` values (``map``, ``P.5,10``, ``all_trec``...) in output order.

    A measure named twice keeps its last parameters (trec_eval does the same).
    """
    chosen: dict[str, Measure] = {}
    for token in names or ["official"]:
        base, _, text = token.partition(".")
        if base in SETS:
            for n in SETS[base]:
                chosen.setdefault(n, _measure(BY_NAME[n], None))
            continue
        if base not in BY_NAME:
            valid = sorted(BY_NAME) + sorted(SETS)
            raise MetricError(
                f"unknown trec_eval measure {plain(token)}." + suggest(base, valid)
                + f" Supported: {', '.join(BY_NAME)}; sets: official, all_trec."
            )
        chosen[base] = _measure(BY_NAME[base], text or None)
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
    """The receval metric of every printed column a receval metric computes (the table's
    :meth:`~receval.metrics.foreign.TrecMeasure.target` at relevance level ``level``), and of
    the values the measures computed here read (``gm_map`` reads ``map``; ``11pt_avg`` at
    other levels reads ``iprec_at_recall@p``).

    ``infAP`` needs the pooled-but-unjudged marks (``judged == 2``) in the packed arrays; the
    caller evaluates it on those (:func:`receval.trec.evaluate.trec_eval`).
    """
    out: dict[str, Any] = {}
    for m in measures:
        d = m.defn
        if m.mapped:
            values = m.params if d.kind in ("cut_long", "cut_double") else (None,)
            for col, value in zip(m.columns(), values, strict=True):
                out[col] = d.target(value, level)
        elif d.values_of is not None:
            out[d.values_of] = BY_NAME[d.values_of].target(None, level)
        elif d.name == "11pt_avg":
            for p in _levels(m):
                out[f"iprec_at_recall@{p!r}"] = BY_NAME["iprec_at_recall"].target(p, level)
    return out


def compute(measures: list[Measure], q: QueryArrays, core: dict[str, np.ndarray],
            num_docs: float = 0.0) -> dict[str, np.ndarray | list]:
    """Per-query values of every printed column (``core``: the values of :func:`core_specs`)."""
    vals: dict[str, Any] = {}
    R = q.num_rel
    ret = q.num_ret
    h = q.seg_sum(q.isrel)
    for m in measures:
        n = m.name
        cols = m.columns()
        if n == "runid":
            continue
        if n == "num_q":  # 1 per query, counted on the 'all' line
            vals[cols[0]] = np.ones(q.n)
            continue
        if m.mapped:
            for c in cols:
                vals[c] = core[c]
        elif m.defn.values_of is not None:  # gm_map, gm_bpref: log(max(x, 1e-5))
            vals[cols[0]] = np.log(np.maximum(np.asarray(core[m.defn.values_of],
                                                         dtype=np.float64), MIN_GEO_MEAN))
        elif n == "num_nonrel_judged_ret":
            vals[cols[0]] = q.seg_sum((q.code >= 0) & ~q.isrel)
        elif n == "ndcg":
            vals[cols[0]] = _ndcg_gains(q, _gain_params(m))
        elif n == "11pt_avg":
            levels = _levels(m)
            iv = [core[f"iprec_at_recall@{p!r}"] for p in levels]
            vals[cols[0]] = np.sum(iv, axis=0) / len(levels) if levels else np.zeros(q.n)
        elif n == "Rprec_mult":
            for c, x in zip(cols, m.params, strict=True):
                cut = np.floor(x * R + 0.9).astype(np.int64)
                vals[c] = _div(q.hits_at(cut), cut.astype(np.float64))
        elif n == "utility":
            try:
                a, b, c, d = (float(p) for p in m.params)
            except ValueError:
                raise MetricError(
                    f"trec measure utility.{m.text}: needs 4 numbers a,b,c,d (utility = a*relret "
                    "+ b*nonrelret + c*relnotret + d*nonrelnotret)."
                ) from None
            vals[cols[0]] = a * h + b * (ret - h) + c * (R - h) + d * (num_docs + h - ret - R)
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
