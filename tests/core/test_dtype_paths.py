"""Every column width gives the bits of the int64 / float64 path.

Integer ids of every width (int8 .. int64, uint8 .. uint64) are read where they lie and compared
by value; float16 / float32 scores are widened exactly (every float16 and float32 is a float64,
IEEE 754-2008 5.4.2), so their order and ties are those of the float64 values; relevance of any
integer width or float32 converts exactly; categorical ids (pandas ``category``, Arrow
``dictionary``, polars ``Categorical``) are joined on their codes. Each variant must give the
per-user values of the plain int64 / float64 frame bit for bit, under every tie policy.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.io.frames import read_columns
from receval.pack.rawids import INT, NARROW, category_ids, raw_ids
from receval.policies import Policies

packed_module = importlib.import_module("receval.pack.packed")

METRICS = ["ndcg@3", "ndcg@10", "map@5", "mrr", "precision@2", "recall@10", "hit_rate@3",
           "r_precision", "num_ret"]
WITH_LISTS = [*METRICS, "coverage@3", "novelty@3"]
ID_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SCORE_TYPES = ["float16", "float32", "float64"]
REL_TYPES = ["int8", "int16", "int32", "int64", "float32"]
TIES = ["id", "average", "trec_eval", "input"]


def _bits(res) -> np.ndarray:
    return np.ascontiguousarray(res.values, dtype=np.float64).view(np.uint64)


def _same(got, plain) -> None:
    """The same users, values (bit for bit), summaries and counts."""
    assert got.user_ids.tolist() == plain.user_ids.tolist()
    assert np.array_equal(_bits(got), _bits(plain))
    assert str(got.stats) == str(plain.stats)
    assert got.counts == plain.counts


def _data(rng: np.random.Generator, lo: int, hi: int):
    """A run with tied scores (quarters: exact in float16) and a truth, int64 ids in
    [lo, hi) that fit every width asked, float64 scores, int64 relevance."""
    n_users = int(rng.integers(1, 10))
    items = np.arange(lo, hi)
    rows = []
    for u in range(n_users):
        for i in rng.choice(items, int(rng.integers(0, min(len(items), 12) + 1)), replace=False):
            rows.append((u, int(i), float(rng.integers(0, 8)) / 4))
    if not rows:
        rows = [(0, lo, 1.0)]
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": rng.integers(0, n_users + 2, 25),
                          "item": rng.choice(items, 25),
                          "relevance": rng.integers(0, 4, 25)}).drop_duplicates(["user", "item"])
    return run, truth


def _evaluate(run, truth, ties, lists, train=None):
    """``train``: the plain run's (user, item) pairs, for the metrics that keep the lists."""
    return rv.evaluate(run, truth, WITH_LISTS if lists else METRICS, ties=ties,
                       train=train if lists else None, catalog=None)


def _train(run: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"user": run["user"], "item": run["item"]})


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), item_t=st.sampled_from(ID_TYPES),
       user_t=st.sampled_from(ID_TYPES), score_t=st.sampled_from(SCORE_TYPES),
       rel_t=st.sampled_from(REL_TYPES), ties=st.sampled_from(TIES), lists=st.booleans(),
       negative=st.booleans())
def test_every_width_gives_the_bits_of_int64(seed, item_t, user_t, score_t, rel_t, ties, lists,
                                             negative):
    rng = np.random.default_rng(seed)
    signed = np.dtype(item_t).kind == "i"
    lo, hi = (-100, 28) if negative and signed else (0, 128)  # every value fits int8 / uint8
    run, truth = _data(rng, lo, hi)
    plain = _evaluate(run, truth, ties, lists, _train(run))
    run_n = run.astype({"item": item_t, "user": user_t, "score": score_t})
    truth_n = truth.astype({"item": item_t, "user": user_t, "relevance": rel_t})
    _same(_evaluate(run_n, truth_n, ties, lists, _train(run)), plain)


def _categorical(col: pd.Series, rng: np.random.Generator, extra: list) -> pd.Series:
    cats = list(pd.unique(col)) + extra  # unused categories too
    if rng.random() < 0.5:
        rng.shuffle(cats)  # in no order: the codes are mapped to ranks
    else:
        cats = sorted(cats)  # pandas' default: the codes are read as they are
    return pd.Series(pd.Categorical(col, categories=cats), index=col.index)


