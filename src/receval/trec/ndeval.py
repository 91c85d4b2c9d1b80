"""ndeval's evaluation and output layout (``receval trec --ndeval``).

ndeval 4.5 (the TREC Web track's diversity evaluation program, Clarke et al.; the same C code as
pyndeval 0.0.8) reads subtopic qrels ``topic subtopic docno judgment`` and a TREC run, and
prints one CSV: a header, one row per topic and an ``amean`` row::

    runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,...,NRBP,nNRBP,MAP-IA,P-IA@5,...,strec@20

:func:`ndeval` computes the same numbers with :mod:`receval.trec.diversity` and
:meth:`NdevalResult.lines` prints them in that layout (6 decimals). ndeval's conventions, each
followed here:

- the run is ordered by its rank column (ndeval's default; two rows of a topic at one rank are
  an error), or with ``traditional=True`` (ndeval ``-traditional``) by score descending, then
  docno descending in byte order (compared as 64-bit floats, not trec_eval's 32-bit);
- ``depth`` (``-M``) keeps the first ``depth`` rows of each topic;
- a row per topic of the run (a topic without judgments: 0 everywhere); ``amean`` is the sum
  of the rows divided by the number of topics of both the run and the qrels, or with
  ``complete=True`` (``-c``) by the number of qrels topics (a topic without a run counts 0);
- nNRBP of a topic without a relevant document is 0/0: ndeval prints ``-nan`` (x86-64 glibc)
  and its mean is then ``-nan`` too; receval's own mean (:func:`receval.evaluate`) leaves such a
  topic out instead.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InputError, plain
from ..validation import POSITIVE_INT, Boolean, Interval, Real, validate_params

#: ndeval's columns in its order: (printed name, receval key)
COLUMNS: tuple[tuple[str, str], ...] = tuple(
    [(f"ERR-IA@{k}", f"err_ia@{k}") for k in (5, 10, 20)]
    + [(f"nERR-IA@{k}", f"nerr_ia@{k}") for k in (5, 10, 20)]
    + [(f"alpha-DCG@{k}", f"alpha_dcg@{k}") for k in (5, 10, 20)]
    + [(f"alpha-nDCG@{k}", f"alpha_ndcg@{k}") for k in (5, 10, 20)]
    + [("NRBP", "nrbp"), ("nNRBP", "nnrbp"), ("MAP-IA", "ap_ia")]
    + [(f"P-IA@{k}", f"p_ia@{k}") for k in (5, 10, 20)]
    + [(f"strec@{k}", f"strec@{k}") for k in (5, 10, 20)])


@dataclass
class NdevalResult:
    """Per-topic values (``values[column][i]`` for ``topics[i]``) and ndeval's means."""

    runid: str
    topics: list[str]
    values: dict[str, np.ndarray]
    means: dict[str, float]

    def lines(self) -> list[str]:
        """ndeval's CSV: the header, one row per topic, then ``amean``."""
        names = [c for c, _ in COLUMNS]
        out = ["runid,topic," + ",".join(names)]
        for i, topic in enumerate(self.topics):
            out.append(f"{self.runid},{topic}," + ",".join(
                _fmt(self.values[c][i]) for c in names))
        out.append(f"{self.runid},amean," + ",".join(_fmt(self.means[c]) for c in names))
        return out


def _fmt(x: float) -> str:
    # C's printf("%.6f") of ndeval's 0/0 (the x86-64 default NaN has its sign bit set)
    return "-nan" if math.isnan(x) else f"{x:.6f}"


def _topic_key(topic: str) -> tuple[int, Any]:
    """ndeval's topic order: numerically (a prefix up to '-' is dropped: 'wt09-1' is 1)."""
    digits = topic.rsplit("-", 1)[-1] if not topic[:1].isdigit() else topic
    return (0, int(digits)) if digits.isdigit() else (1, topic)


