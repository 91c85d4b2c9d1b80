"""Intent-aware (subtopic) diversity measures with ndeval's parameters and conventions.

The TREC Web track diversity task judges each document per subtopic (intent) of a query;
ndeval (trec-web-track/ndeval ``ndeval.c``, version 4.5, bundled by pyndeval 0.0.8 as
seanmacavaney/pyndeval ``src/ndeval.c``) computes from those judgments:

- alpha-DCG@k / alpha-nDCG@k (Clarke et al., SIGIR 2008),
- ERR-IA@k / nERR-IA@k (Chapelle et al., CIKM 2009, intent-aware as Agrawal et al., WSDM 2009),
- NRBP / nNRBP (Clarke, Kolla & Vechtomova, ICTIR 2009),
- P-IA@k, MAP-IA (here ``ap_ia``) and subtopic recall strec@k (Zhai, Cohen & Lafferty 2003).

Inputs. ``evaluate(..., intents=...)`` gives the subtopic judgments, as

- a table with a query (user) column, a document (item) column, a subtopic column
  (``subtopic``, ``intent``, ``aspect``, ``iteration``, ...) and optionally a relevance column
  (every row relevant when absent);
- a path to an ndeval qrels file ``topic subtopic docno judgment`` (the second field, trec_eval's
  iteration field, is the subtopic; ids are read as text);
- a sequence of ``(query, subtopic, doc, relevance)`` tuples (pyndeval's ``SubtopicQrel``).

``intent_weights=`` (optional; ndeval's weights are uniform) gives ``P(subtopic | query)`` as a
table ``(query, subtopic, weight)`` or ``{query: {subtopic: weight}}``; the weights of the
subtopics with a relevant document are renormalised to sum to 1 per query.

ndeval's conventions, followed here:

- judgments are binary: relevant when relevance >= ``rel`` (pyndeval's ``relevance_level``;
  ndeval's command line treats every judgment > 0 as relevant, which is ``rel=1`` for integer
  judgments); graded subtopic judgments count once;
- a subtopic without a relevant document is ignored (``A``, ndeval's ``actualSubtopics``, counts
  the others); a query with one subtopic is evaluated like any other;
- unjudged documents (absent from the query's judgments) are not relevant to any subtopic;
- the gain of the document at rank ``r`` (0-based) is
  ``G_r = sum_j w_j rel_{r,j} (1 - alpha)^{c_{r,j}}``, ``c_{r,j}`` the documents relevant to
  ``j`` above rank ``r``; with uniform weights ``w_j = 1`` and the measures divide by ``A``;
- alpha-DCG and ERR-IA use ndeval's "ideal ideal" normalisation: the same sum for a list whose
  every document is relevant to every subtopic, ``A (1 - alpha)^r`` at rank ``r``;
- the ideal list of alpha-nDCG, nERR-IA and nNRBP is ndeval's greedy one (``idealResult``): at
  each rank the judged document of largest gain, ties to the largest document id in byte order
  (``strcmp``); alpha-nDCG = alpha-DCG / (alpha-DCG of that list), and so on;
- a query whose judgments have no relevant document has 0 for every measure, and nNRBP NaN
  (ndeval's 0 / 0).

One known difference from ndeval is a parameter: ndeval leaves its rank-1 values of alpha-DCG
and ERR-IA without the ideal-ideal normalisation (its normalising loop starts at rank 2: ``for
(i = 1; ...)``), so pyndeval's ``alpha-DCG@1`` and ``ERR-IA@1`` are ``A`` times the values
here; ``rank1=ndeval`` gives ndeval's numbers. The ratios (alpha-nDCG@1, nERR-IA@1) agree.
ndeval prints cutoffs 5, 10 and 20 only (pyndeval any up to 20); here any cutoff may be asked,
and the whole list without one (k = the list's length).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..engines.plugins import Context, MetricValues
from ..errors import InputError, plain
from ..io.categories import ItemCategories, as_item_categories
from ..io.frames import ITEM_NAMES, REL_NAMES, USER_NAMES, first_unhashable
from ..kernels import (
    adjacent_starts,
    cut_sums,
    first_codes,
    greedy_ideal,
    ideal_lists,
    intent_keys,
    intent_pairs,
    list_gains,
    str_codes,
    utf8_at,
)
from ..metrics.spec import MetricDef, MetricSpec, Param, register
from ..pack.rawids import raw_ids

SUBTOPIC_NAMES = ("subtopic", "subtopic_id", "intent", "intent_id", "aspect", "nugget",
                  "iteration", "category")
WEIGHT_NAMES = ("weight", "probability", "prob", "p", "w")

_NDEVAL = ("ndeval 4.5 (trec-web-track/ndeval, ndeval.c; bundled as seanmacavaney/pyndeval "
           "src/ndeval.c)")


# -------------------------------------------------------------------------------------------------
# Subtopic judgments


@dataclass
class Intents:
    """Subtopic judgments of each query, binary at one relevance threshold.

    Judged (query, document) pairs are sorted by ``key = topic * n_docs + doc``; ``rel[p, j]``
    says whether pair ``p`` is relevant to the topic's local subtopic ``j`` (local subtopics are
    the topic's subtopics with a relevant document, in sorted order of their raw ids).
    """

    topics: pd.Index           # raw query ids (topic code -> id)
    docs: pd.Index             # raw document ids (doc code -> id)
    key: np.ndarray            # (n_pairs,) sorted pair keys
    rel: np.ndarray            # (n_pairs, S) bool
    weight: np.ndarray         # (n_topics, S) weights of the local subtopics (0 past A)
    n_sub: np.ndarray          # (n_topics,) A: subtopics with a relevant document
    nrel_sub: np.ndarray       # (n_topics, S) relevant documents per local subtopic
    doc_order: np.ndarray      # (n_docs,) rank of str(doc id) in byte order
    weighted: bool             # weights given (normalised to 1) or uniform (w = 1, divide by A)
    dropped_weights: int = 0   # given weights of subtopics without a relevant document
    uncategorised: int = -1    # aspects=categories: relevant truth rows of items without one

    @property
    def any_rel(self) -> np.ndarray:
        """Per pair: relevant to some subtopic."""
        if getattr(self, "_any_rel", None) is None:
            bits = self.bits
            self._any_rel = bits != 0 if bits is not None else self.rel.any(axis=1)
        return self._any_rel

    @property
    def bits(self) -> np.ndarray | None:
        """Per pair: its relevant local subtopics as bits (``None`` past 62 subtopics)."""
        if self.n_subtopics > 62:
            return None
        if getattr(self, "_bits", None) is None:
            self._bits = (self.rel.astype(np.int64)
                          << np.arange(self.n_subtopics, dtype=np.int64)).sum(axis=1) \
                if self.n_subtopics else np.zeros(len(self.key), dtype=np.int64)
        return self._bits

    @property
    def n_docs(self) -> int:
        return len(self.docs)

    @property
    def n_subtopics(self) -> int:
        return int(self.rel.shape[1])

    def divisor(self, topic: np.ndarray) -> np.ndarray:
        """What the uniform measures divide by: ``A`` (1 with given, normalised weights)."""
        if self.weighted:
            return np.where(self.n_sub[topic] > 0, 1.0, 0.0)
        return self.n_sub[topic].astype(np.float64)


def _find_col(cols: list[str], names: tuple[str, ...]) -> str | None:
    lower = {c.lower(): c for c in cols}
    return next((lower[n.lower()] for n in names if n.lower() in lower), None)


def _read_ndeval_qrels(path: str) -> pd.DataFrame:
    frame = pd.read_csv(path, sep=r"\s+", header=None, dtype=str, comment=None,
                        engine="python")
    if frame.shape[1] != 4:
        raise InputError(f"intents: {plain(path)} has {frame.shape[1]} fields per line; "
                         "ndeval's qrels have 4: topic subtopic docno judgment.")
    frame.columns = ["query", "subtopic", "doc", "relevance"]
    try:
        frame["relevance"] = pd.to_numeric(frame["relevance"])
    except (TypeError, ValueError):
        raise InputError(f"intents: the fourth field of {plain(path)} must be a number "
                         "(the judgment).") from None
    return frame


def _intent_frame(obj: Any) -> pd.DataFrame:
    """``intents=`` as a (query, doc, subtopic, relevance) frame."""
    if isinstance(obj, (str, os.PathLike)):
        return _read_ndeval_qrels(os.fspath(obj))
    if isinstance(obj, pd.DataFrame) or type(obj).__module__.split(".")[0] in (
            "polars", "pyarrow"):
        frame = obj if isinstance(obj, pd.DataFrame) else obj.to_pandas()
        cols = [str(c) for c in frame.columns]
        frame = frame.set_axis(cols, axis=1)
        qcol = _find_col(cols, USER_NAMES + ("topic", "topic_id"))
        dcol = _find_col(cols, ITEM_NAMES + ("document",))
        scol = _find_col(cols, SUBTOPIC_NAMES)
        rcol = _find_col(cols, REL_NAMES)
        if qcol is None or dcol is None or scol is None:
            raise InputError(
                f"intents: found columns {plain(cols)}; name them 'query' (or 'user'), 'doc' "
                "(or 'item'), 'subtopic' (or 'intent') and optionally 'relevance', or pass "
                "ndeval's qrels file (topic subtopic docno judgment).")
        out = pd.DataFrame({"query": frame[qcol].to_numpy(), "doc": frame[dcol].to_numpy(),
                            "subtopic": frame[scol].to_numpy(),
                            "relevance": frame[rcol].to_numpy() if rcol else 1.0})
        return out
    if isinstance(obj, (list, tuple)):
        rows = list(obj)
        if not all(len(r) == 4 for r in rows):
            raise InputError("intents: a sequence must hold (query, subtopic, doc, relevance) "
                             "tuples (pyndeval's SubtopicQrel order).")
        return pd.DataFrame([(r[0], r[2], r[1], r[3]) for r in rows],
                            columns=["query", "doc", "subtopic", "relevance"])
    raise InputError(
        f"intents: expected a (query, doc, subtopic, relevance) table, a path to ndeval's qrels "
        f"or (query, subtopic, doc, relevance) tuples; got {type(obj).__name__}.")


def _intent_columns(obj: Any) -> tuple[Any, Any, Any, pd.Series]:
    """``intents=`` as its query, doc and subtopic columns (arrays, or a Series whose data
    Arrow holds, as a table holds them) and its relevance (a Series), without building a
    frame from a table."""
    if isinstance(obj, pd.DataFrame) and not obj.columns.duplicated().any():
        cols = [str(c) for c in obj.columns]
        qcol = _find_col(cols, USER_NAMES + ("topic", "topic_id"))
        dcol = _find_col(cols, ITEM_NAMES + ("document",))
        scol = _find_col(cols, SUBTOPIC_NAMES)
        rcol = _find_col(cols, REL_NAMES)
        if qcol is not None and dcol is not None and scol is not None:
            by_name = dict(zip(cols, range(len(cols)), strict=True))

            def col(name: str) -> Any:
                values = obj.iloc[:, by_name[name]]
                return values if _arrow_held(values) else values.to_numpy()

            rel = pd.Series(col(rcol)) if rcol else pd.Series(np.ones(len(obj)))
            return col(qcol), col(dcol), col(scol), rel
    frame = _intent_frame(obj)
    return (frame["query"].to_numpy(), frame["doc"].to_numpy(), frame["subtopic"].to_numpy(),
            frame["relevance"])


def _arrow_held(values: pd.Series) -> bool:
    """Whether a pandas column's data is held by Arrow (``str`` under pyarrow, ArrowDtype)."""
    storage = getattr(values.dtype, "storage", None)
    return storage == "pyarrow" or isinstance(values.dtype, pd.ArrowDtype)