def _container(run: pd.DataFrame, how: str, rng: np.random.Generator, extra: list,
               shared: pd.CategoricalDtype | None):
    """The run with a categorical item (and sometimes user) column in container ``how``."""
    if how == "pandas":
        out = run.copy()
        out["item"] = run["item"].astype(shared) if shared is not None else \
            _categorical(run["item"], rng, extra)
        if rng.random() < 0.5:
            out["user"] = _categorical(run["user"], rng, [])
        return out
    if how == "arrow":
        pa = pytest.importorskip("pyarrow")
        item = pa.array(run["item"].tolist())
        cut = int(rng.integers(0, len(run) + 1))
        if rng.random() < 0.5:  # chunks with dictionaries of their own
            parts = [item.slice(0, cut).dictionary_encode(), item.slice(cut).dictionary_encode()]
            item = pa.chunked_array([p for p in parts if len(p)] or parts)
        else:
            item = item.dictionary_encode()
        return pa.table({"user": pa.array(run["user"].tolist()), "item": item,
                         "score": pa.array(run["score"].to_numpy())})
    pl = pytest.importorskip("polars")
    frame = pl.from_pandas(run)
    if how == "polars_enum":
        cats = sorted(set(run["item"].astype(str)) | {str(e) for e in extra})
        return frame.with_columns(pl.col("item").cast(pl.String).cast(pl.Enum(cats)))
    frame = frame.with_columns(pl.col("item").cast(pl.String).cast(pl.Categorical))
    if rng.random() < 0.5:
        frame = frame.with_columns(pl.col("user").cast(pl.String).cast(pl.Categorical))
    return frame


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["int", "str"]),
       how=st.sampled_from(["pandas", "arrow", "polars", "polars_enum"]),
       shared=st.booleans(), score_t=st.sampled_from(SCORE_TYPES),
       ties=st.sampled_from(TIES), lists=st.booleans())
def test_categorical_containers_give_the_bits_of_plain_ids(seed, kind, how, shared, score_t,
                                                           ties, lists):
    rng = np.random.default_rng(seed)
    run, truth = _data(rng, 0, 40)
    run["score"] = run["score"].astype(score_t)
    if kind == "str" or how.startswith("polars"):  # polars categories hold strings
        for f in (run, truth):
            f["user"] = "u" + f["user"].astype(str)
            f["item"] = "i" + f["item"].astype(str)
        extra = ["zz", "aa"]
    else:
        extra = [10_000, -5]
    plain = _evaluate(run, truth, ties, lists, _train(run))
    dtype = None
    truth_c = truth
    if shared and how == "pandas":  # run and truth share one dictionary
        dtype = pd.CategoricalDtype(sorted(set(run["item"]) | set(truth["item"])))
        truth_c = truth.assign(item=truth["item"].astype(dtype))
    elif how == "arrow" and rng.random() < 0.5:  # a truth of its own dictionary
        pa = pytest.importorskip("pyarrow")
        truth_c = pa.table({"user": pa.array(truth["user"].tolist()),
                            "item": pa.array(truth["item"].tolist()).dictionary_encode(),
                            "relevance": pa.array(truth["relevance"].to_numpy())})
    elif how == "polars" and rng.random() < 0.5:
        pl = pytest.importorskip("polars")
        truth_c = pl.from_pandas(truth).with_columns(pl.col("item").cast(pl.Categorical))
    got = _evaluate(_container(run, how, rng, extra, dtype), truth_c, ties, lists, _train(run))
    _same(got, plain)


def test_narrow_columns_are_read_where_they_lie():
    run = pd.DataFrame({"user": np.array([1, 1, 2], dtype=np.int32),
                        "item": np.array([5, 7, 5], dtype=np.int32),
                        "score": np.array([0.5, 0.25, 1.0], dtype=np.float32)})
    cols = read_columns(run, role="run")
    assert cols.values.dtype == np.float32  # the score column, no float64 copy
    assert np.shares_memory(cols.values, run["score"].to_numpy())
    raw = raw_ids(cols.item)
    assert raw.kind == NARROW and np.shares_memory(raw.a, run["item"].to_numpy())
    assert cols.value.dtype == np.float64  # widened on request, exactly
    assert cols.value.tolist() == [0.5, 0.25, 1.0]
    cat = pd.Series([30, 10, 20, 10]).astype("category")  # sorted categories: codes as they are
    c = category_ids(cat)
    assert c.kind == NARROW and c.a.dtype == np.int8 and c.a.tolist() == [2, 0, 1, 0]
    assert np.shares_memory(c.a, cat.array.codes)
    unsorted = pd.Series(pd.Categorical([30, 10], categories=[30, 20, 10]))
    c = category_ids(unsorted)  # ranks gathered at the codes' width, not int64
    assert c.kind == NARROW and c.a.dtype == np.int8 and c.a.tolist() == [2, 0]
    assert c.dictionary.tolist() == [10, 20, 30]
    big = np.array([2**62, 3], dtype=np.uint64)
    r = raw_ids(big)
    assert r.kind == INT and r.unsigned and np.shares_memory(r.a, big)


