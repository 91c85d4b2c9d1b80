"""Property tests for the input boundary: containers x id types x edge values.

For every container receval reads (pandas with numpy, object, string, Arrow and categorical
columns; polars, also Categorical; pyarrow, also dictionary, large_string and string_view; a
dict-of-dicts; a dict of columns) and every kind of id (int64, uint64 up to 2**64 - 1, whole
and non-whole floats, inf, NaN, strings such as "01" and "", UTF-8 and invalid bytes, booleans,
ints mixed with strings), ``rv.evaluate`` either

- returns the oracle's numbers, computed on the same data with plain Python ids, and returns
  the ids themselves: the same values, of the same kind (never a float, never wrapped), or
- raises a :class:`receval.errors.RecevalError`,

never a raw exception, never a silent change of ids (see docs/ids.md).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import evaluate as oracle_evaluate

import receval as rv
from receval.errors import RecevalError

try:  # optional extras: without them, their containers are left out
    import pyarrow as pa
except ImportError:  # pragma: no cover - depends on the environment
    pa = None
try:
    import polars as pl
except ImportError:  # pragma: no cover
    pl = None

METRICS = ["ndcg@3", "precision@2", "mrr", "recall@3", "map"]

# kinds of ids; the value is the canonical (oracle) form of a raw id, or None: an error
OK_KINDS = ("int64", "uint64", "float_whole", "str", "bytes")
BAD_KINDS = ("float_bad", "bytes_bad", "mixed", "bool")
KINDS = OK_KINDS + BAD_KINDS
CONTAINERS = tuple(
    c for c in ("pandas", "pandas_object", "pandas_str", "pandas_arrow", "pandas_category",
                "polars", "polars_categorical", "pyarrow", "pyarrow_dictionary",
                "pyarrow_large_string", "pyarrow_string_view", "dict_of_dicts",
                "dict_of_columns")
    if (pa is not None or not ("arrow" in c or c.startswith("polars")))
    and (pl is not None or not c.startswith("polars")))

TEXT = st.text(alphabet=st.sampled_from(["0", "1", "9", "a", "Z", " ", "é", "中", "_"]),
               max_size=4)


def id_values(kind: str, n: int) -> st.SearchStrategy[list]:
    """``n`` distinct raw ids of one kind (the bad kinds hold at least one bad value)."""
    if kind == "int64":
        base = st.one_of(st.integers(-(2**63), 2**63 - 1), st.sampled_from(
            [-(2**63), 2**63 - 1, 0, -1, 1, 2**53 + 1]))
    elif kind == "uint64":
        base = st.one_of(st.integers(2**63, 2**64 - 1), st.integers(0, 20),
                         st.sampled_from([2**63, 2**64 - 1]))
    elif kind == "float_whole":
        base = st.one_of(st.integers(-(2**53), 2**53), st.integers(-5, 5)).map(float)
    elif kind in ("str", "bytes"):
        base = st.one_of(TEXT, st.sampled_from(["01", "1", "", " 1", "1.0"]))
    elif kind == "bool":
        return st.permutations([True, False]).map(lambda v: v[:max(1, min(n, 2))])
    elif kind == "float_bad":
        good = st.integers(-5, 5).map(float)
        bad = st.sampled_from([1.5, 0.1, math.inf, -math.inf, 1e20, 2.0**63, 2.0**64, math.nan])
        return st.tuples(st.lists(good, min_size=n - 1, max_size=n - 1, unique=True), bad,
                         st.integers(0, n - 1)).map(lambda t: _insert(t[0], t[1], t[2]))
    elif kind == "bytes_bad":
        return st.lists(TEXT.map(str.encode), min_size=n - 1, max_size=n - 1, unique=True).map(
            lambda v: [*v, b"\xff\xfe"])
    elif kind == "mixed":
        return st.tuples(st.lists(st.integers(0, 99), min_size=1, max_size=n, unique=True),
                         st.lists(TEXT, min_size=1, max_size=n, unique=True)).map(
            lambda t: (t[0] + t[1])[: max(n, 2)] if len(t[0]) < max(n, 2) else
            [*t[0][: max(n, 2) - 1], t[1][0]])
    else:  # pragma: no cover
        raise AssertionError(kind)
    values = st.lists(base, min_size=n, max_size=n, unique=True)
    if kind == "bytes":
        values = values.map(lambda v: [s.encode() for s in v])
    return values


def _insert(values: list, bad: float, at: int) -> list:
    out = list(values)
    out.insert(at, bad)
    return out


def canon(kind: str, v: Any) -> Any:
    """The oracle's plain id for a raw id of an accepted kind."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, float) or kind in ("int64", "uint64"):
        return int(v)
    return v


