"""Dicts and numpy arrays are evaluated without importing pandas, with the same numbers.

``import receval`` and an evaluation of dict-of-dicts never import pandas; the id helpers of
:mod:`receval.pack.vocab` then use their own factorize / lookup / uniqueness paths, which must
agree exactly with pandas' (checked here by switching ``pandas_loaded`` off in-process).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.pack import vocab

METRICS = ["ndcg@10", "map@100", "mrr", "precision@5", "recall@20", "hit_rate@3", "err@10"]


@pytest.fixture
def no_pandas(monkeypatch):
    monkeypatch.setattr(vocab, "pandas_loaded", lambda: False)


def test_import_dicts_and_matrices_never_import_pandas():
    code = (
        "import sys\n"
        "import receval as rv\n"
        "assert 'pandas' not in sys.modules, 'import receval imported pandas'\n"
        "run = {'u1': {'a': 0.9, 'b': 0.8, 'c': 0.1}, 'u2': {'a': 0.5, 'c': 0.4},"
        " 'u3': {'x': 1.0}}\n"
        "truth = {'u1': {'b': 1}, 'u2': {'c': 2, 'd': 1}, 'u4': {'a': 1}}\n"
        "res = rv.evaluate(run, truth, ['ndcg@10', 'mrr', 'recall@2'])\n"
        "assert res.summary['mrr'] == 1 / 3, res.summary\n"
        "assert res.counts['missing_from_truth'] == 1, res.counts\n"
        "rv.evaluate({1: {10: 0.5, 11: 0.2}}, {1: {11: 1}}, ['mrr'])\n"
        "assert 'pandas' not in sys.modules, 'evaluating dicts imported pandas'\n"
        "import numpy as np\n"
        "res = rv.evaluate(np.array([[1, 2, 3], [0, 2, -1]]), [np.array([2]), np.array([0, 1])],"
        " ['mrr'])\n"
        "assert res.summary['mrr'] == 0.75, res.summary\n"
        "assert 'pandas' not in sys.modules and 'scipy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


ids = st.one_of(
    st.lists(st.text(alphabet="ab\u00e9\u4e2d", min_size=0, max_size=3), min_size=0, max_size=40),
    st.lists(st.integers(-(2**63), 2**63 - 1), min_size=0, max_size=40),
    st.lists(st.integers(0, 5), min_size=0, max_size=40),
)


def _array(values: list) -> np.ndarray:
    if values and isinstance(values[0], int):
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@settings(max_examples=200, deadline=None)
@given(ids, ids)
def test_own_paths_agree_with_pandas(a, b):
    x, y = _array(a), _array(b)
    codes, uniques = vocab._own_factorize(x)
    pd_codes, pd_uniques = pd.factorize(x, sort=False)
    assert codes.tolist() == pd_codes.tolist()
    assert uniques.tolist() == list(pd_uniques)
    assert codes.dtype == vocab.CODE
    assert vocab.unique(x).tolist() == list(pd.unique(pd.Series(x, dtype=x.dtype)))
    assert vocab.is_unique(x) == pd.Index(x).is_unique
    vocab_y = vocab.unique(y)
    if (x.dtype == object) == (vocab_y.dtype == object):
        want = pd.Index(vocab_y).get_indexer(pd.Index(x)).tolist()
        got = vocab._indexer(vocab_y, x).tolist()
        assert got == want


def test_own_paths_switch_off_pandas(no_pandas):
    x = _array(["b", "a", "b", "c"])
    assert vocab.is_unique(x) is False
    assert vocab.unique(x).tolist() == ["b", "a", "c"]
    assert vocab.lookup(_array(["c", "z", "b"]), vocab.unique(x)).tolist() == [2, -1, 0]
    n = np.array([7, -3, 7, 2**62], dtype=np.int64)
    assert vocab.lookup(np.array([2**62, 5]), vocab.unique(n)).tolist() == [2, -1]


def _dicts(draw_users, draw_items, rng):
    run, truth = {}, {}
    for u in draw_users:
        run[u] = {i: float(rng.integers(0, 4)) for i in rng.choice(draw_items, 6)}
        truth[u] = {i: int(rng.integers(0, 3)) for i in rng.choice(draw_items, 3)}
    return run, truth


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(["union", "truth", "run"]))
def test_dict_evaluation_identical_without_pandas(seed, int_ids, users):
    rng = np.random.default_rng(seed)
    pool_u = list(range(9)) if int_ids else [f"u{k}" for k in range(9)]
    pool_i = list(range(12)) if int_ids else [f"i{k}" for k in range(12)]
    run, truth = _dicts(rng.choice(np.array(pool_u, dtype=object), 6).tolist(),
                        np.array(pool_i, dtype=object), rng)
    truth.update(_dicts([pool_u[-1]], np.array(pool_i, dtype=object), rng)[1])
    with_pd = rv.evaluate(run, truth, METRICS, users=users)
    mp = pytest.MonkeyPatch()
    mp.setattr(vocab, "pandas_loaded", lambda: False)
    try:
        without = rv.evaluate(run, truth, METRICS, users=users)
    finally:
        mp.undo()
    assert list(without.user_ids) == list(with_pd.user_ids)
    np.testing.assert_array_equal(without.values, with_pd.values)
    np.testing.assert_equal(without.summary, with_pd.summary)  # NaN equals NaN here
    assert without.counts == with_pd.counts