def test_arrow_and_polars_dictionaries_are_joined_on_their_codes():
    pa = pytest.importorskip("pyarrow")
    col = pa.chunked_array([pa.array(["b", "a", "b"]).dictionary_encode(),
                            pa.array(["c", "a"]).dictionary_encode()])
    c = category_ids(col)  # two dictionaries: mapped into their sorted union
    assert c.dictionary.tolist() == ["a", "b", "c"] and c.a.tolist() == [1, 0, 1, 2, 0]
    one = pa.array(["a", "b", "a"]).dictionary_encode()  # sorted: its indices as they lie
    c = category_ids(one)
    assert c.kind == NARROW and c.a.tolist() == [0, 1, 0]
    assert np.shares_memory(c.a, np.frombuffer(one.indices.buffers()[1], dtype=np.int32))
    pl = pytest.importorskip("polars")
    c = category_ids(pl.Series(["y", "x", "y"]).cast(pl.Categorical))
    assert c is not None and c.dictionary[c.a].tolist() == ["y", "x", "y"]
    with_null = pa.array(["a", None]).dictionary_encode()
    assert category_ids(with_null) is None  # factorized, with the missing-id error


def _spy_join(monkeypatch) -> list[bool]:
    used: list[bool] = []
    orig = packed_module._truth_raw_for

    def spy(*a):
        out = orig(*a)
        used.append(out is not None)
        return out

    monkeypatch.setattr(packed_module, "_truth_raw_for", spy)
    return used


@pytest.mark.parametrize("item_t", ["int8", "uint16", "int32", "uint32"])
def test_narrow_ids_take_the_join_on_raw_ids(monkeypatch, item_t):
    used = _spy_join(monkeypatch)
    run = pd.DataFrame({"user": [1, 1, 2], "item": np.array([5, 7, 5], dtype=item_t),
                        "score": np.array([0.5, 0.25, 1.0], dtype=np.float32)})
    truth = pd.DataFrame({"user": [1, 2], "item": [7, 5]})
    res = rv.evaluate(run, truth, ["mrr", "ndcg@2"])
    assert used == [True]
    assert res.per_user["mrr"].tolist() == [0.5, 1.0]


@pytest.mark.parametrize("policy", ["error", "drop", "last"])
def test_nan_scores_in_float32(policy):
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 2],
                        "score": [0.5, np.nan, 0.25, np.inf, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [2, 3, 1]})

    def ev(frame):
        try:
            return rv.evaluate(frame, truth, METRICS, nan_scores=policy)
        except rv.InputError as exc:
            return str(exc)

    plain = ev(run)
    narrow = ev(run.astype({"score": "float32", "item": "int16"}))
    if policy == "error":
        assert isinstance(plain, str) and plain == narrow
        assert "column 'score'" in narrow and "first at row 1: nan" in narrow
        assert "nan_scores='drop'" in narrow
    else:
        _same(narrow, plain)


def test_narrow_ids_compare_by_value_not_by_bits():
    # -1 as int8 is the bits of 255 as uint8; ids beyond a run's width never match it
    run = pd.DataFrame({"user": [1, 1, 1], "item": np.array([-1, 127, -128], dtype=np.int8),
                        "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 1, 1], "item": np.array([255, 383, 127, 65535],
                                                                 dtype=np.uint16)})
    res = rv.evaluate(run, truth, ["mrr", "precision@3", "recall@3"])
    wide = rv.evaluate(run.astype({"item": "int64"}), truth.astype({"item": "int64"}),
                       ["mrr", "precision@3", "recall@3"])
    _same(res, wide)
    assert res["mrr"] == 0.5 and res["precision@3"] == pytest.approx(1 / 3)
    u32 = pd.DataFrame({"user": [1, 1], "item": np.array([2**32 - 1, 0], dtype=np.uint32),
                        "score": [2.0, 1.0]})
    res = rv.evaluate(u32, pd.DataFrame({"user": [1], "item": [2**32 - 1]}), ["mrr"])
    assert res["mrr"] == 1.0  # read unsigned: 4294967295, not -1


