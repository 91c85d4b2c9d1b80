"""The compiled passes of the intent-aware measures (``kernels.list_gains``,
``kernels.ideal_lists``, ``kernels.str_codes``) give the bits of the array operations they
replace: every measure, on runs with tied scores, unjudged and repeated documents, one-subtopic
topics, graded judgments, given intent weights, judged_only and users without judgments, in
memory and in blocks; and the reader's ``str`` ids are coded as ``pandas.factorize(sort=True)``
codes them."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, RelevanceThresholdWarning
from receval.kernels import intent_keys, str_codes
from receval.trec import diversity
from receval.trec.diversity import as_intents, ideal_gains


@contextmanager
def array_path() -> Iterator[None]:
    """The measures computed by the array operations instead of the compiled passes."""
    diversity.COMPILED = False
    try:
        yield
    finally:
        diversity.COMPILED = True


def _sorted_codes(values):
    """The reader's codes of a column in the order of its distinct values (what
    ``pandas.factorize(values, sort=True)`` gives)."""
    coded = diversity._ranked_codes(values)
    return coded.per_row(), coded.ids


def _data(seed: int, n_topics: int, weighted: bool):
    rng = np.random.default_rng(seed)
    rows, run, weights = [], [], {}
    for q in range(n_topics):
        n_sub = 1 if q % 4 == 1 else int(rng.integers(2, 7))
        pool = rng.choice(30, int(rng.integers(1, 15)), replace=False)
        for d in pool:
            for s in rng.choice(n_sub, int(rng.integers(1, n_sub + 1)), replace=False):
                rows.append((f"q{q}", f"d{d:02d}", f"s{s}", int(rng.integers(0, 4))))
        weights[f"q{q}"] = {f"s{s}": float(rng.integers(1, 5)) for s in range(n_sub)}
        # judged and unjudged documents, tied scores (a few score levels), some repeated
        for d in rng.choice(40, int(rng.integers(0, 25)), replace=False):
            run.append((f"q{q}", f"d{d:02d}", float(rng.integers(0, 4))))
    run.append(("stranger", "d01", 1.0))  # a run user without subtopic judgments
    intents = pd.DataFrame(rows, columns=["query", "doc", "subtopic", "relevance"])
    run = pd.DataFrame(run, columns=["query", "doc", "score"])
    return intents, run, (weights if weighted else None)


def _keys(alpha: float, beta: float, k: int, judged_only: bool) -> list[str]:
    j = ",judged_only=true" if judged_only else ""
    keys = [f"alpha_dcg@{k}(alpha={alpha}{j})", f"alpha_ndcg@{k}(alpha={alpha}{j})",
            f"err_ia@{k}(alpha={alpha}{j})", f"nerr_ia@{k}(alpha={alpha}{j})",
            f"alpha_ndcg(alpha={alpha}{j})", f"err_ia(alpha={alpha}{j})",
            f"nrbp(alpha={alpha},beta={beta}{j})", f"nnrbp(alpha={alpha},beta={beta}{j})",
            f"p_ia@{k}({j[1:]})" if j else f"p_ia@{k}", f"strec@{k}({j[1:]})" if j
            else f"strec@{k}", f"ap_ia({j[1:]})" if j else "ap_ia", "strec", "p_ia"]
    return [rv.metrics.canonical_key(key) for key in keys]


def _evaluate(run, truth, keys, intents, weights, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RelevanceThresholdWarning)
        return rv.evaluate(run, truth, keys, intents=intents, intent_weights=weights,
                           **kw).per_user


def _same_bits(a: pd.DataFrame, b: pd.DataFrame, keys: list[str]) -> None:
    a, b = a.sort_index(), b.sort_index()
    assert a.index.equals(b.index)
    for key in keys:
        x, y = a[key].to_numpy(), b[key].to_numpy()
        assert np.array_equal(x, y, equal_nan=True), (key, x[x != y], y[x != y])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 12), st.sampled_from([0.0, 0.3, 0.5, 1.0]),
       st.sampled_from([0.5, 0.9]), st.integers(1, 12), st.booleans(), st.booleans(),
       st.sampled_from([1, 2]))
def test_compiled_passes_give_the_array_bits(seed, n_topics, alpha, beta, k, judged_only,
                                             weighted, rel):
    intents, run, weights = _data(seed, n_topics, weighted)
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    keys = [key.replace(")", f",rel={rel})") if ")" in key else f"{key}(rel={rel})"
            for key in _keys(alpha, beta, k, judged_only)]
    keys = [rv.metrics.canonical_key(key) for key in keys]
    fast = _evaluate(run, truth, keys, intents, weights)
    with array_path():
        slow = _evaluate(run, truth, keys, intents, weights)
    _same_bits(fast, slow, keys)


def test_repeated_documents_are_counted_as_the_arrays_count_them(monkeypatch):
    # duplicates="count": a document twice in a list is relevant at both positions: more
    # relevant positions than judged pairs (the compiled pass then sizes its output again)
    intents, run, _ = _data(3, 8, False)
    every = pd.DataFrame({"query": "q9", "doc": ["a", "b", "c", "c"],
                          "subtopic": ["s0", "s0", "s1", "s0"], "relevance": 1})
    intents = pd.concat([intents, every], ignore_index=True)
    twice = pd.DataFrame({"query": "q9", "doc": ["a", "b", "c", "x", "a", "c", "b"],
                          "score": [7.0, 6, 5, 4, 3, 2, 1]})
    run = pd.concat([twice, run[run["query"] == "q0"]], ignore_index=True)
    run = pd.concat([run, run.assign(score=run["score"] - 10)], ignore_index=True)
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    keys = _keys(0.5, 0.5, 10, False) + _keys(0.5, 0.5, 10, True)
    written = []

    def counted(*args):
        written.append(diversity_list_gains(*args))
        return written[-1]

    diversity_list_gains = diversity.list_gains
    monkeypatch.setattr(diversity, "list_gains", counted)
    fast = _evaluate(run, truth, keys, intents, None, duplicates="count")
    # q9's list holds more relevant positions than q9 has judged pairs (a, b, c): the room
    # made first (one per judged pair) was too small, and the pass sized its output again
    assert np.unique(written[0][0], return_counts=True)[1].max() > 3
    with array_path():
        slow = _evaluate(run, truth, keys, intents, None, duplicates="count")
    _same_bits(fast, slow, keys)


def test_blocks_equal_in_memory_on_the_compiled_passes():
    intents, run, weights = _data(11, 30, True)
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    keys = _keys(0.5, 0.5, 5, False) + _keys(0.3, 0.8, 10, True)
    ev = rv.Evaluator(truth, keys, intents=intents, intent_weights=weights)
    whole = ev.evaluate(run).per_user
    users = run["query"].unique()
    parts = ev.evaluate_blocks([run[run["query"].isin(users[:7])],
                                run[run["query"].isin(users[7:19])],
                                run[run["query"].isin(users[19:])]]).per_user
    _same_bits(parts, whole, keys)
    with array_path():
        slow = ev.evaluate(run).per_user
    _same_bits(whole, slow, keys)


def test_ideal_lists_give_the_array_loop_and_the_greedy_loop_bits():
    intents, _, weights = _data(5, 40, True)
    # integer ids 2 .. 31: their byte order ("10" < "9") is not their order
    numbered = intents.assign(doc=intents["doc"].str[1:].astype(int) + 2)
    for frame, w in ((intents, None), (intents, weights), (numbered, weights)):
        it = as_intents(frame, 1.0, w)
        topic = np.arange(len(it.topics), dtype=np.int64)[::-1].copy()
        a = ideal_gains(it, topic, 0.5)
        b = ideal_gains(it, topic, 0.5, compiled=False)
        lo = np.searchsorted(it.key, topic * it.n_docs)
        hi = np.searchsorted(it.key, (topic + 1) * it.n_docs)
        c = diversity._ideal_gains_arrays(it, topic, 0.5, True, lo, hi)
        for x, y in ((a, b), (a, c)):
            assert x[0].tolist() == y[0].tolist() and x[1].tolist() == y[1].tolist()


def _read(frame, rel, weights, route):
    """``as_intents`` by the compiled reader (one sort of every row's key, or each topic's
    rows sorted on their own) or the array operations."""
    diversity.SORTED_KEYS = route != "per_topic"
    diversity.COMPILED = route != "arrays"
    try:
        return as_intents(frame, rel, weights)
    except InputError as exc:
        return str(exc)
    finally:
        diversity.SORTED_KEYS = True
        diversity.COMPILED = True


def _same_intents(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    for name in ("key", "rel", "bits", "any_rel", "weight", "n_sub", "nrel_sub", "doc_order"):
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:  # (no bits past 62 subtopics)
            assert x is None and y is None, name
            continue
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert list(a.topics) == list(b.topics) and list(a.docs) == list(b.docs)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 12), st.booleans(), st.sampled_from([1, 2]),
       st.booleans())
def test_the_compiled_reader_gives_the_array_pairs(seed, n_topics, weighted, rel, repeat):
    intents, _, weights = _data(seed, n_topics, weighted)
    intents = intents.sample(frac=1.0, random_state=seed % 1000)  # rows in any order
    if repeat:  # a (query, doc, subtopic) judgment given twice: refused by every route
        intents = pd.concat([intents, intents.iloc[[len(intents) // 2]]], ignore_index=True)
    want = _read(intents, rel, weights, "arrays")
    for route in ("sorted_keys", "per_topic"):
        _same_intents(_read(intents, rel, weights, route), want)
    assert isinstance(want, str) == repeat


def test_more_subtopics_than_the_bits_of_an_integer():
    # 70 subtopics of one query: no bit patterns (the arrays' clusters instead), on every route
    rng = np.random.default_rng(3)
    rows = [("q0", f"d{d:02d}", f"s{s:02d}", int(rng.integers(0, 3)))
            for d in range(30) for s in rng.choice(70, 12, replace=False)]
    rows += [("q1", f"d{d:02d}", "s00", 1) for d in range(5)]
    intents = pd.DataFrame(rows, columns=["query", "doc", "subtopic", "relevance"])
    run = pd.DataFrame({"query": ["q0"] * 25 + ["q1"] * 4,
                        "doc": [f"d{d:02d}" for d in rng.permutation(35)[:25]]
                        + ["d01", "d09", "d03", "d00"],
                        "score": rng.random(29)})
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    it = _read(intents, 1, None, "sorted_keys")
    assert it.n_subtopics > 62 and it.bits is None
    for route in ("per_topic", "arrays"):
        _same_intents(_read(intents, 1, None, route), it)
    keys = _keys(0.5, 0.5, 10, False) + _keys(0.3, 0.8, 5, True)
    fast = _evaluate(run, truth, keys, intents, None)
    with array_path():
        slow = _evaluate(run, truth, keys, intents, None)
    _same_bits(fast, slow, keys)


#: every intent-aware measure of the registry (the measures that look the run's documents up
#: in the judged documents of intents=)
INTENT_AWARE = sorted(d.name for d in rv.list_metrics() if d.item_vocab is diversity._judged_docs)


def _intent_keys(judged: str) -> list[str]:
    keys = []
    for d in rv.list_metrics():
        if d.name not in INTENT_AWARE:
            continue
        name = d.name
        params = f"(judged_only={judged})" if any(p.name == "judged_only" for p in d.params) \
            else ""
        cuts = ([""] if d.cutoff != "required" else []) + \
            (["@3"] if d.cutoff != "none" else [])
        keys += [rv.metrics.canonical_key(f"{name}{cut}{params}") for cut in cuts]
    return keys


def test_the_intent_aware_measures_are_found_in_the_registry():
    assert {"alpha_ndcg", "ap_ia", "err_ia", "nrbp", "p_ia", "strec"} <= set(INTENT_AWARE)


@pytest.mark.parametrize("judged", ["false", "true"])
@pytest.mark.parametrize("compiled", [True, False])
def test_a_document_repeated_under_keep_counts_as_an_unjudged_document(judged, compiled):
    # duplicates="keep": the later copies of a repeated item are items without a truth row
    # (docs/conventions.md); for the intent-aware measures a document without judgments:
    # the values of the list whose copies are replaced by documents judged for nothing
    intents = pd.DataFrame({"query": ["q"] * 4 + ["r"] * 3,
                            "doc": ["a", "b", "c", "c", "a", "d", "e"],
                            "subtopic": [1, 1, 2, 1, 1, 2, 2], "relevance": 1})
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    repeated = pd.DataFrame({"query": ["q"] * 5 + ["r"] * 4,
                             "doc": ["a", "a", "c", "b", "c", "d", "a", "d", "e"],
                             "score": [9.0, 8, 7, 6, 5, 9, 8, 7, 6]})
    replaced = repeated.assign(doc=["a", "x1", "c", "b", "x2", "d", "a", "x3", "e"])
    keys = _intent_keys(judged)
    with (nullcontext() if compiled else array_path()):
        kept = _evaluate(repeated, truth, keys, intents, None, duplicates="keep")
        plain = _evaluate(replaced, truth, keys, intents, None)
        counted = _evaluate(repeated, truth, keys, intents, None, duplicates="count")
    _same_bits(kept, plain, keys)
    values = kept[keys].to_numpy()
    assert ((values >= 0) & (values <= 1) | np.isnan(values)).all()
    # under "count" every copy is judged again (the copies of q's "a" and "c" add gain)
    assert not np.allclose(counted[keys].to_numpy(), values, equal_nan=True)


@pytest.mark.parametrize("route", ["sorted_keys", "per_topic"])
def test_compiled_passes_on_threads_give_the_array_bits(route, monkeypatch):
    # enough judged pairs and list positions for the compiled passes' threads (runs of topics
    # and of users, each writing from its bound, moved together after); repeated documents
    # (duplicates="count") make some run's first room too small; under "keep" their later
    # copies are unjudged
    if route == "per_topic":
        monkeypatch.setattr(diversity, "SORTED_KEYS", False)
    intents, run, weights = _data(17, 5000, True)
    _same_intents(_read(intents, 1, weights, route), _read(intents, 1, weights, "arrays"))
    truth = intents.groupby(["query", "doc"], as_index=False)["relevance"].max()
    assert truth.shape[0] > 32768 and run.shape[0] > 32768
    twice = pd.concat([run, run.assign(score=run["score"] - 10)], ignore_index=True)
    keys = _keys(0.5, 0.5, 10, False) + _keys(0.3, 0.8, 5, True)
    for frame, w, kw in ((run, weights, {}), (twice, None, {"duplicates": "count"}),
                         (twice, None, {"duplicates": "keep"})):
        fast = _evaluate(frame, truth, keys, intents, w, **kw)
        with array_path():
            slow = _evaluate(frame, truth, keys, intents, w, **kw)
        _same_bits(fast, slow, keys)
    it = as_intents(intents, 1.0, weights)
    topic = np.arange(len(it.topics), dtype=np.int64)[::-1].copy()
    a, b = ideal_gains(it, topic, 0.5), ideal_gains(it, topic, 0.5, compiled=False)
    assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["b", "a", "ä", "A", "", "😀", "ab", "10", "9",
                                           "e\u0301"]), st.integers(1, 9)), max_size=12),
       st.sampled_from(["large_string", "string", "chunks"]))
def test_arrow_ids_in_runs_are_coded_as_pandas_codes_them(runs, storage):
    # a column of few runs of equal ids is coded from each run's first id
    pa = pytest.importorskip("pyarrow")
    ids = [v for v, n in runs for _ in range(n)]
    if storage == "chunks":
        arr = pa.chunked_array([ids[: len(ids) // 2], ids[len(ids) // 2:]], type=pa.string())
        values = pd.Series(pd.arrays.ArrowExtensionArray(arr))
    else:
        values = pd.Series(ids, dtype=pd.ArrowDtype(getattr(pa, storage)()))
    codes, uniques = _sorted_codes(values)
    want_codes, want_uniques = pd.factorize(pd.Series(ids, dtype=object), sort=True)
    assert codes.tolist() == want_codes.tolist()
    assert list(uniques) == list(want_uniques)
    n_runs = sum(1 for i in range(len(ids)) if i == 0 or ids[i] != ids[i - 1])
    few = len(ids) > 0 and n_runs * diversity.RUN_ROWS <= len(ids)
    assert (diversity._run_codes(values) is not None) == few


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["b", "a", "ä", "A", "a b", "", "😀", "ab", "\u00e9", "e\u0301",
                                 "10", "9"]), max_size=30))
def test_str_ids_are_coded_as_pandas_codes_them(ids):
    values = np.array(ids, dtype=object)
    codes, uniques = _sorted_codes(values)
    want_codes, want_uniques = pd.factorize(pd.Series(values, dtype=object), sort=True)
    assert codes.tolist() == want_codes.tolist()
    assert list(uniques) == list(want_uniques)
    if len(ids):
        found = str_codes(values)
        assert found is not None
        c, distinct = found
        assert [distinct[i] for i in c] == ids and len(set(distinct)) == len(distinct)


def test_str_codes_past_the_first_table():
    # thousands of distinct ids (the table grows), of every str kind, in runs and scattered
    rng = np.random.default_rng(2)
    pool = [f"{p}{i}" for i in range(3000) for p in ("d", "\u00e9", "\u4e2d", "\U0001f600")]
    values = np.array([pool[i] for i in rng.integers(0, len(pool), 40000)], dtype=object)
    values[100:200] = pool[7]
    found = str_codes(values)
    assert found is not None
    codes, distinct = found
    want_codes, want_uniques = pd.factorize(values)
    assert codes.tolist() == want_codes.tolist() and distinct == list(want_uniques)


def test_other_ids_take_pandas_factorize():
    assert str_codes(np.array(["a", 1], dtype=object)) is None
    assert str_codes(np.array(["a", None], dtype=object)) is None
    codes, uniques = _sorted_codes(np.array([3, 1, 3, 2]))
    assert codes.tolist() == [2, 0, 2, 1] and list(uniques) == [1, 2, 3]
    with pytest.raises(InputError, match="no query, document or subtopic"):
        as_intents(pd.DataFrame({"query": ["q", None], "doc": ["a", "b"],
                                 "subtopic": ["s", "s"]}))


def test_the_reader_lays_out_str_ids_as_the_frame_reader_did(monkeypatch):
    intents, _, weights = _data(9, 20, True)
    fast = as_intents(intents, 1.0, weights)
    # the reader without the str pass: every column through pandas.factorize(sort=True)
    # a column as a strided view (as some pandas builds hand out str columns)
    spaced = np.empty(2 * len(intents), dtype=object)
    spaced[::2] = intents["doc"].tolist()
    every_other = spaced[::2]
    assert not every_other.flags.c_contiguous
    codes, uniques = _sorted_codes(every_other)
    assert list(uniques[codes]) == intents["doc"].tolist() and list(uniques) == list(fast.docs)
    monkeypatch.setattr(diversity, "str_codes", lambda values: None)
    slow = as_intents(intents, 1.0, weights)
    # the (topic, subtopic) pairs found by a sort instead of a table
    monkeypatch.setattr(diversity, "DENSE_CELLS", 0)
    monkeypatch.setattr(diversity, "DENSE_PER_ROW", 0)
    sorted_pairs = as_intents(intents.assign(subtopic=intents["subtopic"] + "x"), 1.0,
                              {q: {f"{s}x": w for s, w in ws.items()}
                               for q, ws in weights.items()})
    for other in (slow, sorted_pairs):
        assert list(fast.topics) == list(other.topics) and list(fast.docs) == list(other.docs)
        for name in ("key", "rel", "bits", "any_rel", "weight", "n_sub", "nrel_sub", "doc_order"):
            assert np.array_equal(getattr(fast, name), getattr(other, name)), name


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["b", "a", "ä", "A", "a b", "", "😀", "ab", "\u00e9", "e\u0301",
                                 "10", "9"]), max_size=30))
def test_arrow_held_ids_are_coded_as_pandas_codes_them(ids):
    """A column Arrow holds (pandas ``str`` under pyarrow, ``ArrowDtype``) is coded by Arrow,
    its distinct values sorted: the codes and order of ``pandas.factorize(sort=True)``."""
    pa = pytest.importorskip("pyarrow")
    want_codes, want_uniques = pd.factorize(pd.Series(ids, dtype=object), sort=True)
    for dtype in (pd.StringDtype("pyarrow"), pd.ArrowDtype(pa.string()),
                  pd.ArrowDtype(pa.large_string())):
        values = pd.Series(ids, dtype=dtype)
        assert diversity._arrow_held(values)
        codes, uniques = _sorted_codes(values)
        assert codes.tolist() == want_codes.tolist()
        assert list(uniques) == list(want_uniques)


def test_intents_held_by_arrow_read_as_object_columns():
    """``intents=`` with Arrow-held columns gives the object columns' intents, bit for bit;
    a missing id there is refused as it is in an object column; integer Arrow ids too."""
    pa = pytest.importorskip("pyarrow")
    intents, _, weights = _data(11, 25, True)
    intents = intents.astype({"query": object, "doc": object, "subtopic": object})
    plain_ = as_intents(intents, 1.0, weights)
    for dtype in (pd.StringDtype("pyarrow"), pd.ArrowDtype(pa.string())):
        held = intents.astype({"query": dtype, "doc": dtype, "subtopic": dtype})
        got = as_intents(held, 1.0, weights)
        assert list(got.topics) == list(plain_.topics) and list(got.docs) == list(plain_.docs)
        for name in ("key", "rel", "bits", "any_rel", "weight", "n_sub", "nrel_sub", "doc_order"):
            assert np.array_equal(getattr(got, name), getattr(plain_, name)), name
        with pytest.raises(InputError, match="no query, document or subtopic"):
            as_intents(pd.DataFrame({"query": pd.Series(["q", None], dtype=dtype),
                                     "doc": ["a", "b"], "subtopic": ["s", "s"]}))
    ints = pd.DataFrame({"query": pd.Series([2, 1, 2], dtype=pd.ArrowDtype(pa.int64())),
                         "doc": ["a", "b", "c"], "subtopic": ["s", "s", "t"]})
    got = as_intents(ints)
    assert list(got.topics) == [1, 2]


def test_keys_are_made_only_when_they_fit():
    """One key per judgment, ``(((t * n_docs + d) << b | s) << 1) | relevant`` with ``2**b
    >= n_subs``, is made only when every such key is below ``2**62`` (else the reader sorts
    topic by topic); the fields come back by shifts and masks."""
    e, f = np.zeros(0, dtype=np.int64), np.zeros(0)
    assert intent_keys(e, e, e, e, e, e, f, 1.0, 2**29, 2**29, 5) is not None  # 2**62 keys
    assert intent_keys(e, e, e, e, e, e, f, 1.0, 2**29, 2**29 + 1, 5) is None
    assert intent_keys(e, e, e, e, e, e, f, 1.0, 1, 1, 2**61) is None
    one = np.array([3], dtype=np.int64)
    key = intent_keys(one, e, np.array([7]), e, np.array([4]), e, np.array([2.0]), 1.0,
                      5, 10, 5)
    assert key.tolist() == [(((3 * 10 + 7) << 3 | 4) << 1) | 1]


@pytest.mark.parametrize("n", [0, 1, 7, 70_001])
def test_keys_of_columns_coded_by_runs_are_the_keys_of_their_rows(n):
    """A column coded per run of equal rows (``*_runs``) gives the keys of the same column
    coded per row, whatever run a thread's range of rows starts in (enough rows for every
    thread)."""
    rng = np.random.default_rng(n)
    e = np.zeros(0, dtype=np.int64)

    def column(n_codes, mean_run):
        runs = np.unique(np.concatenate([[0], rng.integers(0, n, max(n // mean_run, 1)),
                                         [n]])) if n else np.array([0])
        codes = rng.integers(0, n_codes, len(runs) - 1)
        return codes, runs, np.repeat(codes, np.diff(runs))

    (tc, tr, t_rows), (dc, dr, d_rows), (sc, sr, s_rows) = \
        column(50, 40), column(300, 1), column(6, 5000)
    rank = rng.permutation(300).astype(np.int64)
    rel = rng.integers(0, 3, n).astype(np.float64)
    want = intent_keys(t_rows, e, d_rows, rank, s_rows, e, rel, 1.0, 50, 300, 6)
    got = intent_keys(tc, e, dc, rank, sc, e, rel, 1.0, 50, 300, 6, tr, dr, sr)
    assert got.tolist() == want.tolist()
    with pytest.raises(ValueError, match="one code per row or per run"):
        intent_keys(tc, e, d_rows, rank, s_rows, e, rel, 1.0, 50, 300, 6, tr[:-1])


def test_a_column_whose_first_rows_hold_many_runs_is_coded_by_its_table():
    """A long column is looked at in its first ``RUN_PROBE`` rows before it is read for its
    runs: when they hold too many, its codes come from the table of its distinct ids (the
    same codes), even if the whole column holds few runs."""
    pa = pytest.importorskip("pyarrow")
    probe = diversity.RUN_PROBE
    ids = [f"d{i}" for i in range(probe)] + ["same"] * (4 * probe)
    values = pd.Series(ids, dtype=pd.ArrowDtype(pa.string()))
    assert diversity._run_codes(values) is None
    codes, uniques = _sorted_codes(values)
    want_codes, want_uniques = pd.factorize(pd.Series(ids, dtype=object), sort=True)
    assert codes.tolist() == want_codes.tolist() and list(uniques) == list(want_uniques)
    assert diversity._run_codes(pd.Series(["a"] * probe + ids[:probe] + ["b"] * (4 * probe),
                                          dtype=pd.ArrowDtype(pa.string()))) is not None


@pytest.mark.parametrize("column, value, message", [
    ("relevance", np.nan, r"finite number; 1 value\(s\) are not \(first at row 1: nan\)"),
    ("relevance", np.inf, r"finite number; 1 value\(s\) are not \(first at row 1: inf\)"),
    ("relevance", "high", r"finite number; 1 value\(s\) are not \(first at row 1: 'high'\)"),
    ("doc", ["b"], r"the doc column holds ids .*row 1 holds \['b'\], a list"),
    ("subtopic", {"s": 1}, r"the subtopic column holds ids .*row 1 holds .*a dict"),
    ("doc", None, "a row has no query, document or subtopic"),
])
def test_intents_refuse_what_is_not_a_judgment_naming_the_row(column, value, message):
    # infinite grades were read as relevant, and an unhashable id came out as pandas'
    # TypeError
    intents = pd.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "subtopic": [1, 1, 2],
                            "relevance": [1, 1, 1]}).astype(object)
    intents.at[1, column] = value
    run = pd.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2, 1]})
    truth = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "c"]})
    with pytest.raises(InputError, match=message):
        rv.evaluate(run, truth, ["alpha_ndcg@3"], intents=intents)
