"""trec_eval-compatible evaluation and output (``receval trec``).

:func:`trec_eval` takes qrels and a run (frames as read by :func:`receval.io.files.read_trec_qrels`
and :func:`~receval.io.files.read_trec_run`), packs them once with the trec_eval tie policy and
returns a :class:`TrecResult`, whose :meth:`TrecResult.lines` are trec_eval's output layout::

    measure<padded to 22>\\t<qid | all>\\t<value, 4 decimals; counts as integers>

Example
-------
>>> import pandas as pd
>>> qrels = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d3", "d2"], "relevance": 1})
>>> run = pd.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q2"], "docno": ["d1", "d2", "d3", "d1", "d2"],
...                     "score": [3.0, 2.0, 1.0, 2.0, 1.0], "tag": "bm25"})
>>> res = trec_eval(qrels, run, ["map", "P.5"])
>>> res.lines()             # map = ((1/1 + 2/3) / 2 + 1/2) / 2; P_5 = (2/5 + 1/5) / 2
['map                   \\tall\\t0.6667', 'P_5                   \\tall\\t0.3000']
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError, MetricError
from ..validation import POSITIVE_INT, Boolean, Interval, Real, validate_params
from .measures import MIN_GEO_MEAN, Measure, QueryArrays, compute, core_specs, parse_measures


@dataclass
class TrecResult:
    """Per-query values (queries in both qrels and run, sorted by qid) and the summary."""

    measures: list[Measure]
    qids: list[str]
    values: dict[str, Any]          # printed column -> per-query values (qid order)
    summary: dict[str, Any]         # printed column -> 'all' value
    runid: str

    def lines(self, *, per_query: bool = False, summary: bool = True) -> list[str]:
        """trec_eval's output lines (``-q`` adds the per-query blocks before ``all``)."""
        out = []
        if per_query:
            for i, qid in enumerate(self.qids):
                for m in self.measures:
                    if not m.defn.per_query:
                        continue
                    for col in m.columns():
                        out.append(_line(col, qid, self.values[col][i], m.defn.kind))
        if summary:
            for m in self.measures:
                if m.defn.summary == "none":
                    continue
                for col in m.columns():
                    out.append(_line(col, "all", self.summary[col], m.defn.kind))
        return out

    def frame(self) -> Any:
        """Per-query values as a pandas frame indexed by qid."""
        import pandas as pd

        return pd.DataFrame({k: v for k, v in self.values.items()},
                            index=pd.Index(self.qids, name="qid"))


def _line(col: str, qid: str, value: Any, kind: str) -> str:
    if isinstance(value, str):
        text = value
    elif kind == "count":
        text = str(int(round(float(value))))
    else:
        text = f"{float(value):6.4f}"
    return f"{col:<22}\t{qid}\t{text}"


def _truncate(packed: Any, max_docs: int) -> Any:
    lens = np.diff(packed.indptr)
    new_lens = np.minimum(lens, max_docs)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(new_lens, out=indptr[1:])
    seg = np.repeat(np.arange(len(lens)), new_lens)
    idx = packed.indptr[:-1][seg] + (np.arange(indptr[-1]) - indptr[:-1][seg])
    return dataclasses.replace(
        packed, indptr=indptr, rel=packed.rel[idx], judged=packed.judged[idx],
        **packed.items_at(idx), scores=packed.scores[idx],
        list_len=np.minimum(packed.list_len, max_docs),
    )