# ---- containers -----------------------------------------------------------------------------
class Unrepresentable(Exception):
    """This container cannot hold this kind of id (polars has no mixed-type column, ...)."""


# what a container's own constructor raises for values it cannot hold
CONTAINER_ERRORS: tuple[type[Exception], ...] = (TypeError, ValueError, OverflowError) + (
    (pa.ArrowException,) if pa is not None else ())


ARROW_TYPES = {} if pa is None else {
    "int64": pa.int64(), "uint64": pa.uint64(), "float_whole": pa.float64(),
    "float_bad": pa.float64(), "str": pa.string(), "bytes": pa.binary(),
    "bytes_bad": pa.binary(), "bool": pa.bool_()}
POLARS_TYPES = {"int64": "Int64", "uint64": "UInt64", "float_whole": "Float64",
                "float_bad": "Float64", "str": "String", "bytes": "Binary",
                "bytes_bad": "Binary", "bool": "Boolean"}
NUMPY_TYPES = {"int64": np.int64, "uint64": np.uint64, "float_whole": np.float64,
               "float_bad": np.float64, "bool": np.bool_}


def column(values: list, kind: str, container: str) -> Any:
    """One id column of ``values`` as ``container`` holds it."""
    if container in ("pandas", "pandas_object", "pandas_str", "pandas_arrow", "pandas_category"):
        if container == "pandas":
            if kind in NUMPY_TYPES:
                return pd.Series(np.array(values, dtype=NUMPY_TYPES[kind]))
            return pd.Series(_objects(values), dtype=object)
        if container == "pandas_object":
            return pd.Series(_objects(values), dtype=object)
        if container == "pandas_str":
            if kind != "str":
                raise Unrepresentable
            return pd.Series(values, dtype="str")
        if container == "pandas_arrow":
            if kind not in ARROW_TYPES:
                raise Unrepresentable
            return pd.Series(pd.array(values, dtype=pd.ArrowDtype(ARROW_TYPES[kind])))
        return pd.Series(_objects(values), dtype=object).astype("category")
    if container in ("polars", "polars_categorical"):
        if kind not in POLARS_TYPES or (container == "polars_categorical" and kind != "str"):
            raise Unrepresentable
        s = pl.Series("x", values, dtype=getattr(pl, POLARS_TYPES[kind]))
        return s.cast(pl.Categorical) if container == "polars_categorical" else s
    if container.startswith("pyarrow"):
        if kind not in ARROW_TYPES:
            raise Unrepresentable
        arr = pa.array(values, type=ARROW_TYPES[kind])
        if container == "pyarrow_dictionary":
            return arr.dictionary_encode()
        if container in ("pyarrow_large_string", "pyarrow_string_view"):
            if kind != "str":
                raise Unrepresentable
            return arr.cast(pa.large_string() if container == "pyarrow_large_string"
                            else pa.string_view())
        return arr
    raise AssertionError(container)  # pragma: no cover


