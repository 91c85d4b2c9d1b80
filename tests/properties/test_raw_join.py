"""The join on raw ids (``kernels.join_lists``) against the factorized route (``pack_lists``).

Both routes must give the same bits: per-user values, counts and summaries, for every id
container the raw route reads in place (int64, uint64, Arrow string / large_string in one or
several chunks, object arrays of ``str`` with 1-, 2- and 4-byte characters), with ties,
duplicates, non-finite scores and every tie / duplicates / NaN / users policy (``ties="input"``
and ``duplicates="keep"`` / ``"count"`` included); and packing in
blocks of users with reused buffers must not change a bit either.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.engines import plan as plan_module
from receval.kernels import adjacent_starts, group_rows, join_lists, utf8_at
from receval.metrics.names import parse_metric, parse_metrics
from receval.metrics.spec import REGISTRY
from receval.pack import packed as packed_module
from receval.pack.rawids import (
    CHUNKS_32,
    CHUNKS_64,
    INT,
    NARROW,
    PYSTR,
    UTF8_32,
    UTF8_64,
    grouped_ids,
    raw_ids,
)
from receval.policies import Policies

try:  # the Arrow containers need pyarrow (the bare install runs the rest)
    import pyarrow as pa
except ImportError:  # pragma: no cover - depends on the environment
    pa = None

evaluate_module = importlib.import_module("receval.engines.evaluator")
ARROW = ["arrow", "arrow_large", "chunked", "chunked_large"] if pa is not None else []

METRICS = ["ndcg@3", "ndcg@10", "map@5", "mrr", "precision@2", "recall@10", "hit_rate@3",
           "err@5", "r_precision", "num_ret"]

# ids whose code-point order differs from naive orders: ASCII, Latin-1, BMP and astral
# characters, prefixes of each other, and more than 8 bytes; long ids (hashes, UUIDs, past 64
# bytes) that differ in one word only, first, middle or last (compared a word at a time)
_LONG = ["0123456789abcdef" * 2, "12345678-1234-1234-1234-123456789abc", "y" * 64, "y" * 65]
NAMES = ["a", "b", "ab", "a\x00", "é", "zé", "ü𝄞", "𝄞", "Ā", "item-000000001", "item-000000002",
         "10", "9", "1", "01", "item-0000000001-a", "item-0000000001-b", *_LONG,
         *(base[:at] + "X" + base[at + 1:] for base in _LONG for at in (0, 12, 20, 44)
           if at < len(base) - 1), *(base[:-1] + "X" for base in _LONG)]


# int64 ids at the ends of the range and on wide strides (the int64 join's table places ids by
# the top bits of a product; these must still land apart and compare by value)
WIDE = np.array([-(2**63), 2**63 - 1, -1, 0, 1] + [k << 48 for k in range(1, 30)]
                + [-(k << 56) for k in range(1, 22)], dtype=np.int64)


def _ids(codes: np.ndarray, how: str):
    if how == "int":
        return codes.astype(np.int64) * 7 - 20
    if how == "int_wide":
        return WIDE[codes]
    if how == "uint":
        return codes.astype(np.uint64) + np.uint64(2**40)
    names = np.array(NAMES + [f"x{i}" for i in range(40)], dtype=object)
    values = names[codes]
    if how == "object":
        return values
    if how == "str":
        return pd.array(values, dtype="str")
    return values


def _frame(user, item, value, name, how):
    if how in ("arrow", "arrow_large", "chunked", "chunked_large"):
        typ = pa.large_string() if how.endswith("large") else pa.string()
        cols = {"user": pa.array(user.astype(str).tolist()),
                "item": pa.array(_ids(item, "object").tolist(), type=typ),
                name: pa.array(value)}
        table = pa.table(cols)
        if how.startswith("chunked") and len(table) > 2:  # three chunks, one of them empty
            cut = len(table) // 2
            table = pa.concat_tables([table.slice(0, cut), table.slice(cut, 0),
                                      table.slice(cut)])
        return table
    return pd.DataFrame({"user": user, "item": _ids(item, how), name: value})


def _truth(rng, tn: int, n_users: int, n_items: int, grades: int, how: str) -> pd.DataFrame:
    """A random truth (some users and items outside the run's), its ids in the form that
    joins with a run of ids ``how`` (object ``str`` for Arrow and ``str`` runs)."""
    truth = pd.DataFrame({"user": rng.integers(0, n_users + 2, tn),
                          "item": rng.integers(0, n_items + 3, tn),
                          "relevance": rng.integers(0, grades, tn).astype(np.float64)})
    truth = truth.drop_duplicates(["user", "item"])
    arrow = how.startswith(("arrow", "chunked"))
    truth_how = "object" if arrow or how == "str" else how
    return pd.DataFrame({"user": truth["user"].astype(str) if arrow else truth["user"].to_numpy(),
                         "item": _ids(truth["item"].to_numpy(), truth_how),
                         "relevance": truth["relevance"].to_numpy()})


def _evaluate(run, truth, raw: bool, metrics=METRICS, **kw):
    orig = packed_module._truth_raw_for
    used = []

    def spy(*a):
        out = orig(*a)
        used.append(out is not None)
        return out

    packed_module._truth_raw_for = spy if raw else (lambda *a: None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return rv.evaluate(run, truth, metrics, **kw), any(used)
            except (rv.InputError, rv.PolicyError) as exc:
                return str(exc), any(used)
    finally:
        packed_module._truth_raw_for = orig


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    pd.testing.assert_frame_equal(a.per_user, b.per_user, check_exact=True)
    assert a.counts == b.counts
    assert a.stats == b.stats or str(a.stats) == str(b.stats)


POLICIES = [
    {},
    {"duplicates": "max", "nan_scores": "drop", "users": "union"},
    {"duplicates": "first", "nan_scores": "last", "ties": "trec_eval"},
    {"duplicates": "max", "nan_scores": "last", "ties": "average", "users": "intersection"},
    {"duplicates": "max", "users": "run", "unjudged": "remove"},
    {"ties": "input", "duplicates": "keep", "nan_scores": "last"},
    {"ties": "input", "duplicates": "count", "nan_scores": "drop", "users": "union"},
    {"ties": "input", "duplicates": "first", "unjudged": "remove"},
    {"duplicates": "count", "ties": "average", "nan_scores": "last"},
    {"duplicates": "keep", "ties": "trec_eval", "nan_scores": "drop", "unjudged": "remove"},
]


def _random_lists(rng, how: str, grouped: bool, nonfinite: bool):
    """``(run, truth, n, n_users, n_items)``: up to 120 rows of random lists (tied scores, or
    every list in rank order with no tie, joined where it lies), some scores non-finite when
    asked, and a random truth over the same ids."""
    n_users, n_items = int(rng.integers(1, 12)), int(rng.integers(1, 30))
    n = int(rng.integers(0, 120))
    user = rng.integers(0, n_users, n)
    if grouped:
        user = np.sort(user, kind="stable")
    item = rng.integers(0, n_items, n)
    score = rng.integers(0, 4, n).astype(np.float64)
    if rng.random() < 0.5:  # every list in rank order with no tie (joined where it lies)
        score = -np.arange(n, dtype=np.float64) * rng.choice([1.0, 0.5, 1e-300])
    if nonfinite and rng.random() < 0.3 and n:
        score[rng.random(n) < 0.15] = rng.choice([np.nan, np.inf, -np.inf])
    truth = _truth(rng, int(rng.integers(1, 60)), n_users, n_items, 4, how)
    return _frame(user, item, score, "score", how), truth, n, n_users, n_items


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(
    ["int", "int_wide", "uint", "object", "str", *ARROW]),
    grouped=st.booleans(), policy=st.sampled_from(POLICIES))
def test_raw_join_equals_factorized_route(seed, how, grouped, policy):
    rng = np.random.default_rng(seed)
    run, truth, n, _, _ = _random_lists(rng, how, grouped, nonfinite=True)
    fast, used = _evaluate(run, truth, True, **policy)
    slow, _ = _evaluate(run, truth, False, **policy)
    _same(fast, slow)
    if not isinstance(fast, str) and policy.get("ties") != "trec_eval" and n:
        assert used  # the raw route was taken


#: metrics on the recommended items (no kernel binding), with the inputs they read
ON_ITEMS = ["coverage@3", "gini@5", "novelty@3", "arp@3", "aplt@3", "unseen_share@3",
            "category_coverage@3", "personalization@3", "exposure_gini@3",
            "exposure_share@3(group=g0)", "awrf@3", "miscalibration@3",
            "alpha_ndcg@3(aspects=categories)"]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(
    ["int", "uint", "object", "str", *ARROW]),
    grouped=st.booleans(), policy=st.sampled_from(POLICIES))
def test_metrics_on_recommended_items_join_on_raw_ids(seed, how, grouped, policy):
    """Metrics on the recommended items read each position's item from the join on raw ids
    (its run row): the values, counts and errors of the factorized route, bit for bit, for
    every id container and policy, with the kernel's metrics beside them."""
    rng = np.random.default_rng(seed)
    run, truth, n, n_users, n_items = _random_lists(rng, how, grouped, nonfinite=False)
    arrow = how.startswith(("arrow", "chunked"))
    every = _ids(np.arange(n_items + 3), "object" if arrow or how == "str" else how)
    t_user = rng.integers(0, n_users, 40)
    kw = {"item_groups": {i: f"g{k % 2}" for k, i in enumerate(every)},
          "item_categories": {i: [f"c{k % 3}", f"c{k % 4}"][: 1 + k % 2]
                              for k, i in enumerate(every)},
          "train": pd.DataFrame({"user": t_user.astype(str) if arrow else t_user,
                                 "item": every[rng.integers(0, len(every), 40)]})}
    fast, used = _evaluate(run, truth, True, metrics=METRICS[:3] + ON_ITEMS, **policy, **kw)
    slow, _ = _evaluate(run, truth, False, metrics=METRICS[:3] + ON_ITEMS, **policy, **kw)
    _same(fast, slow)
    if not isinstance(fast, str) and policy.get("ties") != "trec_eval" and n and \
            policy.get("unjudged") != "remove":
        assert used  # the raw route was taken


@pytest.mark.parametrize("policy", [{"duplicates": "max"},
                                    {"duplicates": "keep", "ties": "input"}])
@pytest.mark.parametrize("block", [1, 3, 50])
def test_blocks_of_users_change_no_bit(monkeypatch, block, policy):
    rng = np.random.default_rng(block)
    n = 3000
    user = np.sort(rng.integers(0, 200, n))
    run = pd.DataFrame({"user": user, "item": rng.integers(0, 90, n),
                        "score": rng.integers(0, 6, n).astype(float)})
    truth = pd.DataFrame({"user": rng.integers(0, 230, 900), "item": rng.integers(0, 90, 900),
                          "relevance": rng.integers(0, 3, 900).astype(float)})
    truth = truth.drop_duplicates(["user", "item"])
    whole = rv.evaluate(run, truth, METRICS, users="union", **policy)
    monkeypatch.setattr(evaluate_module, "BLOCK_POSITIONS", block)
    parts = rv.evaluate(run, truth, METRICS, users="union", **policy)
    _same(whole, parts)
    assert parts.provenance["blocks"] > 1


@pytest.mark.parametrize("nan_scores", ["error", "drop", "last"])
@pytest.mark.parametrize("users", ["truth", "union"])
@pytest.mark.parametrize("where", ["first", "last", "run_only"])
def test_non_finite_scores_found_in_any_block(monkeypatch, nan_scores, users, where):
    """The join counts the non-finite scores it reads (a pass of their own is made only when
    some run rows are not joined): the same error, counts and values as the factorized route,
    whichever block holds the bad score, and a run-only user's bad score is refused too."""
    rng = np.random.default_rng(7)
    n = 2000
    user = np.sort(rng.integers(0, 100, n))
    score = rng.random(n)
    bad = {"first": 3, "last": n - 2, "run_only": n - 1}[where]
    if where == "run_only":
        user[-1] = 999  # a user of the run only, evaluated under users="union" alone
    score[bad] = np.nan
    run = pd.DataFrame({"user": user, "item": rng.permutation(n), "score": score})
    truth = pd.DataFrame({"user": rng.integers(0, 100, 700), "item": rng.integers(0, n, 700),
                          "relevance": rng.integers(1, 3, 700).astype(float)})
    truth = truth.drop_duplicates(["user", "item"])
    monkeypatch.setattr(evaluate_module, "BLOCK_POSITIONS", 64)
    fast, used = _evaluate(run, truth, True, nan_scores=nan_scores, users=users)
    slow, _ = _evaluate(run, truth, False, nan_scores=nan_scores, users=users)
    assert used
    _same(fast, slow)
    if nan_scores == "error":
        assert isinstance(fast, str) and f"(first at row {bad}: nan)" in fast
    else:
        assert fast.counts["dropped_nan_scores"] == (nan_scores == "drop") * (
            users == "union" or where != "run_only")


@pytest.mark.parametrize("nan", [False, True])
def test_refused_duplicates_counted_over_every_block(monkeypatch, nan):
    """A run packed in blocks refuses repeated rows with the run's count (not the first
    block's), and a non-finite score anywhere is refused first, as on the factorized route."""
    rng = np.random.default_rng(3)
    n = 3000
    run = pd.DataFrame({"user": np.sort(rng.integers(0, 150, n)), "item": rng.integers(0, 40, n),
                        "score": rng.random(n)})
    if nan:
        run.loc[n - 5, "score"] = np.inf
    truth = pd.DataFrame({"user": rng.integers(0, 150, 600), "item": rng.integers(0, 40, 600)})
    truth = truth.drop_duplicates()
    monkeypatch.setattr(evaluate_module, "BLOCK_POSITIONS", 50)
    fast, _ = _evaluate(run, truth, True)
    slow, _ = _evaluate(run, truth, False)
    assert fast == slow
    judged_users = run["user"].isin(truth["user"])  # users="truth": the others are not read
    n_dup = int(run[judged_users].duplicated(["user", "item"]).sum())
    assert (f"(first at row {n - 5}: inf)" if nan else f"run: {n_dup} duplicate") in fast


def test_raw_ids_forms():
    narrow = np.array([1, 2], dtype=np.int32)
    r = raw_ids(narrow)
    assert r.kind == NARROW and r.a.dtype == np.int32 and np.shares_memory(r.a, narrow)
    wide = np.array([1, 2**62], dtype=np.uint64)
    r = raw_ids(wide)  # below 2**63: its int64 view, no copy
    assert r.kind == INT and r.unsigned and np.shares_memory(r.a, wide)
    assert raw_ids(np.array([2**63], dtype=np.uint64)) is None  # compared by value elsewhere
    assert raw_ids(np.array(["a", "b"], dtype=object)).kind == PYSTR
    assert raw_ids(np.array(["a", 1], dtype=object)) is None
    assert raw_ids(np.array([1.0, 2.0])) is None
    assert raw_ids(pd.Series(["a", "b"], dtype="category")) is None
    if pa is None:
        return
    assert raw_ids(pa.array(["a", "b"])).kind == UTF8_32
    assert raw_ids(pa.array(["a", "b"], type=pa.large_string())).kind == UTF8_64
    assert raw_ids(pa.array(["a", None])) is None
    chunked = pa.chunked_array([pa.array(["a"]), pa.array([], type=pa.string()),
                                pa.array(["b", "c"]).slice(1)])
    r = raw_ids(chunked)
    assert r.kind == CHUNKS_32 and r.a.tolist() == [0, 1, 1, 2]
    assert raw_ids(chunked.cast(pa.large_string())).kind == CHUNKS_64
    sliced = pa.array(["zz", "a", "b", "b"]).slice(1)
    r = raw_ids(sliced)
    assert list(adjacent_starts(r.kind, r.a, r.b)) == [0, 1]


def test_grouped_ids_and_group_rows():
    starts, uniques = grouped_ids(raw_ids(np.array(["u", "u", "v", "w", "w"], dtype=object)))[:2]
    assert starts.tolist() == [0, 2, 3, 5] and uniques.tolist() == ["u", "v", "w"]
    assert grouped_ids(raw_ids(np.array([1, 2, 1]))) is None  # a user in two blocks
    starts, uniques = grouped_ids(raw_ids(np.array([2**62, 3], dtype=np.uint64)))[:2]
    assert uniques.dtype == np.uint64 and uniques.tolist() == [2**62, 3]
    rstart, rows = group_rows(np.array([0, 0, 1, 2, 2], dtype=np.int32), 3)
    assert rstart.tolist() == [0, 2, 3, 5] and len(rows) == 0
    rstart, rows = group_rows(np.array([1, 0, 1, -1, 0], dtype=np.int32), 2)
    assert rstart.tolist() == [0, 2, 4] and rows.tolist() == [1, 4, 0, 2]


@pytest.mark.parametrize("how", ["object", "str", *ARROW])
def test_raw_join_on_many_threads_equals_factorized_route(how):
    """Above the kernels' one-thread size (32768 rows) every thread reads its own rows' bytes:
    string ids of several lengths (8 to 16 bytes and others), ties, duplicates."""
    rng = np.random.default_rng(11)
    n = 120_000
    user = np.sort(rng.integers(0, 1500, n))
    item = rng.integers(0, 55, n)
    score = rng.integers(0, 6, n).astype(np.float64)
    run = _frame(user, item, score, "score", how)
    tu = rng.integers(0, 1700, 9000)
    truth = pd.DataFrame({"user": tu.astype(str) if how in ARROW else tu,
                          "item": _ids(rng.integers(0, 55, 9000), "object"),
                          "relevance": rng.integers(0, 3, 9000).astype(float)})
    truth = truth.drop_duplicates(["user", "item"])
    for policy in ({"duplicates": "max"}, {"duplicates": "keep", "ties": "input"}):
        fast, used = _evaluate(run, truth, True, **policy)
        slow, _ = _evaluate(run, truth, False, **policy)
        assert used
        _same(fast, slow)


def _long_frame(user, names, score, how):
    if how == "object":
        return pd.DataFrame({"user": user, "item": names, "score": score})
    return pa.table({"user": pa.array(user.astype(str).tolist()),
                     "item": pa.array(names.tolist()), "score": pa.array(score)})


@pytest.mark.parametrize("how", ["int", "object", *ARROW[:1]])
def test_raw_join_of_long_lists_equals_factorized_route(how):
    """A user's table is sized by the length of its list (at most 1/8 full up to 1024 ids, at
    most 1/2 full beyond): lists on both sides of that size, with repeated items, hits and ties
    at every length."""
    rng = np.random.default_rng(5)
    lengths = [1, 1023, 1024, 1025, 1100, 3000]
    user = np.repeat(np.arange(len(lengths)), lengths)
    n = len(user)
    item = rng.integers(0, 2500, n)  # many repeats within the long lists
    score = rng.integers(0, 40, n).astype(np.float64)
    names = np.array([f"item-{c:05d}" if c % 3 else f"é{c}" for c in range(2600)], dtype=object)
    run, truth = _long_run_and_truth(rng, how, user, item, score, names, 2000)
    for policy in ({"duplicates": "max"}, {"duplicates": "keep", "ties": "input"},
                   {"duplicates": "count", "ties": "trec_eval"}):
        fast, used = _evaluate(run, truth, True, **policy)
        slow, _ = _evaluate(run, truth, False, **policy)
        assert used or policy.get("ties") == "trec_eval"
        _same(fast, slow)
    assert not isinstance(fast, str) and fast.counts["evaluated"] > 0


def _chunked_forms(values: list[str], cuts: list[int]) -> list:
    arr = pa.array(values, type=pa.string())
    bounds = [0, *sorted(cuts), len(values)]
    pieces = [arr.slice(a, b - a) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    chunked = pa.chunked_array(pieces, type=pa.string())
    return [arr, arr.cast(pa.large_string()), chunked, chunked.cast(pa.large_string()),
            np.array(values, dtype=object)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), big=st.booleans())
def test_text_ids_taken_at_rows_for_every_container(seed, big):
    """``take_ids`` of text ids (the truth's ids at its packed positions): the ids at the
    rows, in their order, repeats included, whatever the chunks and on one thread or
    several; a row outside the column is refused."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    from receval.pack.rawids import take_ids

    rng = np.random.default_rng(seed)
    n = int(rng.integers(40_000, 90_000)) if big else int(rng.integers(1, 60))
    names = ["", "é", "abcdefghij", "x" * 40, "\U0001f600", *NAMES]
    values = [names[i] for i in rng.integers(0, len(names), n)]
    rows = rng.integers(0, n, int(rng.integers(0, 2 * n)))
    for form in _chunked_forms(values, rng.integers(0, n + 1, 3).tolist())[:4]:
        r = raw_ids(form)
        taken = take_ids(r, rows)
        assert taken.keep.to_pylist() == [values[i] for i in rows]
        assert utf8_at(taken.kind, taken.a, taken.b, np.arange(len(rows))).tolist() == \
            [values[i] for i in rows]
        with pytest.raises(IndexError, match="outside"):
            take_ids(r, np.array([n]))


def test_text_ids_taken_on_every_thread_are_those_of_arrow_take():
    """Many rows of ids of many lengths taken by every thread at once (each thread's span of
    the id it reads is its own): the bytes and offsets of Arrow's ``take``."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    from receval.pack.rawids import take_ids

    rng = np.random.default_rng(5)
    names = pa.array(["x" * k + str(k) for k in range(1, 60)], type=pa.large_string())
    col = names.take(pa.array(rng.integers(0, len(names), 400_000)))
    rows = rng.integers(0, len(col), 1_500_000)
    for form in (col, col.cast(pa.string()), pa.chunked_array([col[:150_000], col[150_000:]])):
        r = raw_ids(form)
        assert take_ids(r, rows).keep.equals(col.take(pa.array(rows)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), big=st.booleans())
def test_adjacent_starts_for_every_container(seed, big):
    """Starts of the runs of equal adjacent ids, in one call whatever the chunks (empty ones,
    slices, chunks with buffers of their own, boundaries inside a run) and on one thread or
    several."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40_000, 90_000)) if big else int(rng.integers(0, 60))
    names = ["", "abcdefghij", "abcdefghik", "x" * 20, "x" * 21, *NAMES]
    values = [names[i] for i in np.repeat(rng.integers(0, len(names), n),
                                          rng.integers(1, 4, n))[:n]]
    expected = [i for i in range(n) if i == 0 or values[i] != values[i - 1]]
    cuts = rng.integers(0, n + 1, 4).tolist()
    for form in [*_chunked_forms(values, cuts), _separate_chunks(values, cuts, False),
                 _separate_chunks(values, cuts, True)]:
        r = raw_ids(form)
        assert list(adjacent_starts(r.kind, r.a, r.b)) == expected
        assert list(adjacent_starts(r.kind, r.a, r.b, 0, 0, 1)) == [*expected, n]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), many=st.booleans())
def test_first_codes_are_pandas_codes_for_every_container(seed, many):
    """``first_codes``: each UTF-8 id's code in order of first appearance and the row of each
    code's first appearance, as ``pandas.factorize`` gives them, for every Arrow container
    (chunks, slices, empty chunks), with runs of one id, ids of every length (words and
    longer, sharing their first 8 bytes), and past the table's first size (it doubles)."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    from receval.kernels import first_codes

    rng = np.random.default_rng(seed)
    names = ["", "abcdefgh", "abcdefghi", "abcdefghj", "x" * 20, "x" * 21, *NAMES]
    if many:  # thousands of distinct ids: the table grows several times
        names += [f"id-{k}" for k in range(int(rng.integers(600, 5000)))]
    n = int(rng.integers(0, 20_000 if many else 80))
    values = [names[i] for i in np.repeat(rng.integers(0, len(names), n),
                                          rng.integers(1, 3, n))[:n]]
    codes, uniques = pd.factorize(np.array(values, dtype=object))
    for form in _chunked_forms(values, rng.integers(0, n + 1, 4).tolist())[:4]:
        r = raw_ids(form)
        got, firsts = first_codes(r.kind, r.a, r.b)
        assert got.tolist() == codes.tolist()
        assert [values[i] for i in firsts] == list(uniques)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), big=st.booleans())
