"""The catalogue-size domain of every metric with a catalogue-size parameter.

The metrics are found in the registry by their parameters, not listed by hand. A catalogue of N
items must hold what each user occupies in it: the list positions the metric reads (the k
slots under ``fp=k``, RecTools' ``FP = k - TP``) plus the relevant truth items outside them. A
smaller N is refused with a message naming the metric key, the parameter and its value, and
the user's counts; a large enough N gives the docstring's ``TN = N - TP - FP - FN`` >= 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import InputError
from receval.metrics import REGISTRY, load_plugins, metric
from receval.metrics.catalogue import check_catalogue
from receval.metrics.ranking import catalogue_need

load_plugins()

#: the names a catalogue-size parameter goes by
SIZE_PARAMS = ("n_items", "catalog")
CATALOGUE_METRICS = sorted(
    name for name, d in REGISTRY.items() if any(p.name in SIZE_PARAMS for p in d.params))


def test_every_catalogue_parameter_is_known_by_name():
    # an integer parameter documented as a catalogue size under another name would escape
    # every test below: there is none
    for name, d in REGISTRY.items():
        for p in d.params:
            if p.kind is int and "catalogue size" in p.doc.lower():
                assert p.name in SIZE_PARAMS, (name, p.name)
    assert {"tn", "accuracy", "specificity", "fpr", "gauc", "lauc", "mcc",
            "percentile_rank"} <= set(CATALOGUE_METRICS)


def _size_param(name: str) -> str:
    (p,) = [p.name for p in REGISTRY[name].params if p.name in SIZE_PARAMS]
    return p


def _catalogue_key(name: str, k: int | None, n: int) -> str:
    extra = {"candidates": "catalog"} if name == "gauc" else {}
    return metric(name, k, **{_size_param(name): n}, **extra).key


def _data(seed: int):
    """Users with lists of 0..6 items (distinct scores), truth of 0..4 graded items; one user
    without a list (scored under users="union")."""
    rng = np.random.default_rng(seed)
    run_rows, truth_rows = [], []
    for u in range(6):
        n_list = 0 if u == 0 else int(rng.integers(0, 7))
        for r, i in enumerate(rng.choice(12, size=n_list, replace=False)):
            run_rows.append((f"u{u}", f"i{i}", float(n_list - r)))
        for i in rng.choice(12, size=int(rng.integers(0, 5)), replace=False):
            truth_rows.append((f"u{u}", f"i{i}", int(rng.integers(0, 3))))
    run = pd.DataFrame(run_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    return run, truth


def _occupied(run: pd.DataFrame, truth: pd.DataFrame, k: int | None, slots: bool
              ) -> dict[str, int]:
    """Per user, from the definitions: the positions read (k slots when ``slots``) plus the
    relevant truth items (relevance >= 1) outside them."""
    out = {}
    for u in sorted(set(run["user"]) | set(truth["user"])):
        ranked = run[run["user"] == u].sort_values("score", ascending=False)["item"].tolist()
        top = ranked if k is None else ranked[:k]
        liked = set(truth[(truth["user"] == u) & (truth["relevance"] >= 1)]["item"])
        listed = k if slots and k is not None else len(top)
        out[u] = listed + len(liked - set(top))
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 3])
@pytest.mark.parametrize("fp", ["list", "k"])
def test_tn_is_n_minus_what_the_user_occupies_or_refused(seed, k, fp):
    run, truth = _data(seed)
    need = _occupied(run, truth, k, fp == "k")
    for n in range(1, 14):
        key = metric("tn", k, catalog=n, fp=fp).key
        if n < max(need.values()):
            with pytest.raises(InputError) as exc:
                rv.evaluate(run, truth, [key], users="union")
            msg = str(exc.value)
            assert msg.startswith(f"{key}: the catalogue size catalog={n} is smaller")
            assert f"({sum(v > n for v in need.values())} user(s) exceed {n})" in msg
        else:
            res = rv.evaluate(run, truth, [key], users="union")
            got = dict(zip(res.user_ids, res.user_values(key), strict=True))
            assert got == {u: float(n - v) for u, v in need.items()}


@pytest.mark.parametrize("name", [n for n in CATALOGUE_METRICS if REGISTRY[n].compute])
@pytest.mark.parametrize("k", [None, 3])
def test_every_plugin_refuses_a_catalogue_below_a_list(name, k):
    run, truth = _data(1)
    need = _occupied(run, truth, k, False)
    small, enough = max(need.values()) - 1, max(need.values())
    key = _catalogue_key(name, k, small)
    with pytest.raises(InputError, match=rf"^{_escape(key)}: the catalogue size "
                                         rf"{_size_param(name)}={small} is smaller"):
        rv.evaluate(run, truth, [key], users="union")
    res = rv.evaluate(run, truth, [_catalogue_key(name, k, enough)], users="union")
    lo, hi = REGISTRY[name].bounds
    vals = res.values[:, 0]
    vals = vals[~np.isnan(vals)]
    assert (vals >= lo).all() and (hi is None or (vals <= hi).all())


def _escape(text: str) -> str:
    import re

    return re.escape(text)


def test_tn_with_fp_k_names_the_slots_not_the_items():
    # 2 recommended items, k = 20 slots under fp=k, 1 liked item not recommended: 21 > 5
    run = {"u": {"a": 2.0, "b": 1.0}}
    truth = {"u": {"a": 1, "c": 1}}
    with pytest.raises(InputError) as exc:
        rv.evaluate(run, truth, ["tn@20(catalog=5,fp=k)"])
    msg = str(exc.value)
    assert "20 slots of the top 20 (fp=k: each empty slot is a false positive) + 1 relevant " \
           "truth item(s) outside them = 21 items" in msg
    assert "recommended and truth items" not in msg
    with pytest.raises(InputError, match=r"catalogue size evaluate\(catalog=2\) is smaller.*"
                                         r"2 recommended item\(s\) in the top k \+ 1 relevant"):
        rv.evaluate(run, truth, ["tn@20"], catalog=2)


def test_mcc_refuses_fewer_items_than_k_slots():
    run = {"u": {"a": 2.0}}
    truth = {"u": {"a": 1}}
    with pytest.raises(InputError, match=r"^mcc@3\(n_items=2\): the catalogue size n_items=2 "
                                         r"is smaller than the 3 slots of the top 3"):
        rv.evaluate(run, truth, ["mcc@3(n_items=2)"])
    # N = k: TN = N - k - FN = 0, defined
    assert rv.evaluate(run, truth, ["mcc@3(n_items=3)"])["mcc@3(n_items=3)"] == 0.0


@pytest.mark.parametrize("name", [n for n in CATALOGUE_METRICS if REGISTRY[n].kernel])
@pytest.mark.parametrize("k", [None, 2, 5])
def test_kernel_catalogue_need_matches_the_definitions(name, k):
    # what the ranking kernel's catalogue metrics occupy: k slots for MCC@k (FP = k - TP),
    # else min(L, k) positions; plus the relevant items outside them
    run, truth = _data(2)
    need = _occupied(run, truth, k, name == "mcc")
    users = sorted(need)
    spec = metric(name, k, n_items=10)
    nret, hits, nrel = [], [], []
    for u in users:
        ranked = run[run["user"] == u].sort_values("score", ascending=False)["item"].tolist()
        top = ranked if k is None else ranked[:k]
        liked = set(truth[(truth["user"] == u) & (truth["relevance"] >= 1)]["item"])
        nret.append(len(top))
        hits.append(len(liked & set(top)))
        nrel.append(len(liked))
    listed, unlisted, what = catalogue_need(spec, np.array(nret), np.array(hits),
                                            np.array(nrel))
    assert (listed + unlisted).tolist() == [need[u] for u in users]
    n = max(need.values())
    check_catalogue(spec.key, f"n_items={n}", n, listed, unlisted, np.array(users), what)
    with pytest.raises(InputError, match=f"n_items={n - 1} is smaller"):
        check_catalogue(spec.key, f"n_items={n - 1}", n - 1, listed, unlisted,
                        np.array(users), what)


@pytest.mark.parametrize("average", ["items", "users"])
def test_percentile_rank_edges_follow_the_documented_formula(average):
    # rank_ui = 100 (r - 1) / N in the list, 100 (max(L - 1, 0) / N + 1) / 2 outside it
    # (L = min(list length, k)); RecPack's row maximum of an empty row is 0: no list -> 50
    n = 10
    run = {"a": {"x1": 4.0, "x2": 3.0, "x3": 2.0, "x4": 1.0}}
    truth = {"a": {"x1": 1, "x3": 1, "y": 1}, "b": {"x1": 1, "y": 1}}
    key = metric("percentile_rank", None, n_items=n, average=average).key
    res = rv.evaluate(run, truth, [key], users="truth")
    got = dict(zip(res.user_ids, res.user_values(key), strict=True))
    a = (0 + 100 * 2 / n + 100 * (3 / n + 1) / 2) / 3
    b = 100 * (max(0 - 1, 0) / n + 1) / 2
    assert got == pytest.approx({"a": a, "b": b}, rel=1e-15) and got["b"] == 50.0
    summary = (a * 3 + b * 2) / 5 if average == "items" else (a + b) / 2
    assert res[key] == pytest.approx(summary, rel=1e-15)
    # at k = 2 the list read is 2 long: x3 (rank 3) counts as not listed
    key2 = metric("percentile_rank", 2, n_items=n, average=average).key
    res2 = rv.evaluate(run, truth, [key2], users="truth")
    assert res2.user_values(key2)[0] == pytest.approx(
        (0 + 2 * 100 * (1 / n + 1) / 2) / 3, rel=1e-15)
