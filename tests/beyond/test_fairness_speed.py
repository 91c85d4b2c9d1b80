"""The shared per-block states of the exposure and calibration metrics give the bits of the
formulas: per-list sums in rank order (exact against a sequential oracle), the dense and the
sparse category distributions of miscalibration alike, blocks that take different paths equal
to the whole run, and metrics that share a cached state equal to the metric evaluated alone."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.exposure  # noqa: F401  (registers the families)
import receval.beyond.miscalibration as mc
from receval.beyond.attention import attention


@st.composite
def cases(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n_users, n_items = int(rng.integers(1, 25)), int(rng.integers(3, 15))
    rows = []
    for u in range(n_users):
        m = int(rng.integers(0, n_items + 1))
        for r, c in enumerate(rng.choice(n_items, size=m, replace=False)):
            rows.append((u, f"i{c}", float(m - r)))
    run = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": np.arange(n_users), "item": [f"i{j % n_items}"
                                                              for j in range(n_users)]})
    labels = ["A", "B", "C"][: int(rng.integers(1, 4))]
    # some items without a group, some with several categories or none
    groups = {f"i{j}": labels[int(rng.integers(0, len(labels)))] for j in range(n_items)
              if rng.random() < 0.85} or {"i0": labels[0]}
    labels = sorted(set(groups.values()))  # the groups item_groups has
    if rng.random() < 0.4:  # one category per item, every item known (the one-code path)
        cats = {f"i{j}": [f"c{int(rng.integers(0, 5))}"] for j in range(n_items)}
    else:
        cats = {f"i{j}": [f"c{c}" for c in rng.choice(5, size=int(rng.integers(0, 3)),
                                                      replace=False)]
                for j in range(n_items) if rng.random() < 0.9}
    train = pd.DataFrame({"user": rng.integers(0, n_users + 2, 4 * n_users + 1),
                          "item": [f"i{j}" for j in rng.integers(0, n_items,
                                                                 4 * n_users + 1)]})
    return run, truth, groups, cats, train, labels


def _lists(run: pd.DataFrame) -> dict:
    ordered = run.sort_values(["user", "score", "item"], ascending=[True, False, True])
    return {u: g["item"].tolist() for u, g in ordered.groupby("user", sort=False)}


@settings(max_examples=40, deadline=None)
@given(cases(), st.sampled_from(["geometric", "log", "uniform"]), st.sampled_from([2, 4, None]))
def test_exposure_share_equals_the_sequential_sum_exactly(d, weight, k):
    # share(u) = sum_{r: i_r in g} w_r / sum_r w_r, both sums taken in rank order
    run, truth, groups, _, _, labels = d
    lists = _lists(run)
    model = attention(weight, 0.85)
    for missing in ("skip", "other"):
        key = rv.metric("exposure_share", k, group=labels[0], weight=weight,
                        missing=missing).key
        res = rv.evaluate(run, truth, [key], item_groups=groups, users="run")
        for u, items in lists.items():
            items = items[:k] if k else items
            w = model.weights(len(items)).tolist()
            num = den = 0.0
            for wi, i in zip(w, items, strict=True):
                if missing == "other" or i in groups:
                    den += wi
                if groups.get(i) == labels[0]:
                    num += wi
            want = num / den if den > 0 else math.nan
            got = res.per_user.loc[u, key]
            assert got == want or (math.isnan(got) and math.isnan(want)), (u, key)


@settings(max_examples=40, deadline=None)
@given(cases(), st.sampled_from(["kl", "js", "hellinger"]), st.sampled_from([0.0, 0.01, 0.5]),
       st.sampled_from(["uniform", "log", "geometric"]), st.integers(1, 3))
def test_miscalibration_dense_and_sparse_paths_give_the_same_bits(d, distance, alpha, weight,
                                                                  n_blocks):
    run, truth, _, cats, train, _ = d
    key = rv.metric("miscalibration", 4, distance=distance, alpha=alpha, weight=weight,
                    missing="skip").key
    kw = {"train": train, "item_categories": cats, "users": "run"}
    out = []
    for cells in (0, 1 << 40):  # every block sparse, every block dense
        old, mc.DENSE_CELLS = mc.DENSE_CELLS, cells
        try:
            ev = rv.Evaluator(truth, [key], **kw)
            users = sorted(run["user"].unique())
            parts = [run[run["user"].isin(users[b::n_blocks])] for b in range(n_blocks)]
            parts = [p for p in parts if len(p)]
            out.append(ev.evaluate(run))
            if parts:
                out.append(ev.evaluate_blocks(parts))
        finally:
            mc.DENSE_CELLS = old
    first = out[0].per_user[key].sort_index()
    for res in out[1:]:
        assert res.per_user[key].sort_index().equals(first)
        a, b = res.summary[key], out[0].summary[key]
        assert a == b or (math.isnan(a) and math.isnan(b))


def test_blocks_on_either_side_of_the_dense_threshold_equal_the_whole_run(monkeypatch):
    rng = np.random.default_rng(7)
    n_users, n_items = 400, 60
    run = pd.DataFrame({"user": np.repeat(np.arange(n_users), 5),
                        "item": rng.integers(0, n_items, 5 * n_users),
                        "score": rng.random(5 * n_users)}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.arange(n_users), "item": np.arange(n_users) % n_items})
    train = pd.DataFrame({"user": rng.integers(0, n_users, 3000),
                          "item": rng.integers(0, n_items, 3000)})
    cats = {i: [f"c{i % 7}"] + ([f"c{(3 * i) % 11}"] if i % 4 == 0 else [])
            for i in range(n_items)}
    # 11 categories: the whole run (4400 cells) sparse, blocks of 100 users (1100) dense
    monkeypatch.setattr(mc, "DENSE_CELLS", 2000)
    keys = [rv.parse_metric(k).key for k in (
        "miscalibration@5", "miscalibration@3(distance=js,weight=log)",
        "miscalibration(distance=hellinger,alpha=0)", "mace@5")]
    ev = rv.Evaluator(truth, keys, train=train, item_categories=cats)
    whole = ev.evaluate(run)
    blocks = ev.evaluate_blocks([run[run["user"] // 100 == b] for b in range(4)])
    for key in keys:
        assert whole.per_user[key].sort_index().equals(blocks.per_user[key].sort_index())
        assert whole.summary[key] == blocks.summary[key]


@settings(max_examples=25, deadline=None)
@given(cases())
def test_metrics_sharing_a_block_state_equal_each_alone(d):
    # one evaluation caches the cut, the attention by group, the profiles: every metric
    # must read its own parameters from them
    run, truth, groups, cats, train, labels = d
    keys = [rv.metric("exposure_share", 3, group=labels[0], missing="skip").key,
            rv.metric("exposure_share", 3, group=labels[-1], missing="other", weight="log").key,
            rv.metric("awrf", 3, weight="geometric", p=0.85).key,
            rv.metric("awrf", 3, target="population").key,
            rv.metric("exposure_gini", 3).key, rv.metric("exposure_gini", None).key,
            rv.metric("miscalibration", 3, missing="skip").key,
            rv.metric("miscalibration", 3, missing="skip", distance="js").key,
            rv.metric("mace", 3, missing="skip").key]
    kw = {"item_groups": groups, "item_categories": cats, "train": train, "users": "run"}
    together = rv.evaluate(run, truth, keys, **kw)
    for key in keys:
        alone = rv.evaluate(run, truth, [key], **kw)
        assert alone.per_user[key].equals(together.per_user[key]), key
        a, b = alone.summary[key], together.summary[key]
        assert a == b or (math.isnan(a) and math.isnan(b)), key
