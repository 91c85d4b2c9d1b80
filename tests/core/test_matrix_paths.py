"""A numpy top-k matrix and a scipy.sparse truth read where they lie give the previous bits.

The matrix is joined at its width, with implicit rank scores (:mod:`receval.pack.matrix`); the
reference here is the construction it replaced: a per-row user code (-1 on padding), an int32
item code and a float64 ``-rank`` score per matrix entry, packed on item codes. The sparse
truth is grouped on its indices as they lie; the reference is the COO route (int32 codes,
:func:`receval.pack.packed._group_truth`). Every width, padding, repeated items under each
duplicates policy, each tie policy, block by block, list truth against sparse truth, and the
error messages of bad matrices are compared bit for bit / word for word.
"""

from __future__ import annotations

import importlib
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import InputError, PolicyError
from receval.pack.matrix import _check_padding, _integer_ids, run_from_matrix, truth_from_sparse
from receval.pack.packed import RunCodes, _group_truth
from receval.pack.rawids import INT, NARROW
from receval.policies import Policies

sp = pytest.importorskip("scipy.sparse")
packed_module = importlib.import_module("receval.pack.packed")
evaluator_module = importlib.import_module("receval.engines.evaluator")

METRICS = ["ndcg@3", "ndcg@10", "map@5", "mrr", "precision@2", "recall@10", "hit_rate@3",
           "r_precision", "num_ret"]
WITH_LISTS = [*METRICS, "coverage@3", "novelty@3"]
INT_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
MATRIX_TYPES = [*INT_TYPES, "float32", "float64"]
FORMATS = ["csr32", "csr64", "csc", "coo", "list"]


def _reference_run(arr: np.ndarray) -> RunCodes:
    """The run as the replaced construction made it (ids already checked)."""
    n, k = arr.shape
    flat = np.ascontiguousarray(arr).astype(np.int32).ravel()
    user = np.repeat(np.arange(n, dtype=np.int32), k)
    score = -np.tile(np.arange(1, k + 1, dtype=np.float64), n)
    keep = flat >= 0
    if not keep.all():
        user = np.where(keep, user, -1)
    n_items = int(flat.max()) + 1 if flat.size else 0
    return RunCodes(user, np.arange(n, dtype=np.int64), flat,
                    np.arange(n_items, dtype=np.int64), score, "rank", "rank", ordered=True)


def _reference_checks(arr: np.ndarray) -> None:
    """The replaced checks of a run matrix: the whole matrix at once."""
    k = arr.shape[1]
    ids = _integer_ids(arr, "run", lambda i: f"row {i // max(k, 1)}, column {i % max(k, 1)}",
                       np.int32)
    _check_padding(ids, "run", "row")


def _reference_truth(m, policies: Policies):
    """The replaced grouping of a scipy truth (no NaN / negative entries here)."""
    coo = sp.coo_matrix(m)
    return _group_truth(coo.row.astype(np.int32), coo.col.astype(np.int32),
                        np.asarray(coo.data, dtype=np.float64),
                        np.arange(m.shape[0], dtype=np.int64),
                        np.arange(m.shape[1], dtype=np.int64), policies)


def _outcome(f):
    try:
        return "ok", f()
    except (InputError, PolicyError) as exc:
        return "error", str(exc)


def _bits(res) -> np.ndarray:
    return np.ascontiguousarray(res.values, dtype=np.float64).view(np.uint64)


def _same(got, want) -> None:
    assert got[0] == want[0], (got, want)
    if got[0] == "error":
        assert got[1] == want[1]
        return
    a, b = got[1], want[1]
    assert a.user_ids.tolist() == b.user_ids.tolist()
    assert np.array_equal(_bits(a), _bits(b))
    assert str(a.stats) == str(b.stats)
    assert a.counts == b.counts


def _matrix(rng: np.random.Generator, dtype: str, n: int, n_items: int) -> np.ndarray:
    """Ids in [0, n_items) with repeats, -1 padding (signed and float types)."""
    k = int(rng.integers(0, 7))
    top = rng.integers(0, n_items, size=(n, k))
    if dtype.startswith("int") or dtype.startswith("float"):
        lengths = rng.integers(0, k + 1, size=n)
        top[np.arange(k)[None, :] >= lengths[:, None]] = -1
    return top.astype(dtype)