def test_adjacent_int_starts_come_with_their_ids(seed, big):
    """int64 ids: the starts of the runs of equal adjacent ids and, read in the same pass, the
    id of each run, on one thread or several (runs across the threads' range boundaries), ids
    at both ends of the int64 range; a uint64 column's ids come back as uint64."""
    from receval.pack.rawids import grouped_column

    rng = np.random.default_rng(seed)
    n = int(rng.integers(40_000, 90_000)) if big else int(rng.integers(0, 60))
    # neighbours that differ in one 32-bit half only (1 and 2**32 + 1, 2**32 and 2**32 + 1)
    pool = np.array([-2**63, -1, 0, 1, 7, 2**32, 2**32 + 1, 2**62, 2**63 - 1], dtype=np.int64)
    # runs of 1 to 20 rows: long runs are passed over eight rows at a time, and a change
    # falls at every offset of those eight
    ids = np.repeat(pool[rng.integers(0, len(pool), n)], rng.integers(1, 21, n))[:n]
    expected = [i for i in range(n) if i == 0 or ids[i] != ids[i - 1]]
    starts, run_ids = adjacent_starts(0, ids, None, 0, 1)
    assert list(starts) == expected
    assert list(run_ids) == list(ids[expected])
    assert list(adjacent_starts(0, ids, None)) == expected
    bounds, bound_ids = adjacent_starts(0, ids, None, 0, 1, 1)
    assert list(bounds) == [*expected, n] and list(bound_ids) == list(ids[expected])
    if n and len(set(run_ids.tolist())) == len(run_ids) and (ids >= 0).all():
        # grouped (every id one run) and below 2**63 as uint64: read in place
        got = grouped_column(ids.view(np.uint64))
        assert got is not None and got[1].dtype == np.uint64
        assert list(got[1]) == list(ids[expected].view(np.uint64))
        assert list(got[0]) == [*expected, n]


