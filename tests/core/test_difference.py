"""``rv.diff``: values under two convention sets, the ordered path and the Shapley attribution."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import receval as rv
from receval.errors import PolicyError

# u: list [1, 0, 1], R = 2; v: no list (scores 0 when evaluated); w: list [0, 1], R = 3
RUN = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}, "w": {"a": 2.0, "d": 1.0}}
TRUTH = {"u": {"a": 1, "c": 1}, "v": {"a": 1}, "w": {"d": 1, "e": 1, "f": 1}}
D = [1 / math.log2(i + 2) for i in range(3)]
DEFAULTS = rv.Policies().to_dict()


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


def _orders_oracle(factors, v, valid):
    """Path-average over every permutation whose prefixes are all valid mixes (brute force)."""
    phi, n = dict.fromkeys(factors, 0.0), 0
    for order in itertools.permutations(factors):
        prefixes = [frozenset(order[:i]) for i in range(len(order) + 1)]
        if not all(valid(p) for p in prefixes):
            continue
        n += 1
        for i, f in enumerate(order):
            phi[f] += v(prefixes[i + 1]) - v(prefixes[i])
    return {f: x / n for f, x in phi.items()}, n


@pytest.mark.parametrize(("a", "b"), [
    ("rectools", {"unjudged": "remove"}), ({"unjudged": "remove"}, "rectools"),
    ({"ties": "average"}, {"duplicates": "keep", "empty_truth": "zero"}),
])
def test_mixes_not_valid_together_are_skipped_and_counted(a, b):
    # ranks='position' (A) with unjudged='remove' (B) is refused, so is ties='average' with
    # duplicates='keep': each is a mix nobody asked for, skipped in the decomposition
    rng = np.random.default_rng(5)
    run = {u: {int(i): float(rng.integers(0, 4)) for i in rng.choice(9, 4, replace=False)}
           for u in range(8)}
    truth = {u: {int(i): int(rng.integers(0, 3)) for i in rng.choice(9, 3, replace=False)}
             for u in range(10)}
    d = rv.diff(run, truth, ["ndcg@3", "mrr", "recall@4"], a, b)
    for m in d.metrics:
        assert m.value_a == rv.evaluate(run, truth, [m.key_a], **_policies(a))[m.key_a]
        assert m.value_b == rv.evaluate(run, truth, [m.key_b], **_policies(b))[m.key_b]
        assert m.invalid and m.orders > 0
        pols = [f for f in m.factors if f in rv.policies.POLICY_TABLE]
        values, ok = {}, set()
        for r in range(len(m.factors) + 1):
            for sub in itertools.combinations(m.factors, r):
                s = frozenset(sub)
                pa, pb = _policies(a), _policies(b)
                mix = {p: (pb if p in s else pa).get(p, DEFAULTS[p]) for p in pols}
                try:
                    res = rv.evaluate(run, truth, [_spec(m, s)], **{**pa, **mix})
                except PolicyError:
                    assert tuple(f for f in m.factors if f in s) in m.invalid
                    continue
                values[s] = res.summary[_spec(m, s).key]
                ok.add(s)
        phi, n = _orders_oracle(m.factors, values.__getitem__, ok.__contains__)
        assert n == m.orders
        assert m.shapley == pytest.approx(phi, abs=1e-12)
        assert sum(m.shapley.values()) == pytest.approx(m.difference, abs=1e-12)
        assert sum(s for _, _, s in m.path) == pytest.approx(m.difference, abs=1e-12)
        assert "not valid together" in d.explanation(m)


def _spec(m, switched):
    """The metric of ``m`` with the parameters in ``switched`` taken from B."""
    a, b = rv.metrics.parse_metric(m.key_a), rv.metrics.parse_metric(m.key_b)
    if "definition" in switched:
        return b
    params = {**dict(a.params),
              **{p: b.get(p) for p in switched if p not in rv.policies.POLICY_TABLE}}
    return rv.metrics.metric(a.name, a.k, **params)


@pytest.mark.parametrize(("conv", "hint"), [
    ({"empty_truht": "zero"}, "empty_truth"), ({"ndgc": {"gain": "exp"}}, "ndcg"),
    ({"Ties": "average"}, "ties"), ({"hr": {"level": "user"}}, "hit_rate"),
    ({3: "x"}, None),
])
def test_unknown_keys_are_refused_with_the_nearest_name(conv, hint):
    # every key is a policy or a metric family's canonical name (an alias is refused too)
    for a, b in ((None, conv), (conv, None)):
        with pytest.raises(PolicyError, match="neither a policy nor a metric family") as info:
            rv.diff(RUN, TRUTH, ["ndcg@3", "mrr"], a, b)
        if hint:
            assert f"Did you mean {hint!r}?" in str(info.value)


def test_a_policy_given_a_mapping_is_refused():
    with pytest.raises(PolicyError, match="not a mapping"):
        rv.diff(RUN, TRUTH, ["mrr"], None, {"ties": {"x": 1}})


def test_diff_parameters_are_declared_and_refuse_bad_values():
    from receval.errors import ParameterError
    from receval.validation import FUNCTIONS, TABLE

    name = "receval.difference.diff"
    assert {"a", "b", "top"} <= set(TABLE[name])
    cases = 0
    for param, constraints in TABLE[name].items():
        for bad in [x for c in constraints for x in c.bad_values()]:
            if any(c.ok(bad) for c in constraints):
                continue
            with pytest.raises(ParameterError, match=f"diff: {param}="):
                FUNCTIONS[name](RUN, TRUTH, ["mrr"], **{param: bad})
            cases += 1
    assert cases >= 4