@dataclass
class _Coded:
    """A column of ``intents=`` coded: ``pandas.factorize(values, sort=True)``'s codes are
    ``rank[codes]`` (``codes`` when ``rank`` is ``None``), per row or, with ``runs``, per
    run of equal rows (``codes[r]`` for the rows ``runs[r] .. runs[r + 1] - 1``); ``ids``
    the distinct values, sorted."""

    codes: np.ndarray
    rank: np.ndarray | None
    ids: pd.Index
    runs: np.ndarray | None = None

    def per_row(self) -> np.ndarray:
        """The sorted codes of every row."""
        codes = self.codes if self.runs is None else np.repeat(self.codes, np.diff(self.runs))
        return codes if self.rank is None else self.rank[codes]


def _ranked_codes(values: Any) -> _Coded:
    """``values`` coded (:class:`_Coded`). A ``str`` column by the compiled table of
    :func:`receval.kernels.str_codes`, a column Arrow holds by its runs of equal ids or a
    compiled table of its UTF-8 ids (no ``str`` object per row; else by
    ``pandas.factorize``), then a sort of the distinct values only; the rank of each
    distinct value is not applied to every row here."""
    runs = None
    if isinstance(values, pd.Series):  # Arrow-held: compiled codes, distinct values sorted
        found = _run_codes(values)
        if found is not None:
            runs, found = found[2], found[:2]
        else:
            found = _first_codes(values)
        if found is None:
            codes, uniques = pd.factorize(values, sort=False)
            found = (codes, uniques.to_numpy(dtype=object, na_value=None))
        if (len(found[0]) and int(found[0].min()) < 0) or \
                not all(isinstance(v, str) for v in found[1]):  # (a missing id: code -1)
            codes, uniques = pd.factorize(values, sort=True)
            return _Coded(codes.astype(np.int64), None, pd.Index(uniques))
    else:
        found = str_codes(np.ascontiguousarray(values)) \
            if values.dtype == object and len(values) else None
    if found is None:
        codes, uniques = pd.factorize(pd.Series(values), sort=True)
        return _Coded(codes.astype(np.int64), None, pd.Index(uniques))
    codes, distinct = found
    ids = np.empty(len(distinct), dtype=object)
    ids[:] = distinct
    order = np.argsort(ids, kind="stable")  # str: code point order, as pandas sorts them
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return _Coded(np.asarray(codes, dtype=np.int64), rank, pd.Index(ids[order]), runs)


#: an Arrow-held id column with at most one run of equal adjacent ids per this many rows is
#: coded from the first id of each run (qrels are grouped by topic, often by subtopic)
RUN_ROWS = 4
#: a column of more rows than twice this is first looked at in its first this many rows:
#: when they hold too many runs, the whole column is not read for its runs
RUN_PROBE = 4096


def _run_codes(values: pd.Series) -> tuple[np.ndarray, Any, np.ndarray] | None:
    """``(codes, distinct, runs)`` of an Arrow-held ``str`` column from its runs of equal
    adjacent ids, when they are few (:data:`RUN_ROWS`): the code of each run (``runs``: its
    first row, then the number of rows), in order of first appearance; else ``None``
    (also when the first :data:`RUN_PROBE` rows of a longer column hold too many runs)."""
    raw = raw_ids(values)
    if raw is None or raw.family != "utf8" or not len(values):
        return None
    if len(values) > 2 * RUN_PROBE:
        head = raw_ids(values.iloc[:RUN_PROBE])
        if head is not None and (len(adjacent_starts(head.kind, head.a, head.b, 0, 0, 0))
                                 * RUN_ROWS > RUN_PROBE):
            return None
    bounds = adjacent_starts(raw.kind, raw.a, raw.b, 0, 0, 1)
    if (len(bounds) - 1) * RUN_ROWS > len(values):
        return None
    found = str_codes(utf8_at(raw.kind, raw.a, raw.b, bounds[:-1]))
    if found is None:  # pragma: no cover - UTF-8 ids decode to str
        return None
    head_codes, distinct = found
    return np.asarray(head_codes, dtype=np.int64), distinct, np.asarray(bounds, dtype=np.int64)


def _first_codes(values: pd.Series) -> tuple[np.ndarray, Any] | None:
    """``(codes, distinct)`` in order of first appearance of an Arrow-held ``str`` column by
    a compiled table of its distinct ids (:func:`receval.kernels.first_codes`); ``None``
    when it is not one."""
    raw = raw_ids(values)
    if raw is None or raw.family != "utf8" or not len(values) or \
            len(values) > np.iinfo(np.int32).max:
        return None
    codes, firsts = first_codes(raw.kind, raw.a, raw.b)
    return codes, utf8_at(raw.kind, raw.a, raw.b, firsts)