def test_grouped_column_reads_chunks_in_place():
    """A column in many chunks is grouped in one pass: blocks that continue across a chunk
    boundary are one block, and an id that starts two blocks is not grouped."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    from receval.pack.rawids import grouped_column

    values = ["u1"] * 3 + ["u2"] * 4 + ["u3"] + ["u4"] * 2
    for cuts in ([1, 5, 5, 9], [3, 7], [0, 10]):
        got = grouped_column(_chunked_forms(values, cuts)[2])
        assert got is not None
        assert got[0].tolist() == [0, 3, 7, 8, 10]
        assert got[1].tolist() == ["u1", "u2", "u3", "u4"]
    assert grouped_column(_chunked_forms(values + ["u1"], [4, 8])[2]) is None


def _kernel_metric_keys() -> list[str]:
    from tests.core.cases import metric_cases

    return metric_cases(cutoffs=(1, 3, 10))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1),
       how=st.sampled_from(["int", "int_wide", "object", "str", *ARROW]),
       policy=st.sampled_from([{}, {"duplicates": "max", "nan_scores": "drop"},
                               {"duplicates": "keep", "nan_scores": "last", "users": "union"},
                               {"duplicates": "count", "ties": "input"},
                               {"ties": "trec_eval", "duplicates": "first"}]),
       block=st.sampled_from([0, 7, 300]), on_items=st.booleans())
def test_lists_measured_as_joined_equal_the_kernel_on_kept_lists(monkeypatch, seed, how,
                                                                  policy, block, on_items):
    """Every kernel metric of the registry (every parameter choice): measuring each list as it
    is joined gives the bits of packing the lists and running the kernel over them; also when
    the lists are kept for a metric on the recommended items (``on_items``), each list then
    measured from its kept positions."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(1, 15)), int(rng.integers(2, 50))
    # repeated rows kept make lists longer than the catalogue of the cases' mcc(n_items=100),
    # which is refused: at most 99 rows then
    n = int(rng.integers(1, 100 if policy.get("duplicates") in ("keep", "count") else 300))
    user = np.sort(rng.integers(0, n_users, n))
    item = rng.integers(0, n_items, n)
    if not policy.get("duplicates"):  # no repeated (user, item): the i-th row of a user
        rank = np.arange(n) - np.searchsorted(user, user)  # gets the i-th of a permutation
        user, item = user[rank < n_items], rng.permutation(n_items)[rank[rank < n_items]]
        n = len(user)
    score = rng.integers(0, 5, n).astype(np.float64)
    if rng.random() < 0.5:  # every list in rank order with no tie (joined where it lies)
        score = -np.arange(n, dtype=np.float64)
    if policy.get("nan_scores"):
        score[rng.random(n) < 0.1] = np.nan
    truth = _truth(rng, int(rng.integers(1, 80)), n_users, n_items, 5, how)
    run = _frame(user, item, score, "score", how)
    keys = _kernel_metric_keys() + (["coverage@3", "gini@2"] if on_items else [])
    if block:
        monkeypatch.setattr(evaluate_module, "BLOCK_POSITIONS", block)
    measured = []
    real_join = join_lists  # the kernel itself (monkeypatch undoes only after every example)

    def spy(*a, **kw):
        measured.append(a[22] is not None)  # (its metric setup)
        return real_join(*a, **kw)

    def run_all(measure: bool):
        monkeypatch.setattr(packed_module, "join_lists", spy if measure else (
            lambda *a: real_join(*a[:22], None, None, *a[24:])))  # the lists, not measured
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return rv.evaluate(run, truth, keys, **policy)

    fast, slow = run_all(True), run_all(False)
    assert any(measured) or (how.startswith("int") and policy.get("ties") == "trec_eval")
    _same(fast, slow)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shared=st.booleans(), bad=st.sampled_from(
    [None, 7, None, "nan", b"x"]))
