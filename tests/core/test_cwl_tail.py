"""The C/W/L models past the end of a list: ranks with no gain up to the depth k are summed in
closed form once that tail is longer than the kernel's loop threshold (4096 ranks), so the
cost depends on the list, not on k. Checked against an independent, accurate oracle of the
definition (every rank, extended precision, stable 1 - C) at depths just past the threshold and
far beyond it, for every model, parameter kind and output."""

from __future__ import annotations

import time

import numpy as np
import pytest

import receval as rv
from receval.kernels import VARIANTS, Request, compute_metrics

LD = np.longdouble
CWL_OUTPUTS = VARIANTS[Request.CWL_RBP]  # eu, etu, etc, ed

# (family, parameters): every C/W/L model, with more than one value of its parameter
MODELS = [("cwl_rbp", {"phi": 0.5}), ("cwl_rbp", {"phi": 0.99}), ("inst", {"T": 1.0}),
          ("inst", {"T": 3.5}), ("insq", {"T": 1.0}), ("insq", {"T": 2.5}), ("sdcg", {}),
          ("bpm", {"T": 1.0}), ("bpm", {"T": 40.0}), ("nerr_eq8", {}), ("nerr_eq9", {}),
          ("nerr_eq10", {"phi": 0.8}), ("nerr_eq10", {"phi": 0.999}), ("nerr_eq11", {"T": 1.0}),
          ("nerr_eq11", {"T": 2.5})]

# users: ranked relevance (the run lists items in this order), truth max 3
LISTS = {"empty": [], "one": [2], "few": [0, 3, 1, 0, 2], "long": [1, 0, 0, 2, 0, 3, 0, 1] * 7,
         "none": [0, 0, 0]}


def oracle(name: str, params: dict, gains: list[float], depth: int) -> dict[str, float]:
    """The four outputs by the definition, rank by rank over the whole depth."""
    g = np.zeros(depth, dtype=LD)
    g[: min(len(gains), depth)] = np.asarray(gains[:depth], dtype=LD)
    cg = np.cumsum(g)
    x = np.arange(1, depth + 1, dtype=LD)
    last = x == depth
    T = LD(params.get("T", 1.0))
    phi = LD(params.get("phi", 0.8))
    if name == "cwl_rbp":
        c = np.full(depth, phi, dtype=LD)
        one_c = 1 - c
    elif name == "nerr_eq10":
        c = phi * (1 - g)
        one_c = (1 - phi) + phi * g
    elif name in ("inst", "insq", "nerr_eq11"):
        y = x + 2 * T - (cg if name == "inst" else 0)
        r = ((y - 1) / y) ** 2
        c = r * (1 - g) if name == "nerr_eq11" else r
        one_c = (2 * y - 1) / (y * y) + (r * g if name == "nerr_eq11" else 0)
    elif name == "sdcg":
        c = np.log(x + 1) / np.log(x + 2)
        one_c = np.log1p(1 / (x + 1)) / np.log(x + 2)
    elif name == "bpm":
        # the stop test on the double sum, as the kernel does (1/3 + 2/3 reaches T = 1)
        c = (np.cumsum(g.astype(np.float64)) < float(T)).astype(LD)
        one_c = 1 - c
    elif name == "nerr_eq8":
        c, one_c = 1 - g, g.copy()
    else:  # nerr_eq9
        c = x / (x + 1) * (1 - g)
        one_c = (1 + x * g) / (x + 1)
    if name in ("sdcg", "bpm", "nerr_eq8", "nerr_eq9"):  # C = 0 at the depth
        c = np.where(last, 0, c)
        one_c = np.where(last, 1, one_c)
    p = np.ones(depth, dtype=LD)
    p[1:] = np.cumprod(c[:-1])
    s = p.sum()
    lv = p * one_c
    return {"eu": float((p * g).sum() / s), "etu": float((lv * cg).sum()),
            "etc": float((lv * x).sum()), "ed": float(s)}


def _key(name: str, params: dict, k: int, out: str) -> str:
    args = ",".join([*(f"{p}={v}" for p, v in params.items()), f"output={out}"])
    return f"{name}@{k}({args})"


