"""NCG, Compat and pairwise Accuracy (receval.trec.ir_extra): worked examples, oracles written
from the definitions, adversarial inputs and blocks against memory."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
from receval.errors import MetricError, RelevanceThresholdWarning


def _one(run: dict, truth: dict, key: str, **kw) -> float:
    res = rv.evaluate({"q": run}, {"q": truth}, [key], **kw)
    return float(res.user_values(res.metrics[0])[0])


def _close(got: float, want: Fraction) -> None:
    assert got == pytest.approx(float(want), abs=1e-15)


# ---- worked examples --------------------------------------------------------------------------

RUN = {"d1": 3.0, "d2": 2.0, "d3": 1.0}
TRUTH = {"d1": 2, "d3": 1, "d4": 2, "d5": 0}


def test_ncg_by_hand():
    # gains at ranks 1..3: 2, 0 (unjudged), 1; ideal grades 2, 2, 1, 0
    _close(_one(RUN, TRUTH, "ncg@1"), Fraction(2, 2))
    _close(_one(RUN, TRUTH, "ncg@2"), Fraction(2, 4))
    _close(_one(RUN, TRUTH, "ncg@3"), Fraction(3, 5))
    _close(_one(RUN, TRUTH, "ncg"), Fraction(3, 5))
    # exp: 2^r - 1 = 3, 0, 1 against 3, 3, 1
    _close(_one(RUN, TRUTH, "ncg@3(gain=exp)"), Fraction(4, 7))
    # under the ir_measures names
    _close(_one(RUN, TRUTH, "NCG@3", compat="ir_measures"), Fraction(3, 5))


def test_compat_by_hand():
    p = Fraction(1, 2)
    # [a, x] against the ideal [a, b]: X = 1, 1; (1 + p/2) / (1 + p) = 5/6, the ideal's own
    # overlap X = 1, 2 gives 1
    _close(_one({"a": 2.0, "x": 1.0}, {"a": 1, "b": 1}, "compat(p=0.5)"),
           (1 + p * Fraction(1, 2)) / (1 + p))
    # [a, x, y] against [a]: D = 3, X = 1, 1, 1: (1 + p/2 + p^2/3) / (1 + p + p^2) = 16/21;
    # the ideal against itself has the same overlaps, so the normalised value is 1
    run = {"a": 3.0, "x": 2.0, "y": 1.0}
    _close(_one(run, {"a": 1}, "compat(p=0.5,normalize=false)"), Fraction(16, 21))
    _close(_one(run, {"a": 1}, "compat(p=0.5)"), Fraction(1))
    # the ideal is by grade: [b, a] against [a, b]: X = 0, 2: (p * 2/2) / (1 + p) = 1/3
    _close(_one({"b": 2.0, "a": 1.0}, {"a": 2, "b": 1}, "compat(p=0.5)"), Fraction(1, 3))
    # equal grades follow the run's scores: [b, a] is ideal
    _close(_one({"b": 2.0, "a": 1.0}, {"a": 1, "b": 1}, "compat(p=0.5)"), Fraction(1))
    # an unretrieved document scores 0.0: above a retrieved one scored -1, so the ideal is
    # [b, a] for the list [a]: X = 0, 1: (p/2) / (1 + p) = 1/6
    _close(_one({"a": -1.0}, {"a": 1, "b": 1}, "compat(p=0.5)"), Fraction(1, 6))
    # p = 1: the mean overlap ratio; [x, a] against [a], D = 2: X = 0, 1 gives (0 + 1/2) / 2,
    # the ideal against itself X = 1, 1 gives (1 + 1/2) / 2: 1/4 over 3/4
    _close(_one({"x": 2.0, "a": 1.0}, {"a": 1}, "compat(p=1.0)"), Fraction(1, 3))
    _close(_one({"x": 2.0, "a": 1.0}, {"a": 1}, "compat(p=1.0,normalize=false)"),
           Fraction(1, 4))
    # ir_measures' name, p and normalize
    _close(_one(run, {"a": 1}, "Compat(p=0.5,normalize=False)", compat="ir_measures",
                ties="id"), Fraction(16, 21))


def test_accuracy_by_hand():
    run = {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}
    # relevant a, c; non-relevant b (judged 0), d (unjudged): N_a = 0, N_c = 1: 1 - 1/4
    _close(_one(run, {"a": 1, "b": 0, "c": 2}, "pairwise_accuracy"), Fraction(3, 4))
    # rel=2: only c is relevant, with a and b above it among N = 3: 1 - 2/3
    _close(_one(run, {"a": 1, "b": 0, "c": 2}, "pairwise_accuracy(rel=2)"), Fraction(1, 3))
    # top 3: a, b, c: N = 1, N_a = 0, N_c = 1: 1 - 1/2
    _close(_one(run, {"a": 1, "b": 0, "c": 2}, "pairwise_accuracy@3"), Fraction(1, 2))
    _close(_one(run, {"a": 1, "b": 0, "c": 2}, "Accuracy@3", compat="ir_measures",
                ties="input"), Fraction(1, 2))


def test_accuracy_undefined_users_are_left_out():
    run = {"q": {"a": 2.0, "b": 1.0}, "r": {"a": 2.0, "b": 1.0}, "s": {"a": 2.0, "b": 1.0}}
    truth = {"q": {"a": 1, "b": 1}, "r": {"c": 1}, "s": {"b": 1}}
    res = rv.evaluate(run, truth, ["pairwise_accuracy", "pairwise_accuracy@1"])
    got = dict(zip(res.user_ids, res.user_values("pairwise_accuracy"), strict=True))
    assert math.isnan(got["q"])  # relevant only: no pair (ir_measures divides by zero)
    assert math.isnan(got["r"])  # nothing relevant retrieved (ir_measures reports no value)
    assert got["s"] == 0.0
    assert res.summary["pairwise_accuracy"] == 0.0
    info = res.info["pairwise_accuracy"]
    assert info["users_no_relevant_retrieved"] == 1
    assert info["users_no_nonrelevant_retrieved"] == 1
    # @1: s's top 1 has no relevant document, q's and r's no pair
    assert np.isnan(res.user_values("pairwise_accuracy@1")).all()


# ---- oracles from the definitions --------------------------------------------------------------

def _ranked(run: dict) -> list[str]:
    return sorted(run, key=lambda d: (-run[d], d))  # ties='id'


def _ncg_oracle(run: dict, truth: dict, k: int) -> float:
    top = [max(truth.get(d, 0), 0) for d in _ranked(run)[:k]]
    best = sorted((max(g, 0) for g in truth.values()), reverse=True)[:k]
    return sum(top) / sum(best) if sum(best) > 0 else 0.0


def _rbo(a: list[str], b: list[str], p: float, depth: int) -> float:
    num = norm = 0.0
    for i in range(1, depth + 1):
        w = p ** (i - 1)
        num += w * len(set(a[:i]) & set(b[:i])) / i
        norm += w
    return num / norm


def _compat_oracle(run: dict, truth: dict, p: float, normalize: bool) -> float:
    ranking = _ranked(run)
    rank = {d: i for i, d in enumerate(ranking)}
    ideal = sorted((d for d, g in truth.items() if g > 0),
                   key=lambda d: (-truth[d], -run.get(d, 0.0), d not in run,
                                  rank.get(d, 0)))
    depth = max(len(ranking), len(ideal))
    if depth == 0:
        return 0.0
    score = _rbo(ranking, ideal, p, depth)
    best = _rbo(ideal, ideal, p, depth)
    return score / best if normalize and best > 0 else score


def _accuracy_oracle(run: dict, truth: dict, k: int | None, rel: int) -> float:
    top = _ranked(run)[:k]
    good = [truth.get(d, 0) >= rel for d in top]
    pairs = [(i, j) for i in range(len(top)) for j in range(len(top)) if good[i] != good[j]
             and good[i]]
    if not any(good) or all(good):
        return math.nan
    return sum(i < j for i, j in pairs) / len(pairs)


DOCS = [f"d{i}" for i in range(8)]
lists = st.dictionaries(st.sampled_from(DOCS), st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0]),
                        min_size=1, max_size=8)
grades = st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3), min_size=1, max_size=8)


def _per_user(runs: list[dict], truths: list[dict], key: str) -> np.ndarray:
    run = {f"u{i}": r for i, r in enumerate(runs)}
    truth = {f"u{i}": t for i, t in enumerate(truths)}
    with warnings.catch_warnings():  # a drawn truth may have no grade >= rel
        warnings.simplefilter("ignore", RelevanceThresholdWarning)
        res = rv.evaluate(run, truth, [key], ties="id", users="truth", empty_truth="zero")
    got = dict(zip(res.user_ids, res.user_values(res.metrics[0]), strict=True))
    return np.array([got[f"u{i}"] for i in range(len(runs))])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(lists, grades), min_size=1, max_size=5), st.integers(1, 9))
def test_ncg_oracle(pairs, k):
    runs, truths = zip(*pairs, strict=True)
    got = _per_user(list(runs), list(truths), f"ncg@{k}")
    want = [_ncg_oracle(r, t, k) for r, t in pairs]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(lists, grades), min_size=1, max_size=5),
       st.sampled_from([0.0, 0.3, 0.5, 0.8, 0.95, 1.0]), st.booleans())
def test_compat_oracle(pairs, p, normalize):
    runs, truths = zip(*pairs, strict=True)
    got = _per_user(list(runs), list(truths),
                    f"compat(p={p},normalize={str(normalize).lower()})")
    want = [_compat_oracle(r, t, p, normalize) for r, t in pairs]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(lists, grades), min_size=1, max_size=5),
       st.one_of(st.none(), st.integers(1, 9)), st.integers(1, 3))
def test_accuracy_oracle(pairs, k, rel):
    runs, truths = zip(*pairs, strict=True)
    key = "pairwise_accuracy" + ("" if k is None else f"@{k}") + f"(rel={rel})"
    got = _per_user(list(runs), list(truths), key)
    want = [_accuracy_oracle(r, t, k, rel) for r, t in pairs]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


# ---- adversarial --------------------------------------------------------------------------------

@pytest.mark.parametrize("key, word", [
    ("compat(p=-0.1)", "p"), ("compat(p=1.5)", "p"), ("compat(p=nan)", "p"),
    ("compat(normalize=maybe)", "normalize"), ("compat@5", "cutoff"),
    ("pairwise_accuracy(rel=0)", "rel"), ("ncg(gain=binary)", "gain"),
])
def test_bad_parameters_are_refused(key, word):
    with pytest.raises(MetricError, match=word):
        rv.evaluate({"q": RUN}, {"q": TRUTH}, [key])


def test_empty_truth_and_missing_lists():
    # v: judged non-relevant only; w: in the truth, not in the run
    run = {"q": {"a": 1.0}, "v": {"a": 1.0}}
    truth = {"q": {"a": 1}, "v": {"a": 0}, "w": {"a": 2}}
    keys = ["ncg@2", "compat", "pairwise_accuracy"]
    res = rv.evaluate(run, truth, keys, users="truth", empty_truth="zero")
    got = {k: dict(zip(res.user_ids, res.user_values(k), strict=True)) for k in keys}
    assert got["ncg@2"]["v"] == 0.0 and got["compat"]["v"] == 0.0
    assert got["ncg@2"]["w"] == 0.0 and got["compat"]["w"] == 0.0
    assert got["ncg@2"]["q"] == 1.0 and got["compat"]["q"] == 1.0
    assert math.isnan(got["pairwise_accuracy"]["w"])


def test_ties_follow_the_policy():
    # a and b tie; ties='id' puts a first (ideal [a]): 1 at rank 1; by input order b first
    run = {"q": {"b": 1.0, "a": 1.0}}
    truth = {"q": {"a": 1}}
    by_id = rv.evaluate(run, truth, ["compat(p=0.5)", "pairwise_accuracy"], ties="id")
    by_input = rv.evaluate(run, truth, ["compat(p=0.5)", "pairwise_accuracy"], ties="input")
    assert by_id.summary["pairwise_accuracy"] == 1.0
    assert by_input.summary["pairwise_accuracy"] == 0.0
    # by id: X = 1, 1 over D = 2: (1 + 1/4) / (3/2) = 5/6, normalised by the same: 1
    assert by_id.summary["compat(p=0.5)"] == pytest.approx(1.0, abs=1e-15)
    # by input: X = 0, 1: (1/4) / (3/2) = 1/6, over 5/6: 1/5
    assert by_input.summary["compat(p=0.5)"] == pytest.approx(0.2, abs=1e-15)


# ---- blocks == memory ---------------------------------------------------------------------------

def test_blocks_equal_memory():
    rng = np.random.default_rng(7)
    items = [f"d{j}" for j in range(30)]
    run = pd.DataFrame([(u, i, float(rng.integers(0, 5))) for u in range(50)
                        for i in rng.choice(items, int(rng.integers(1, 12)), replace=False)],
                       columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, int(rng.integers(0, 4))) for u in range(55)
                          for i in rng.choice(items, 6, replace=False)],
                         columns=["user", "item", "relevance"])
    keys = ["ncg@5", "ncg(gain=exp)", "compat", "compat(p=0.5,normalize=false)",
            "pairwise_accuracy", "pairwise_accuracy@5(rel=2)"]
    whole = rv.evaluate(run, truth, keys, ties="id")
    blocks = [run[run.user < 17], run[(run.user >= 17) & (run.user < 31)], run[run.user >= 31]]
    parts = rv.Evaluator(truth, keys, ties="id").evaluate_blocks(blocks)
    np.testing.assert_array_equal(parts.values, whole.values)
    for k in whole.metrics:
        assert parts.summary[k] == whole.summary[k] or (
            math.isnan(parts.summary[k]) and math.isnan(whole.summary[k]))