def test_object_user_column_checked_and_grouped_in_one_pass(seed, shared, bad):
    """An object user column is checked (every value a str) in the pass that finds its runs
    of equal ids: the same result as the same ids in an Arrow-backed column, shared or
    distinct string objects alike, and a value that is not a str anywhere is found."""
    from receval.io.frames import StrObjects, _str_objects

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    codes = np.sort(rng.integers(0, 40, n))
    names = np.array(NAMES + [f"x{i}" for i in range(40)], dtype=object)
    users = names[codes]  # one object per distinct id, as pyarrow's to_pandas shares them
    if not shared:  # one object per row, as astype(object) from Arrow strings makes them
        users = np.array(["".join(list(u)) for u in users], dtype=object)
    run = pd.DataFrame({"user": users, "item": rng.integers(0, 500, n),
                        "score": rng.random(n)})
    truth = pd.DataFrame({"user": names[rng.integers(0, 40, 200)],
                          "item": rng.integers(0, 500, 200)}).drop_duplicates()
    if bad is not None:
        at = int(rng.integers(0, n))
        run["user"] = run["user"].astype(object)
        run.loc[at, "user"] = float("nan") if bad == "nan" else bad
        assert _str_objects(run["user"].to_numpy(), True) is None
        with pytest.raises(rv.InputError):
            rv.evaluate(run, truth, ["ndcg@5"], duplicates="max")
        return
    got = rv.evaluate(run, truth, ["ndcg@5", "mrr"], duplicates="max")
    want = rv.evaluate(run.astype({"user": "str"}), truth.astype({"user": "str"}),
                       ["ndcg@5", "mrr"], duplicates="max")
    pd.testing.assert_frame_equal(got.per_user, want.per_user, check_exact=True)
    strs = _str_objects(users, True)
    assert isinstance(strs, StrObjects)
    assert np.array_equal(strs.adjacent, [*adjacent_starts(3, users, None), len(users)])
    strs[0] = "changed"  # a write makes the runs found at reading stale: they are dropped
    assert getattr(strs, "adjacent", None) is None


