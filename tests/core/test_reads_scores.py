"""Plugin metrics that declare ``reads_scores=False`` are evaluated without a score at each
position (the packer writes none): every such key of the registry, with every parameter
choice (:func:`cases.metric_cases`), gives the values, counts and errors it gives when the
scores are packed, so that no declaration hides a read of the scores."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from cases import metric_cases

import receval as rv
from receval.engines import plan as plan_module
from receval.errors import RecevalError
from receval.metrics import REGISTRY, parse_metric

RUN = {"a": {1: 0.9, 2: 0.8, 3: 0.8, 4: 0.6, 9: 0.1}, "b": {6: 0.5, 7: 0.4, 2: 0.4},
       "d": {1: 0.3, 5: 0.2}, "e": {3: 1.0, 8: 0.5, 10: 0.25}}
TRUTH = {"a": {1: 1, 5: 1, 9: 0}, "b": {7: 2, 8: 1}, "c": {2: 1, 3: 2}, "e": {8: 1, 10: 2}}
ITEMS = range(1, 12)
CONTEXT = {
    "train": {"a": {4: 1, 8: 1}, "b": {1: 1, 2: 1, 3: 1}, "c": {1: 1, 6: 1}, "d": {2: 1},
              "e": {1: 1, 3: 1}},
    "item_features": {i: np.array([math.cos(i), math.sin(i), 0.5]) for i in ITEMS},
    "catalog": list(ITEMS),
    "item_categories": {i: [f"c{i % 3}"] + ([f"c{i % 4}"] if i % 2 else []) for i in ITEMS},
    "item_groups": {i: "ab"[i % 2] for i in ITEMS},
    "group_target": {"a": 0.25, "b": 0.75},
    "item_alignment": {i: {"a": i / 12, "b": 1 - i / 12} for i in ITEMS},
    "intents": [("a", "s1", 1, 1), ("a", "s2", 1, 1), ("a", "s2", 5, 2), ("b", "s1", 7, 1),
                ("b", "s2", 8, 1), ("c", "s1", 2, 1), ("c", "s3", 3, 2), ("e", "s1", 8, 1),
                ("e", "s2", 10, 1)],
}
KEYS = [k for k in metric_cases(plugins=True)
        if not REGISTRY[parse_metric(k).name].reads_scores]


def _outcome(key: str, **policies):
    try:
        res = rv.evaluate(RUN, TRUTH, [key], **CONTEXT, **policies)
    except RecevalError as exc:
        return str(exc)
    return res.per_user, res.counts, str(res.stats)


def test_the_declaration_is_made():
    families = {parse_metric(k).name for k in KEYS}
    assert {"alpha_ndcg", "err_ia", "exposure_share", "awrf", "miscalibration"} <= families
    assert not all(isinstance(_outcome(k), str) for k in KEYS)


def test_a_metric_that_reads_scores_fails_without_them(monkeypatch):
    """The check above can fail: the expected exposure of a Plackett-Luce policy reads the
    scores, and without them it is refused or changes."""
    key = "ee_loss@3(policy=plackett_luce)"
    with_scores = _outcome(key)
    post_init = plan_module.Plan.__post_init__

    def no_scores(self):
        post_init(self)
        self.keep_scores = False

    monkeypatch.setattr(plan_module.Plan, "__post_init__", no_scores)
    try:
        without = _outcome(key)
    except IndexError:
        return
    assert isinstance(without, str) or not without[0].equals(with_scores[0])


@pytest.mark.parametrize("policies", [{}, {"users": "union", "ties": "trec_eval"},
                                      {"unjudged": "remove", "duplicates": "max"}])
@pytest.mark.parametrize("key", KEYS)
def test_metrics_without_scores_give_the_values_with_scores(monkeypatch, key, policies):
    without = _outcome(key, **policies)
    post_init = plan_module.Plan.__post_init__

    def keep_scores(self):
        post_init(self)
        self.keep_scores = self.keep_lists

    monkeypatch.setattr(plan_module.Plan, "__post_init__", keep_scores)
    with_scores = _outcome(key, **policies)
    if isinstance(without, str) or isinstance(with_scores, str):
        assert without == with_scores
        return
    assert without[1:] == with_scores[1:]
    assert without[0].equals(with_scores[0])


# --- the relevance and judged flag at each position ----------------------------------------
# ``reads_relevance=False``: lists measured as they are joined keep no relevance beside their
# items. The kernel's metrics are measured as the lists are joined only when the evaluation
# has one, and on the join of ids in place (tables), so each key is evaluated beside ndcg@3 on
# frames as well as on dicts.
REL_KEYS = [k for k in metric_cases(plugins=True)
            if not REGISTRY[parse_metric(k).name].reads_relevance]


def _frames(ids: str = "int"):
    """RUN and TRUTH as tables; ``ids="str"``: ids as text (the join's other walk)."""
    run = pd.DataFrame([(u, i, s) for u, items in RUN.items() for i, s in items.items()],
                       columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, r) for u, items in TRUTH.items() for i, r in items.items()],
                         columns=["user", "item", "relevance"])
    if ids == "str":
        run["item"], truth["item"] = run["item"].map("i{}".format), truth["item"].map("i{}".format)
    return run, truth


