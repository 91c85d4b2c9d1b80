"""``rv.diff``: values under two convention sets, the ordered path and the Shapley attribution."""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval as rv
from receval.errors import PolicyError

# u: list [1, 0, 1], R = 2; v: no list (scores 0 when evaluated); w: list [0, 1], R = 3
RUN = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "w": {"a": 2.0, "d": 1.0}}
TRUTH = {"u": {"a": 1, "c": 1}, "v": {"a": 1}, "w": {"d": 1, "e": 1, "f": 1}}
D = [1 / math.log2(i + 2) for i in range(3)]


def test_two_factors_worked_example():
    # A: receval defaults; B: ideal=k and users=run
    d = rv.diff(RUN, TRUTH, ["ndcg@3"], None, {"users": "run", "ndcg": {"ideal": "k"}})
    m = d["ndcg@3"]
    u_truth = (D[0] + D[2]) / (D[0] + D[1])
    w_truth = D[1] / sum(D)
    u_k, w_k = (D[0] + D[2]) / sum(D), D[1] / sum(D)
    v00 = (u_truth + 0 + w_truth) / 3       # A
    v_ideal = (u_k + 0 + w_k) / 3           # ideal switched
    v_users = (u_truth + w_truth) / 2       # users switched
    v11 = (u_k + w_k) / 2                   # B
    assert m.value_a == pytest.approx(v00, rel=1e-14)
    assert m.value_b == pytest.approx(v11, rel=1e-14)
    assert m.factors == ["ideal", "users"]
    assert [s for _, _, s in m.path] == pytest.approx([v_ideal - v00, v11 - v_ideal], rel=1e-12)
    phi_ideal = 0.5 * ((v_ideal - v00) + (v11 - v_users))
    phi_users = 0.5 * ((v_users - v00) + (v11 - v_ideal))
    assert m.shapley["ideal"] == pytest.approx(phi_ideal, rel=1e-12)
    assert m.shapley["users"] == pytest.approx(phi_users, rel=1e-12)


@pytest.mark.parametrize(("a", "b"), [
    ("trec_eval", "rectools"), ("recbole", "ms_recommenders"), ("ranx", "spark_mllib"),
    (None, {"ties": "average", "empty_truth": "zero", "map": {"denominator": "k"},
            "ndcg": {"gain": "exp", "discount": "log2_max2"}}),
])
def test_steps_and_attributions_add_up_to_the_difference(a, b):
    rng = np.random.default_rng(3)
    run = {u: {i: float(rng.integers(0, 4)) for i in rng.choice(12, 6, replace=False)}
           for u in range(15)}
    truth = {u: {int(i): int(rng.integers(0, 3)) for i in rng.choice(12, 4, replace=False)}
             for u in range(18)}
    d = rv.diff(run, truth, ["ndcg@5", "map@5", "precision@3", "recall@5"], a, b)
    for m in d.metrics:
        direct_a = rv.evaluate(run, truth, [m.key_a], **_policies(a))[m.key_a]
        direct_b = rv.evaluate(run, truth, [m.key_b], **_policies(b))[m.key_b]
        assert m.value_a == direct_a and m.value_b == direct_b
        assert sum(s for _, _, s in m.path) == pytest.approx(m.difference, abs=1e-12)
        assert sum(m.shapley.values()) == pytest.approx(m.difference, abs=1e-12)
        # swapping A and B negates every attribution
    back = rv.diff(run, truth, ["ndcg@5"], b, a)["ndcg@5"]
    fwd = d["ndcg@5"]
    for f, phi in fwd.shapley.items():
        assert back.shapley[f] == pytest.approx(-phi, abs=1e-12)


@pytest.mark.parametrize("b", ["sklearn", "lenskit", "trec_eval"])
def test_ndcg_between_presets(b):
    d = rv.diff(RUN, TRUTH, ["ndcg@3", "ndcg"], "rectools", b)
    for m in d.metrics:
        assert sum(m.shapley.values()) == pytest.approx(m.difference, abs=1e-12)


def _policies(conv):
    if conv is None:
        return {}
    if isinstance(conv, str):
        return dict(rv.compat.get(conv).policies)
    return {k: v for k, v in conv.items() if not isinstance(v, dict)}


def test_top_users_and_renderings():
    d = rv.diff(RUN, TRUTH, ["ndcg@3"], "trec_eval", "rectools")
    m = d["ndcg@3"]
    # users with both values come first, by the size of the change; v has a value under
    # rectools only (users=truth: no list scores 0), so it comes last
    users = [u for u, _, _ in m.top_users]
    assert users[-1] == "v" and math.isnan(m.top_users[-1][1])
    changes = [abs(b - a) for _, a, b in m.top_users[:-1]]
    assert changes == sorted(changes, reverse=True) and all(c > 0 for c in changes)
    text, md, page = d.to_text(), d.to_markdown(), d.to_html()
    assert "Shapley" in text and "| convention |" in md and "<table>" in page
    assert d.explanation(m) in text
    assert "trec_eval" in d.explanation(m) and "rectools" in d.explanation(m)


def test_same_conventions_have_no_factor():
    d = rv.diff(RUN, TRUTH, ["mrr"], None, {})
    assert d["mrr"].factors == [] and d["mrr"].difference == 0
    assert "same conventions" in d.explanation(d["mrr"])


def test_policies_belong_in_the_convention_sets():
    with pytest.raises(PolicyError, match="put it in a or b"):
        rv.diff(RUN, TRUTH, ["mrr"], None, "rectools", ties="average")