@pytest.mark.parametrize("bad", [1, None, b"x", 3.5])
def test_str_check_in_the_adjacency_pass_sees_every_row(bad):
    """On many threads, a value that is not a str is found wherever it is: first or last
    row, either side of the boundary between two threads' ranges."""
    n = 100_000
    base = np.array([f"u{i // 7}" for i in range(n)], dtype=object)
    assert np.array_equal(adjacent_starts(3, base, None, 1), adjacent_starts(3, base, None))
    for at in (0, 1, n // 2 - 1, n // 2, n // 2 + 1, n - 2, n - 1):
        arr = base.copy()
        arr[at] = bad
        assert adjacent_starts(3, arr, None, 1) is None, at


@pytest.mark.parametrize("how", ["int", "int_wide", "object", "str", *ARROW])
@pytest.mark.parametrize("ties", ["id", "trec_eval", "input"])
def test_scores_that_never_rise_but_tie_are_ordered_by_the_tie_rule(how, ties):
    """Lists whose scores never rise but tie (not strictly descending): they are not in rank
    order, so they are not joined where they lie; each tie is broken by the tie rule, as the
    factorized route does, and the tied users are counted."""
    codes = np.array([9, 3, 7, 1])  # each user's rows: tied pairs, the larger id first
    n_users = 5
    user = np.repeat(np.arange(n_users), len(codes))
    item = np.tile(codes, n_users)
    score = np.tile([2.0, 2.0, 1.0, 1.0], n_users)
    run = _frame(user, item, score, "score", how)
    arrow = how.startswith(("arrow", "chunked"))
    truth = pd.DataFrame({  # one relevant item per user: id 3, ranked 1st by id, 2nd as input
        "user": [str(u) for u in range(n_users)] if arrow else np.arange(n_users),
        "item": _ids(np.full(n_users, 3), "object" if arrow or how == "str" else how),
        "relevance": np.ones(n_users)})
    raw, used = _evaluate(run, truth, True, ties=ties)
    factorized, _ = _evaluate(run, truth, False, ties=ties)
    assert used or (how.startswith("int") and ties == "trec_eval")
    _same(raw, factorized)
    if how == "int":  # ids by value: 3 before 9 under "id", 9 first as input
        assert raw.per_user["mrr"].tolist() == [1.0 if ties == "id" else 0.5] * n_users
    assert raw.counts["users_tied_at_cutoff"] == n_users


@pytest.mark.parametrize("nan_scores", ["last", "drop"])
def test_lists_are_read_in_place_only_when_every_score_is_finite_and_falls(nan_scores):
    """An int64 list is joined where it lies only when its scores are finite and strictly
    descending. Lists of 1 to 9 rows with one defect at each position (a tie with the row
    before, a rise, NaN, -inf, +inf) must be ordered as the factorized route orders them: the
    check reads the scores two at a time, so a defect at an odd or even position, and in the
    last row of an odd or even list, is looked for in both reads."""
    users, items, scores, t_users, t_items = [], [], [], [], []
    u = 0
    for n in range(1, 10):
        for p in range(n):
            for defect in ("tie", "rise", "nan", "-inf", "+inf"):
                if p == 0 and defect in ("tie", "rise"):
                    continue
                s = [float(n - j) for j in range(n)]
                s[p] = {"tie": s[p - 1] if p else 0.0, "rise": s[p - 1] + 0.5 if p else 0.0,
                        "nan": np.nan, "-inf": -np.inf, "+inf": np.inf}[defect]
                users += [u] * n
                items += list(range(n, 0, -1))  # ids fall along the list: ties reorder
                scores += s
                t_users.append(u)
                t_items.append(n - p)  # the defective row's item is the relevant one
                u += 1
    run = _frame(np.array(users), np.array(items), np.array(scores), "score", "int")
    truth = pd.DataFrame({"user": t_users, "item": _ids(np.array(t_items), "int"),
                          "relevance": np.ones(len(t_users))})
    raw, used = _evaluate(run, truth, True, nan_scores=nan_scores)
    factorized, _ = _evaluate(run, truth, False, nan_scores=nan_scores)
    assert used
    _same(raw, factorized)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), big=st.booleans())