def _objects(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def table(rows: list[tuple], kinds: tuple[str, str], container: str, value: str) -> Any:
    """Rows ``(user, item, value)`` (raw ids) as ``container``."""
    users, items, vals = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
    if container == "dict_of_dicts":
        if "bool" in kinds:  # True == 1 as dict keys: not a column of booleans
            raise Unrepresentable
        out: dict = {}
        for u, i, v in rows:
            out.setdefault(u, {})[i] = v
        return out
    if container == "dict_of_columns":
        return {"user": users, "item": items, value: vals}
    ucol, icol = column(users, kinds[0], container), column(items, kinds[1], container)
    if container.startswith("pandas"):
        return pd.DataFrame({"user": ucol, "item": icol, value: np.array(vals, dtype=float)})
    if container.startswith("polars"):
        return pl.DataFrame([ucol.alias("user"), icol.alias("item"),
                             pl.Series(value, vals, dtype=pl.Float64)])
    return pa.table({"user": ucol, "item": icol, value: pa.array(vals, pa.float64())})


# ---- cases ----------------------------------------------------------------------------------
ANY_KIND = st.sampled_from(KINDS)


@st.composite
def cases(draw, kinds=ANY_KIND):
    """(user kind, item kind, users, items, run rows, truth rows), rows with raw ids."""
    ukind, ikind = draw(kinds), draw(kinds)
    users = draw(id_values(ukind, draw(st.integers(1, 3))))
    items = draw(id_values(ikind, draw(st.integers(1, 5))))
    run = []
    for u in users:
        chosen = draw(st.lists(st.sampled_from(range(len(items))), unique=True,
                               max_size=len(items)))
        run += [(u, items[j], float(draw(st.integers(0, 2)))) for j in chosen]
    truth = []
    for u in users:
        chosen = draw(st.lists(st.sampled_from(range(len(items))), unique=True,
                               max_size=len(items)))
        truth += [(u, items[j], float(draw(st.integers(0, 3)))) for j in chosen]
    if not truth:
        truth = [(users[0], items[0], 1.0)]
    return ukind, ikind, run, truth


def _run_receval(run_c: Any, truth_c: Any, **kw: Any) -> Any:
    """``rv.evaluate``; a RecevalError is returned, any other exception fails the test."""
    try:
        return rv.evaluate(run_c, truth_c, METRICS, **kw)
    except RecevalError as exc:
        assert "Traceback" not in str(exc)
        return exc
    except Exception as exc:  # noqa: BLE001 - the property: never a raw exception
        pytest.fail(f"raw {type(exc).__name__} instead of a receval error: {exc}")


def _kind(v: Any) -> str:
    v = v.item() if isinstance(v, np.generic) else v
    return "str" if isinstance(v, str) else "int" if isinstance(v, int) else type(v).__name__


def check_against_oracle(res: Any, ukind: str, ikind: str, run: list, truth: list) -> None:
    plain = lambda rows: [(canon(ukind, u), canon(ikind, i), v) for u, i, v in rows]  # noqa: E731
    exp_users, exp_summary = oracle_evaluate(plain(run), plain(truth), METRICS)
    # ids come back as given: the same values, of the same kind, in a non-float array
    assert res.user_ids.dtype.kind in "iuO", res.user_ids.dtype
    got = [u.item() if isinstance(u, np.generic) else u for u in res.user_ids]
    assert sorted(map(repr, got)) == sorted(map(repr, exp_users))
    assert {_kind(u) for u in res.user_ids} == {_kind(u) for u in exp_users}
    for key in METRICS:
        exp = np.array([exp_users[u][key] for u in got], dtype=float)
        np.testing.assert_allclose(res.user_values(key), exp, rtol=1e-12, atol=1e-12,
                                   equal_nan=True, err_msg=key)
        a, b = res[key], exp_summary[key]
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12), key


# random ids: the run and the truth may share no user, which a warning rightly reports
@pytest.mark.filterwarnings("ignore::receval.errors.NoCommonUsersWarning")
@given(case=cases(), run_container=st.sampled_from(CONTAINERS),
       truth_container=st.sampled_from(CONTAINERS))
@settings(max_examples=150, deadline=None)
def test_a_correct_number_or_a_receval_error(case, run_container, truth_container):
    ukind, ikind, run, truth = case
    try:
        run_c = table(run, (ukind, ikind), run_container, "score")
        truth_c = table(truth, (ukind, ikind), truth_container, "relevance")
    except Unrepresentable:
        assume(False)
    except CONTAINER_ERRORS:
        assume(False)  # the container itself refuses these values (e.g. polars, pyarrow)
    res = _run_receval(run_c, truth_c)
    columns = [[r[j] for r in rows] for rows in (run, truth) for j in (0, 1)]
    col_kinds = [ukind, ikind, ukind, ikind]
    if any(_column_bad(k, c) for k, c in zip(col_kinds, columns, strict=True)) or (
            run and any(_kinds(columns[j]) != _kinds(columns[j + 2]) for j in (0, 1))):
        assert isinstance(res, RecevalError), (ukind, ikind, run, truth)
        return
    assert not isinstance(res, Exception), f"{type(res).__name__}: {res}"
    check_against_oracle(res, ukind, ikind, run, truth)


def _column_bad(kind: str, values: list) -> bool:
    """Whether a column of raw ids breaks the id policy."""
    if kind == "float_bad":
        return any(not (math.isfinite(v) and v == int(v) and abs(v) <= 2**53) for v in values)
    if kind == "bytes_bad":
        return b"\xff\xfe" in values
    if kind == "bool":
        return bool(values)
    if kind == "mixed":
        return len(_kinds(values)) > 1
    return False


