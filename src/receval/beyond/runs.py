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
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._version import __version__
from ..engines.aggregate import IN, NO_VALUE, MetricState
from ..engines.plugins import Context
from ..errors import InputError, PolicyError
from ..io.frames import read_columns
from ..metrics import MetricSpec, parse_metrics
from ..pack import Packed, RunCodes, TruthPack, pack_run, run_codes
from ..pack.positions import rank_view
from ..pack.vocab import kind_of, lookup
from ..policies import Policies
from ..results import EvalResult
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
            f"rv.evaluate(run, truth, [{key!r}], {OPTION}=other_run), or compare two runs "
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
    ia, pos_a = cut(packed.indptr, spec.k)
    ib, pos_b = cut(pb.indptr, spec.k)
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
        raise PolicyError(f"users={users!r} is not valid; choose 'union' or 'intersection'.")
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
        stats.append(MetricState.of(col, status).summary(s.key))
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
