"""Comparing a run with a second run user by user: both lists ordered by the engine's packing.

The run-comparison metrics (``overlap``, ``rbo``, ``kendall_tau``, ``unexpectedness``) compare
each evaluated user's list with the same user's list in a second run, the ``baseline_run=``
option of :func:`receval.evaluate`. The second run is read with
:func:`receval.io.frames.read_columns` and packed by :func:`receval.pack.pack_run` with the
evaluation's policies (score descending, ties broken on the raw item id, duplicates and NaN
scores as the policies say), so both lists are ordered exactly as the engine orders any run.

:func:`run_overlap` compares two runs directly, without a truth: every user of either run (or of
both, ``users="intersection"``), one :class:`~receval.EvalResult` with per-user values, summaries
and the counts of users missing from either run.

>>> import receval as rv
>>> run_a = {"u1": {"a": 3, "b": 2, "c": 1}, "u2": {"a": 1}}
>>> run_b = {"u1": {"b": 3, "d": 2, "a": 1}}
>>> res = rv.run_overlap(run_a, run_b, ["overlap@3", "rbo@3(p=0.9)", "kendall_tau@3"])
>>> res.per_user["overlap@3"].tolist()   # u1: {a, b} of {a, b, c, d}; u2: nothing shared
[0.5, 0.0]
>>> res.summary["kendall_tau@3"], res.counts["missing_from_b"]
(-1.0, 1)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._version import __version__
from ..engines.aggregate import IN, NO_VALUE, MetricState
from ..engines.plugins import Context, MetricValues
from ..errors import InputError, PolicyError, plain
from ..io.frames import read_columns
from ..metrics import MetricSpec, parse_metrics
from ..metrics.spec import Param, register
from ..metrics.steps import Steps, UserList
from ..pack import Packed, RunCodes, TruthPack, pack_run, run_codes
from ..pack.positions import rank_view
from ..pack.vocab import kind_of, lookup
from ..policies import Policies
from ..results import EvalResult
from . import listpairs
from ._context import beyond_metric, undefined_info
from ._lists import cut

OPTION = "baseline_run"


def users_only(user_ids: np.ndarray) -> TruthPack:
    """A truth that names users and holds no item: packing a run against it orders the lists of
    exactly these users (in this order; users without rows get empty lists)."""
    none = np.zeros(0, dtype=np.int64)
    return TruthPack(users=np.asarray(user_ids),
                     indptr=np.zeros(len(user_ids) + 1, dtype=np.int64), rel=np.zeros(0),
                     rel_desc=np.zeros(0), n_rows=0, max_rel=0.0, vocab=none, codes=none)


def _cache(context: Context) -> dict:
    return context.__dict__.setdefault("_beyond_cache", {})


def _codes(raw: Any, context: Context) -> RunCodes:
    if isinstance(raw, RunCodes):
        return raw
    cache = _cache(context)
    entry = cache.get("baseline_codes")
    if entry is None or entry[0] is not raw:
        try:
            codes = run_codes(read_columns(raw, role="run"))
        except InputError as exc:
            raise InputError(f"{OPTION}: {exc}") from None
        entry = (raw, codes)
        cache["baseline_codes"] = entry
    return entry[1]


def baseline_packed(packed: Packed, context: Context, key: str) -> Packed:
    """The baseline run packed for the users of ``packed`` (same order), whole lists."""
    raw = context.options.get(OPTION)
    if raw is None:
        raise InputError(
            f"{key} compares each list with a second run: pass it as {OPTION}=..., e.g. "
            f"rv.evaluate(run, truth, [{plain(key)}], {OPTION}=other_run), or compare two runs "
            "directly with rv.run_overlap(run_a, run_b, metrics)."
        )
    cache = _cache(context)
    entry = cache.get("baseline_packed")
    if entry is None or entry[0] is not raw or entry[1] is not packed.user_ids:
        codes = _codes(raw, context)
        policies = context.policies if isinstance(context.policies, Policies) else Policies()
        policies = dataclasses.replace(policies, users="truth")
        pb = pack_run(codes, users_only(packed.user_ids), policies, depth=0, keep_items=True,
                      keep_scores=True)
        entry = (raw, packed.user_ids, pb)
        cache["baseline_packed"] = entry
    return entry[2]


def paired_lists(spec: MetricSpec, packed: Packed, context: Context
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Packed]:
    """Top-k lists of the run and of the baseline for the users of ``packed``, as CSR arrays
    over one item vocabulary: ``(indptr_a, items_a, indptr_b, items_b, baseline packed)``."""
    pb = baseline_packed(packed, context, spec.key)
    if pb.absolute_ranks:  # ranks="position": the baseline's rows with rank <= k, as the run's
        pb = rank_view(pb, spec.k)
    k = None if packed.absolute_ranks else spec.k  # rank_view: the rows with rank <= k
    ia, pos_a = cut(packed.indptr, k)
    ib, pos_b = cut(pb.indptr, None if pb.absolute_ranks else spec.k)
    items_a = packed.items[pos_a].astype(np.int64)
    code = lookup(pb.item_vocab, packed.item_vocab)
    new = code < 0
    if len(code) and new.all() and len(packed.item_vocab) and \
            kind_of(pb.item_vocab) != kind_of(packed.item_vocab):
        raise InputError(
            f"{spec.key}: the run's item ids are {kind_of(packed.item_vocab)} but the "
            f"{OPTION}'s are {kind_of(pb.item_vocab)}, and none match; use one id type, e.g. "
            "df['item'] = df['item'].astype(str)."
        )
    code[new] = len(packed.item_vocab) + np.arange(int(new.sum()))
    items_b = code[pb.items[pos_b]]
    return ia, items_a, ib, items_b, pb


def run_overlap(run_a: Any, run_b: Any, metrics: Sequence[Any] | str = (
        "overlap@10", "rbo@10", "kendall_tau@10"), *, users: str = "union", ties: str = "id",
        duplicates: str = "error", nan_scores: str = "error", name: str | None = None,
        user_col: str | None = None, item_col: str | None = None,
        score_col: str | None = None, rank_col: str | None = None) -> EvalResult:
    """Compare two runs list by list: per-user agreement of ``run_a`` with ``run_b``.

    Parameters
    ----------
    run_a, run_b : runs in any container :func:`receval.evaluate` accepts.
    metrics : run-comparison metric keys: ``overlap@k`` (Jaccard of the top-k sets),
        ``rbo@k(p=0.9)`` (rank-biased overlap, extrapolated; ``form=sum`` for the prefix sum),
        ``kendall_tau@k`` (``over=intersection | union``), ``unexpectedness@k`` (RePlay).
    users : ``"union"`` (default: every user with rows in either run; a user missing from one
        run is compared with an empty list) or ``"intersection"`` (users with rows in both).
    ties, duplicates, nan_scores : the packing policies of :func:`receval.evaluate`, applied to
        both runs (``ties="average"`` has no single order and is refused).

    Returns
    -------
    EvalResult: per-user values (``per_user``), summaries (mean over users with a value),
    and ``counts``: ``users`` compared, ``users_a`` / ``users_b`` (with rows in each run),
    ``missing_from_a`` / ``missing_from_b`` (users of the other run only; with
    ``users="intersection"`` they are left out), ``undefined`` per metric in ``info``.
    """
    if users not in ("union", "intersection"):
        raise PolicyError(f"users={plain(users)} is not valid; choose 'union' or 'intersection'.")
    if ties == "average":
        raise PolicyError("run_overlap compares orders: ties='average' has no single order; use "
                          "ties='id' (default) or 'trec_eval'.")
    t0 = time.perf_counter()
    specs = parse_metrics([metrics] if isinstance(metrics, str) else list(metrics))
    bad = [s.key for s in specs if OPTION not in s.definition.needs]
    if bad:
        from ..metrics import REGISTRY

        valid = sorted(n for n, d in REGISTRY.items() if OPTION in d.needs)
        raise InputError(f"run_overlap compares two runs; {bad} do not (run-comparison "
                         f"metrics: {valid}). Evaluate accuracy metrics with rv.evaluate.")
    policies = Policies(ties=ties, users="truth", duplicates=duplicates, nan_scores=nan_scores)
    cols = {"user_col": user_col, "item_col": item_col, "score_col": score_col,
            "rank_col": rank_col}
    codes = []
    for label, run in (("run_a", run_a), ("run_b", run_b)):
        try:
            codes.append(run_codes(read_columns(run, role="run", **cols)))
        except InputError as exc:
            raise InputError(f"{label}: {exc}") from None
    ca, cb = codes
    if len(ca.users) and len(cb.users) and kind_of(ca.users) != kind_of(cb.users) and \
            (lookup(cb.users[:1000], ca.users) < 0).all():
        raise InputError(
            f"run_a's user ids are {kind_of(ca.users)} but run_b's are {kind_of(cb.users)}, and "
            "none match; use one id type, e.g. df['user'] = df['user'].astype(str)."
        )
    in_b = lookup(ca.users, cb.users) >= 0
    in_a = lookup(cb.users, ca.users) >= 0
    if users == "union":  # run_a's users as first seen, then run_b's other users
        same = ca.users.dtype == cb.users.dtype
        user_ids = np.concatenate([ca.users if same else ca.users.astype(object),
                                   cb.users[~in_a] if same else cb.users[~in_a].astype(object)])
    else:
        user_ids = ca.users[in_b]
    packed = pack_run(ca, users_only(user_ids), policies, depth=0, keep_items=True,
                      keep_scores=True)
    context = Context(options={OPTION: cb}, policies=policies)
    values = np.empty((len(packed.user_ids), len(specs)))
    stats, info = [], {}
    for j, s in enumerate(specs):
        mv = s.definition.compute(s, packed, context)
        col = mv.per_user
        values[:, j] = col
        status = np.where(np.isnan(col), NO_VALUE, IN).astype(np.int8)
        stats.append(MetricState.of(col, status).summary(s.key, None, s.summary))
        info[s.key] = {**mv.info, "undefined_users": int(np.isnan(col).sum())}
    pb = baseline_packed(packed, context, specs[0].key) if specs else None
    n_a = int(packed.in_run.sum())
    n_b = int(pb.in_run.sum()) if pb is not None else int(in_a.sum())
    counts = {
        "users": int(len(packed.user_ids)),
        "users_a": int(len(ca.users)), "users_b": int(len(cb.users)),
        "users_both": int(in_b.sum()),
        "missing_from_a": int(len(packed.user_ids) - n_a),
        "missing_from_b": int(len(packed.user_ids) - n_b),
        "left_out_a_only": int((~in_b).sum()) if users == "intersection" else 0,
        "left_out_b_only": int((~in_a).sum()) if users == "intersection" else 0,
        "run_rows_a": int(len(ca.user_codes)), "run_rows_b": int(len(cb.user_codes)),
        "evaluated": int(len(packed.user_ids)),
    }
    for label, p in (("a", packed), ("b", pb)):
        if p is not None:
            counts[f"duplicates_removed_{label}"] = int(p.counts.get("duplicates_removed", 0))
            counts[f"dropped_nan_scores_{label}"] = int(p.counts.get("dropped_nan_scores", 0))
    pol = {**policies.to_dict(), "users": users}
    return EvalResult(metrics=[s.key for s in specs], user_ids=packed.user_ids, values=values,
                      stats=stats, counts=counts, policies=pol, info=info, name=name,
                      provenance={"receval": __version__, "seconds": time.perf_counter() - t0,
                                  "compared": "run_overlap(run_a, run_b)"})

# -------------------------------------------------------------------------------------------------
# Overlap, RBO, Kendall tau and unexpectedness of two runs:
# plugin metrics of receval.evaluate over the packed lists, registered on import.

def _baseline_info(values: np.ndarray, pb: Packed) -> dict:
    return {**undefined_info(values), "users_without_baseline_list": int((~pb.in_run).sum())}


def _overlap(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    values = listpairs.overlap(ia, a, ib, b)
    return MetricValues(values, info=_baseline_info(values, pb))


def _rbo(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    values = listpairs.rbo(ia, a, ib, b, p=float(spec.get("p")), form=spec.get("form"))
    return MetricValues(values, info=_baseline_info(values, pb))


def _kendall_tau(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    values = listpairs.kendall_tau(ia, a, ib, b, over=spec.get("over"))
    return MetricValues(values, info=_baseline_info(values, pb))


def _unexpectedness(spec: MetricSpec, packed: Packed, context: Context) -> MetricValues:
    ia, a, ib, b, pb = paired_lists(spec, packed, context)
    lens = np.diff(ia).astype(np.float64)
    denom = lens if spec.k is None else np.full(len(lens), float(spec.k))
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(lens > 0, 1.0 - listpairs.shared(ia, a, ib, b) / denom, np.nan)
    return MetricValues(values, info=_baseline_info(values, pb))


# Each metric's step-by-step display over one user's two lists (``explain=``, see
# receval.metrics.steps): the shared items X_d of the first d positions, then the formula.

def _pair_table(spec: MetricSpec, user: UserList) -> tuple[Steps, list, list, list[int]]:
    """The two top-k lists side by side with the shared items ``X_d`` and ``X_d / d``."""
    k = spec.k
    a = user.items[:k] if k is not None else list(user.items)
    base = user.baseline or []
    b = base[:k] if k is not None else list(base)
    x: list[int] = []
    rows: list[list[Any]] = []
    for d in range(1, max(len(a), len(b)) + 1):
        x.append(len(set(a[:d]) & set(b[:d])))
        rows.append([d, a[d - 1] if d <= len(a) else "", b[d - 1] if d <= len(b) else "",
                     x[-1], x[-1] / d])
    table = Steps(["rank", "item", "baseline item", "shared X_d", "agreement X_d/d"], rows, [],
                  float("nan"))
    return table, a, b, x


def _overlap_steps(spec: MetricSpec, user: UserList) -> Steps:
    t, a, b, _ = _pair_table(spec, user)
    shared, union = len(set(a) & set(b)), len(set(a) | set(b))
    t.steps += [f"|A & B| = {shared}, |A | B| = {union}", f"overlap = {shared} / {union}"]
    t.value = shared / union if union else float("nan")
    return t


def _unexpectedness_steps(spec: MetricSpec, user: UserList) -> Steps:
    t, a, b, _ = _pair_table(spec, user)
    shared = len(set(a) & set(b))
    den = spec.k if spec.k is not None else len(a)
    t.steps.append(f"unexpectedness = 1 - {shared} / {den}" if a else "empty list: no value")
    t.value = 1.0 - shared / den if a else float("nan")
    return t


def _rbo_steps(spec: MetricSpec, user: UserList) -> Steps | None:
    t, a, b, x = _pair_table(spec, user)
    p, form = float(spec.get("p")), spec.get("form")
    s_len, l_len = min(len(a), len(b)), max(len(a), len(b))
    if not a and not b:
        t.steps.append("both lists are empty: no value")
    elif not s_len:
        t.value = 0.0
        t.steps.append("one list is empty: 0")
    elif form == "sum":
        t.value = sum((1 - p) * p ** (d - 1) * x[d - 1] / d for d in range(1, s_len + 1))
        t.steps.append(f"sum_(d=1..{s_len}) (1-p) p^(d-1) X_d/d with p = {p:g}")
    elif form == "ext":
        xs, xl = x[s_len - 1], x[l_len - 1]
        body = sum(x[d - 1] / d * p**d for d in range(1, l_len + 1))
        body += sum(xs * (d - s_len) / (s_len * d) * p**d for d in range(s_len + 1, l_len + 1))
        t.value = (1 - p) / p * body + ((xl - xs) / l_len + xs / s_len) * p**l_len
        t.steps += [f"s = {s_len}, l = {l_len}, X_s = {xs}, X_l = {xl}, p = {p:g}",
                    "RBO_ext = (1-p)/p [sum_(d<=l) X_d/d p^d + sum_(s<d<=l) X_s (d-s)/(s d) "
                    "p^d] + [(X_l - X_s)/l + X_s/s] p^l"]
    else:
        return None
    return t


def _kendall_tau_steps(spec: MetricSpec, user: UserList) -> Steps | None:
    t, a, b, _ = _pair_table(spec, user)
    over = spec.get("over")
    if over == "union":
        items = list(dict.fromkeys(a + b))
    elif over == "intersection":
        items = [it for it in a if it in set(b)]
    else:
        return None
    # an item missing from a list of length L sits at L + 1, tied with the other missing items
    pa = {it: a.index(it) + 1 if it in a else len(a) + 1 for it in items}
    pb = {it: b.index(it) + 1 if it in b else len(b) + 1 for it in items}
    both = den_a = den_b = 0
    for i, first in enumerate(items):
        for second in items[i + 1:]:
            sx = (pa[second] > pa[first]) - (pa[second] < pa[first])
            sy = (pb[second] > pb[first]) - (pb[second] < pb[first])
            both += sx * sy
            den_a += abs(sx)
            den_b += abs(sy)
    t.steps += [f"items compared ({over}): {len(items)}",
                f"concordant - discordant = {both}; pairs ordered by each list: {den_a}, {den_b}"]
    t.value = both / math.sqrt(den_a * den_b) if den_a and den_b else float("nan")
    return t


_RUNS_DOC = (" Compares each evaluated user's top-k list with the same user's list in a second "
             "run, baseline_run=... (rv.evaluate(run, truth, [key], baseline_run=other)), or "
             "two runs directly with rv.run_overlap(run_a, run_b, [key]); both lists are ordered "
             "by the engine's packing (score descending, ties on the raw item id).")


register(beyond_metric(
    "overlap", "Overlap@k of two runs (Jaccard)", "|A_k & B_k| / |A_k | B_k|",
    "Jaccard overlap of the top-k item sets of two runs for the same user; NaN when both "
    "lists are empty; 0 when one is." + _RUNS_DOC,
    _overlap, explain=_overlap_steps,
    needs=(OPTION,), reference="Jaccard 1901; Webber et al., ACM TOIS 2010 (sec. 2)",
    example="A = [a, b, c], B = [b, d, a]: |{a, b}| / |{a, b, c, d}| = 2/4",
), ("jaccard_overlap", "run_overlap"))


register(beyond_metric(
    "rbo", "Rank-biased overlap@k of two runs",
    "ext: (1-p)/p [sum_{d<=l} X_d/d p^d + sum_{s<d<=l} X_s (d-s)/(s d) p^d] + "
    "[(X_l - X_s)/l + X_s/s] p^l; sum: (1-p) sum_{d<=s} p^(d-1) X_d/d",
    "Rank-biased overlap (Webber, Moffat & Zobel 2010) of the two top-k lists: the agreement "
    "A_d = X_d / d of the first d items (X_d shared items; the shorter list, length s, counts "
    "whole beyond its end) weighted by p^(d-1). form=ext (default) is the extrapolated RBO_ext "
    "of their eq. 32 (eq. 30 for lists of equal length l = s): 1 for identical lists; form=sum "
    "is the prefix sum to depth s (eq. 7, a lower bound). p: persistence, the top d items carry "
    "1 - p^d of the weight (p = 0.9: the top 10 carry 65%). NaN when both lists are empty." +
    _RUNS_DOC,
    _rbo, (Param("p", 0.9, "persistence p in (0, 1): weight of depth d is (1-p) p^(d-1)",
                 kind=float, low=0.0, high=1.0, low_open=True, high_open=True),
           Param("form", "ext", "ext (extrapolated RBO_ext, eq. 32) | sum (prefix sum to the "
                 "shorter list's depth, eq. 7)", ("ext", "sum"))),
    explain=_rbo_steps,
    needs=(OPTION,), reference="Webber, Moffat & Zobel, ACM TOIS 28(4), 2010",
    example="A = [a, b], B = [b, a], p = 0.5: X = 0, 2; (0.5/0.5)(0 + 2/2 * 0.25) + 1 * 0.25 "
            "= 0.5",
), ("rank_biased_overlap",))


register(beyond_metric(
    "kendall_tau", "Kendall's tau@k between two runs",
    "tau_b = sum_{i<j} sx_ij sy_ij / sqrt(sum |sx_ij| sum |sy_ij|)",
    "Kendall's tau-b between the orders the two top-k lists give to the items compared "
    "(sx, sy: signs of the position differences of a pair in each list). over=intersection "
    "(default): items in both lists (no ties: tau-a). over=union: items of either list, an item "
    "missing from a list of length L placed at L + 1 (tied with the other missing items; Fagin, "
    "Kumar & Sivakumar 2003). NaN with fewer than 2 items or no ordered pair." + _RUNS_DOC,
    _kendall_tau, (Param("over", "intersection", "items compared: intersection | union",
                         ("intersection", "union")),),
    explain=_kendall_tau_steps,
    needs=(OPTION,), bounds=(-1.0, 1.0),
    reference="Kendall, Biometrika 1945; Fagin, Kumar & Sivakumar, SIAM J. Discrete Math. 2003",
    example="A = [a, b, c], B = [c, b, a]: 3 discordant pairs of 3: -1",
), ("kendall_tau_runs",))


register(beyond_metric(
    "unexpectedness", "Unexpectedness@k against a baseline run", "1 - |R_k & B_k| / k",
    "Share of the top-k recommendations that the baseline run does not recommend in its top k "
    "(RePlay Unexpectedness, replay/metrics/unexpectedness.py). Without a cutoff k is the list "
    "length. A user without a list has no value (RePlay gives 0); a user whose baseline list is "
    "empty gets 1 (RePlay gives 0)." + _RUNS_DOC,
    _unexpectedness, explain=_unexpectedness_steps,
    needs=(OPTION,),
    reference="Ge, Delgado-Battenfeld & Jannach, RecSys 2010; RePlay Unexpectedness",
    example="R = [3, 7, 10, 11], B = [2, 3, 7], k = 4: 1 - 2/4 = 0.5",
))
