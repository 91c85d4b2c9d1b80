"""An object item column's check (every value a str, none missing) left to the join.

``Evaluator.evaluate`` reads a run's object item column unchecked and the join checks each
object it reads; rows the join does not read are checked before it, and a column that fails
is read again with the check first. Whatever the column holds and wherever, the outcome (the
values, the counts or the error) is the one of the eager route, which reads the column checked
before anything else.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import receval as rv
import receval.io.frames as frames
from receval.errors import RecevalError

METRICS = ["ndcg@10", "mrr", "recall@20"]


def _frames(seed: int = 0, n: int = 3000):
    rng = np.random.default_rng(seed)
    user = np.sort(rng.integers(0, 100, n)).astype(str).astype(object)
    item = np.array([f"i{v}" for v in rng.integers(0, 300, n)], dtype=object)
    run = pd.DataFrame({"user": user, "item": item, "score": rng.random(n)}).astype(
        {"user": object, "item": object})
    truth = pd.DataFrame({
        "user": rng.integers(0, 100, 800).astype(str).astype(object),
        "item": np.array([f"i{v}" for v in rng.integers(0, 300, 800)], dtype=object),
    }).drop_duplicates().astype(object)
    return run, truth


def _outcome(ev: rv.Evaluator, run: pd.DataFrame, eager: bool):
    try:
        if eager:
            res = ev._execute([run], True, name=None, user_col=None, item_col=None,
                              score_col=None, rank_col=None)
        else:
            res = ev.evaluate(run)
    except RecevalError as exc:
        return type(exc).__name__, str(exc)
    return res.per_user, res.summary, res.counts


def _same(a, b) -> None:
    assert type(a[0]) is type(b[0])
    if isinstance(a[0], str):
        assert a == b
        return
    pd.testing.assert_frame_equal(a[0], b[0], check_exact=True)
    assert a[1:] == b[1:]


def test_a_str_item_column_is_read_once_by_the_join(monkeypatch):
    """A clean object column is never checked in a pass of its own, and the result is the
    eager route's, bit for bit."""
    run, truth = _frames()
    ev = rv.Evaluator(truth, METRICS, duplicates="max")
    seen: list[int] = []
    real = frames.all_str

    def spy(arr):
        seen.append(len(arr))
        return real(arr)

    monkeypatch.setattr(frames, "all_str", spy)
    deferred = _outcome(ev, run, eager=False)
    assert len(run) not in seen  # the run's item column (the only column of that length)
    seen.clear()
    eager = _outcome(ev, run, eager=True)
    assert len(run) in seen
    _same(deferred, eager)


BAD = [None, np.nan, 7, 3.5, b"x", pd.NA]


@pytest.mark.parametrize("bad", BAD, ids=repr)
@pytest.mark.parametrize("where", ["first", "middle", "last", "nan_score", "run_only"])
@pytest.mark.parametrize("policy", [{}, {"nan_scores": "drop"}, {"users": "union"},
                                    {"users": "intersection"}])
@pytest.mark.parametrize("metrics", [METRICS, [*METRICS, "coverage@10"]], ids=["kernel", "lists"])
def test_any_value_anywhere_gives_the_eager_outcome(bad, where, policy, metrics):
    """A value that is not a str (missing or of another type), in an evaluated user's row, in
    a row whose score is dropped, or in the row of a user the policy does not evaluate: the
    same error or the same values as when the column is checked first."""
    run, truth = _frames(1)
    run = run.copy()
    at = {"first": 0, "middle": len(run) // 2, "last": len(run) - 1,
          "nan_score": 5, "run_only": len(run) - 1}[where]
    if where == "nan_score":
        run.loc[at, "score"] = np.nan
    if where == "run_only":
        run.loc[at, "user"] = "not-in-truth"
    run.loc[at, "item"] = bad
    assert run["item"].dtype == object
    ev = rv.Evaluator(truth, metrics, duplicates="max", **policy)
    _same(_outcome(ev, run, eager=False), _outcome(ev, run, eager=True))


@pytest.mark.parametrize("block", [40, 400])
@pytest.mark.parametrize("bad", [12, None], ids=repr)
def test_a_bad_value_in_a_later_block_gives_the_eager_outcome(monkeypatch, block, bad):
    """Blocks already measured when the join meets the value are dropped with the attempt:
    the outcome is the checked read's, as when the value sits in the first block."""
    evaluate_module = importlib.import_module("receval.engines.evaluator")
    run, truth = _frames(2)
    run = run.copy()
    run.loc[len(run) - 3, "item"] = bad
    monkeypatch.setattr(evaluate_module, "BLOCK_POSITIONS", block)
    ev = rv.Evaluator(truth, METRICS, duplicates="max")
    calls = []
    real = ev._execute

    def counted(*args, **kwargs):
        calls.append(kwargs.get("defer", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(ev, "_execute", counted)
    deferred = _outcome(ev, run, eager=False)
    assert calls == [True, False]  # the deferred attempt failed in the join, then a checked read
    _same(deferred, _outcome(ev, run, eager=True))


def test_an_int_item_column_of_objects_matches_int_truth():
    """Python ints in an object column are int ids: the kinds are compared on the checked
    column, as the eager route does (no 'strings against integers' error)."""
    run, truth = _frames(3)
    run = run.assign(item=[int(v[1:]) for v in run["item"]]).astype({"item": object})
    truth = truth.assign(item=truth["item"].str[1:].astype("int64"))
    ev = rv.Evaluator(truth, METRICS, duplicates="max")
    deferred = _outcome(ev, run, eager=False)
    assert not isinstance(deferred[0], str)
    _same(deferred, _outcome(ev, run, eager=True))
