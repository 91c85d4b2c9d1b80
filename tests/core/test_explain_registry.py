"""explain() over every registered metric (keys derived from the registry): where the metric
has a step-by-step rule, its value equals receval.evaluate's for the same packed rows; without
one the value shown is receval.evaluate's; and explain raises only receval errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.errors import RecevalError
from receval.explain import explain
from receval.metrics import REGISTRY, load_plugins, parse_metric

from .cases import metric_cases

# u: tied scores, graded relevance, a judged non-relevant item, a relevant item not retrieved;
# z: truth rows, none relevant (the empty-truth rules); v: one item; w: a list of one, no hit
RUN = {"u": {"a": 3.0, "x": 2.0, "b": 2.0, "c": 1.0, "e": 0.5},
       "z": {"a": 1.0, "b": 0.5},
       "v": {"b": 1.0},
       "w": {"q": 0.9}}
TRUTH = {"u": {"a": 2, "c": 1, "b": 0, "d": 3, "e": 1},
         "z": {"a": 0, "q": 0},
         "v": {"b": 3},
         "w": {"a": 1}}
BASELINE = {"u": {"c": 3.0, "a": 2.0, "y": 1.0}, "z": {"b": 1.0}, "v": {"b": 1.0}}
ITEMS = sorted({i for lists in (RUN, TRUTH, BASELINE) for d in lists.values() for i in d})
TRAIN = {"u": {"a": 1, "y": 1}, "z": {"a": 1, "c": 1}, "v": {"x": 1}, "w": {"a": 1, "b": 1},
         "t": {"a": 1, "b": 1, "c": 1, "d": 1, "q": 1}}
FEATURES = {it: np.array([1.0 + (j % 3), float(j % 2), 0.5 * j]) for j, it in enumerate(ITEMS)}
INPUTS = dict(train=TRAIN, item_features=FEATURES, baseline_run=BASELINE,
              item_categories={it: [f"g{j % 3}"] for j, it in enumerate(ITEMS)},
              propensities={it: 0.2 + 0.1 * (j % 5) for j, it in enumerate(ITEMS)},
              similarity=lambda xa, xb: np.asarray((xa * xb).sum(axis=1)).ravel())
KEYS = metric_cases(cutoffs=(2, 10)) + metric_cases(cutoffs=(2, 10), plugins=True)


def test_every_registered_metric_is_covered():
    load_plugins()
    assert {key.split("@")[0].split("(")[0] for key in KEYS} == set(REGISTRY)


@pytest.mark.filterwarnings("ignore::receval.errors.RecevalWarning")
@pytest.mark.parametrize(("empty_truth", "ties"), [("skip", "id"), ("zero", "trec_eval")])
@pytest.mark.parametrize("key", KEYS)
def test_explain_agrees_with_evaluate(key, empty_truth, ties):
    for user in ("u", "z", "v", "w"):
        try:
            ex = explain(key, RUN, TRUTH, user, empty_truth=empty_truth, ties=ties, **INPUTS)
        except RecevalError:
            continue  # a receval refusal (a metric of the whole run, an input it lacks)
        assert ex.reference is not None, (key, user)
        assert ex.agrees, (key, user, ex.value, ex.reference, ex.to_text())
        # a metric with a rule explains every registered choice of its parameters
        assert ex.computed == (parse_metric(key).definition.explain is not None), key
        if not ex.computed:
            assert ex.value == ex.reference or (np.isnan(ex.value) and np.isnan(ex.reference))
            assert any("no step-by-step rule" in n for n in ex.notes)


def test_a_choice_without_a_rule_shows_the_engines_value(monkeypatch):
    """A hook that has no rule for a parameter choice (returns None) leaves the value to
    receval.evaluate, and says so."""
    defn = REGISTRY["precision"]
    monkeypatch.setitem(REGISTRY, "precision", dataclasses.replace(
        defn, explain=lambda spec, user: None if spec.get("denominator") == "list"
        else defn.explain(spec, user)))
    ex = explain("precision@10(denominator=list)", RUN, TRUTH, "u")
    assert not ex.computed and ex.value == ex.reference == 3 / 5
    assert "no step-by-step rule for precision@10(denominator=list)" in " ".join(ex.notes)
    ex = explain("precision@10", RUN, TRUTH, "u")
    assert ex.computed and ex.value == ex.reference == 3 / 10


KERNEL_KEYS = metric_cases(cutoffs=(2, 10))


@pytest.mark.filterwarnings("ignore::receval.errors.RecevalWarning")
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ties=st.sampled_from(["id", "trec_eval"]))
def test_random_lists_agree_for_every_kernel_metric(seed, ties):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 9))
    run = {"u": {f"i{j}": float(s) for j, s in zip(rng.choice(14, n, replace=False),
                                                   rng.integers(0, 4, n), strict=True)},
           "v": {"i0": 1.0}}
    m = int(rng.integers(1, 9))
    truth = {"u": {f"i{j}": int(r) for j, r in zip(rng.choice(14, m, replace=False),
                                                   rng.integers(0, 4, m), strict=True)},
             "v": {"i0": 3}}
    for key in KERNEL_KEYS:
        ex = explain(key, run, truth, "u", ties=ties)
        assert ex.agrees, (key, ex.value, ex.reference, ex.to_text())
        assert ex.computed == (parse_metric(key).definition.explain is not None), key
