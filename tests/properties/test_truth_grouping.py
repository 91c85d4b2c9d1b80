"""A truth grouped on raw item ids (``kernels.group_truth_raw``) against the factorized route.

A truth whose item ids can be read in place is grouped without an item vocabulary; the
vocabulary and codes are built on first use, codes in ascending id order. Both routes must
give the same truth: users, per-user items (as raw ids) and their relevances, ideal lists,
counts and errors, for every container the raw route reads (int64, uint64, object ``str``,
pandas ``str``, Arrow string / large_string in one or several chunks), grouped or not, with
duplicate rows under each duplicates policy; and every metric, plugin metrics reading the
truth's item vocabulary included, must give the same bits.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.io import read_columns
from receval.io.frames import column_values
from receval.pack import packed as packed_module
from receval.policies import Policies

try:  # the Arrow containers need pyarrow (the bare install runs the rest)
    import pyarrow as pa
except ImportError:  # pragma: no cover - depends on the environment
    pa = None

ARROW = ["arrow", "arrow_large", "chunked"] if pa is not None else []
NAMES = np.array(["a", "b", "ab", "a\x00", "é", "zé", "ü𝄞", "𝄞", "Ā", "item-000000001",
                  "item-000000002", "10", "9", "1", "01"] + [f"x{i}" for i in range(30)],
                 dtype=object)


def _truth(seed: int, how: str, grouped: bool):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 160))  # some users hold over 32 rows (another sort)
    user = rng.integers(0, int(rng.integers(1, 10)), n)
    if grouped:
        user = np.sort(user, kind="stable")
    item = rng.integers(0, int(rng.integers(1, len(NAMES))), n)
    # few grades (sorted by counting them) or many (by comparisons), some -0.0
    rel = rng.integers(0, 4, n).astype(np.float64) if rng.random() < 0.6 else \
        rng.integers(0, 40, n) / 4.0
    if rng.random() < 0.1:
        rel[rng.random(n) < 0.2] = -0.0
    if how == "int":
        ids = item.astype(np.int64) * 7 - 20
    elif how == "int_wide":  # ids beyond 2**57 and near it: the sort of short int lists
        ids = (item.astype(np.int64) - 22) * 2**56 + 3  # takes keys that fit, rows otherwise
    elif how == "uint":
        ids = item.astype(np.uint64) + np.uint64(2**40)
    elif how == "object":
        ids = NAMES[item]
    elif how == "str":
        ids = pd.array(NAMES[item], dtype="str")
    else:
        typ = pa.large_string() if how == "arrow_large" else pa.string()
        table = pa.table({"user": pa.array(user), "item": pa.array(NAMES[item].tolist(), type=typ),
                          "relevance": pa.array(rel)})
        if how == "chunked" and n > 2:
            cut = n // 2
            table = pa.concat_tables([table.slice(0, cut), table.slice(cut, 0),
                                      table.slice(cut)])
        return table
    return pd.DataFrame({"user": user, "item": ids, "relevance": rel})


def _pack(truth, policies: Policies, raw: bool):
    cols = read_columns(truth, role="truth")
    if raw:
        return packed_module.pack_truth(cols, policies)
    orig = packed_module.raw_ids
    packed_module.raw_ids = lambda col: None
    try:
        return packed_module.pack_truth(cols, policies)
    finally:
        packed_module.raw_ids = orig


def _or_error(fn):
    try:
        return fn()
    except (rv.InputError, rv.PolicyError) as exc:
        return str(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), how=st.sampled_from(
    ["int", "int_wide", "uint", "object", "str", *ARROW]), grouped=st.booleans(),
    duplicates=st.sampled_from(["max", "first", "error", "keep"]))
def test_raw_grouping_equals_factorized_grouping(seed, how, grouped, duplicates):
    truth = _truth(seed, how, grouped)
    policies = Policies(duplicates=duplicates)
    fast = _or_error(lambda: _pack(truth, policies, True))
    slow = _or_error(lambda: _pack(truth, policies, False))
    if isinstance(fast, str) or isinstance(slow, str):
        assert fast == slow
        return
    assert fast.vocab is None and slow.vocab is not None  # the vocabulary waits for a reader
    np.testing.assert_array_equal(fast.users, slow.users)
    np.testing.assert_array_equal(fast.indptr, slow.indptr)
    fast_ids = fast.items[fast.item_codes]
    # the same (id, relevance) pairs per user; the raw route orders them by id
    seg = np.repeat(np.arange(fast.n_users), np.diff(fast.indptr))
    for ids, truth_pack in ((fast_ids, fast), (slow.items[slow.item_codes], slow)):
        frame = pd.DataFrame({"u": seg, "id": ids.tolist(), "rel": truth_pack.rel})
        pairs = frame.sort_values(["u", "id"], kind="stable").to_numpy().tolist()
        if truth_pack is fast:
            assert frame.to_numpy().tolist() == pairs  # already in id order
            fast_pairs = pairs
    assert fast_pairs == pairs
    # the ids the join reads are the vocabulary's, position by position
    (family, raw), = fast.raw.items()
    held = raw.a if raw.kind in (0, 3) else np.asarray(
        pa.chunked_array(raw.keep if isinstance(raw.keep, list) else [raw.keep]).to_pylist(),
        dtype=object)
    np.testing.assert_array_equal(held.view(np.uint64) if raw.unsigned else held, fast_ids)
    np.testing.assert_array_equal(fast.rel_desc, slow.rel_desc)
    # the ideal list of each user is its kept relevances, sorted descending
    ideal = [sorted(fast.rel[a:b].tolist(), reverse=True)
             for a, b in zip(fast.indptr[:-1], fast.indptr[1:], strict=True)]
    assert fast.rel_desc.tolist() == [r for user in ideal for r in user]
    assert (fast.n_rows, fast.max_rel, fast.counts) == (slow.n_rows, slow.max_rel, slow.counts)
    assert fast.item_kind == slow.item_kind
    # codes ascend within each user, in the order of the ids
    assert set(fast.items.tolist()) == set(slow.items.tolist())
    assert list(fast.items) == sorted(fast.items.tolist())
    for u in range(fast.n_users):
        assert np.all(np.diff(fast.item_codes[fast.indptr[u]:fast.indptr[u + 1]]) > 0)


def test_vocabulary_is_built_only_when_read():
    truth = pd.DataFrame({"user": [1, 1, 2], "item": ["b", "a", "b"], "relevance": [1., 2, 3]})
    ev = rv.Evaluator(truth, ["ndcg@10", "recall@10"])
    run = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "c", "b"], "score": [3., 2, 1]})
    res = ev.evaluate(run)
    assert ev.truth.vocab is None  # kernel metrics joined on raw ids
    assert ev.truth.item_kind == "str" and ev.truth.has_items
    assert res.per_user["recall@10"].tolist() == [0.5, 1.0]
    packed = ev.pack(run, lists=False)
    assert packed.truth_item_vocab.tolist() == ["a", "b"]  # read: built, sorted
    assert packed.t_items.tolist() == [0, 1, 1]
    assert ev.truth.vocab is not None


RUN_METRICS = ["ndcg@5", "map", "recall@10", "err@5", "coverage@5", "gini@5", "novelty@5",
               "psp@5", "psndcg@5", "accuracy@5", "tn@5"]


@pytest.mark.parametrize("how", ["int", "object", *ARROW])
def test_metrics_reading_the_vocabulary_are_unchanged(how):
    """Plugin metrics (catalogue, debiased weights) read the truth's items and codes built
    lazily: the same bits as with a truth factorized up front."""
    rng = np.random.default_rng(7)
    truth = _truth(11, how, grouped=False)
    cols = read_columns(truth, role="truth")
    users = np.unique(np.asarray(cols.user))
    items = np.unique(column_values(cols.item))
    n = 300
    run = pd.DataFrame({"user": rng.choice(users, n), "item": rng.choice(items, n),
                        "score": rng.integers(0, 5, n).astype(float)})
    if how != "int":
        run["item"] = run["item"].astype(object)
    # psp's estimated propensities need at least 3 training users (else they leave (0, 1])
    train = pd.DataFrame({"user": rng.integers(0, 10, 200), "item": rng.choice(items, 200)})

    def go(raw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev_kw = {"train": train, "duplicates": "max"}
            if raw:
                return rv.evaluate(run, truth, RUN_METRICS, **ev_kw)
            orig = packed_module.raw_ids
            packed_module.raw_ids = lambda col: None
            try:
                return rv.evaluate(run, truth, RUN_METRICS, **ev_kw)
            finally:
                packed_module.raw_ids = orig

    fast, slow = go(True), go(False)
    pd.testing.assert_frame_equal(fast.per_user, slow.per_user, check_exact=True)
    assert fast.counts == slow.counts
    assert str(fast.stats) == str(slow.stats)


# code points from every UTF-8 length (1 to 4 bytes), lone surrogates and NUL included, so that
# ids share long prefixes and differ within a character's bytes or past the 8-byte prefix
_TEXT = st.text(alphabet=st.sampled_from(["\x00", "a", "b", "\x7f", "\x80", "é", "\u07ff",
                                          "\u0800", "\ud800", "\uffff", "𝄞", "\U0010ffff"]),
                max_size=10)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=60))
def test_str_objects_are_ordered_by_code_point(values):
    """One user's ``str`` ids, grouped in place, come out in Python's order (code points), each
    id once: the order-preserving 8-byte prefix the kernel compares first never contradicts
    the full comparison."""
    from receval.kernels import group_truth_raw

    ids = np.array(values, dtype=object)
    rel = np.arange(len(ids), dtype=np.float64)
    indptr, perm, _, _, _ = group_truth_raw(3, ids, None, np.array([0, len(ids)]),
                                         np.zeros(0, dtype=np.int64), rel, 1)
    assert list(ids[perm]) == sorted(set(values))