def _truth(rng: np.random.Generator, fmt: str, n: int, n_cols: int, repeats: bool):
    """A truth of ``n`` users as ``fmt``; graded (0 included) unless a list."""
    m = int(rng.integers(0, 4 * n + 2))
    users = rng.integers(0, max(n, 1), size=m) if n else np.zeros(0, dtype=np.int64)
    items = rng.integers(0, n_cols, size=m)
    if not repeats or fmt == "list":
        _, first = np.unique(users * n_cols + items, return_index=True)
        users, items = users[first], items[first]
    if fmt == "list":
        return [items[users == u] for u in range(n)]
    rel = rng.integers(0, 4, size=len(items)).astype(np.float64)
    csr = sp.csr_matrix((rel, (users, items)), shape=(n, n_cols))
    if repeats:  # explicit repeated entries, never summed: built from the arrays
        order = np.argsort(users, kind="stable")
        indptr = np.concatenate([[0], np.cumsum(np.bincount(users, minlength=n))])
        csr = sp.csr_matrix((rel[order], items[order].astype(np.int32), indptr),
                            shape=(n, n_cols))
    if fmt == "csr32":
        csr.indices, csr.indptr = csr.indices.astype(np.int32), csr.indptr.astype(np.int32)
        return csr
    if fmt == "csr64":
        return sp.csr_matrix((csr.data, csr.indices.astype(np.int64),
                              csr.indptr.astype(np.int64)), shape=csr.shape)
    return csr.tocsc() if fmt == "csc" else sp.coo_matrix(
        (csr.data, (np.repeat(np.arange(n), np.diff(csr.indptr)), csr.indices)),
        shape=csr.shape)


@pytest.mark.filterwarnings("ignore")  # (empty runs and undefined values: the same either way)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(MATRIX_TYPES),
       fmt=st.sampled_from(FORMATS),
       duplicates=st.sampled_from(["error", "first", "max", "keep", "count"]),
       ties=st.sampled_from(["id", "average", "trec_eval", "input"]),
       unjudged=st.sampled_from(["keep", "remove"]), ranks=st.sampled_from(["order", "position"]),
       users=st.sampled_from(["truth", "run", "union", "intersection"]),
       empty_truth=st.sampled_from(["skip", "zero"]), lists=st.booleans(),
       small_blocks=st.booleans())
def test_matrix_and_sparse_truth_give_the_replaced_bits(seed, dtype, fmt, duplicates, ties,
                                                        unjudged, ranks, users, empty_truth,
                                                        lists, small_blocks):
    rng = np.random.default_rng(seed)
    n, n_items = int(rng.integers(1, 9)), int(rng.integers(1, 12))
    arr = _matrix(rng, dtype, n, n_items)
    truth = _truth(rng, fmt, n, n_items + 2, repeats=bool(rng.integers(0, 2)))
    policies = dict(duplicates=duplicates, ties=ties, unjudged=unjudged, ranks=ranks,
                    users=users, empty_truth=empty_truth)
    metrics = WITH_LISTS if lists else METRICS
    built = _outcome(lambda: rv.Evaluator(truth, metrics, **policies))
    if built[0] == "error" and ("not available" in built[1] or "choose one of them" in built[1]):
        return  # (a pair of policies refused whatever the inputs)
    if fmt != "list":  # the truth grouped as it lies: the replaced grouping's arrays
        pol = Policies(**policies)
        got_t, want_t = _outcome(lambda: truth_from_sparse(truth, pol)), \
            _outcome(lambda: _reference_truth(truth, pol))
        assert got_t[0] == want_t[0] and (got_t[0] == "ok" or got_t[1] == want_t[1])
        if got_t[0] == "ok":
            a, b = got_t[1], want_t[1]
            for name in ("users", "indptr", "rel", "rel_desc", "items", "item_codes"):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
                assert getattr(a, name).dtype == getattr(b, name).dtype, name
            assert (a.n_rows, a.max_rel, a.counts) == (b.n_rows, b.max_rel, b.counts)
    if built[0] == "error":
        return
    ev = built[1]
    saved = evaluator_module.BLOCK_POSITIONS
    evaluator_module.BLOCK_POSITIONS = 3 if small_blocks else saved
    try:
        got = _outcome(lambda: ev.evaluate(arr))
        want = _outcome(lambda: ev.evaluate(_reference_run(arr)))
        blocks = _outcome(lambda: ev.evaluate_blocks([arr]))
    finally:
        evaluator_module.BLOCK_POSITIONS = saved
    _same(got, want)
    if not lists:  # (catalogue metrics refuse blocks)
        _same(blocks, want)
    if fmt == "list" and not lists:  # the same truth as a matrix of ones: the same values
        # (catalogue metrics left out: a list truth's catalogue ends at its largest id)
        rows = [np.asarray(t, dtype=np.int64) for t in truth]
        m = sp.csr_matrix((np.ones(sum(map(len, rows))),
                           (np.repeat(np.arange(n), [len(r) for r in rows]),
                            np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64))),
                          shape=(n, max([n_items + 2] + [int(r.max()) + 1 for r in rows
                                                          if len(r)])))
        as_sparse = _outcome(lambda: rv.Evaluator(m, metrics, **policies).evaluate(arr))
        if got[0] == "ok" and as_sparse[0] == "ok":
            assert np.array_equal(_bits(got[1]), _bits(as_sparse[1]))