def _with_ndcg(key: str, frames: str | None, **policies):
    run, truth = _frames(frames) if frames else (RUN, TRUTH)
    context = CONTEXT
    if frames == "str":  # the item ids of every input as text
        context = {k: ({f"i{i}": v for i, v in c.items()} if isinstance(c, dict) and
                       k not in ("train", "group_target") else c) for k, c in CONTEXT.items()}
        context["train"] = {u: {f"i{i}": r for i, r in h.items()}
                            for u, h in CONTEXT["train"].items()}
        context["catalog"] = [f"i{i}" for i in CONTEXT["catalog"]]
        context["intents"] = [(q, s, f"i{d}", r) for q, s, d, r in CONTEXT["intents"]]
    try:
        res = rv.evaluate(run, truth, [key, "ndcg@3"], **context, **policies)
    except RecevalError as exc:
        return str(exc)
    return res.per_user, res.counts, str(res.stats)


def _keep_rel(monkeypatch, value: bool | None) -> None:
    """Plans keep the relevance at each position (``None``: with the lists) or not."""
    post_init = plan_module.Plan.__post_init__

    def patched(self):
        post_init(self)
        self.keep_rel = self.keep_lists if value is None else value

    monkeypatch.setattr(plan_module.Plan, "__post_init__", patched)


def test_the_relevance_declaration_is_made():
    families = {parse_metric(k).name for k in REL_KEYS}
    assert {"alpha_ndcg", "exposure_share", "exposure_gini", "awrf", "miscalibration"} <= families
    assert not all(isinstance(_with_ndcg(k, "int"), str) for k in REL_KEYS)
    assert not all(isinstance(_with_ndcg(k, "str"), str) for k in REL_KEYS)


@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("key", ["epc@3", "serendipity@3"])
def test_a_metric_that_reads_relevance_fails_without_it(monkeypatch, key, ids):
    """The check below can fail: these metrics read the relevance at each position, and
    without it they are refused or change."""
    assert REGISTRY[parse_metric(key).name].reads_relevance
    with_rel = _with_ndcg(key, ids)
    assert not isinstance(with_rel, str)
    _keep_rel(monkeypatch, False)
    try:
        without = _with_ndcg(key, ids)
    except IndexError:
        return
    assert isinstance(without, str) or not without[0].equals(with_rel[0])


@pytest.mark.parametrize("frames", ["int", "str", None])
@pytest.mark.parametrize("policies", [{}, {"users": "union", "duplicates": "max"},
                                      {"nan_scores": "drop", "ties": "trec_eval"}])
@pytest.mark.parametrize("key", REL_KEYS)
def test_metrics_without_relevance_give_the_values_with_it(monkeypatch, key, policies, frames):
    without = _with_ndcg(key, frames, **policies)
    _keep_rel(monkeypatch, None)
    with_rel = _with_ndcg(key, frames, **policies)
    if isinstance(without, str) or isinstance(with_rel, str):
        assert without == with_rel
        return
    assert without[1:] == with_rel[1:]
    assert without[0].equals(with_rel[0])
