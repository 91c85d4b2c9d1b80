"""The confusion-matrix family against a slow oracle written from its docstring formulas, on
edge cases: users without a list (``users="truth"``), lists longer than the truth, a single
user, scores tied (``ties="id"``: the raw item id breaks them), lists shorter than k.

The families and their parameter choices come from the registry (every classification family
whose parameters are confusion parameters), not from a hand-made list::

    TP = |R_u & T_u|   FP = |R_u| - TP (fp=k: k - TP)   FN = |T_u & C_u| - TP
    TN = |C_u| - TP - FP - FN
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.metrics import REGISTRY, load_plugins, metric

load_plugins()

CONFUSION_PARAMS = {"rel", "catalog", "candidates", "fp", "average", "no_negative"}
RATES = {"accuracy": lambda tp, fp, fn, tn: (tp + tn, tp + fp + fn + tn),
         "specificity": lambda tp, fp, fn, tn: (tn, tn + fp),
         "fpr": lambda tp, fp, fn, tn: (fp, fp + tn)}
COUNTS = ("tp", "fp", "fn", "tn")
FAMILIES = sorted(n for n, d in REGISTRY.items() if d.family == "classification"
                  and d.compute is not None and {p.name for p in d.params} <= CONFUSION_PARAMS)


def test_the_family_is_found_whole():
    assert set(FAMILIES) == set(COUNTS) | set(RATES)


def _keys(name: str) -> list[str]:
    """Every combination of the family's choices, at no cutoff, k = 2 and k = 8."""
    d = REGISTRY[name]
    choice = {p.name: p.choices for p in d.params if p.choices is not None}
    out = []
    for k in (None, 2, 8):
        for values in itertools.product(*choice.values()):
            out.append(metric(name, k, **dict(zip(choice, values, strict=True))).key)
    return out


N_CATALOG = 12
RUN = pd.DataFrame({
    # u1: longer than its truth, ties broken by raw id; u2: one item; u4: run only
    "user": ["u1"] * 6 + ["u2"] + ["u4"] * 2,
    "item": ["i3", "i1", "i2", "i5", "i4", "i6", "i1", "i2", "i7"],
    "score": [5.0, 4.0, 4.0, 4.0, 2.0, 1.0, 1.0, 2.0, 1.0],
})
TRUTH = pd.DataFrame({  # u0: no list; u3: only a non-relevant truth item and no list
    "user": ["u0", "u1", "u1", "u1", "u2", "u3", "u4"],
    "item": ["i1", "i2", "i9", "i4", "i8", "i1", "i7"],
    "relevance": [1, 1, 2, 0, 1, 0, 1],
})


def _lists() -> dict[str, list[str]]:
    out = {}
    for u, rows in RUN.groupby("user"):
        ordered = sorted(zip(rows["score"], rows["item"], strict=True),
                         key=lambda x: (-x[0], x[1]))
        out[u] = [i for _, i in ordered]
    return out


def _oracle(key: str, users: list[str]) -> tuple[dict[str, float], float] | None:
    """Per-user values and the summary; None where a user's TN < 0 (refused)."""
    spec = rv.parse_metric(key)
    k, lists = spec.k, _lists()
    get = dict(spec.params).get
    fp_rule, cand = get("fp", "list"), get("candidates", "catalog")
    get_names = {p.name for p in spec.definition.params}
    per, nums, dens = {}, [], []
    for u in users:
        full = lists.get(u, [])
        top = full if k is None else full[:k]
        liked = set(TRUTH[(TRUTH["user"] == u) & (TRUTH["relevance"] >= 1)]["item"])
        tp = len(set(top) & liked)
        fp = (k if fp_rule == "k" and k is not None else len(top)) - tp
        if cand == "list":
            fn, size = len(liked & set(full)) - tp, len(full)
        else:
            fn, size = len(liked) - tp, N_CATALOG
        tn = size - tp - fp - fn
        if tn < 0 and (spec.name == "tn" or spec.name in RATES):
            return None
        counts = dict(zip(COUNTS, (tp, fp, fn, tn), strict=True))
        if spec.name in counts:
            per[u] = float(counts[spec.name])
            continue
        if u not in lists and not (fp_rule == "k" and k is not None and "fp" in get_names):
            per[u] = math.nan  # no list, no decision: no rate (only k empty slots count)
            continue
        num, den = RATES[spec.name](tp, fp, fn, tn)
        nums.append(num)
        dens.append(den)
        no_neg = get("no_negative", "skip")
        per[u] = num / den if den > 0 else (
            math.nan if no_neg == "skip" or spec.name == "accuracy"
            else 0.0 if no_neg == "zero" else 1.0)
    values = [v for v in per.values() if not math.isnan(v)]
    summary = float(np.mean(values)) if values else math.nan
    if get("average") == "micro":
        summary = sum(nums) / sum(dens) if sum(dens) > 0 else math.nan
    return per, summary


@pytest.mark.parametrize("name", FAMILIES)
@pytest.mark.parametrize("users", ["truth", "union", "run"])
def test_values_are_the_docstring_formulas(name, users):
    for key in _keys(name):
        kw = {"users": users, "catalog": N_CATALOG}
        evaluated = rv.evaluate(RUN, TRUTH, ["tp"], **kw).user_ids
        expected = _oracle(key, [str(u) for u in evaluated])
        if expected is None:  # candidates=list, fp=k: more slots than scored candidates
            with pytest.raises(rv.InputError, match="scored candidate"):
                rv.evaluate(RUN, TRUTH, [key], **kw)
            continue
        want, summary = expected
        res = rv.evaluate(RUN, TRUTH, [key], **kw)
        got = dict(zip(res.user_ids, res.user_values(key), strict=True))
        assert set(got) == set(want), key
        for u, v in want.items():
            assert got[u] == pytest.approx(v, rel=1e-15, nan_ok=True), (key, users, u)
        assert res[key] == pytest.approx(summary, rel=1e-15, nan_ok=True), (key, users)


@pytest.mark.parametrize("name", FAMILIES)
def test_a_single_user_alone_scores_as_among_others(name):
    # nothing in the family reads another user: one user's value alone is its value with all
    for key in _keys(name):
        if _oracle(key, ["u0", "u1", "u2", "u3", "u4"]) is None:
            continue
        whole = rv.evaluate(RUN, TRUTH, [key], users="union", catalog=N_CATALOG)
        got = dict(zip(whole.user_ids, whole.user_values(key), strict=True))
        for u in ("u1", "u2"):
            if _oracle(key, [u]) is None:
                continue
            alone = rv.evaluate(RUN[RUN["user"] == u], TRUTH[TRUTH["user"] == u], [key],
                                catalog=N_CATALOG)
            assert alone.user_values(key)[0] == pytest.approx(got[u], nan_ok=True), (key, u)