def test_same_ids_at_compares_text_ids_across_containers(seed, big):
    """Two text columns, block ids at given rows: equal exactly when every pair has the same
    text, whatever the container of each side (one chunk or many, int32 or int64 offsets, str
    objects), with a difference anywhere (first, middle or last word, past 64 bytes, length),
    on one thread or several."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    from receval.kernels import same_ids_at

    rng = np.random.default_rng(seed)
    n = int(rng.integers(20_000, 40_000)) if big else int(rng.integers(1, 40))
    long = "p" * 70
    names = ["", "a", "abcdefgh", "abcdefghi", "0123456789abcdef0123", long + "x", long + "y",
             "h\u00e9llo", *NAMES]
    a_vals = [names[i] for i in rng.integers(0, len(names), n)]
    rows_a = np.sort(rng.choice(n, size=min(n, int(rng.integers(1, 50))), replace=False))
    b_vals = [a_vals[r] for r in rows_a]
    differs = bool(rng.random() < 0.5)
    if differs:
        k = int(rng.integers(0, len(b_vals)))
        old = b_vals[k]
        b_vals[k] = old[:-1] + chr(ord(old[-1]) + 1) if old else "z"
    rows_b = np.arange(len(b_vals), dtype=np.int64)
    for fa in _chunked_forms(a_vals, rng.integers(0, n + 1, 3).tolist()):
        for fb in _chunked_forms(b_vals, rng.integers(0, len(b_vals) + 1, 2).tolist()):
            ra, rb = raw_ids(fa), raw_ids(fb)
            if (ra.kind == 3) != (rb.kind == 3):
                with pytest.raises(ValueError, match="one family"):
                    same_ids_at(ra.kind, ra.a, ra.b, rows_a, rb.kind, rb.a, rb.b, rows_b)
                continue
            got = same_ids_at(ra.kind, ra.a, ra.b, rows_a.astype(np.int64), rb.kind, rb.a,
                              rb.b, rows_b)
            assert got is (not differs)
    ra = raw_ids(np.array(a_vals, dtype=object))
    assert same_ids_at(3, ra.a, None, rows_a[:0].astype(np.int64), 3, ra.a, None,
                       rows_b[:0]) is True
    if len(rows_a) > 1:  # rows of different lengths are not the same ids
        assert same_ids_at(3, ra.a, None, rows_a.astype(np.int64), 3, ra.a, None,
                           rows_a[1:].astype(np.int64)) is False


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shuffle=st.sampled_from(["none", "v", "x", "repeat"]))
def test_sorted_index_merges_ascending_text_ids(seed, shuffle):
    """``sorted_index``: the position of each id of one ascending text column in another (-1:
    absent), as a dict lookup gives it, for every pair of Arrow containers; a side out of
    order or repeating an id anywhere (first, middle or last) is reported, never merged."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    from receval.kernels import sorted_index

    rng = np.random.default_rng(seed)
    pool = sorted(set(["", "a", "abcdefgh", "abcdefghi", "abc", *NAMES]),
                  key=lambda s: s.encode())
    v = [s for s in pool if rng.random() < 0.6]
    x = [s for s in pool if rng.random() < 0.6]
    bad = None
    if shuffle in ("v", "x") and len(v if shuffle == "v" else x) > 1:
        side = v if shuffle == "v" else x
        k = int(rng.integers(0, len(side) - 1))
        side[k], side[k + 1] = side[k + 1], side[k]
        bad = shuffle
    elif shuffle == "repeat" and v:
        k = int(rng.integers(0, len(v)))
        v.insert(k, v[k])
        bad = "v"
    at = {s: i for i, s in enumerate(v)}
    expected = [at.get(s, -1) for s in x]
    for fv in _chunked_forms(v, rng.integers(0, len(v) + 1, 2).tolist())[:4]:
        for fx in _chunked_forms(x, rng.integers(0, len(x) + 1, 2).tolist())[:4]:
            rv_, rx = raw_ids(fv), raw_ids(fx)
            codes, ok = sorted_index(rv_.kind, rv_.a, rv_.b, rx.kind, rx.a, rx.b)
            assert ok is (bad is None)
            if ok:
                assert codes.tolist() == expected
    with pytest.raises(ValueError, match="UTF-8"):
        sorted_index(3, np.array(v, dtype=object), None, 3, np.array(x, dtype=object), None)