def _weights_frame(obj: Any) -> pd.DataFrame:
    if isinstance(obj, Mapping):
        rows = [(q, s, w) for q, sub in obj.items() for s, w in dict(sub).items()]
        return pd.DataFrame(rows, columns=["query", "subtopic", "weight"])
    if isinstance(obj, pd.DataFrame) or type(obj).__module__.split(".")[0] in (
            "polars", "pyarrow"):
        frame = obj if isinstance(obj, pd.DataFrame) else obj.to_pandas()
        cols = [str(c) for c in frame.columns]
        frame = frame.set_axis(cols, axis=1)
        qcol = _find_col(cols, USER_NAMES + ("topic", "topic_id"))
        scol = _find_col(cols, SUBTOPIC_NAMES)
        wcol = _find_col(cols, WEIGHT_NAMES)
        if qcol is None or scol is None or wcol is None:
            raise InputError(f"intent_weights: found columns {plain(cols)}; name them 'query', "
                             "'subtopic' and 'weight', or pass {query: {subtopic: weight}}.")
        return pd.DataFrame({"query": frame[qcol].to_numpy(),
                             "subtopic": frame[scol].to_numpy(),
                             "weight": frame[wcol].to_numpy()})
    raise InputError(f"intent_weights: expected {{query: {{subtopic: weight}}}} or a (query, "
                     f"subtopic, weight) table; got {type(obj).__name__}.")


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values (by a sort: faster than a hash for large integer arrays)."""
    out = np.sort(values)
    keep = np.ones(len(out), dtype=bool)
    keep[1:] = out[1:] != out[:-1]
    return out[keep]


#: the judgments are sorted as one int64 key per row (:func:`receval.kernels.intent_keys`)
#: when those keys fit; else (and with False) each topic's rows are sorted on their own
SORTED_KEYS = True
DENSE_CELLS, DENSE_PER_ROW = 1 << 16, 4  # the reader's (topic, subtopic) table: its cells at
# most this many, or this many per relevant judgment


def as_intents(obj: Any, rel: float = 1.0, weights: Any = None) -> Intents:
    """Read ``intents=`` (and ``intent_weights=``) with relevance threshold ``rel``."""
    query, doc, subtopic, rel_col = _intent_columns(obj)
    relevance = rel_col.to_numpy(np.float64) if pd.api.types.is_numeric_dtype(rel_col) \
        and not pd.api.types.is_bool_dtype(rel_col) else \
        pd.to_numeric(rel_col, errors="coerce").to_numpy(np.float64)
    bad = ~np.isfinite(relevance)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"intents: every relevance must be a finite number; {int(bad.sum())} value(s) are "
            f"not (first at row {first}: {plain(rel_col.iloc[first])}).")
    try:
        columns = [_ranked_codes(v) for v in (query, doc, subtopic)]
    except TypeError:  # an id pandas cannot hash: a list, a set, a dict
        for name, values in (("query", query), ("doc", doc), ("subtopic", subtopic)):
            if (found := first_unhashable(pd.Series(values).tolist())) is not None:
                i, v = found
                raise InputError(
                    f"intents: the {name} column holds ids (strings or integers); row {i} "
                    f"holds {plain(v)}, a {type(v).__name__}: give one id per row.") from None
        raise
    if len(query) and min(int(c.codes.min()) for c in columns) < 0:  # a null id
        raise InputError("intents: a row has no query, document or subtopic.")
    (topics, docs, subs) = (c.ids for c in columns)
    n_topics, n_docs, n_subs = len(topics), len(docs), len(subs)
    none = np.zeros(0, dtype=np.int64)
    keys = intent_keys(*(a for c in columns for a in (c.codes, none if c.rank is None
                                                         else c.rank)),
                       relevance, float(rel), n_topics, n_docs, n_subs,
                       *(c.runs for c in columns)) if COMPILED and SORTED_KEYS else None
    if keys is not None:
        keys.sort()  # one sort of every row's key
        pairs = intent_pairs(none, none, none, np.zeros(0), float(rel), n_topics, n_docs,
                             n_subs, keys)
    else:
        topic_code, doc_code, sub_code = (c.per_row() for c in columns)
        pairs = intent_pairs(topic_code, doc_code, sub_code, relevance, float(rel),
                             n_topics, n_docs, n_subs) if COMPILED else \
            _intent_pairs_arrays(topic_code, doc_code, sub_code, relevance, rel, n_topics,
                                 n_docs, n_subs)
    if pairs is None:
        raise InputError("intents: a (query, doc, subtopic) judgment is given twice; give "
                         "each once.")
    key, relm, bits, n_sub, nrel_sub, ts_topic, ts_sub, local_of_ts = pairs
    s_max = relm.shape[1]
    weight = np.zeros((n_topics, s_max), dtype=np.float64)
    weight[np.arange(s_max)[None, :] < n_sub[:, None]] = 1.0
    dropped = 0
    if weights is not None:
        weight, dropped = _given_weights(weights, topics, subs, ts_topic, ts_sub,
                                         local_of_ts, n_sub, s_max)
    order = np.argsort(np.array([str(d).encode("utf-8") for d in docs], dtype=object),
                       kind="stable")
    doc_order = np.empty(n_docs, dtype=np.int64)
    doc_order[order] = np.arange(n_docs)
    intents = Intents(topics, docs, key, relm, weight, n_sub, nrel_sub, doc_order,
                      weights is not None, dropped)
    if bits is not None:
        intents._bits = bits
    return intents


def _intent_pairs_arrays(topic_code: np.ndarray, doc_code: np.ndarray, sub_code: np.ndarray,
                         relevance: np.ndarray, rel: float, n_topics: int, n_docs: int,
                         n_subs: int) -> tuple[np.ndarray, ...] | None:
    """:func:`receval.kernels.intent_pairs` by array operations (one sort of every judgment
    in (topic, doc, subtopic) order)."""
    # every judgment in (topic, doc, subtopic) order: one sort for the pairs and the checks
    triple = (topic_code * n_docs + doc_code) * n_subs + sub_code
    by_triple = np.argsort(triple)
    triple = triple[by_triple]
    if len(triple) > 1 and (triple[1:] == triple[:-1]).any():
        return None
    good = relevance[by_triple] >= rel
    pair = triple // max(n_subs, 1)
    new_pair = np.ones(len(pair), dtype=bool)
    new_pair[1:] = pair[1:] != pair[:-1]
    key = pair[new_pair]
    pair_idx = np.cumsum(new_pair) - 1
    # local subtopics: those with a relevant document, per topic, in sorted raw-id order
    good_topic = pair[good] // max(n_docs, 1)
    good_ts = good_topic * n_subs + triple[good] % max(n_subs, 1)
    # the (topic, subtopic) pairs by a table over every cell when it is small, else a sort
    dense = n_topics * n_subs <= max(DENSE_PER_ROW * len(good_ts), DENSE_CELLS)
    if dense:
        present = np.zeros(n_topics * n_subs, dtype=bool)
        present[good_ts] = True
        ts = np.flatnonzero(present)
    else:
        ts = _sorted_unique(good_ts)
    ts_topic, ts_sub = ts // max(n_subs, 1), ts % max(n_subs, 1)
    n_sub = np.bincount(ts_topic, minlength=n_topics).astype(np.int64)
    first = np.zeros(n_topics + 1, dtype=np.int64)
    np.cumsum(n_sub, out=first[1:])
    local_of_ts = np.arange(len(ts)) - first[ts_topic]
    s_max = int(n_sub.max()) if n_topics else 0
    relm = np.zeros((len(key), s_max), dtype=bool)
    if dense:
        local = np.zeros(n_topics * n_subs, dtype=np.int64)
        local[ts] = local_of_ts
        loc = local[good_ts]
    else:
        loc = local_of_ts[np.searchsorted(ts, good_ts)]
    relm[pair_idx[good], loc] = True
    nrel_sub = np.bincount(good_topic * s_max + loc, minlength=n_topics * s_max) \
        .astype(np.int64).reshape(n_topics, s_max)
    return key, relm, None, n_sub, nrel_sub, ts_topic, ts_sub, local_of_ts


def _given_weights(obj: Any, topics: pd.Index, subs: pd.Index, ts_topic: np.ndarray,
                   ts_sub: np.ndarray, local_of_ts: np.ndarray, n_sub: np.ndarray,
                   s_max: int) -> tuple[np.ndarray, int]:
    frame = _weights_frame(obj)
    w = pd.to_numeric(frame["weight"], errors="coerce").to_numpy(np.float64)
    if not np.isfinite(w).all() or (w < 0).any():
        raise InputError("intent_weights: every weight must be a finite number >= 0.")
    t = topics.get_indexer(pd.Index(frame["query"]))
    s = subs.get_indexer(pd.Index(frame["subtopic"]))
    n_subs = len(subs)
    given = pd.Series(w, index=np.where((t >= 0) & (s >= 0), t.astype(np.int64) * n_subs + s,
                                        -1 - np.arange(len(w))))
    if not given.index.is_unique:
        raise InputError("intent_weights: a (query, subtopic) weight is given twice.")
    needed = ts_topic * n_subs + ts_sub
    have = given.reindex(needed).to_numpy()
    if np.isnan(have).any():
        miss = np.flatnonzero(np.isnan(have))
        ex = [(topics[ts_topic[i]], subs[ts_sub[i]]) for i in miss[:3]]
        raise InputError(
            f"intent_weights: {len(miss)} (query, subtopic) pair(s) with a relevant document "
            f"have no weight, e.g. {plain(ex)}; give every such subtopic a weight.")
    weight = np.zeros((len(topics), s_max), dtype=np.float64)
    weight[ts_topic, local_of_ts] = have
    total = weight.sum(axis=1)
    bad = (n_sub > 0) & (total <= 0)
    if bad.any():
        raise InputError(f"intent_weights: the weights of query {plain(topics[np.flatnonzero(bad)[0]])} "
                         "sum to 0 over its subtopics with a relevant document.")
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(total[:, None] > 0, weight / total[:, None], 0.0)
    dropped = int(len(given) - np.isin(given.index.to_numpy(), needed).sum())
    return weight, dropped


# -------------------------------------------------------------------------------------------------
# The greedy ideal list and the run's gains


def _powers(base: float, n: int) -> np.ndarray:
    """``base^0 .. base^(n-1)`` by repeated multiplication (ndeval's running products)."""
    out = np.empty(max(n, 1), dtype=np.float64)
    value = 1.0
    for i in range(len(out)):
        out[i] = value
        value *= base
    return out


def ideal_gains(intents: Intents, topic: np.ndarray, alpha: float, *,
                compiled: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Gains of ndeval's greedy ideal list of each topic (CSR: indptr, gains).

    At each rank, the judged document of largest gain ``sum_j w_j g_j rel_j`` (``g_j`` the
    subtopic's current gain, 1 then times ``1 - alpha`` at each relevant document placed) is
    placed, ties to the largest document id in byte order; only positive gains are kept (the
    rest add nothing). Documents with the same relevant subtopics are one cluster, taken in
    descending document order. ``compiled``: the compiled pass (``kernels.ideal_lists``)
    where the subtopic sets fit one integer, else clusters found by array operations and the
    array loop over every topic at once (the same bits).
    """
    lo = np.searchsorted(intents.key, topic * intents.n_docs)
    hi = np.searchsorted(intents.key, (topic + 1) * intents.n_docs)
    bits = intents.bits
    if compiled and bits is not None:  # clusters and greedy loop, topic by topic
        return ideal_lists(np.ascontiguousarray(topic, dtype=np.int64), lo.astype(np.int64),
                           hi.astype(np.int64), bits, intents.key, intents.n_docs,
                           intents.doc_order,
                           np.ascontiguousarray(intents.weight, dtype=np.float64),
                           np.ascontiguousarray(intents.n_sub, dtype=np.int64), float(alpha))
    return _ideal_gains_arrays(intents, topic, alpha, compiled, lo, hi)


def _ideal_gains_arrays(intents: Intents, topic: np.ndarray, alpha: float, compiled: bool,
                        lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ideal_gains` from the clusters found by array operations (``compiled``: then
    the compiled greedy loop where the subtopic sets fit one integer)."""
    n_t = len(topic)
    s = intents.n_subtopics
    lens = hi - lo
    starts = np.repeat(lo, lens)
    rows = np.arange(int(lens.sum()), dtype=np.int64) + starts - np.repeat(
        np.cumsum(lens) - lens, lens)
    owner = np.repeat(np.arange(n_t, dtype=np.int64), lens)
    relm = intents.rel[rows]
    anyrel = relm.any(axis=1) if s else np.zeros(len(rows), dtype=bool)
    rows, owner, relm = rows[anyrel], owner[anyrel], relm[anyrel]
    indptr = np.zeros(n_t + 1, dtype=np.int64)
    if not len(rows):
        return indptr, np.zeros(0, dtype=np.float64)
    doc = intents.key[rows] % intents.n_docs
    order_of_doc = intents.doc_order[doc]
    packed_bits = s <= 62 - int(n_t).bit_length()  # one integer per (topic, subtopic set)
    if packed_bits:
        bits = (relm.astype(np.int64) << np.arange(s, dtype=np.int64)).sum(axis=1)
        uniq_key, cl = np.unique((owner << s) | bits, return_inverse=True)
        cl_topic = uniq_key >> s
    else:
        ident = np.column_stack([owner[:, None],
                                 np.packbits(relm, axis=1).astype(np.int64)])
        uniq, cl = np.unique(ident, axis=0, return_inverse=True)
        cl_topic = uniq[:, 0]
    cl = cl.ravel()
    n_cl = len(cl_topic)
    # documents of each cluster by descending byte order of their ids
    srt = np.lexsort((-order_of_doc, cl))
    doc_rank_sorted = order_of_doc[srt]
    cl_count = np.bincount(cl, minlength=n_cl)
    cl_start = np.zeros(n_cl, dtype=np.int64)
    np.cumsum(cl_count[:-1], out=cl_start[1:])
    cl_pattern = np.zeros((n_cl, s), dtype=bool)
    cl_pattern[cl, :] = relm
    per_topic = np.bincount(cl_topic, minlength=n_t)
    steps = int(np.bincount(owner, minlength=n_t).max())
    if packed_bits and compiled:  # the compiled greedy loop, topic by topic
        first = np.zeros(n_t + 1, dtype=np.int64)
        np.cumsum(per_topic, out=first[1:])
        w_t = np.ascontiguousarray(intents.weight[topic], dtype=np.float64)
        out = greedy_ideal(first, np.ascontiguousarray(uniq_key & ((1 << s) - 1)),
                           cl_count.astype(np.int64), cl_start,
                           np.ascontiguousarray(doc_rank_sorted, dtype=np.int64), w_t,
                           np.ascontiguousarray(intents.n_sub[topic], dtype=np.int64),
                           float(alpha), steps)
        cnt = (out > 0).sum(axis=1)
        np.cumsum(cnt, out=indptr[1:])
        return indptr, out[np.arange(steps)[None, :] < cnt[:, None]]
    # dense (topic, cluster) layout
    m = int(per_topic.max())
    t_first = np.zeros(n_t + 1, dtype=np.int64)
    np.cumsum(per_topic, out=t_first[1:])
    slot = np.arange(n_cl) - t_first[cl_topic]
    pat = np.zeros((n_t, m, s), dtype=bool)
    pat[cl_topic, slot] = cl_pattern
    remaining = np.zeros((n_t, m), dtype=np.int64)
    remaining[cl_topic, slot] = cl_count
    start = np.zeros((n_t, m), dtype=np.int64)
    start[cl_topic, slot] = cl_start
    taken = np.zeros((n_t, m), dtype=np.int64)
    w = intents.weight[topic]
    gain = np.where(np.arange(s)[None, :] < intents.n_sub[topic][:, None], 1.0, 0.0)
    decay = 1.0 - alpha
    out = np.zeros((n_t, steps), dtype=np.float64)
    active = np.flatnonzero(per_topic > 0)
    for step in range(steps):
        if not len(active):
            break
        pa, ga, wa = pat[active], gain[active], w[active]
        score = np.zeros(pa.shape[:2], dtype=np.float64)
        for j in range(s):  # ndeval's order: subtopic by subtopic
            score = score + np.where(pa[:, :, j], (wa[:, j] * ga[:, j])[:, None], 0.0)
        avail = remaining[active] > 0
        masked = np.where(avail, score, -1.0)
        best = masked.max(axis=1)
        tie = avail & (masked == best[:, None])
        nxt = np.where(tie, doc_rank_sorted[np.minimum(start[active] + taken[active],
                                                       len(doc_rank_sorted) - 1)], -1)
        choice = nxt.argmax(axis=1)
        keep = best > 0
        act, choice, best = active[keep], choice[keep], best[keep]
        out[act, step] = best
        chosen = pat[act, choice]
        gain[act] = np.where(chosen, gain[act] * decay, gain[act])
        remaining[act, choice] -= 1
        taken[act, choice] += 1
        active = act[(remaining[act] > 0).any(axis=1)]
    cnt = (out > 0).sum(axis=1)
    np.cumsum(cnt, out=indptr[1:])
    return indptr, out[np.arange(steps)[None, :] < cnt[:, None]]


@dataclass
class RunGains:
    """The relevant positions of the block's lists (user row, 0-based rank, gain
    ``G_r = sum_j w_j rel_rj (1 - alpha)^c_rj``, ``sum_j w_j rel_rj`` and the same over the
    subtopics the position covers first), and per user the list length read and
    ``sum_j [R_j > 0] w_j AP_j / R_j`` (MAP-IA's sum, before the division by ``A``)."""

    user: np.ndarray
    rank: np.ndarray
    gain: np.ndarray
    wrel: np.ndarray      # sum_j w_j rel_rj (P-IA)
    wnew: np.ndarray      # sum_j w_j rel_rj [c_rj = 0] (strec)
    length: np.ndarray    # (n_users,) list length read (after judged_only)
    ap: np.ndarray        # (n_users,)


def run_gains(intents: Intents, topic: np.ndarray, packed: Any, alpha: float,
              judged_only: bool, *, compiled: bool = True, first_only: bool = False
              ) -> RunGains:
    """Gains of the packed lists (``topic``: topic code per user row, -1 = no intents).

    ``compiled``: each position's document looked up in the judged documents
    (``Packed.items_in``), then one compiled pass over each list in rank order
    (``kernels.list_gains``); else array operations over every position, from the run's
    item codes (the same sums in the same order: subtopic order within a position, rank
    order within a user). ``first_only`` (``duplicates="keep"``): a document repeated in a
    list is judged at its first position only; its later positions hold a document without
    judgments (no gain, not judged), as the policy treats a repeated item everywhere."""
    if not compiled:
        vocab = packed.item_vocab
        vocab_docs = intents.docs.get_indexer(pd.Index(vocab)).astype(np.int64) \
            if len(vocab) else np.zeros(0, dtype=np.int64)
        return _run_gains_arrays(intents, topic, packed, alpha, judged_only, vocab_docs,
                                 first_only)
    indptr = np.ascontiguousarray(packed.indptr, dtype=np.int64)
    docs = packed.items_in(intents.docs) if indptr[-1] else np.zeros(0, dtype=np.int64)
    if first_only:
        docs = _first_occurrences(indptr, docs)
    if docs.dtype not in (np.int32, np.int64) or not docs.flags.c_contiguous:
        docs = np.ascontiguousarray(docs, dtype=np.int64)
    t = np.maximum(topic, 0)
    lo = np.searchsorted(intents.key, t * intents.n_docs)
    hi = np.where(topic >= 0, np.searchsorted(intents.key, (t + 1) * intents.n_docs), lo)
    relm = np.ascontiguousarray(intents.rel).view(np.uint8)
    any_rel = np.ascontiguousarray(intents.any_rel).view(np.uint8)
    weight = np.ascontiguousarray(intents.weight, dtype=np.float64)
    nrel = np.ascontiguousarray(intents.nrel_sub, dtype=np.int64)
    topic = np.ascontiguousarray(topic, dtype=np.int64)
    return RunGains(*list_gains(indptr, docs, np.zeros(0, dtype=np.int64), topic, lo, hi,
                                intents.key, intents.n_docs, relm, any_rel, weight, nrel,
                                float(alpha), bool(judged_only)))


def _first_occurrences(indptr: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """``docs`` (each position's document, -1: none) with -1 at every position whose
    document came earlier in the same list (CSR ``indptr``): a copy, the input untouched."""
    at = np.flatnonzero(docs >= 0)
    out = np.array(docs, dtype=np.int64)
    if len(at) < 2:
        return out
    user = np.searchsorted(indptr, at, side="right") - 1
    order = np.lexsort((at, out[at], user))  # by list, then document, then rank
    a, u, d = at[order], user[order], out[at[order]]
    later = np.zeros(len(a), dtype=bool)
    later[1:] = (u[1:] == u[:-1]) & (d[1:] == d[:-1])
    out[a[later]] = -1
    return out


def _run_gains_arrays(intents: Intents, topic: np.ndarray, packed: Any, alpha: float,
                      judged_only: bool, vocab_docs: np.ndarray, first_only: bool = False
                      ) -> RunGains:
    """:func:`run_gains` by array operations over every position."""
    indptr = np.asarray(packed.indptr, dtype=np.int64)
    n = len(indptr) - 1
    lens = np.diff(indptr)
    items = packed.items if len(packed.items) else np.zeros(0, dtype=np.int64)
    pair = _pairs_of(intents, topic, vocab_docs, lens, items)  # -1: not judged
    if first_only and len(items):  # later copies of a document: not judged
        pair[_first_occurrences(indptr, vocab_docs[items]) < 0] = -1
    length = lens.astype(np.int64)
    if judged_only:
        judged = np.flatnonzero(pair >= 0)
        juser = np.searchsorted(indptr, judged, side="right") - 1
        length = np.bincount(juser, minlength=n).astype(np.int64)
        jstart = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(length, out=jstart[1:])
        jpair = pair[judged]
        keep = intents.any_rel[jpair]
        user, pair_hit = juser[keep], jpair[keep]
        rank = np.flatnonzero(keep) - jstart[user]
    else:
        pos = np.flatnonzero(pair >= 0)
        pos = pos[intents.any_rel[pair[pos]]]
        user = np.searchsorted(indptr, pos, side="right") - 1
        rank = pos - indptr[user]
        pair_hit = pair[pos]
    s = intents.n_subtopics
    relm = intents.rel[pair_hit]
    counts = relm.astype(np.int64)
    cum = np.cumsum(counts, axis=0) - counts  # relevant above, over all users' positions
    first = np.ones(len(user), dtype=bool)
    first[1:] = user[1:] != user[:-1]
    seg = np.cumsum(first) - 1
    before = cum - cum[first][seg] if len(user) else cum
    powers = _powers(1.0 - alpha, int(before.max()) + 1 if len(user) else 1)
    w = intents.weight[topic[user]] if len(user) else np.zeros((0, s))
    gain = np.zeros(len(user), dtype=np.float64)
    wrel = np.zeros(len(user), dtype=np.float64)
    wnew = np.zeros(len(user), dtype=np.float64)
    for j in range(s):  # ndeval's order: subtopic by subtopic
        gain = gain + np.where(relm[:, j], w[:, j] * powers[before[:, j]], 0.0)
        wrel = wrel + np.where(relm[:, j], w[:, j], 0.0)
        wnew = wnew + np.where(relm[:, j] & (before[:, j] == 0), w[:, j], 0.0)
    tt = np.maximum(topic, 0)
    nrel = intents.nrel_sub[tt] if n else np.zeros((0, s), dtype=np.int64)
    wt = intents.weight[tt] if n else np.zeros((0, s))
    ap = np.zeros(n, dtype=np.float64)
    for j in range(s):  # per subtopic: AP_j, then their (weighted) sum in subtopic order
        on = relm[:, j]
        prec = (before[on, j] + 1) / (rank[on] + 1.0)
        ap_j = _per_user_sum(user[on], prec, n)
        with np.errstate(invalid="ignore", divide="ignore"):
            ap = ap + np.where(nrel[:, j] > 0, ap_j / np.maximum(nrel[:, j], 1) * wt[:, j], 0.0)
    return RunGains(user, rank, gain, wrel, wnew, length, ap)


def _pairs_of(intents: Intents, topic: np.ndarray, vocab_docs: np.ndarray, lens: np.ndarray,
              items: np.ndarray) -> np.ndarray:
    """Judged pair of each packed position (-1: not judged for the user's topic): a dense
    (block topic x run vocabulary) table when it is small, else a binary search of the sorted
    pair keys."""
    total = int(lens.sum())
    if not total or not len(intents.key):
        return np.full(total, -1, dtype=np.int64)
    rows, row_of_user = np.unique(np.maximum(topic, 0), return_inverse=True)
    row_of_user = np.where(topic >= 0, row_of_user.ravel(), -1)
    if len(rows) * len(vocab_docs) <= 1 << 25:
        lo = np.searchsorted(intents.key, rows * intents.n_docs)
        hi = np.searchsorted(intents.key, (rows + 1) * intents.n_docs)
        plen = hi - lo
        pair = np.arange(int(plen.sum()), dtype=np.int64) + np.repeat(
            lo - (np.cumsum(plen) - plen), plen)
        prow = np.repeat(np.arange(len(rows), dtype=np.int64), plen)
        cols = np.flatnonzero(vocab_docs >= 0)
        col_of_doc = np.full(intents.n_docs, -1, dtype=np.int64)
        col_of_doc[vocab_docs[cols]] = cols  # run vocabulary ids are distinct
        pcol = col_of_doc[intents.key[pair] % intents.n_docs]
        keep = pcol >= 0
        table = np.full((len(rows) + 1, len(vocab_docs)), -1, dtype=np.int64)
        table[prow[keep], pcol[keep]] = pair[keep]  # the last row: users without intents
        return table.ravel()[np.repeat(np.where(row_of_user >= 0, row_of_user, len(rows))
                                       * len(vocab_docs), lens) + items]
    t = np.repeat(topic, lens)
    doc = vocab_docs[items]
    key = np.where((t >= 0) & (doc >= 0), t * intents.n_docs + doc, -1)
    where = np.minimum(np.searchsorted(intents.key, key), len(intents.key) - 1)
    return np.where(intents.key[where] == key, where, -1)


def _discounts(n: int) -> np.ndarray:
    """ndeval's ``discount(i) = log(2) / log(i + 2)`` for 0-based ranks (1 at rank 0)."""
    i = np.arange(max(n, 1), dtype=np.float64)
    out = math.log(2.0) / np.log(i + 2.0)
    out[0] = 1.0
    return out


# -------------------------------------------------------------------------------------------------
# Plugin metric families


def _intents_of(context: Context, key: str, rel: float) -> Intents:
    raw = context.options.get("intents")
    if raw is None:
        raise InputError(
            f"{key} needs subtopic judgments: pass intents=... to evaluate(), a (query, doc, "
            "subtopic, relevance) table or ndeval's qrels file (topic subtopic docno judgment), "
            f"e.g. rv.evaluate(run, truth, [{plain(key)}], intents='qrels.diversity.txt').")
    weights = context.options.get("intent_weights")
    return context.memo(("intents", rel), (raw, weights), lambda: as_intents(raw, rel, weights))


def _judged_docs(spec: MetricSpec, context: Context) -> pd.Index | None:
    """The documents of ``intents=`` (what :func:`run_gains` looks each position up in),
    before the lists are packed; ``None`` with ``aspects=categories`` (made from them) and
    for the array operations (:data:`COMPILED` false: they read the run's item codes)."""
    if spec.get("aspects") == "categories" or not COMPILED:
        return None
    return _intents_of(context, spec.key, float(spec.get("rel"))).docs


def _item_categories(context: Context, key: str) -> ItemCategories:
    raw = context.options.get("item_categories")
    if raw is None:
        raise InputError(
            f"{key} with aspects=categories takes its subtopics from the items' categories: "
            "pass item_categories={item: [categories]} (or an (item, category) table) to "
            f"evaluate(), e.g. rv.evaluate(run, truth, [{plain(key)}], item_categories=genres).")
    return context.memo("item_categories", (raw,), lambda: as_item_categories(raw))


def category_judgments(packed: Any, cats: ItemCategories) -> pd.DataFrame:
    """The subtopic judgments of the recommender variant: each truth row ``(user, item, rel)``
    is a judgment of ``item`` for every category of the item, ``(user, item, category, rel)``
    (an item without categories gives none). Users are the queries, categories the subtopics
    (Vargas & Castells' intent-aware metrics over item features, RankSys)."""
    n_users = len(packed.user_ids)
    t_user = np.repeat(np.arange(n_users, dtype=np.int64), np.diff(packed.t_indptr))
    items = np.asarray(packed.truth_item_vocab)[packed.t_items] if len(packed.t_items) \
        else np.zeros(0, dtype=object)
    rows = cats.rows(items)
    rows = np.where(rows >= 0, rows, len(cats.items))  # unknown: no categories
    indptr = np.append(cats.indptr, cats.indptr[-1])
    t_user, rel = t_user, packed.t_rel
    lens = indptr[rows + 1] - indptr[rows]
    starts = np.repeat(indptr[rows] - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
    codes = cats.codes[np.arange(int(lens.sum()), dtype=np.int64) + starts]
    return pd.DataFrame({"query": np.asarray(packed.user_ids, dtype=object)[
        np.repeat(t_user, lens)], "doc": np.repeat(items, lens),
        "subtopic": cats.categories[codes], "relevance": np.repeat(rel, lens)})


def _category_intents(context: Context, key: str, packed: Any, rel: float) -> Intents:
    """Intents of one block from its truth and ``item_categories=`` (``aspects="categories"``),
    with ``intent_weights=`` keyed by (user, category) when given."""
    cats = _item_categories(context, key)
    weights = context.options.get("intent_weights")

    def build() -> Intents:
        judged = category_judgments(packed, cats)
        intents = as_intents(judged, rel, weights)
        # relevant truth rows whose item has no category: relevant to no subtopic
        rows = cats.rows(np.asarray(packed.truth_item_vocab)[packed.t_items]) \
            if len(packed.t_items) else np.zeros(0, dtype=np.int64)
        lens = np.where(rows >= 0, cats.indptr[rows + 1] - cats.indptr[np.maximum(rows, 0)], 0)
        intents.uncategorised = int(((lens == 0) & (packed.t_rel >= rel)).sum())
        return intents

    return context.memo(("category_intents", rel), (packed, cats, weights), build)


@dataclass
class _Block:
    intents: Intents
    topic: np.ndarray           # topic code per user row (-1: none)
    gains: RunGains
    ideal_indptr: np.ndarray    # per user row
    ideal: np.ndarray
    divisor: np.ndarray         # per user row: A (uniform) or 1 (given weights); 0 when none
    ideal_user: np.ndarray      # user row of each ideal gain
    ideal_rank: np.ndarray      # 0-based rank of each ideal gain
    depth: int                  # 1 + the deepest rank of a run or ideal gain (at least 1)
    gains_indptr: np.ndarray    # per user row: where its run gains start (then ``gains``)

    def run_sum(self, values: np.ndarray, factor: np.ndarray | None,
                k: np.ndarray | None) -> np.ndarray:
        """Per user row: its run gains' ``values`` summed by :func:`_sum_above`."""
        return _sum_above(self.gains.user, self.gains_indptr, self.gains.rank, values, factor,
                          k, len(self.topic))

    def ideal_sum(self, factor: np.ndarray | None, k: np.ndarray | None) -> np.ndarray:
        """Per user row: its ideal gains summed by :func:`_sum_above`."""
        return _sum_above(self.ideal_user, self.ideal_indptr, self.ideal_rank, self.ideal,
                          factor, k, len(self.topic))


def _block(spec: MetricSpec, packed: Any, context: Context) -> _Block:
    rel = float(spec.get("rel"))
    alpha = float(spec.get("alpha")) if any(p.name == "alpha" for p in
                                            spec.definition.params) else _ALPHA.default
    judged_only = spec.get("judged_only") == "true"
    if spec.get("aspects") == "categories":
        intents = _category_intents(context, spec.key, packed, rel)
    else:
        intents = _intents_of(context, spec.key, rel)
    first_only = getattr(context.policies, "duplicates", None) == "keep"
    return context.memo(("block", rel, alpha, judged_only), (packed, intents),
                        lambda: _new_block(spec, packed, intents, rel, alpha, judged_only,
                                           first_only))


def _new_block(spec: MetricSpec, packed: Any, intents: Intents, rel: float, alpha: float,
               judged_only: bool, first_only: bool = False) -> _Block:
    """One block's topics, run gains and ideal gains for these intents and parameters
    (``first_only``: as in :func:`run_gains`)."""
    topic = intents.topics.get_indexer(pd.Index(packed.user_ids)).astype(np.int64) \
        if len(packed.user_ids) else np.zeros(0, dtype=np.int64)
    if len(packed.user_ids) and len(intents.topics) and (topic < 0).all():
        raise InputError(
            f"{spec.key}: no evaluated user is a query of intents= (users look like "
            f"{plain(list(packed.user_ids[:2]))}, intents' queries like "
            f"{plain(list(intents.topics[:2]))}); use the same id type in both, e.g. "
            ".astype(str).")
    gains = run_gains(intents, topic, packed, alpha, judged_only, compiled=COMPILED,
                      first_only=first_only)
    with_t = np.flatnonzero(topic >= 0)
    uniq, inv = np.unique(topic[with_t], return_inverse=True)
    t_indptr, t_gains = ideal_gains(intents, uniq, alpha, compiled=COMPILED)
    lens = np.zeros(len(topic), dtype=np.int64)
    lens[with_t] = np.diff(t_indptr)[inv]
    ideal_indptr = np.zeros(len(topic) + 1, dtype=np.int64)
    np.cumsum(lens, out=ideal_indptr[1:])
    src = np.zeros(len(topic), dtype=np.int64)
    src[with_t] = t_indptr[:-1][inv]
    idx = np.arange(int(lens.sum()), dtype=np.int64) + np.repeat(
        src - ideal_indptr[:-1], lens)
    ideal = t_gains[idx]
    divisor = np.zeros(len(topic), dtype=np.float64)
    divisor[with_t] = intents.divisor(topic[with_t])
    iu = np.repeat(np.arange(len(topic), dtype=np.int64), lens)
    ir = np.arange(len(iu), dtype=np.int64) - ideal_indptr[iu]
    depth = max(int(gains.rank.max()) + 1 if len(gains.rank) else 1,
                int(lens.max()) if len(lens) else 1)
    gains_indptr = np.zeros(len(topic) + 1, dtype=np.int64)
    np.cumsum(np.bincount(gains.user, minlength=len(topic)), out=gains_indptr[1:])
    return _Block(intents, topic, gains, ideal_indptr, ideal, divisor, iu, ir, depth,
                  gains_indptr)


COMPILED = True  # the compiled passes (False: the array operations, the same values)


def _per_user_sum(user: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(user, weights=values, minlength=n).astype(np.float64)


def _sum_above(user: np.ndarray, indptr: np.ndarray, rank: np.ndarray, values: np.ndarray,
               factor: np.ndarray | None, k: np.ndarray | None, n: int) -> np.ndarray:
    """Per user: ``sum values_i factor[rank_i]`` over its positions with ``rank_i < k[user]``
    (``factor`` None: 1; ``k`` None: every position), added in position order. Positions
    are grouped by user (``user``; ``indptr``: where each user's start), each user's in
    ascending rank."""
    if COMPILED:
        none = np.zeros(0, dtype=np.float64)
        return cut_sums(indptr, rank, values, none if factor is None else factor,
                        none if k is None else k)
    if k is not None:
        inside = rank < k[user]
        user, rank, values = user[inside], rank[inside], values[inside]
    return _per_user_sum(user, values if factor is None else values * factor[rank], n)


def _values(block: _Block, values: np.ndarray, *, nan_without_relevant: bool = False
            ) -> MetricValues:
    no_topic = block.topic < 0
    values = np.where(no_topic, np.nan, values)
    info: dict[str, Any] = {"users_without_intents": int(no_topic.sum()),
                            "queries_without_relevant": int(((block.divisor == 0)
                                                             & ~no_topic).sum())}
    if block.intents.weighted:
        info["weights_dropped"] = block.intents.dropped_weights
    if block.intents.uncategorised >= 0:
        info["relevant_items_without_categories"] = block.intents.uncategorised
    if nan_without_relevant:
        values = np.where(block.divisor == 0, np.nan, values)
    return MetricValues(per_user=values, info=info, skipped=no_topic)


def _cut(spec: MetricSpec, block: _Block) -> np.ndarray:
    """k per user row (the list length read without a cutoff)."""
    if spec.k is None:
        return block.gains.length.astype(np.float64)
    return np.full(len(block.topic), float(spec.k))


def _ideal_ideal(k: np.ndarray, alpha: float, weights_of_rank) -> np.ndarray:
    """``sum_{r < k} (1 - alpha)^r weight(r)`` per user (ndeval's ideal-ideal, per unit A)."""
    kmax = int(k.max()) if len(k) else 0
    terms = _powers(1.0 - alpha, kmax) * weights_of_rank(kmax)
    cum = np.concatenate([[0.0], np.cumsum(terms[:kmax])])
    return cum[k.astype(np.int64)]


def _discounted(spec: MetricSpec, packed: Any, context: Context, kind: str) -> MetricValues:
    block = _block(spec, packed, context)
    g = block.gains
    n = len(block.topic)
    alpha = float(spec.get("alpha"))
    k = _cut(spec, block)
    maxrank = int(max(block.depth, k.max() if n else 1))
    if kind == "dcg":
        def weight_of(m: int) -> np.ndarray:
            return _discounts(m)[:m]
    else:
        def weight_of(m: int) -> np.ndarray:
            return 1.0 / np.arange(1, m + 1, dtype=np.float64)
    wr = weight_of(maxrank)
    run = block.run_sum(g.gain, wr, k)
    normalized = spec.name in ("alpha_ndcg", "nerr_ia")
    if normalized:
        ideal = block.ideal_sum(wr, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = np.where(run != 0, run / ideal, 0.0)
        return _values(block, values)
    norm = block.divisor * _ideal_ideal(k, alpha, weight_of)
    if spec.k == 1 and spec.get("rank1") == "ndeval":
        norm = np.where(block.divisor > 0, 1.0, 0.0)  # ndeval leaves rank 1 undivided
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(run != 0, run / norm, 0.0)
    return _values(block, values)


def _alpha_dcg(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    return _discounted(spec, packed, context, "dcg")


def _err_ia(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    return _discounted(spec, packed, context, "err")


def _nrbp(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    block = _block(spec, packed, context)
    g = block.gains
    alpha, beta = float(spec.get("alpha")), float(spec.get("beta"))
    deepest = block.depth
    decay = _powers(beta, deepest)
    run = block.run_sum(g.gain, decay, None)
    scale = 1.0 - (1.0 - alpha) * beta
    with np.errstate(invalid="ignore", divide="ignore"):
        nrbp = np.where(block.divisor > 0, run * scale / block.divisor, 0.0)
    if spec.name == "nrbp":
        return _values(block, nrbp)
    ideal = block.ideal_sum(decay, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        ideal = np.where(block.divisor > 0, ideal * scale / block.divisor, 0.0)
        values = nrbp / ideal
    return _values(block, values, nan_without_relevant=True)


def _p_ia(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    block = _block(spec, packed, context)
    g = block.gains
    k = _cut(spec, block)
    hits = block.run_sum(g.wrel, None, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where((block.divisor > 0) & (k > 0), hits / (k * block.divisor), 0.0)
    return _values(block, values)


def _strec(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    block = _block(spec, packed, context)
    g = block.gains
    covered = block.run_sum(g.wnew, None, _cut(spec, block))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(block.divisor > 0, covered / block.divisor, 0.0)
    return _values(block, values)


def _ap_ia(spec: MetricSpec, packed: Any, context: Context) -> MetricValues:
    block = _block(spec, packed, context)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(block.divisor > 0, block.gains.ap / block.divisor, 0.0)
    return _values(block, values)


_REL = Param("rel", 1.0, "judgment threshold: a subtopic judgment >= rel is relevant "
             "(pyndeval's relevance_level, ir_measures' rel)", kind=float, low=0.0,
             low_open=True)
_ALPHA = Param("alpha", 0.5, "redundancy intolerance: a document's gain for a subtopic already "
               "covered c times is (1 - alpha)^c (ndeval -alpha)", kind=float, low=0.0, high=1.0)
_BETA = Param("beta", 0.5, "patience of NRBP's rank-biased user (ndeval -beta)", kind=float,
              low=0.0, high=1.0, high_open=True)
_JUDGED = Param("judged_only", "false", "true: drop the documents without a subtopic judgment "
                "for the query before ranking (ir_measures' judged_only)", ("false", "true"))
_RANK1 = Param("rank1", "normalised", "normalised: @1 divided like every cutoff | ndeval: @1 left "
               "undivided, A times larger, as ndeval / pyndeval print it (ndeval's normalising "
               "loop starts at rank 2)", ("normalised", "ndeval"))
_ASPECTS = Param("aspects", "intents", "intents: the subtopic judgments of intents= (TREC "
                 "diversity qrels) | categories: the recommender variant, each relevant truth "
                 "item relevant to every category of item_categories= it has (users are the "
                 "queries, categories the subtopics; RankSys' feature-based intents)",
                 ("intents", "categories"))
_INPUT = (" Subtopic judgments come from evaluate(..., intents=...) (a (query, doc, subtopic, "
          "relevance) table or ndeval's qrels file), or with aspects=categories from the truth "
          "and item_categories=; intent_weights= gives P(subtopic | query) (uniform by "
          "default, as in ndeval; rv.beyond.profile_intent_weights(train, item_categories) "
          "gives RankSys' profile shares). Users without judgments are left out (NaN).")


def _def(name: str, title: str, formula: str, doc: str, compute, params, *, cutoff: str =
         "optional", reference: str, example: str = "") -> MetricDef:
    return MetricDef(name, title, formula, doc + _INPUT, (*params, _ASPECTS), cutoff=cutoff,
                     bounds=(0.0, 1.0), reference=f"{reference}; {_NDEVAL}", example=example,
                     compute=compute, reads_scores=False, reads_relevance=False,
                     item_lookup=True, item_vocab=_judged_docs)


_GAIN = "G_r = sum_j w_j rel_rj (1 - alpha)^c_rj"

register(_def(
    "alpha_dcg", "alpha-DCG@k (ideal-ideal normalised)",
    f"{_GAIN}; alpha_dcg@k = sum_{{r<k}} G_r / log2(r + 2) / (A sum_{{r<k}} (1 - alpha)^r / "
    "log2(r + 2))",
    "Clarke et al.'s novelty-biased DCG, divided by the DCG of a list relevant to every subtopic "
    "at every rank (ndeval's collection-independent alpha-DCG).",
    _alpha_dcg, (_REL, _ALPHA, _JUDGED, _RANK1),
    reference="Clarke et al., SIGIR 2008",
    example="subtopics {a, b}; top 2 = [{a}, {a, b}]: (1 + (0.5 + 1) / log2 3) / "
            "(2 (1 + 0.5 / log2 3))"), ("alpha-dcg",))

register(_def(
    "alpha_ndcg", "alpha-nDCG@k",
    f"{_GAIN}; alpha_ndcg@k = sum_{{r<k}} G_r / log2(r + 2) / (the same over ndeval's greedy "
    "ideal list)",
    "Clarke et al.'s alpha-nDCG with ndeval's greedy ideal list (at each rank the document of "
    "largest gain, ties to the largest document id).",
    _alpha_dcg, (_REL, _ALPHA, _JUDGED), reference="Clarke et al., SIGIR 2008",
    example="subtopics {a, b}; run [{a}, {a}], ideal [{a, b}, {a}]: "
            "(1 + 0.5/log2 3) / (2 + 0.5/log2 3)"), ("alpha-ndcg",))

register(_def(
    "err_ia", "ERR-IA@k (ideal-ideal normalised)",
    f"{_GAIN}; err_ia@k = sum_{{r<k}} G_r / (r + 1) / (A sum_{{r<k}} (1 - alpha)^r / (r + 1))",
    "Intent-aware expected reciprocal rank with binary subtopic judgments, the stopping "
    "probability alpha, divided by its value for a list relevant to every subtopic at every "
    "rank (ndeval's collection-independent ERR-IA).",
    _err_ia, (_REL, _ALPHA, _JUDGED, _RANK1),
    reference="Chapelle et al., CIKM 2009; Agrawal et al., WSDM 2009"), ("err-ia",))

register(_def(
    "nerr_ia", "nERR-IA@k",
    f"{_GAIN}; nerr_ia@k = sum_{{r<k}} G_r / (r + 1) / (the same over ndeval's greedy ideal "
    "list)",
    "ERR-IA normalised by its value on ndeval's greedy ideal list.",
    _err_ia, (_REL, _ALPHA, _JUDGED),
    reference="Chapelle et al., CIKM 2009; Agrawal et al., WSDM 2009"), ("nerr-ia",))

register(_def(
    "nrbp", "Novelty- and rank-biased precision",
    f"{_GAIN}; nrbp = (1 - (1 - alpha) beta) / A sum_r beta^r G_r (whole list)",
    "Clarke, Kolla & Vechtomova's NRBP: rank-biased precision over the novelty-biased gains of "
    "the whole list.",
    _nrbp, (_REL, _ALPHA, _BETA, _JUDGED), cutoff="none",
    reference="Clarke, Kolla & Vechtomova, ICTIR 2009"))

register(_def(
    "nnrbp", "Normalised NRBP",
    "nnrbp = nrbp / (nrbp of ndeval's greedy ideal list); NaN for a query without a relevant "
    "document",
    "NRBP divided by its value on ndeval's greedy ideal list (ndeval's nNRBP).",
    _nrbp, (_REL, _ALPHA, _BETA, _JUDGED), cutoff="none",
    reference="Clarke, Kolla & Vechtomova, ICTIR 2009"))

register(_def(
    "p_ia", "Intent-aware precision@k",
    "p_ia@k = sum_j w_j |{r < k: rel_rj}| / k (uniform: / (k A))",
    "Agrawal et al.'s intent-aware precision: precision at k per subtopic, averaged over the "
    "subtopics (ndeval's P-IA; k counts missing ranks of a shorter list).",
    _p_ia, (_REL, _JUDGED), reference="Agrawal et al., WSDM 2009",
    example="subtopics {a, b}; top 2 = [{a}, {a, b}]: 3 / (2 * 2)"), ("p-ia",))

register(_def(
    "ap_ia", "Intent-aware average precision",
    "ap_ia = sum_j w_j AP_j, AP_j = sum_{r: rel_rj} (c_rj + 1) / (r + 1) / R_j (whole list)",
    "Average precision per subtopic (R_j the documents relevant to it), averaged over the "
    "subtopics (ndeval's MAP-IA per query).",
    _ap_ia, (_REL, _JUDGED), cutoff="none", reference="Agrawal et al., WSDM 2009"),
    ("map_ia", "ap-ia", "map-ia"))

register(_def(
    "strec", "Subtopic recall@k",
    "strec@k = sum_j w_j [some r < k has rel_rj] (uniform: covered subtopics / A)",
    "Zhai, Cohen & Lafferty's subtopic recall: the share of the query's subtopics covered by "
    "the top k (ndeval's strec).",
    _strec, (_REL, _JUDGED), reference="Zhai, Cohen & Lafferty, SIGIR 2003",
    example="subtopics {a, b, c}; top 2 = [{a}, {a, b}]: 2/3"),
    ("s_recall", "subtopic_recall", "st_recall"))