def _order(run: Any, traditional: bool, depth: int | None) -> Any:
    """The run's rows in ndeval's order, with ranks 1..n per topic."""
    import pandas as pd

    frame = pd.DataFrame({"qid": run["qid"].astype(str).to_numpy(),
                          "docno": run["docno"].astype(str).to_numpy(),
                          "rank": pd.to_numeric(run["rank"], errors="coerce").to_numpy(),
                          "score": pd.to_numeric(run["score"], errors="coerce").to_numpy()})
    if traditional:
        if frame["score"].isna().any():
            raise InputError("run: every score must be a number for traditional=True "
                             "(ndeval -traditional orders by score).")
        # docno descending in byte order: rank the docnos by their UTF-8 bytes
        codes = pd.Series(frame["docno"].map(lambda d: d.encode("utf-8")))
        byte_rank = codes.rank(method="dense").to_numpy()
        frame = frame.assign(_b=-byte_rank).sort_values(["qid", "score", "_b"],
                                                        ascending=[True, False, True],
                                                        kind="stable")
    else:
        bad = frame["rank"].isna() | (frame["rank"] < 0) | (frame["rank"] % 1 != 0)
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(f"run: the rank of row {i} is {plain(run['rank'].iloc[i])}; "
                             "ndeval orders by rank, a natural number. Fix the rank column "
                             "or pass traditional=True (order by score).")
        twice = frame.duplicated(["qid", "rank"])
        if twice.any():
            row = frame[twice].iloc[0]
            raise InputError(f"run: topic {plain(row['qid'])} has two rows at rank "
                             f"{int(row['rank'])}; ndeval refuses a duplicate rank. Give each "
                             "row its own rank, or pass traditional=True (order by score).")
        frame = frame.sort_values(["qid", "rank"], kind="stable")
    pos = frame.groupby("qid", sort=False).cumcount().to_numpy() + 1
    frame = frame.assign(rank=pos)
    if depth is not None:
        frame = frame[frame["rank"] <= depth]
    dup = frame.duplicated(["qid", "docno"])
    if dup.any():
        row = frame[dup].iloc[0]
        raise InputError(f"run: topic {plain(row['qid'])} lists docno {plain(row['docno'])} "
                         "twice; ndeval refuses a duplicate docno.")
    return frame[["qid", "docno", "rank"]]


@validate_params({
    "alpha": [Interval(Real, 0, 1)],
    "beta": [Interval(Real, 0, 1)],
    "traditional": [Boolean()],
    "complete": [Boolean()],
    "depth": [None, *POSITIVE_INT],
})
def ndeval(qrels: str | os.PathLike | Any, run: Any, *, alpha: float = 0.5, beta: float = 0.5,
           traditional: bool = False, complete: bool = False,
           depth: int | None = None) -> NdevalResult:
    """ndeval's measures of ``run`` against the subtopic ``qrels``.

    ``qrels``: ndeval's file (``topic subtopic docno judgment``) or a (query, subtopic, doc,
    relevance) table as :func:`receval.evaluate` reads ``intents=``. ``run``: a frame with
    columns qid, docno, rank, score and tag (:func:`receval.io.files.read_trec_run`).
    ``alpha`` / ``beta``: ndeval ``-alpha`` / ``-beta``; ``traditional``: ``-traditional``;
    ``complete``: ``-c``; ``depth``: ``-M``. A judgment >= 1 is relevant (ndeval's rule).
    """
    import pandas as pd

    from ..engines.evaluator import evaluate_local
    from .diversity import _intent_frame

    missing = [c for c in ("qid", "docno", "rank", "score") if c not in getattr(run, "columns",
                                                                               ())]
    if missing:
        raise InputError(f"run: columns {plain(missing)} are missing; pass a TREC run as "
                         "receval.io.files.read_trec_run reads it (qid Q0 docno rank score "
                         "tag).")
    intents = _intent_frame(qrels)
    intents = intents.assign(query=intents["query"].astype(str), doc=intents["doc"].astype(str))
    truth = (intents.groupby(["query", "doc"], as_index=False, sort=False)["relevance"].max()
             .rename(columns={"query": "qid", "doc": "docno"}))
    ordered = _order(run, bool(traditional), depth)
    runid = str(run["tag"].iloc[0]) if "tag" in run.columns and len(run) else "run"
    topics = sorted(set(ordered["qid"]), key=_topic_key)
    judged = [t for t in topics if t in set(truth["qid"])]
    n_topics = len(set(truth["qid"])) if complete else len(judged)
    keys = [k if k.startswith(("p_ia", "strec", "ap_ia"))
            else f"{k}(alpha={alpha!r}" + (f",beta={beta!r})" if k in ("nrbp", "nnrbp")
                                           else ")")
            for _, k in COLUMNS]
    # a run topic without judgments is printed with 0 everywhere, as ndeval does
    values = {col: np.zeros(len(topics)) for col, _ in COLUMNS}
    if judged:
        res = evaluate_local(ordered[ordered["qid"].isin(judged)], truth, keys,
                       intents=intents, user_col="qid", item_col="docno", rank_col="rank",
                       rel_col="relevance", users="intersection")
        frame = res.per_user
        at = pd.Index(frame.index.astype(str)).get_indexer(pd.Index(judged, dtype=object))
        position = {t: i for i, t in enumerate(topics)}
        rows = [position[t] for t in judged]
        for (col, _), key in zip(COLUMNS, keys, strict=True):
            values[col][rows] = frame[_column(frame, key)].to_numpy(np.float64)[at]
    with np.errstate(invalid="ignore", divide="ignore"):
        means = {col: float(values[col].sum() / n_topics) if n_topics else float("nan")
                 for col, _ in COLUMNS}
    return NdevalResult(runid, topics, values, means)


def _column(frame: Any, key: str) -> str:
    from ..metrics import canonical_key

    want = canonical_key(key)
    for c in frame.columns:
        if canonical_key(str(c)) == want:
            return str(c)
    raise KeyError(key)
