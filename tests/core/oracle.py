"""A slow, plain-Python reference for the ranking metrics and the evaluation policies.

Written straight from the formulas in ``receval.metrics.ranking`` and the policy table in
``receval.policies``; it shares no code with the packing step or the compiled kernel (only the
metric-key parser is reused, to read names, cutoffs and parameter defaults).

Input rows are plain tuples: run ``(user, item, score)`` and truth ``(user, item, relevance)``.
``ties="average"`` enumerates every order of the tied items and averages the metric, so keep
the tie groups small there.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from receval.metrics import parse_metric

CWL = {"cwl_rbp", "inst", "insq", "sdcg", "bpm", "nerr_eq8", "nerr_eq9", "nerr_eq10",
       "nerr_eq11"}
GRADED = {"cg", "dcg", "idcg", "ndcg", "err"} | CWL
NOT_AVERAGED = {"first_hit_rank", "err", "bpref", "infap", "iprec", "iprec_avg",
                "set_map", "pauc", "pap", "mcc"} | CWL


# --------------------------------------------------------------------------------------------
# per-list metric formulas
# --------------------------------------------------------------------------------------------


def threshold(spec: Any) -> float:
    """Relevance threshold: the ``rel`` parameter, or "any positive relevance" without one."""
    has_rel = any(p.name == "rel" for p in spec.definition.params)
    return float(spec.get("rel")) if has_rel else 5e-324


def _gain(r: float, gain: str) -> float:
    if r <= 0:
        return 0.0
    if gain == "binary":
        return 1.0
    return 2.0 ** r - 1.0 if gain == "exp" else float(r)


def discount(rank: int, kind: str) -> float:
    """The discount of a 1-based rank, as the ``discount`` parameter defines it."""
    if kind == "log2_max2":
        return 1.0 / math.log2(max(rank, 2))
    if kind == "ln":
        return 1.0 / math.log(rank + 1)
    if kind == "log10":
        return 1.0 / math.log10(rank + 1)
    return 1.0 / math.log2(rank + 1)


def _dcg(rels: Sequence[float], k: int, gain: str, disc: str = "log2") -> float:
    return sum(_gain(r, gain) * discount(i + 1, disc) for i, r in enumerate(rels[:k]))


def metric_value(spec: Any, rels: Sequence[float], judged: Sequence[bool],
                 truth_rels: Sequence[float], max_rel: float) -> float:
    """One metric for one user.

    ``rels``/``judged``: relevance (0 if not in the truth) and in-truth flag of each item of the
    user's whole ordered list; ``truth_rels``: every truth relevance of the user.
    """
    name = spec.name
    L = len(rels)
    k = spec.k if spec.k is not None else L
    thr = threshold(spec)
    b = [1 if r >= thr else 0 for r in rels]
    R = sum(1 for r in truth_rels if r >= thr)
    N = sum(1 for r in truth_rels if r < thr)
    top = b[:k]
    h = sum(top)

    def div(a: float, d: float) -> float:
        return a / d if d > 0 else 0.0

    if name == "num_rel":
        return float(R)
    if name == "num_ret":
        return float(min(k, L))
    if name == "hits":
        return float(h)
    if name == "precision":
        den = {"k": k, "list": min(k, L), "min_k_rel": min(k, R)}[spec.get("denominator")]
        return div(h, den)
    if name == "recall":
        den = {"rel": R, "min_k_rel": min(k, R)}[spec.get("denominator")]
        return div(h, den)
    if name in ("f1", "fbeta"):
        beta = 1.0 if name == "f1" else float(spec.get("beta"))
        p = div(h, k)
        rc = div(h, R)
        return div((1 + beta**2) * p * rc, beta**2 * p + rc)
    if name == "hit_rate":
        level = spec.get("level")
        if level == "user":
            return 1.0 if h > 0 else 0.0
        if level == "recommended":
            return div(h, min(k, L))
        return div(h, R)
    if name == "mrr":
        for i, x in enumerate(top):
            if x:
                return 1.0 / (i + 1)
        return 0.0
    if name == "first_hit_rank":
        for i, x in enumerate(top):
            if x:
                return float(i + 1)
        return math.nan
    if name == "map":
        acc, hh = 0.0, 0
        for i, x in enumerate(top):
            if x:
                hh += 1
                acc += hh / (i + 1)
        den = {"rel": R, "min_k_rel": min(k, R), "hits": h, "k": k}[spec.get("denominator")]
        return div(acc, den)
    if name == "mar":
        if k == 0:
            return 0.0
        return sum(div(sum(b[:j]), R) for j in range(1, k + 1)) / k
    if name == "cg":
        return sum(_gain(r, spec.get("gain")) for r in rels[:k])
    if name == "dcg":
        return _dcg(rels, k, spec.get("gain"), spec.get("discount"))
    if name in ("idcg", "ndcg"):
        gain, disc = spec.get("gain"), spec.get("discount")
        if spec.get("ideal") == "truth":
            ideal = sorted(truth_rels, reverse=True)
            kk = spec.k if spec.k is not None else len(ideal)
        elif spec.get("ideal") == "k":
            kk = spec.k if spec.k is not None else L
            ideal = [max(truth_rels, default=0.0)] * kk
        else:
            ideal = sorted(rels, reverse=True)
            kk = spec.k if spec.k is not None else L
        idcg = _dcg(ideal, kk, gain, disc)
        if name == "idcg":
            return idcg
        return div(_dcg(rels, k, gain, disc), idcg)
    if name == "r_precision":
        m = R if spec.k is None else min(spec.k, R)
        return div(sum(b[:m]), R if spec.get("denominator") == "rel" else m)
    if name == "err":
        grade = spec.get("max_grade")
        grade = float(grade) if grade is not None else max(max_rel, 5e-324)
        acc, stay = 0.0, 1.0
        for i, r in enumerate(rels[:k]):
            p = _gain(r, "exp") / 2.0 ** grade
            acc += stay * p / (i + 1)
            stay *= 1.0 - p
        return acc
    if name == "rbp":
        p = float(spec.get("p"))
        return (1 - p) * sum(x * p**i for i, x in enumerate(top))
    if name == "judged":
        return div(sum(1 for j in judged[:k] if j), min(k, L))
    if name == "infap":
        # Yilmaz & Aslam (2006) as trec_eval computes it; every truth row is judged here
        acc, seen_rel, seen_non = 0.0, 0, 0
        for j, (x, jd) in enumerate(zip(b, judged, strict=True)):
            if not jd:
                continue
            if x:
                if j == 0:
                    acc += 1.0
                else:
                    acc += 1 / (j + 1) + (j / (j + 1)) * ((seen_rel + seen_non) / j) * (
                        (seen_rel + 1e-5) / (seen_rel + seen_non + 2e-5))
                seen_rel += 1
            else:
                seen_non += 1
        return div(acc, R)
    if name in ("iprec", "iprec_avg"):
        levels = [float(spec.get("recall"))] if name == "iprec" else [i / 10 for i in range(11)]
        h_all = sum(b)
        prec = [sum(b[: i + 1]) / (i + 1) for i in range(L)]
        hit_pos = [i for i, x in enumerate(b) if x]
        vals = []
        for p in levels:
            c = math.floor(p * R + 0.9)
            if h_all == 0 or c > h_all:
                vals.append(0.0)
                continue
            vals.append(max(prec[hit_pos[max(c, 1) - 1]:]))
        return sum(vals) / len(vals)
    if name == "set_map":
        return div(h * h, k * R)
    if name == "ncrr":
        crr = sum(1 / (i + 1) for i, x in enumerate(top) if x)
        icrr = sum(1 / i for i in range(1, min(R, k, L) + 1))
        return div(crr, icrr)
    if name in CWL:
        return cwl_value(spec, rels, max_rel)
    if name in ("pauc", "pap"):
        # RecTools: the whole list, against the first k non-relevant items
        if spec.get("insufficient") == "exclude" and L - sum(b) < k and sum(b) < R:
            return math.nan  # fewer than k non-relevant items, a relevant one unlisted
        acc, fp, seen = 0.0, 0, 0
        for x in b:
            if x:
                seen += 1
                if name == "pap" and seen > k:
                    break
                if fp < k:
                    acc += k - fp
            else:
                fp += 1
        return div(acc, (R if name == "pauc" else min(R, k)) * k)
    if name == "mcc":
        N_items = float(spec.get("n_items"))
        tp, fp_, fn = h, k - h, R - h
        tn = N_items - k - fn
        prod = (tp + fp_) * (tp + fn) * (tn + fp_) * (tn + fn)
        return div(tp * tn - fp_ * fn, math.sqrt(prod)) if prod > 0 else 0.0
    if name == "percentile_rank":
        N_items = float(spec.get("n_items"))
        m = min(k, L)
        ranks = [100 * i / N_items for i, x in enumerate(b[:m]) if x]
        miss = 100 * (max(m - 1, 0) / N_items + 1) / 2
        return div(sum(ranks) + (R - len(ranks)) * miss, R)
    if name == "bpref":
        acc, nonrel_above = 0.0, 0
        for x, j in zip(top, judged[:k], strict=True):
            if not j:
                continue
            if x:
                acc += 1.0 - (min(nonrel_above, R) / min(R, N) if nonrel_above else 0.0)
            else:
                nonrel_above += 1
        return div(acc, R)
    raise KeyError(name)


def cwl_value(spec: Any, rels: Sequence[float], max_rel: float) -> float:
    """A C/W/L measure from its continuation probabilities (Moffat et al. 2017; cwl_eval)."""
    name = spec.name
    depth = spec.k if spec.k is not None else 1000
    grade = spec.get("max_grade")
    grade = float(grade) if grade is not None else max(max_rel, 5e-324)
    g = [max(r, 0.0) / grade for r in rels[:depth]] + [0.0] * max(0, depth - len(rels))
    cum = list(itertools.accumulate(g))
    C = []
    for i in range(depth):
        rank = i + 1
        if name == "cwl_rbp":
            c = float(spec.get("phi"))
        elif name == "inst":
            T = float(spec.get("T"))
            c = ((rank + T + (T - cum[i]) - 1) / (rank + T + (T - cum[i]))) ** 2
        elif name == "insq":
            T = float(spec.get("T"))
            c = ((rank + 2 * T - 1) / (rank + 2 * T)) ** 2
        elif name == "sdcg":
            c = math.log2(rank + 1) / math.log2(rank + 2) if rank < depth else 0.0
        elif name == "bpm":
            c = 1.0 if cum[i] < float(spec.get("T")) and rank < depth else 0.0
        elif name == "nerr_eq8":
            c = 1 - g[i] if rank < depth else 0.0
        elif name == "nerr_eq9":
            c = rank / (rank + 1) * (1 - g[i]) if rank < depth else 0.0
        elif name == "nerr_eq10":
            c = float(spec.get("phi")) * (1 - g[i])
        else:
            T = float(spec.get("T"))
            c = ((rank + 2 * T - 1) / (rank + 2 * T)) ** 2 * (1 - g[i])
        C.append(c)
    P = [1.0]
    for c in C[:-1]:
        P.append(P[-1] * c)
    S = sum(P)
    out = spec.get("output")
    if out == "eu":
        return sum(p * x for p, x in zip(P, g, strict=True)) / S
    if out == "ed":
        return S
    L = [p * (1 - c) for p, c in zip(P, C, strict=True)]
    if out == "etu":
        return sum(l_ * c_ for l_, c_ in zip(L, cum, strict=True))
    return sum(l_ * (i + 1) for i, l_ in enumerate(L))


# --------------------------------------------------------------------------------------------
# ordering and policies
# --------------------------------------------------------------------------------------------


def _sort_key(ties: str):
    """Rows are ``(item, score, input row)``."""
    if ties == "trec_eval":
        return lambda row: (-float(np.float32(row[1])), _Desc(row[0]))
    if ties == "input":
        return lambda row: (-row[1], row[2])
    return lambda row: (-row[1], row[0])


class _Desc:
    """Wraps an id so that sorting puts it in trec_eval's order: the id's text (UTF-8 bytes, as
    C's strcmp compares docnos) descending, for integer ids too."""

    def __init__(self, v: Any) -> None:
        self.v = str(v).encode()

    def __lt__(self, other: _Desc) -> bool:
        return self.v > other.v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.v == other.v


def _orders(rows: list[tuple[Any, float, int]], ties: str) -> list[list[Any]]:
    """The ordered item lists a user's rows stand for: one, or every tie order (average)."""
    if ties != "average":
        return [[row[0] for row in sorted(rows, key=_sort_key(ties))]]
    rows = sorted(rows, key=lambda r: -r[1])
    groups = [list(g) for _, g in itertools.groupby(rows, key=lambda r: r[1])]
    perms = [list(itertools.permutations([row[0] for row in g])) for g in groups]
    return [[i for part in combo for i in part] for combo in itertools.product(*perms)]


def _judge(order: list[Any], tr: dict[Any, float], duplicates: str,
           unjudged: str) -> tuple[list[float], list[bool]]:
    """Relevance and in-truth flag at each position of one ordered list.

    ``duplicates="keep"``: an item's later occurrences are items without a truth row
    (relevance 0, not judged); ``"count"``: every occurrence has the item's relevance.
    ``unjudged="remove"``: positions without a truth row leave the list.
    """
    rels, judged, seen = [], [], set()
    for i in order:
        later = duplicates == "keep" and i in seen
        seen.add(i)
        rels.append(0.0 if later else tr.get(i, 0.0))
        judged.append(False if later else i in tr)
    if unjudged == "remove":
        rels = [r for r, j in zip(rels, judged, strict=True) if j]
        judged = [True] * len(rels)
    return rels, judged


def evaluate(run: Iterable[tuple], truth: Iterable[tuple], metrics: Sequence[str], *,
             ties: str = "id", users: str = "truth", empty_truth: str = "skip",
             duplicates: str = "error", nan_scores: str = "error",
             negative_rel: str = "error", unjudged: str = "keep",
             nan_rel: str = "error") -> tuple[dict, dict]:
    """Per-user values ``{user: {key: value}}`` and the summary ``{key: mean}``.

    Raises ``ValueError`` where receval must raise an error (duplicates, NaN scores, negative
    relevance, empty truth with ``empty_truth='error'``).
    """
    specs = [parse_metric(m) for m in metrics]
    truth = list(truth)
    run = list(run)

    # truth: user -> {item: rel}
    t: dict[Any, dict[Any, float]] = {}
    for u, i, r in truth:
        r = float(r)
        if math.isnan(r):
            if nan_rel == "error":
                raise ValueError("NaN relevance")
            if nan_rel == "drop":  # the row goes; its user stays a truth user
                t.setdefault(u, {})
                continue
            r = 0.0
        if r < 0:
            if negative_rel == "error":
                raise ValueError("negative relevance")
            r = 0.0
        d = t.setdefault(u, {})
        if i in d:
            if duplicates in ("error", "keep", "count"):
                raise ValueError("duplicate truth row")
            if duplicates in ("max", "first"):  # "first": the best-ranked occurrence
                d[i] = max(d[i], r)
            continue
        d[i] = r
    max_rel = max((r for d in t.values() for r in d.values()), default=0.0)

    # run: user -> [(item, score, input row)]
    lists: dict[Any, list[tuple[Any, float, int]]] = {}
    best: dict[tuple[Any, Any], int] = {}  # (user, item) -> its row's place in the user's list
    for row, (u, i, s) in enumerate(run):
        s = float(s)
        d = lists.setdefault(u, [])
        if not math.isfinite(s):
            if nan_scores == "error":
                raise ValueError("NaN score")
            if nan_scores == "drop":
                continue
            s = -math.inf
        if (u, i) in best:
            if duplicates == "error":
                raise ValueError("duplicate run row")
            if duplicates in ("max", "first"):  # "first": the best-ranked occurrence
                at = best[(u, i)]
                if s > d[at][1]:  # an equal score keeps the earlier row
                    d[at] = (i, s, row)
                continue
        best.setdefault((u, i), len(d))
        d.append((i, s, row))
    truth_users = list(t)
    run_users = [u for u in lists if u not in t]
    evaluated = {
        "truth": truth_users,
        "intersection": [u for u in truth_users if u in lists],
        "run": [u for u in truth_users if u in lists] + run_users,
        "union": truth_users + run_users,
    }[users]

    per_user: dict[Any, dict[str, float]] = {}
    for u in evaluated:
        tr = t.get(u, {})
        orders = _orders(lists.get(u, []), ties)
        judged_orders = [_judge(o, tr, duplicates, unjudged) for o in orders]
        vals = {}
        for spec in specs:
            thr = threshold(spec)
            if not any(r >= thr for r in tr.values()):
                if empty_truth == "error":
                    raise ValueError("empty truth")
                if empty_truth != "zero":
                    vals[spec.key] = math.nan
                    continue
                if spec.name == "first_hit_rank":
                    vals[spec.key] = math.nan  # no hit, hence no rank
                    continue
                if spec.name not in ("num_ret", "num_rel", "hits", "judged"):  # counts
                    vals[spec.key] = 0.0
                    continue
            if ties == "average" and spec.name in NOT_AVERAGED:
                raise ValueError("not averaged")
            vs = [metric_value(spec, rels, judged, list(tr.values()), max_rel)
                  for rels, judged in judged_orders]
            vals[spec.key] = sum(vs) / len(vs)
        per_user[u] = vals

    summary = {}
    for spec in specs:
        thr = threshold(spec)
        has_rel = [any(r >= thr for r in t.get(u, {}).values()) for u in evaluated]
        if empty_truth == "skip":
            users_in = [u for u, ok in zip(evaluated, has_rel, strict=True) if ok]
        else:
            users_in = list(evaluated)
        if spec.name == "percentile_rank" and spec.get("average") == "items":
            num = sum(per_user[u][spec.key] * sum(1 for r in t.get(u, {}).values() if r >= thr)
                      for u in users_in if not math.isnan(per_user[u][spec.key]))
            den = sum(sum(1 for r in t.get(u, {}).values() if r >= thr) for u in users_in)
            summary[spec.key] = num / den if den > 0 else math.nan
            if empty_truth == "nan" and not all(has_rel):
                summary[spec.key] = math.nan
            continue
        if spec.name == "hit_rate" and spec.get("level") != "user":
            num = den = 0.0
            for u in users_in:
                tr = t.get(u, {})
                judged_orders = [_judge(o, tr, duplicates, unjudged)
                                 for o in _orders(lists.get(u, []), ties)]
                n_list = len(judged_orders[0][0])
                kk = spec.k if spec.k is not None else n_list
                hs = [sum(1 for r in rels[:kk] if r >= thr) for rels, _ in judged_orders]
                num += sum(hs) / len(hs)
                if spec.get("level") == "recommended":
                    den += min(kk, n_list)
                else:
                    den += sum(1 for r in tr.values() if r >= thr)
            summary[spec.key] = num / den if den > 0 else math.nan
            if empty_truth == "nan" and not all(has_rel):
                summary[spec.key] = math.nan
            continue
        vals = [per_user[u][spec.key] for u in users_in]
        if spec.name == "first_hit_rank":
            vals = [v for v in vals if not math.isnan(v)]
        if spec.name in ("pauc", "pap"):  # insufficient=exclude: no value, left out
            vals = [v for u, v in zip(users_in, vals, strict=True)
                    if not (math.isnan(v) and any(r >= thr for r in t.get(u, {}).values()))]
        summary[spec.key] = sum(vals) / len(vals) if vals else math.nan
    return per_user, summary


# --------------------------------------------------------------------------------------------
# random cases
# --------------------------------------------------------------------------------------------

ID_KINDS = ("int", "str", "unicode")


def make_ids(kind: str, n: int) -> list[Any]:
    """n distinct ids of one kind; their sorted order differs from their creation order."""
    if kind == "int":
        return [int(x) for x in (np.arange(n) * 7919 % 1009 + 3)]
    if kind == "str":
        return [f"d{(j * 37) % 101:03d}" for j in range(n)]
    return [f"ü{chr(0x4E00 + (j * 13) % 97)}é{j}" for j in range(n)]


def random_case(rng: np.random.Generator, *, n_users: int = 6, max_list: int = 8,
                max_truth: int = 6, n_items: int = 14, graded: bool = True,
                tie_levels: int | None = 3, id_kind: str = "str",
                negative: bool = False) -> tuple[list[tuple], list[tuple]]:
    """Random run and truth rows: short and empty lists, users missing from either side,
    tied scores (``tie_levels`` distinct values, or continuous when None), graded relevance."""
    users = make_ids(id_kind, n_users + 2)
    items = make_ids(id_kind, n_items)
    run, truth = [], []
    for j, u in enumerate(users):
        in_run = j != n_users  # user n_users: truth only
        in_truth = j != n_users + 1  # last user: run only
        if in_run:
            m = int(rng.integers(0, max_list + 1))
            chosen = rng.choice(n_items, size=min(m, n_items), replace=False)
            for c in chosen:
                if tie_levels:
                    s = float(rng.integers(0, tie_levels)) / 2
                else:
                    s = float(rng.normal())
                run.append((u, items[c], s))
        if in_truth:
            m = int(rng.integers(0, max_truth + 1))
            chosen = rng.choice(n_items, size=min(m, n_items), replace=False)
            for c in chosen:
                if graded:
                    r = float(rng.integers(-1 if negative else 0, 4))
                else:
                    r = float(rng.integers(0, 2))
                truth.append((u, items[c], r))
    return run, truth


def to_frame(rows: list[tuple], value: str):
    import pandas as pd

    return pd.DataFrame({
        "user": pd.Series([r[0] for r in rows], dtype=object),
        "item": pd.Series([r[1] for r in rows], dtype=object),
        value: np.array([r[2] for r in rows], dtype=np.float64),
    })