def test_uint64_above_2_63_keeps_its_values():
    # beyond 2**63 a uint64 has no int64 view: factorized, compared by value; the values are
    # those of the same ids relabelled in order below 2**63
    base = 2**63 + 5
    run = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [0, 1, 2, 1, 3],
                        "score": [1.0, 1.0, 0.5, 2.0, 2.0]})
    truth = pd.DataFrame({"user": [1, 2, 2], "item": [1, 3, 0], "relevance": [1, 2, 1]})
    big = [run.assign(item=run["item"].astype(np.uint64) + np.uint64(base)),
           truth.assign(item=truth["item"].astype(np.uint64) + np.uint64(base))]
    assert raw_ids(big[0]["item"].to_numpy()) is None
    for ties in TIES:
        _same(rv.evaluate(*big, METRICS, ties=ties), rv.evaluate(run, truth, METRICS, ties=ties))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32"])
def test_runs_of_equal_narrow_ids(dtype):
    # the blocks of a narrow user column (categorical codes too), found at its width; long
    # enough to be cut between threads, with -1 / 255 style values whose bits differ in sign
    from receval.kernels import adjacent_starts

    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    values = np.array([info.min, info.max, 0, 1], dtype=dtype)
    for n in (0, 1, 2, 9, 300_001):
        a = values[np.repeat(rng.integers(0, 4, n // 3 + 1), 3)[:n]]
        want = np.flatnonzero(np.r_[True, a[1:] != a[:-1]]) if n else np.zeros(0, np.int64)
        got = adjacent_starts(NARROW, a, None, 0, 0, 1)
        assert got[:-1].tolist() == want.tolist() and got[-1] == n


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(TIES), lists=st.booleans(),
       na_value=st.sampled_from(["nan", "NA"]))
def test_python_storage_strings_give_the_bits_of_object_ids(seed, ties, lists, na_value):
    # pandas' str / string dtype with Python storage (what pandas uses without pyarrow) is
    # read as its own object array: the values, counts and ids of an object-dtype frame
    rng = np.random.default_rng(seed)
    run, truth = _data(rng, 0, 40)
    dtype = pd.StringDtype("python", na_value=np.nan if na_value == "nan" else pd.NA)

    def text(frame, to):
        return frame.assign(user=("u" + frame["user"].astype(str)).astype(to),
                            item=("i" + frame["item"].astype(str)).astype(to))

    plain = _evaluate(text(run, object), text(truth, object), ties, lists,
                      train=_train(text(run, object)))
    got = _evaluate(text(run, dtype), text(truth, dtype), ties, lists,
                    train=_train(text(run, dtype)))
    _same(got, plain)


@pytest.mark.parametrize("na_value", [np.nan, pd.NA])
@pytest.mark.parametrize("column", ["user", "item"])
def test_python_storage_strings_refuse_missing_ids(na_value, column):
    dtype = pd.StringDtype("python", na_value=na_value)
    run = pd.DataFrame({"user": pd.array(["a", "a", "b"], dtype=dtype),
                        "item": pd.array(["x", "y", "z"], dtype=dtype), "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": pd.array(["a", "b"], dtype=dtype),
                          "item": pd.array(["x", "z"], dtype=dtype)})
    col = run[column].to_numpy(dtype=object)
    col[1] = na_value
    run[column] = pd.array(col, dtype=dtype)
    with pytest.raises(rv.InputError, match=f"run: column '{column}' has 1 missing id"):
        rv.evaluate(run, truth, ["mrr"])
    with pytest.raises(rv.InputError, match=f"truth: column '{column}' has 1 missing id"):
        rv.evaluate(truth.assign(score=[2.0, 1.0]), run.drop(columns="score"), ["mrr"])


def test_python_storage_strings_are_read_where_they_lie(monkeypatch):
    # the StringArray's own object array, checked in the reading pass: no isna pass
    dtype = pd.StringDtype("python", na_value=np.nan)
    frame = pd.DataFrame({"user": pd.array(["a", "a", "b"], dtype=dtype),
                          "item": pd.array(["x", "y", "z"], dtype=dtype), "score": [3.0, 2.0, 1.0]})
    cols = read_columns(frame, role="run")
    assert np.shares_memory(np.asarray(cols.item), np.asarray(frame["item"].array))

    def no_pass(*args, **kwargs):
        raise AssertionError("a separate pass for missing ids")

    monkeypatch.setattr(pd, "isna", no_pass)
    monkeypatch.setattr(pd.Series, "isna", no_pass)
    res = rv.evaluate(frame, frame.drop(columns="score").iloc[[0, 2]], ["mrr"])
    assert res["mrr"] == 1.0


def test_arrow_held_categories_stay_arrow_until_read():
    pa = pytest.importorskip("pyarrow")
    col = pd.Series(["i2", "i10", "i2", "i7"], dtype="str").astype("category")
    if not isinstance(col.cat.categories.array, pd.arrays.ArrowStringArray):
        pytest.skip("pandas keeps these categories as Python strings")
    c = category_ids(col)
    assert isinstance(c.categories, pa.Array) and "dictionary" not in c.__dict__
    assert c.a.tolist() == [1, 0, 1, 2]  # "i10" < "i2" < "i7" in code point order
    assert c.dictionary.tolist() == ["i10", "i2", "i7"]  # str objects made on request
    unsorted = pd.Series(pd.Categorical(["é", "z", "a"], categories=["z", "é", "a"]))
    unsorted = unsorted.cat.set_categories(pd.Index(["z", "é", "a"], dtype="str"))
    c = category_ids(unsorted)
    assert c.dictionary.tolist() == ["a", "z", "é"] and c.a.tolist() == [2, 1, 0]


@pytest.mark.parametrize("column", ["item", "user"])
def test_arrow_dictionary_that_repeats_a_value(column):
    # an Arrow dictionary may hold a value twice: both positions are the same id
    pa = pytest.importorskip("pyarrow")
    users = ["u1", "u1", "u1", "u2", "u2"]
    items = ["b", "a", "c", "b", "a"]
    scores = [0.9, 0.8, 0.7, 0.6, 0.5]
    idx = {"item": [0, 1, 3, 2, 1], "user": [0, 2, 0, 1, 1]}[column]
    values = {"item": ["b", "a", "b", "c"], "user": ["u1", "u2", "u1"]}[column]
    dict_col = pa.DictionaryArray.from_arrays(pa.array(idx, type=pa.int32()), pa.array(values))
    assert dict_col.to_pylist() == (items if column == "item" else users)
    cols = {"user": pa.array(users), "item": pa.array(items), "score": pa.array(scores)}
    cols[column] = dict_col
    assert category_ids(dict_col) is None  # factorized instead
    truth = pd.DataFrame({"user": ["u1", "u1", "u2", "u2"], "item": ["b", "c", "b", "a"]})
    metrics = ["ndcg@2", "recall@3", "precision@1"]
    got = rv.evaluate(pa.table(cols), truth, metrics)
    plain = rv.evaluate(pd.DataFrame({"user": users, "item": items, "score": scores}), truth,
                        metrics)
    _same(got, plain)


_TEXT = ["a", "B", "b", "ab", "a\u00e9", "\u00e9", "z", "\u65e5\u672c", "\U0001f600x", "a b", "",
         "\u00e9a", "10", "9"]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(TIES), lists=st.booleans(),
       shared=st.booleans(), users_too=st.booleans())
def test_text_categories_in_any_order_give_the_bits_of_plain_ids(seed, ties, lists, shared,
                                                                 users_too):
    # categories of text ids beyond ASCII (orders of bytes and code points agree in UTF-8),
    # in any order, with unused ones, run and truth of one dictionary or of their own
    rng = np.random.default_rng(seed)
    run, truth = _data(rng, 0, len(_TEXT))
    for f in (run, truth):
        f["item"] = [_TEXT[i] for i in f["item"]]
        f["user"] = ["u\u00e9" + str(u) for u in f["user"]]
    plain = _evaluate(run, truth, ties, lists, _train(run))

    def cat(col: pd.Series, extra: list[str]) -> pd.Series:
        cats = sorted(set(col) | set(extra))
        rng.shuffle(cats)
        return pd.Series(pd.Categorical(col, categories=pd.Index(cats, dtype="str")),
                         index=col.index)

    if shared:
        dtype = pd.CategoricalDtype(pd.Index(sorted(set(run["item"]) | set(truth["item"])
                                                    | {"\u00ff"}), dtype="str"))
        run_c = run.assign(item=run["item"].astype(dtype))
        truth_c = truth.assign(item=truth["item"].astype(dtype))
    else:
        run_c = run.assign(item=cat(run["item"], ["\u00ff", "0"]))
        truth_c = truth.assign(item=cat(truth["item"], ["zz"]))
    if users_too and shared:  # equal categories: the run's ids are the truth's objects
        every = sorted(set(run["user"]) | set(truth["user"]) | {"u\u00e9999"})
        rng.shuffle(every)
        run_c["user"] = run["user"].astype(pd.CategoricalDtype(pd.Index(every, dtype="str")))
        truth_c["user"] = truth["user"].astype(
            pd.CategoricalDtype(pd.Index(list(every), dtype="str")))
    elif users_too:
        run_c["user"] = cat(run["user"], [])
        truth_c["user"] = cat(truth["user"], ["u\u00e9999"])
    _same(_evaluate(run_c, truth_c, ties, lists, _train(run)), plain)


def test_run_users_of_equal_categories_reuse_the_truth_ids():
    pytest.importorskip("pyarrow")
    every = pd.Index(["u3", "u1", "u2", "u9"], dtype="str")
    truth = pd.DataFrame({"user": ["u3", "u3", "u1", "u2"], "item": [1, 2, 1, 3]})
    run = pd.DataFrame({"user": ["u3", "u9", "u1", "u1"], "item": [1, 4, 2, 1],
                        "score": [1.0, 1.0, 0.5, 0.25]})
    truth["user"] = truth["user"].astype(pd.CategoricalDtype(every))
    run["user"] = run["user"].astype(pd.CategoricalDtype(pd.Index(list(every), dtype="str")))
    t = packed_module.pack_truth(read_columns(truth, role="truth"), Policies())
    if t.user_groups is None:
        pytest.skip("pandas keeps these categories as Python strings")
    r = packed_module.run_codes(read_columns(run, role="run"), t)
    assert r.users.tolist() == ["u3", "u9", "u1"]
    assert r.users[0] is t.users[0] and r.users[2] is t.users[1]  # shared, not made again
    plain = rv.evaluate(run.astype({"user": object}), truth.astype({"user": object}),
                        ["ndcg@2", "recall@2"], users="union")
    _same(rv.evaluate(run, truth, ["ndcg@2", "recall@2"], users="union"), plain)


@pytest.mark.parametrize("form", ["object", "arrow", "arrow_chunks"])
def test_run_of_the_truth_text_users_reuses_their_ids(form):
    pa = pytest.importorskip("pyarrow")
    users_t = ["u\u00e92", "u\u00e92", "u1", "u" + "x" * 70]
    truth = pd.DataFrame({"user": users_t, "item": [1, 2, 1, 3]})

    def column(values: list[str]):
        if form == "object":
            return pd.Series(values, dtype=object)
        arr = pa.array(values)
        if form == "arrow_chunks":
            arr = pa.chunked_array([arr.slice(0, 1), arr.slice(1)])
        return pd.Series(pd.arrays.ArrowStringArray(arr))

    t = packed_module.pack_truth(read_columns(truth.assign(user=column(users_t)),
                                              role="truth"), Policies())
    for users_r, shared in ((["u\u00e92", "u1", "u1", "u" + "x" * 70], True),
                            (["u\u00e92", "u1", "u1", "u" + "x" * 69 + "y"], False),
                            (["u1", "u\u00e92", "u\u00e92", "u" + "x" * 70], False)):
        run = pd.DataFrame({"user": column(users_r), "item": [1, 2, 1, 3],
                            "score": [1.0, 0.5, 0.25, 1.0]})
        r = packed_module.run_codes(read_columns(run, role="run"), t)
        assert r.users.tolist() == list(dict.fromkeys(users_r))
        assert (r.users is t.users) is shared  # the same ids: nothing decoded again
        plain = rv.evaluate(run.astype({"user": object}), truth, ["ndcg@2", "recall@2"],
                            users="union")
        got = rv.evaluate(run, truth.assign(user=column(users_t)), ["ndcg@2", "recall@2"],
                          users="union")
        _same(got, plain)


def test_truth_frame_changed_in_place_after_the_evaluator_is_built():
    # the truth's users as read stay the users: a run is matched against them, not against
    # an object column changed since
    truth = pd.DataFrame({"user": pd.Series(["a", "b"], dtype=object), "item": [1, 2]})
    ev = rv.Evaluator(truth, ["recall@2"], users="union")
    truth.loc[0, "user"] = "z"  # changed after the truth was read
    run = pd.DataFrame({"user": pd.Series(["z", "b"], dtype=object), "item": [1, 2],
                        "score": [1.0, 1.0]})
    res = ev.evaluate(run)
    assert sorted(res.user_ids.tolist()) == ["a", "b", "z"]