def _bad_matrix(rng: np.random.Generator, dtype: str) -> np.ndarray:
    n, k = int(rng.integers(1, 30)), int(rng.integers(1, 9))
    top = rng.integers(0, 50, size=(n, k)).astype(np.float64)
    lengths = rng.integers(0, k + 1, size=n)
    top[np.arange(k)[None, :] >= lengths[:, None]] = -1
    for _ in range(int(rng.integers(0, 4))):  # a few bad entries anywhere
        r, c = int(rng.integers(0, n)), int(rng.integers(0, k))
        top[r, c] = rng.choice([-1, -2, -7, 2**31 - 1, 2**31 + 5, 2.5, np.nan, np.inf])
    if dtype.startswith("float"):
        return top.astype(dtype)
    top[~np.isfinite(top) | (top != np.floor(top))] = -3
    if dtype.startswith("uint"):
        top[top < 0] = 2**32 if dtype == "uint64" else 0
    ints = top.astype(np.int64)
    if dtype == "int8":
        ints = np.clip(ints, -128, 127)
    return ints.astype(dtype)  # (int32: ids past 2**31 wrap to negative ones)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from(["float64", "int64", "uint64",
                                                             "int32", "int8"]),
       block=st.sampled_from([1, 3, 1 << 18]))
def test_bad_matrices_get_the_replaced_message(seed, dtype, block):
    """The same first bad entry and the same words, whatever the blocks the checks read."""
    rng = np.random.default_rng(seed)
    arr = _bad_matrix(rng, dtype)
    matrix_module = importlib.import_module("receval.pack.matrix")
    saved = matrix_module.CHECK_SLOTS
    matrix_module.CHECK_SLOTS = block
    try:
        got = _outcome(lambda: run_from_matrix(arr))
    finally:
        matrix_module.CHECK_SLOTS = saved
    want = _outcome(lambda: _reference_checks(arr))
    assert got[0] == want[0]
    if want[0] == "error":
        assert got[1] == want[1]


@pytest.mark.parametrize("value", [np.array([[True, False]]), np.array([["a", "b"]]),
                                   np.array([[1 + 0j]]), np.array([[1, 2]], dtype=object),
                                   np.zeros(3, dtype=np.int64),
                                   np.zeros((2, 2, 2), dtype=np.int64)])
def test_other_arrays_are_refused_as_before(value):
    with pytest.raises(InputError) as got:
        run_from_matrix(value)
    if value.ndim == 2:
        with pytest.raises(InputError) as want:
            _reference_checks(value)
        assert str(got.value) == str(want.value)
    else:
        assert "2-D integer (users x k)" in str(got.value)


@pytest.mark.parametrize("dtype", INT_TYPES)
def test_integer_matrices_are_read_in_place(dtype):
    arr = np.array([[3, 1, 2], [0, 2, 4]], dtype=dtype)
    run = run_from_matrix(arr)
    assert np.shares_memory(run.item_raw.a, arr)
    assert run.item_raw.kind == (INT if np.dtype(dtype).itemsize == 8 else NARROW)
    assert run.row_bounds.tolist() == [0, 3, 3, 6]
    truth = sp.csr_matrix((np.ones(3), ([0, 1, 1], [1, 4, 3])), shape=(2, 5))
    ev = rv.Evaluator(truth, METRICS)
    res = ev.evaluate(run)
    # no score, user or item-code column was made: the matrix was joined where it lies
    assert run._score is None and run._user_codes is None and run._item_codes is None
    # user 0: item 1 at rank 2 (1 of 1 found); user 1: items 4 at rank 3 (1 of 2)
    assert res.summary["mrr"] == pytest.approx((1 / 2 + 1 / 3) / 2, rel=1e-15)
    assert res.summary["recall@10"] == pytest.approx((1 + 1 / 2) / 2, rel=1e-15)


