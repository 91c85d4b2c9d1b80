"""Every beyond-accuracy metric of evaluate() against a slow oracle written from the formulas."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import receval as rv
import receval.beyond.registered  # noqa: F401

K = 4


def make(seed: int):
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(3, 12)), int(rng.integers(6, 15))
    run_rows, lists = [], {}
    for u in range(n_users):
        length = int(rng.integers(0, 7))
        items = rng.choice(n_items, size=min(length, n_items), replace=False).tolist()
        lists[f"u{u}"] = items[:K]
        run_rows += [(f"u{u}", i, float(len(items) - r)) for r, i in enumerate(items)]
    run = pd.DataFrame(run_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame({"user": [f"u{u}" for u in range(n_users)],
                          "item": rng.integers(0, n_items, n_users)})
    train = pd.DataFrame({"user": [f"u{u}" for u in rng.integers(0, n_users, 40)],
                          "item": rng.integers(0, n_items - 2, 40)})
    feats = rng.normal(size=(n_items, 3))
    return run, truth, train, feats, lists


def cos(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return float(a @ b / (na * nb)) if na > 0 and nb > 0 else 0.0


def oracle(run, truth, train, feats, lists):
    users = list(dict.fromkeys(truth["user"]))
    catalog = set(train["item"]) | set(truth["item"]) | set(run["item"])
    n = len(catalog)
    exposure = Counter(i for u in users for i in lists.get(u, []))
    total = sum(exposure.values())
    p = sorted([exposure.get(i, 0) / total for i in catalog])
    out = {
        "coverage@4": len(exposure) / n,
        "gini@4": sum((2 * j - n - 1) * pj for j, pj in enumerate(p, 1)) / (n - 1),
        "entropy@4": -sum(x * math.log2(x) for x in p if x > 0),
    }
    rows = Counter(train["item"])
    n_rows = len(train)
    seen = sorted({v for v in rows.values()}, reverse=True)
    ordered = sorted(rows.values(), reverse=True)
    threshold = ordered[math.ceil(0.2 * len(ordered)) - 1]
    del seen
    tail = {i for i in catalog if rows.get(i, 0) < threshold}
    nov, arp, aplt, ild, ser = [], [], [], [], []
    hist = {u: set(g["item"]) for u, g in train.groupby("user")}
    rel = {(u, i) for u, i in zip(truth["user"], truth["item"], strict=True)}
    pair_sum, n_lists = 0.0, 0
    nonempty = [u for u in users if lists.get(u)]
    for a_i, a in enumerate(nonempty):
        for b in nonempty[a_i + 1:]:
            la, lb = set(lists[a]), set(lists[b])
            pair_sum += len(la & lb) / math.sqrt(len(la) * len(lb))
            n_lists += 1
    out["personalization@4"] = 1 - pair_sum / n_lists if n_lists else float("nan")
    for u in users:
        lst = lists.get(u, [])
        if lst:
            nov.append(np.mean([-math.log2(max(rows.get(i, 0), 1) / n_rows) for i in lst]))
            arp.append(np.mean([rows.get(i, 0) for i in lst]))
            aplt.append(np.mean([i in tail for i in lst]))
        if len(lst) >= 2:
            pairs = [(a, b) for x, a in enumerate(lst) for b in lst[x + 1:]]
            ild.append(np.mean([1 - cos(feats[a], feats[b]) for a, b in pairs]))
        h = hist.get(u, set())
        if h:
            ser.append(sum((1 - np.mean([cos(feats[i], feats[j]) for j in h]))
                           for i in lst if (u, i) in rel) / K)
    out.update({"novelty@4": np.mean(nov), "arp@4": np.mean(arp), "aplt@4": np.mean(aplt),
                "ild@4": np.mean(ild) if ild else float("nan"),
                "serendipity@4": np.mean(ser) if ser else float("nan"),
                "tail_share@4": sum(exposure[i] for i in exposure if i in tail) / total})
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 100_000))
def test_evaluate_matches_oracle(seed):
    run, truth, train, feats, lists = make(seed)
    users = list(dict.fromkeys(truth["user"]))
    if sum(len(lists.get(u, [])) for u in users) == 0:
        return
    expected = oracle(run, truth, train, feats, lists)
    res = rv.evaluate(run, truth, list(expected), train=train, item_features=feats,
                      duplicates="first")
    for key, value in expected.items():
        got = res.summary[key]
        if isinstance(value, float) and math.isnan(value):
            assert math.isnan(got), key
        else:
            assert got == pytest.approx(value, abs=1e-12), key