def test_arrow_item_categories_found_by_merge_or_hash():
    """The truth's Arrow item categories looked up in the run's (``dictionary_truth``): by
    the merge when both are sorted, by Arrow's hash lookup otherwise; the same positions."""
    if pa is None:
        pytest.skip("pyarrow is not installed")
    from receval.pack.rawids import _arrow_positions

    cats = pa.array(["a", "b", "d", "é"])
    assert _arrow_positions(pa.array(["b", "c", "é"]), cats).tolist() == [1, -1, 3]
    assert _arrow_positions(pa.array(["é", "b", "c"]), cats).tolist() == [3, 1, -1]
    assert _arrow_positions(pa.array(["b"]), pa.array(["d", "a", "b"])).tolist() == [2]
    assert _arrow_positions(pa.array([], type=pa.string()), cats).tolist() == []


def test_categorical_truth_mapped_at_the_size_of_its_dictionary():
    """A categorical truth's positions in its categories become ranks in the run's through
    one mapping of size |categories| (``dictionary_truth``): each category's rank, one not
    in the run's dictionary past its last rank (distinct from each other), and the
    positions themselves, not a copy, when both columns hold one dictionary."""
    from receval.pack.rawids import category_ids, dictionary_truth

    run_items = pd.Series(["a", "c", "d", "e"], dtype="category").cat.set_categories(
        ["a", "b", "c", "d", "e"])
    raw = category_ids(run_items)
    truth_cats = np.array(["a", "b", "c", "x", "z"], dtype=object)
    positions = np.array([3, 0, 2, 0, 4], dtype=np.int64)  # x a c a z
    assert dictionary_truth(raw, truth_cats, positions).a.tolist() == [5, 0, 2, 0, 6]
    shared = np.array([4, 0, 2], dtype=np.int64)
    same = dictionary_truth(raw, np.array(["a", "b", "c", "d", "e"], dtype=object), shared)
    assert same.a is shared
    if pa is not None:
        arrow = category_ids(run_items.astype(pd.ArrowDtype(pa.dictionary(pa.int32(),
                                                                         pa.string()))))
        assert dictionary_truth(arrow, pa.array(truth_cats.tolist()), positions).a.tolist() \
            == [5, 0, 2, 0, 6]


def _long_run_and_truth(rng, how: str, user, item, score, names, n_truth: int,
                        every_row: bool = False):
    """A run of long lists (item codes as int ids, or as ``names`` in the form ``how``) and a
    random truth of ``n_truth`` rows over its users and items, graded 0..3; ``every_row``:
    the truth grades each of the run's (user, item) pairs instead, with distinct grades (so
    that any two positions out of order change a full-depth nDCG)."""
    run = _frame(user, item, score, "score", "int") if how == "int" else \
        _long_frame(user, names[item], score, how)
    tu = user if every_row else rng.integers(0, int(user.max()) + 1, n_truth)
    ti = item if every_row else rng.integers(0, len(names), n_truth)
    grade = rng.permutation(len(tu)).astype(float) + 1.0 if every_row else \
        rng.integers(0, 4, n_truth).astype(float)
    truth = pd.DataFrame({"user": tu.astype(str) if how in ARROW else tu,
                          "item": _ids(ti, "int") if how == "int" else names[ti],
                          "relevance": grade})
    return run, truth.drop_duplicates(["user", "item"])


@pytest.mark.parametrize("how", ["int", "object", *ARROW[:1]])
def test_lists_ordered_by_their_score_keys_as_by_the_comparison(how):
    """Lists are ordered by a sort of keys holding their scores' leading bits (an insertion
    sort under 64 rows, a radix sort from 64 to 65536), then each run of equal leading bits by
    the full comparison: the order of the factorized route's comparison sort, on short lists
    and at the bounds of the radix range, with -0.0 beside 0.0 (equal scores), scores of
    every sign and magnitude, infinities, scores that differ only in the low bits the keys
    drop (a few units in the last place apart), lists of one score, and every tie policy."""
    rng = np.random.default_rng(11)
    lengths = [2, 3, 17, 40, 63, 64, 65, 200, 1000, 65535, 65536, 65537]
    user = np.repeat(np.arange(len(lengths)), lengths)
    n = len(user)
    item = rng.integers(0, 70000, n)
    ulps = np.arange(0, 1 << 18, 4093, dtype=np.float64) * 2.0**-52  # below and past 2**16
    pool = np.concatenate([[0.0, -0.0, 1.0, -1.0, 1e-300, -1e-300, 5e-324, 1e300, -1e300, 0.5,
                            np.inf, -np.inf, 3.0, 2.0, -2.0], 1.0 + ulps, -1.0 - ulps,
                           [5e-324 * k for k in range(1, 9)]])
    score = np.where(rng.random(n) < 0.5, pool[rng.integers(0, len(pool), n)],
                     rng.normal(0, 1e3, n))
    score[user == 6] = 7.0  # one score for a whole list
    names = np.array([f"i{c}" for c in range(70000)], dtype=object)
    run, truth = _long_run_and_truth(rng, how, user, item, score, names, 0, every_row=True)
    for policy in ({"duplicates": "max", "nan_scores": "last"},
                   {"duplicates": "keep", "ties": "input", "nan_scores": "last"},
                   {"duplicates": "count", "ties": "trec_eval", "nan_scores": "drop"}):
        # (full-depth measures: the place of every relevant row counts)
        fast, used = _evaluate(run, truth, True, metrics=[*METRICS, "map", "ndcg"], **policy)
        slow, _ = _evaluate(run, truth, False, metrics=[*METRICS, "map", "ndcg"], **policy)
        assert used or policy.get("ties") == "trec_eval"
        _same(fast, slow)
    assert not isinstance(fast, str) and fast.counts["evaluated"] == len(lengths)


#: intent-aware measures: they find each position in the documents of ``intents=``
ON_INTENTS = ["alpha_ndcg@3", "nerr_ia@5", "ap_ia", "strec@2", "p_ia@4", "nnrbp"]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(["object", "str", *ARROW]),
       grouped=st.booleans(), policy=st.sampled_from(POLICIES))