def _kinds(values: list) -> set[str]:
    return {"str" if isinstance(v, (str, bytes)) else "int" for v in values}


@given(case=cases(kinds=st.sampled_from(("int64", "uint64", "float_whole"))),
       run_container=st.sampled_from(CONTAINERS), truth_container=st.sampled_from(CONTAINERS),
       side=st.sampled_from(("user", "item")), to_str=st.sampled_from(("run", "truth")))
@settings(max_examples=60, deadline=None)
def test_int_and_str_ids_never_meet_silently(case, run_container, truth_container, side,
                                             to_str):
    """The same ids as integers on one side and as their decimal text on the other: always
    an error, never a number (1 and "1" are different ids)."""
    ukind, ikind, run, truth = case
    pos = 0 if side == "user" else 1

    def as_text(rows):
        return [tuple(str(canon((ukind, ikind)[j], v)) if j == pos else v
                      for j, v in enumerate(r)) for r in rows]

    kinds = tuple("str" if j == pos else (ukind, ikind)[j] for j in range(2))
    run_k = kinds if to_str == "run" else (ukind, ikind)
    truth_k = kinds if to_str == "truth" else (ukind, ikind)
    run_rows = as_text(run) if to_str == "run" else run
    truth_rows = as_text(truth) if to_str == "truth" else truth
    assume(run_rows)  # an empty run has no ids to compare
    try:
        run_c = table(run_rows, run_k, run_container, "score")
        truth_c = table(truth_rows, truth_k, truth_container, "relevance")
    except (Unrepresentable, *CONTAINER_ERRORS):
        assume(False)
    res = _run_receval(run_c, truth_c)
    assert isinstance(res, RecevalError), "int and str ids were compared"
    assert "integers" in str(res) and "strings" in str(res)


@given(values=st.lists(st.one_of(st.integers(-(2**63), 2**64 - 1), TEXT,
                                 st.floats(allow_nan=True), st.binary(max_size=3),
                                 st.booleans(), st.none()), min_size=1, max_size=6),
       container=st.sampled_from(("object", "category", "list")))
@settings(max_examples=150, deadline=None)
def test_any_python_values_in_an_id_column(values, container):
    """An object column of arbitrary Python values: integers and strings by the policy, or a
    receval error; the ids come back unchanged."""
    from receval.pack.vocab import factorize

    if container == "object":
        col = pd.Series(_objects(values), dtype=object)
    elif container == "category":
        try:
            col = pd.Series(_objects(values), dtype=object).astype("category")
        except (TypeError, ValueError):
            assume(False)
    else:
        col = values
    try:
        codes, uniques = factorize(col, what="user column 'user'")
    except RecevalError:
        return
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"raw {type(exc).__name__}: {exc}")
    plain = [u.item() if isinstance(u, np.generic) else u for u in uniques]
    kinds = {_kind(u) for u in plain}
    assert kinds <= {"int", "str"} and len(kinds) <= 1
    expected = []
    for v in values:
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, float):
            v = int(v)
        if v not in expected:
            expected.append(v)
    assert plain == expected  # first-appearance order, every id kept, none merged
    assert [plain[c] for c in codes] == [
        v.decode() if isinstance(v, bytes) else int(v) if isinstance(v, float) else v
        for v in values]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([0, 1, -1, 7, 2**16, -(2**16), 2**31, 2**62, -(2**63),
                                 2**63 - 1, 5, 6]), max_size=40),
       st.integers(0, 3))
def test_int64_ids_factorize_as_pandas_does(ids, span_per_row):
    """Compact int64 ids go through a direct table over their span, wide ones through the
    hash: either way the codes and ids of ``pandas.factorize(sort=False)``."""
    from receval.pack import vocab

    values = np.array(ids, dtype=np.int64)
    old = vocab.DENSE_SPAN_PER_ROW, vocab.DENSE_MIN_SPAN
    vocab.DENSE_SPAN_PER_ROW, vocab.DENSE_MIN_SPAN = span_per_row, 4 * span_per_row
    try:
        codes, uniques = vocab.factorize(values, what="run item column 'item'")
    finally:
        vocab.DENSE_SPAN_PER_ROW, vocab.DENSE_MIN_SPAN = old
    want_codes, want_uniques = pd.factorize(values, sort=False)
    assert codes.dtype == vocab.CODE and uniques.dtype == np.int64
    assert codes.tolist() == want_codes.tolist() and uniques.tolist() == want_uniques.tolist()