def test_padding_and_floats_bound_each_row():
    arr = np.array([[2.0, -1.0, -1.0], [0.0, 1.0, 2.0], [-1.0, -1.0, -1.0]])
    run = run_from_matrix(arr)
    assert run.row_bounds.tolist() == [0, 1, 3, 6, 6, 6]
    assert run.item_raw.a.dtype == np.int16 and run.n_rows == 9
    assert run.item_kind == "int" and run._score is None


def test_sparse_truth_groups_the_indices_as_they_lie(monkeypatch):
    m = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([4, 1, 1], dtype=np.int32),
                       np.array([0, 1, 3], dtype=np.int32)), shape=(2, 6))
    seen = {}
    matrix_module = importlib.import_module("receval.pack.matrix")
    real = matrix_module.group_truth_raw

    def spy(kind, a, b, start, rows, rel, mode):
        seen.update(kind=kind, a=a)
        return real(kind, a, b, start, rows, rel, mode)

    monkeypatch.setattr(matrix_module, "group_truth_raw", spy)
    t = truth_from_sparse(m, Policies(duplicates="max"))
    assert seen["kind"] == NARROW and np.shares_memory(seen["a"], m.indices)
    assert t.indptr.tolist() == [0, 1, 2] and t.rel.tolist() == [1.0, 3.0]
    assert t.items.tolist() == list(range(6)) and t.counts["truth_duplicates"] == 1
    with pytest.raises(InputError, match="1 duplicate"):
        truth_from_sparse(m, Policies())


@pytest.mark.parametrize("data", [[1.0, np.nan], [1.0, -2.0], [np.inf, 1.0]])
def test_bad_sparse_relevances_keep_their_messages(data):
    m = sp.csr_matrix((np.array(data), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 3))
    for pol in (Policies(), Policies(nan_rel="drop"), Policies(nan_rel="zero")):
        got = _outcome(lambda pol=pol: truth_from_sparse(m, pol))
        # lil: a format only the general route takes (the one the fast route declines to)
        want = _outcome(lambda pol=pol: truth_from_sparse(sp.lil_matrix(m), pol))
        assert got[0] == want[0]
        if got[0] == "error":
            assert got[1] == want[1] and "relevance" in got[1]


def test_run_memory_is_a_small_part_of_the_matrix():
    """Checking and describing a matrix holds 16 bytes per user and blocks of the check: no
    array of one entry per matrix slot (the replaced construction held 16 bytes per slot)."""
    rng = np.random.default_rng(0)
    arr = rng.integers(0, 5000, size=(20_000, 100)).astype(np.int32)
    arr[::7, 60:] = -1
    tracemalloc.start()
    try:
        run = run_from_matrix(arr)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.1 * arr.nbytes
    assert np.shares_memory(run.item_raw.a, arr)


@pytest.mark.parametrize("view", ["columns", "fortran", "rows"])
def test_strided_matrices_give_the_values_of_their_copy(view):
    rng = np.random.default_rng(3)
    wide = rng.integers(0, 40, size=(30, 12)).astype(np.int16)
    arr = {"columns": wide[:, :5], "fortran": np.asfortranarray(wide),
           "rows": wide[::2]}[view]
    truth = sp.csr_matrix((np.ones(2 * len(arr)), (np.repeat(np.arange(len(arr)), 2),
                                         rng.integers(0, 40, size=2 * len(arr)))),
                          shape=(len(arr), 40))
    ev = rv.Evaluator(truth, METRICS, duplicates="first")
    _same(_outcome(lambda: ev.evaluate(arr)), _outcome(lambda: ev.evaluate(arr.copy())))
    _same(_outcome(lambda: ev.evaluate(arr)),
          _outcome(lambda: ev.evaluate(_reference_run(arr))))