def test_places_in_the_intents_found_by_the_join(seed, how, grouped, policy):
    """A join on text ids writes each position's place in the documents every metric looks
    the items up in (``Plan.item_vocab``) instead of its run row: the values, counts and
    errors of the lists that keep their rows, bit for bit, for every container and policy;
    with documents outside the run, run items outside the documents, and documents of other
    types (never equal to a text id)."""
    rng = np.random.default_rng(seed)
    run, truth, n, n_users, n_items = _random_lists(rng, how, grouped, nonfinite=False)
    users = [str(u) for u in range(n_users + 2)] if how.startswith(("arrow", "chunked")) \
        else list(range(n_users + 2))
    m = int(rng.integers(1, 80))
    docs = _ids(rng.integers(0, n_items + 5, m), "object").tolist()
    if rng.random() < 0.2:  # a document that is not text: matches nothing
        docs[0] = 7
    intents = pd.DataFrame({"query": [users[k] for k in rng.integers(0, len(users), m)],
                            "subtopic": rng.integers(0, 4, m).astype(str), "doc": docs,
                            "relevance": rng.integers(0, 3, m)})
    intents = intents.drop_duplicates(["query", "subtopic", "doc"])
    seen = []
    place, plan_vocab = packed_module._lookup_ids, plan_module.Plan.item_vocab

    def watched(*a):
        out = place(*a)
        seen.append(out is not None)
        return out

    try:  # (patched by hand: hypothesis runs every example in one test call)
        packed_module._lookup_ids = watched
        fast, _ = _evaluate(run, truth, True, metrics=ON_INTENTS, intents=intents, **policy)
        plan_module.Plan.item_vocab = lambda self, context: None
        slow, _ = _evaluate(run, truth, True, metrics=ON_INTENTS, intents=intents, **policy)
    finally:
        packed_module._lookup_ids, plan_module.Plan.item_vocab = place, plan_vocab
    _same(fast, slow)
    if not isinstance(fast, str) and n and policy.get("ties") != "trec_eval" and \
            policy.get("unjudged") != "remove" and not isinstance(docs[0], int):
        assert any(seen)  # the places were written by the join


#: the metrics that read neither relevance nor judged flags, from the registry's flag: lists
#: with only these requested keep neither
LEAN = [key for key in ON_ITEMS + ON_INTENTS + [
    "alpha_dcg@3", "err_ia@2", "nrbp", "mace@3", "popularity_lift@3", "rank_biased_entropy@3"]
    if not parse_metric(key).definition.reads_relevance]


def test_the_lean_metrics_are_every_metric_that_reads_no_relevance():
    """Every registered metric that declares ``reads_relevance=False`` is among
    :data:`LEAN` (so that the test below sees each), and the plan asks for no relevance
    when only they are requested."""
    lean = {d.name for d in REGISTRY.values() if not d.reads_relevance}
    assert lean and {parse_metric(k).name for k in LEAN} == lean
    assert not plan_module.Plan(parse_metrics(LEAN), Policies()).keep_rel


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(["int", "object", "str", *ARROW]),
       policy=st.sampled_from(POLICIES + [{"ranks": "position"}]))
def test_lists_without_relevance_when_no_metric_reads_it(seed, how, policy):
    """When only metrics on the recommended items are asked for and none reads relevance
    (:data:`LEAN`), the join keeps no relevance and no judged flag and puts no truth item
    in its tables (they find the run's repeated items only), except where a later step of
    the lists reads them (condensed lists, averaged ties, absolute ranks): the values,
    counts and errors of lists that keep them, for every container and policy."""
    rng = np.random.default_rng(seed)
    run, truth, _, n_users, n_items = _random_lists(rng, how, bool(rng.random() < 0.5),
                                                    nonfinite=False)
    arrow = how.startswith(("arrow", "chunked"))
    every = _ids(np.arange(n_items + 3), "object" if arrow or how == "str" else how)
    users = [str(u) for u in range(n_users)] if arrow else list(range(n_users))
    m = 3 * len(every)
    intents = pd.DataFrame({"query": [users[k] for k in rng.integers(0, len(users), m)],
                            "subtopic": rng.integers(0, 3, m).astype(str),
                            "doc": every[rng.integers(0, len(every), m)],
                            "relevance": rng.integers(0, 3, m)}) \
        .drop_duplicates(["query", "subtopic", "doc"])
    t_user = rng.integers(0, n_users, 40)
    kw = {"item_groups": {i: f"g{k % 2}" for k, i in enumerate(every)},
          "item_categories": {i: [f"c{k % 3}"] for k, i in enumerate(every)},
          "train": pd.DataFrame({"user": t_user.astype(str) if arrow else t_user,
                                 "item": every[rng.integers(0, len(every), 40)]}),
          "intents": intents}
    post_init = plan_module.Plan.__post_init__

    def keeping(self):
        post_init(self)
        self.keep_rel = True

    lean, _ = _evaluate(run, truth, True, metrics=LEAN, **policy, **kw)
    try:  # (patched by hand: hypothesis runs every example in one test call)
        plan_module.Plan.__post_init__ = keeping
        kept, _ = _evaluate(run, truth, True, metrics=LEAN, **policy, **kw)
    finally:
        plan_module.Plan.__post_init__ = post_init
    _same(lean, kept)


def _separate_chunks(values: list[str], cuts: list[int], large: bool):
    """``values`` as an Arrow chunked array whose chunks hold buffers of their own (the rows
    after a chunk's end are not in its buffers, as with chunks read from separate files)."""
    typ = pa.large_string() if large else pa.string()
    bounds = [0, *sorted(cuts), len(values)]
    return pa.chunked_array([pa.array(values[a:b], type=typ)
                             for a, b in zip(bounds[:-1], bounds[1:], strict=True)], type=typ)


@pytest.mark.skipif(pa is None, reason="needs pyarrow")
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), large=st.booleans(),
       policy=st.sampled_from([{}, {"duplicates": "first"}, {"duplicates": "count"},
                               {"ties": "input", "duplicates": "keep"}]))
def test_lists_in_rank_order_across_separate_chunks_join_as_one_array(seed, large, policy):
    """Lists in rank order with no tie are joined where they lie, a list held by one buffer
    by a walk of its own: a list cut by a chunk boundary (the chunks' buffers separate), long
    ids of equal length and hash-table neighbours, repeated items and truth items must give
    the per-user values, counts and summaries of the same ids in one array and as objects."""
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(1, 8))
    counts = rng.integers(1, 40, n_users)
    user = np.repeat(np.arange(n_users), counts)
    pool = np.array(NAMES + [f"{k:032x}" for k in range(30)], dtype=object)
    item = pool[rng.integers(0, len(pool), len(user))]
    score = -np.arange(len(user), dtype=np.float64)  # rank order, no tie, in every list
    truth = pd.DataFrame({"user": rng.integers(0, n_users, 80).astype(str),
                          "item": pool[rng.integers(0, len(pool), 80)],
                          "relevance": rng.integers(0, 4, 80).astype(np.float64)})
    truth = truth.drop_duplicates(["user", "item"])
    cuts = rng.integers(1, len(user), int(rng.integers(1, 5))).tolist() if len(user) > 1 else []
    users = pa.array(user.astype(str).tolist())
    forms = [pa.table({"user": users, "item": _separate_chunks(item.tolist(), cuts, large),
                       "score": score}),
             pa.table({"user": users, "item": pa.array(item.tolist(), type=pa.string()),
                       "score": score}),
             pd.DataFrame({"user": user.astype(str), "item": item, "score": score})]
    results = [_evaluate(run, truth, True, **policy)[0] for run in forms]
    for other in results[1:]:
        _same(results[0], other)