@validate_params({
    "level": [Interval(Real, 0, None, closed="neither")],
    "complete": [Boolean()],
    "max_docs": [None, *POSITIVE_INT],
    "num_docs": [Interval(Real, 0, None)],
})
def trec_eval(qrels: Any, run: Any, measures: list[str] | None = None, *, level: float = 1,
              complete: bool = False, max_docs: int | None = None,
              num_docs: float = 0.0) -> TrecResult:
    """Evaluate like ``trec_eval [-c] [-l level] [-M max_docs] -m ... qrels run``.

    ``qrels``: columns qid, docno, relevance (integers; negative = in the pool but unjudged).
    ``run``: columns qid, docno, score (and tag, the run id). ``measures``: any of trec_eval
    9.0.8's measures (:data:`receval.metrics.foreign.TREC_EVAL`, with parameters as ``-m``
    writes them) and the sets ``official`` (the default) and ``all_trec``. ``complete`` (``-c``) averages over
    every qrels query (missing queries count 0). ``num_docs`` (``-N``) is utility's collection size.
    """
    from ..engines.evaluator import Evaluator
    from ..engines.local import evaluate_packed
    from ..engines.plan import Plan
    from ..engines.plugins import Context
    from ..policies import Policies

    ms = parse_measures(list(measures or []))
    if level <= 0:
        raise MetricError(
            f"relevance level -l {level} is not supported; receval needs a positive threshold "
            "(trec_eval's default is 1)."
        )
    if max_docs is not None and max_docs <= 0:
        raise InputError(f"-M must be a positive number of documents, got {max_docs}.")
    rel = np.asarray(qrels["relevance"], dtype=np.float64)
    all_qids = qrels["qid"]
    n_qrels_queries = int(len(set(all_qids.tolist())))
    judged_rows = rel >= 0
    truth = qrels.loc[judged_rows, ["qid", "docno", "relevance"]]
    unjudged = qrels.loc[~judged_rows, ["qid", "docno"]]
    ev = Evaluator(truth, ["num_ret"], user_col="qid", item_col="docno", rel_col="relevance",
                   ties="trec_eval", users="truth" if complete else "intersection",
                   empty_truth="zero", negative_rel="error", duplicates="error")
    packed = ev.pack(run, user_col="qid", item_col="docno", score_col="score")
    if max_docs is not None:
        packed = _truncate(packed, int(max_docs))
    # trec_eval relevance codes per position
    levels = packed.rel
    code = np.where(packed.judged.astype(bool), levels, -1.0)
    is_unj = np.zeros(len(levels), dtype=bool)
    if len(unjudged) and len(levels):
        import pandas as pd

        seg = np.repeat(np.arange(len(packed.user_ids)), np.diff(packed.indptr))
        pos_pairs = pd.MultiIndex.from_arrays(
            [np.asarray(packed.user_ids, dtype=object)[seg],
             np.asarray(packed.item_vocab, dtype=object)[packed.items]])
        unj_pairs = pd.MultiIndex.from_arrays(
            [np.asarray(unjudged["qid"], dtype=object), np.asarray(unjudged["docno"],
                                                                    dtype=object)])
        is_unj = pos_pairs.isin(unj_pairs) & ~packed.judged.astype(bool)
        code = np.where(is_unj, -2.0, code)
    q = QueryArrays(qids=packed.user_ids, indptr=packed.indptr, rel=levels, code=code,
                    t_indptr=packed.t_indptr, t_rel=packed.t_rel, level=float(level))
    specs = core_specs(ms, float(level))
    core: dict[str, np.ndarray] = {}
    if specs and q.n:
        pol = Policies(ties="trec_eval", users="intersection", empty_truth="zero",
                       negative_rel="error", duplicates="error")
        keys = list(dict.fromkeys(s for n, s in specs.items() if n != "infAP"))
        if keys:
            values = evaluate_packed(packed, Plan(keys, pol), Context()).values
            for name, spec in specs.items():
                if name != "infAP":
                    core[name] = values[:, keys.index(spec)]
        if "infAP" in specs:  # pooled but unjudged documents are marked 2 for infAP
            pooled = dataclasses.replace(
                packed, judged=np.where(is_unj, 2, packed.judged).astype(np.int8))
            core["infAP"] = evaluate_packed(pooled, Plan([specs["infAP"]], pol),
                                            Context()).values[:, 0]
    elif specs:
        core = {name: np.zeros(0) for name in specs}
    vals = compute(ms, q, core, num_docs=num_docs)

    # with -c every qrels query is evaluated (an absent list scores 0, as trec_eval does);
    # per-query lines are printed for the queries of the run only
    qids = [str(x) for x in packed.user_ids]
    in_run = np.asarray(packed.in_run, dtype=bool)
    n_eval = len(qids)
    n_den = n_qrels_queries if complete else n_eval
    extra = n_den - n_eval  # qrels queries with only negative judgements (-c)
    summary_vals = vals
    order = sorted((i for i in range(len(qids)) if in_run[i]),
                   key=lambda i: qids[i].encode("utf-8"))
    qids = [qids[i] for i in order]
    vals = {k: ([v[i] for i in order] if isinstance(v, list) else np.asarray(v)[order])
            for k, v in vals.items()}
    runid = str(run["tag"].iloc[0]) if "tag" in getattr(run, "columns", []) and len(run) \
        else "receval"
    summary: dict[str, Any] = {}
    for m in ms:
        kind = m.defn.summary
        for col in m.columns():
            if kind == "runid":
                summary[col] = runid
            elif kind == "count":
                summary[col] = n_den
            elif kind == "none":
                continue
            elif kind == "sum":
                summary[col] = float(np.sum(summary_vals[col]))
            elif kind == "geometric":  # the values are log(max(x, 1e-5))
                logs = np.asarray(summary_vals[col], dtype=np.float64)
                total = float(np.sum(logs)) + extra * np.log(MIN_GEO_MEAN)
                summary[col] = float(np.exp(total / n_den)) if n_den else 0.0
            else:
                summary[col] = float(np.sum(summary_vals[col]) / n_den) if n_den else 0.0
    return TrecResult(measures=ms, qids=qids, values=vals, summary=summary, runid=runid)
