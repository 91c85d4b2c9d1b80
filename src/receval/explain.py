"""Explain one metric value for one user, position by position.

:func:`explain` packs the user's rows exactly as :func:`receval.evaluate` does (same policies,
same order) and hands the user's list to the metric's own step-by-step rule, the ``explain``
hook of its :class:`~receval.metrics.MetricDef` (written beside its formula: see
:mod:`receval.metrics.steps`): each position's relevance, gain, discount, contribution and
running sum; the ideal list and its DCG for the DCG family; precision at each hit for AP; the
first hit for MRR. It reports the engine's value for the same packed rows beside it, so a
disagreement with another tool can be traced to a position or a convention. A metric without
a rule shows its list and the engine's value.

Example
-------
>>> run = {"alice": {"banana": 5, "pear": 4, "cherry": 3}}
>>> truth = {"alice": {"banana": 1, "cherry": 1, "apple": 1}}
>>> ex = explain("ndcg@3", run, truth, "alice")
>>> ex.value                      # (1 + 1/2) / (1 + 1/log2(3) + 1/2)
0.7039180890341347
>>> for step in ex.steps:
...     print(step)
gain = rel; discount = 1 / log2(rank + 1)
DCG@3 = 1.5
IDCG@3 = 2.1309297535714578
nDCG@3 = DCG@3 / IDCG@3 = 1.5 / 2.1309297535714578
>>> ex.agrees                     # receval.evaluate gives the same value
True
>>> text = ex.to_text()           # the tables, the steps and the check, as printed by the CLI
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError, PolicyError, plain
from .metrics.steps import POSITIVE, Positions, UserList, num, threshold
from .policies import POLICY_TABLE

_TIES_TEXT = POLICY_TABLE["ties"].explain


@dataclass
class Explanation:
    """The step-by-step computation of one metric for one user."""

    metric: str
    user: Any
    columns: list[str]
    rows: list[list[Any]]
    steps: list[str]
    value: float
    reference: float | None = None
    ideal_columns: list[str] = field(default_factory=list)
    ideal_rows: list[list[Any]] = field(default_factory=list)
    ideal_title: str = ""
    notes: list[str] = field(default_factory=list)
    computed: bool = True  # False: no step-by-step rule, the value is receval.evaluate's

    @property
    def agrees(self) -> bool:
        """True when receval.evaluate gives the same value (both NaN counts as the same)."""
        if self.reference is None:
            return False
        a, b = self.value, self.reference
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))

    def to_text(self, fmt: str = "table", digits: int = 4, width: int | None = None) -> str:
        """Readable text (``fmt``: table | markdown) of the tables, steps and the check;
        ``width`` fits the plain tables in that many characters (None: no limit)."""
        from .report.tables import render

        out = [f"{self.metric} for user {plain(self.user)}"]
        out += [f"  {n}" for n in self.notes]
        out.append("")
        out.append(render(self.columns, self.rows, fmt, digits=digits, width=width) if self.rows
                   else "(the user has no recommended items)")
        if self.ideal_columns:
            out += ["", self.ideal_title]
            out.append(render(self.ideal_columns, self.ideal_rows, fmt, digits=digits,
                              width=width)
                       if self.ideal_rows else "(empty ideal list)")
        out.append("")
        out += self.steps
        out.append(f"value            = {num(self.value)}")
        if self.reference is None:
            out.append("receval.evaluate = (user not evaluated under these policies)")
        elif self.agrees:
            out.append(f"receval.evaluate = {num(self.reference)} (agrees)")
        else:
            out.append(f"receval.evaluate = {num(self.reference)} (DIFFERS from the "
                       f"step-by-step value {num(self.value)})")
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        def clean(v: Any) -> Any:
            if hasattr(v, "item"):
                v = v.item()
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {
            "metric": self.metric, "user": clean(self.user), "columns": self.columns,
            "rows": [[clean(v) for v in r] for r in self.rows],
            "ideal_columns": self.ideal_columns,
            "ideal_rows": [[clean(v) for v in r] for r in self.ideal_rows],
            "steps": self.steps, "notes": self.notes, "value": clean(self.value),
            "reference": clean(self.reference) if self.reference is not None else None,
            "agrees": self.agrees,
        }


def _match_user(ids: np.ndarray, user: Any) -> np.ndarray:
    mask = ids == user
    if isinstance(mask, np.ndarray) and mask.any():
        return mask
    text = str(user)
    return np.array([str(u) == text for u in ids.tolist()], dtype=bool)


def explain(metric: str, run: Any, truth: Any, user: Any, *, user_col: str | None = None,
            item_col: str | None = None, score_col: str | None = None,
            rank_col: str | None = None, rel_col: str | None = None,
            truth_user_col: str | None = None, truth_item_col: str | None = None,
            ties: str = "id", train: Any = None, item_features: Any = None,
            catalog: Any = None, **policies: Any) -> Explanation:
    """Step-by-step computation of ``metric`` for ``user`` (see the module docstring).

    ``run`` and ``truth`` are any containers :func:`receval.evaluate` accepts; ``user`` is matched
    by value, or by its text (``"42"`` finds the integer id 42). Policies, the optional inputs
    (``train``, ``item_features``, ``catalog``) and options (``baseline_run``,
    ``propensities``, ...) are those of :func:`receval.evaluate`. A metric whose definition
    carries an ``explain`` hook shows its own steps (every metric of the ranking kernel; the
    run-comparison metrics show both lists); any other metric shows the user's list and
    receval's value. The engine's empty-truth rule is applied here, not by the hooks.
    """
    from .engines.plugins import OPTION_NAMES
    from .io.frames import column_values, read_columns
    from .metrics import canonical_key, parse_metric
    from .policies import Policies

    spec = parse_metric(canonical_key(metric) if isinstance(metric, str) else metric)
    options = {k: policies.pop(k) for k in list(policies) if k in OPTION_NAMES}
    pol = Policies.from_kwargs(ties=ties, **policies)
    rc = read_columns(run, role="run", user_col=user_col, item_col=item_col,
                      score_col=score_col, rank_col=rank_col)
    tc = read_columns(truth, role="truth", user_col=truth_user_col or user_col,
                      item_col=truth_item_col or item_col, rel_col=rel_col)
    if (pol.ranks == "position" and rc.value_kind == "rank") or pol.unretrieved == "bottom":
        shape = "unretrieved='bottom'" if pol.unretrieved == "bottom" else "ranks='position'"
        raise PolicyError(
            f"explain does not lay out lists under {shape}; result.per_user of rv.evaluate "
            "gives the user's value, or explain it under the default policies."
        )
    r_users, r_items = column_values(rc.user), column_values(rc.item)
    t_users, t_items = column_values(tc.user), column_values(tc.item)
    r_mask, t_mask = _match_user(r_users, user), _match_user(t_users, user)
    if not r_mask.any() and not t_mask.any():
        sample = ", ".join(repr(u) for u in list(dict.fromkeys(t_users.tolist()))[:5])
        raise InputError(
            f"user {plain(user)} is in neither the run nor the truth; truth users include {sample}."
        )
    uid = (r_users[r_mask][0] if r_mask.any() else t_users[t_mask][0])
    uid = uid.item() if hasattr(uid, "item") else uid
    t_rel_all = np.ones(len(t_users)) if tc.value is None else np.asarray(tc.value, np.float64)
    if not t_mask.any():
        raise InputError(
            f"user {plain(uid)} has no truth rows: no metric is defined for this user (it is counted "
            "in missing_from_truth and evaluated only with users='run' or 'union', as an empty "
            "truth)."
        )
    defn = spec.definition
    truth_max = max(float(np.max(t_rel_all)) if len(t_rel_all) else 0.0, 0.0)
    ref_spec = spec
    if defn.kernel is not None and any(p.name == "max_grade" for p in defn.params) \
            and spec.get("max_grade") is None:
        # the automatic scale is the whole truth's largest relevance, not this user's
        from .metrics import metric as make_metric

        ref_spec = make_metric(spec.name, spec.k, **dict(spec.params),
                               max_grade=max(truth_max, POSITIVE))

    # pack this user's rows exactly as rv.evaluate does: the same policies, the same order
    import pandas as pd

    from .engines.evaluator import Evaluator
    from .engines.local import evaluate_packed

    sub_run = pd.DataFrame({"user": pd.Series(r_users[r_mask], dtype=object),
                            "item": pd.Series(r_items[r_mask], dtype=object),
                            rc.value_kind: np.asarray(rc.value, np.float64)[r_mask]})
    sub_truth = pd.DataFrame({"user": pd.Series(t_users[t_mask], dtype=object),
                              "item": pd.Series(t_items[t_mask], dtype=object),
                              "relevance": t_rel_all[t_mask]})
    value_col = {"score_col": "score"} if rc.value_kind == "score" else {"rank_col": "rank"}
    ev = Evaluator(sub_truth, [ref_spec], user_col="user", item_col="item",
                   rel_col="relevance", train=train, item_features=item_features,
                   catalog=catalog, **pol.to_dict(), **options)
    packed = ev.pack(sub_run, user_col="user", item_col="item", **value_col)
    row = int(np.flatnonzero(packed.truth_index >= 0)[0])
    s, e = packed.indptr[row], packed.indptr[row + 1]
    pairs = list(zip(packed.item_vocab[packed.items[s:e]].tolist(),
                     packed.scores[s:e].tolist(), strict=True))
    t0, t1 = packed.t_indptr[row], packed.t_indptr[row + 1]
    truth_rel = dict(zip(packed.truth_item_vocab[packed.t_items[t0:t1]].tolist(),
                         packed.t_rel[t0:t1].tolist(), strict=True))

    notes = [f"order: {_TIES_TEXT[pol.ties]}"]
    if pol.duplicates == "keep" and len({it for it, _ in pairs}) < len(pairs):
        seen: set = set()
        marked = []
        for it, sc in pairs:  # a later occurrence scores as an item without a truth row
            marked.append((f"{it} (repeated)" if it in seen else it, sc))
            seen.add(it)
        pairs = marked
        notes.append("duplicates='keep': a repeated item's later occurrences keep their "
                     "places and count as items without a truth row")
    if pol.unjudged == "remove":  # condensed list, as evaluate_packed scores it
        dropped = sum(1 for it, _ in pairs if it not in truth_rel)
        pairs = [(it, s) for it, s in pairs if it in truth_rel]
        notes.append(f"unjudged='remove': {dropped} item(s) without a truth row removed "
                     "before scoring (condensed list)")
    baseline = None
    if defn.needs and _compares_runs(defn):  # the list beside a baseline run's list
        from .beyond.runs import baseline_packed

        pb = baseline_packed(packed, ev.context, spec.key)
        baseline = pb.item_vocab[pb.items[pb.indptr[row]:pb.indptr[row + 1]]].tolist()
        notes.append("the second list is the baseline_run's list of this user, ordered the "
                     "same way")
    listed = UserList([it for it, _ in pairs], [sc for _, sc in pairs], truth_rel, truth_max,
                      baseline)
    # the library's number for the same packed rows
    reference = float(evaluate_packed(packed, ev.plan, ev.context).values[row, 0])
    worked = defn.explain(spec, listed) if defn.explain is not None else None
    if worked is None:
        table = Positions(spec, listed)
        notes.append(f"no step-by-step rule for {spec.key}; the value is receval.evaluate's.")
        return Explanation(spec.key, uid, table.columns, table.rows, [], reference, reference,
                           notes=notes, computed=False)
    value = worked.value
    if defn.kernel is not None and not any(r >= threshold(spec) for r in truth_rel.values()):
        value = _empty_truth(defn.kernel, pol.empty_truth, value, worked.steps)
    return Explanation(spec.key, uid, worked.columns, worked.rows, worked.steps, value,
                       reference, worked.ideal_columns, worked.ideal_rows, worked.ideal_title,
                       notes + worked.notes)


def _compares_runs(defn: Any) -> bool:
    """Whether the metric compares each list with the baseline run's list of the user."""
    from .beyond.runs import OPTION

    return OPTION in defn.needs


def _empty_truth(kernel: Any, rule: str, value: float, steps: list[str]) -> float:
    """The engine's value for a user without a relevant truth item (``empty_truth``)."""
    if rule == "zero" and kernel.count:
        steps.append("no relevant truth item: a count keeps its value (empty_truth='zero')")
        return value
    if rule == "zero" and not kernel.undefined_without_hit:
        steps.append("no relevant truth item: the value is 0 (empty_truth='zero')")
        return 0.0
    if rule == "zero":
        steps.append("no relevant truth item: no hit, so no value")
    elif rule == "nan":
        steps.append("no relevant truth item: the value is NaN (empty_truth='nan')")
    else:
        steps.append("no relevant truth item: the user is skipped (empty_truth='skip')")
    return float("nan")