def _evaluate(run, truth, keys):
    """Per-user values, one column per key in the order given (column names are canonical)."""
    res = rv.evaluate(run, truth, keys).per_user
    assert res.shape[1] == len(keys)
    res.columns = keys
    return res


def _inputs():
    run = {u: {f"i{j}": float(len(rels) - j) for j in range(len(rels))}
           for u, rels in LISTS.items() if rels}
    truth = {u: {f"i{j}": r for j, r in enumerate(rels) if r > 0} for u, rels in LISTS.items()}
    truth["empty"] = {"zz": 1}
    truth["none"] = {"zz": 2}
    return run, truth


@pytest.mark.parametrize("k", [5000, 20000, 10**6])
def test_closed_form_tail_matches_the_definition(k):
    run, truth = _inputs()
    keys = [_key(n, p, k, o) for n, p in MODELS for o in CWL_OUTPUTS]
    res = _evaluate(run, truth, keys)
    users = list(LISTS) if k < 10**6 else ["few"]
    for name, params in MODELS:
        for u in users:
            want = oracle(name, params, [r / 3 for r in LISTS[u]], k)
            for out in CWL_OUTPUTS:
                got = res.loc[u, _key(name, params, k, out)]
                assert got == pytest.approx(want[out], rel=1e-12, abs=1e-300), (
                    name, params, u, out)


def test_huge_depth_is_fast_and_converges():
    run, truth = _inputs()
    big = 2**31 - 1
    keys = [_key(n, p, big, o) for n, p in MODELS for o in CWL_OUTPUTS]
    t0 = time.perf_counter()
    res = _evaluate(run, truth, keys)
    assert time.perf_counter() - t0 < 1.0
    assert np.isfinite(res.to_numpy()).all()
    # the models without a cut at the depth: the geometric ones converge by k = 10**6, the
    # 1/x^2 ones to within (10**6)^-1 (their reach past rank x falls as 1/x)
    u = "few"
    for name, params in MODELS:
        if name in ("cwl_rbp", "nerr_eq10", "insq", "inst", "nerr_eq11"):
            mid = _evaluate(run, truth, [_key(name, params, 10**6, o) for o in CWL_OUTPUTS])
            for o in ("eu", "etu"):
                assert res.loc[u, _key(name, params, big, o)] == pytest.approx(
                    mid.loc[u, _key(name, params, 10**6, o)],
                    rel=1e-12 if name in ("cwl_rbp", "nerr_eq10") else 1e-5)
        if name in ("bpm",) and params["T"] > 2:  # never satisfied: reads to the depth
            assert res.loc[u, _key(name, params, big, "ed")] == big
            assert res.loc[u, _key(name, params, big, "etc")] == big


def _kernel(code: int, par: float, par2: float, rels: list[float], k: int) -> list[float]:
    n = len(rels)
    f64, i64 = np.float64, np.int64
    out = compute_metrics(
        np.array([0, n], dtype=i64), np.asarray(rels, dtype=f64), np.ones(n, dtype=np.int8),
        np.zeros(0, dtype=i64), np.array([n], dtype=i64), np.array([0, 0], dtype=i64),
        np.zeros(0, dtype=f64), np.full(4, code, dtype=np.int32), np.full(4, k, dtype=i64),
        np.full(4, 5e-324), np.full(4, par), np.arange(4, dtype=np.int32),
        np.zeros(4, dtype=np.int32), np.zeros(4, dtype=np.int32), np.zeros(4, dtype=np.int32),
        np.full(4, par2))
    return list(out[0])


@pytest.mark.parametrize("k", [5000, 10**6])
def test_inst_with_gains_above_one_past_the_list(k):
    # gains above 1 (a kernel input the metric layer does not produce) make T_i so negative
    # that i + 2T - cg - 1 crosses 0 after the list: the loop runs on to the crossing. Near
    # the crossing 1 - C loses digits in the loop itself (1e-12 off at k = 100 already)
    rels = [3.0, 2.5, 2.15]          # gains 7.65 with par2 = 1: q(x) = x - 6.05 - 1
    got = _kernel(Request.CWL_INST, 1.3, 1.0, rels, k)
    want = oracle("inst", {"T": 1.3}, rels, k)
    for out, value in zip(CWL_OUTPUTS, got, strict=True):
        assert value == pytest.approx(want[out], rel=1e-11), out
