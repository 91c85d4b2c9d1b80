"""Explain one metric value for one user, position by position.

:func:`explain` packs the user's rows exactly as :func:`receval.evaluate` does (same policies,
same order), then recomputes the value with plain, readable Python: the user's ordered list,
each position's relevance, gain, discount, contribution and running sum; the ideal list and its
DCG for the DCG family; precision at each hit for AP; the first hit for MRR. It reports the
kernel's value for the same packed rows beside it, so a disagreement with another tool can be
traced to a position or a convention.

Example
-------
>>> run = {"alice": {"banana": 5, "pear": 4, "cherry": 3}}
>>> truth = {"alice": {"banana": 1, "cherry": 1, "apple": 1}}
>>> ex = explain("ndcg@3", run, truth, "alice")
>>> ex.value                      # (1 + 1/2) / (1 + 1/log2(3) + 1/2)
0.7039180890341347
>>> print(ex.to_text())           # the tables and the steps
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError, PolicyError, plain

POSITIVE = float(np.nextafter(0.0, 1.0))
_TIES_TEXT = {
    "id": "score descending, then item id ascending",
    "trec_eval": "score as a 32-bit float descending, then item id descending",
    "average": "score descending, then item id ascending (values under ties='average' are "
               "expectations over tie orders, so they may differ where scores tie)",
    "input": "score descending, then the order of the input rows",
}


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
        out.append(f"value            = {_num(self.value)}")
        if self.reference is None:
            out.append("receval.evaluate = (user not evaluated under these policies)")
        elif self.agrees:
            out.append(f"receval.evaluate = {_num(self.reference)} (agrees)")
        else:
            out.append(f"receval.evaluate = {_num(self.reference)} (DIFFERS from the "
                       f"step-by-step value {_num(self.value)})")
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


_DISCOUNT_TEXT = {"log2": "1 / log2(rank + 1)", "log2_max2": "1 / log2(max(rank, 2))",
                  "ln": "1 / ln(rank + 1)", "log10": "1 / log10(rank + 1)"}


def _discount(rank: int, kind: str) -> float:
    """The discount of a 1-based rank (the ``discount`` parameter of the DCG family)."""
    if kind == "log2_max2":
        return 1.0 / math.log2(max(rank, 2))
    if kind == "ln":
        return 1.0 / math.log(rank + 1)
    if kind == "log10":
        return 1.0 / math.log10(rank + 1)
    return 1.0 / math.log2(rank + 1)


def _num(v: float) -> str:
    return "nan" if v is None or (isinstance(v, float) and math.isnan(v)) else repr(float(v))


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
    ``propensities``, ...) are those of :func:`receval.evaluate`. The run-comparison metrics
    (overlap, rbo, kendall_tau, unexpectedness) show both lists and the computation; other
    metrics outside the ranking kernel show the user's list and receval's value.
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
    ref_spec = spec
    if spec.definition.kernel is not None and (spec.name == "err" or spec.name in _CWL_C) \
            and spec.get("max_grade") is None:  # default scale: the whole truth's maximum
        from .metrics import metric as make_metric

        grade = max(float(np.max(np.maximum(t_rel_all, 0.0))) if len(t_rel_all) else 0.0,
                    POSITIVE)
        ref_spec = make_metric(spec.name, spec.k, **dict(spec.params), max_grade=grade)

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
    if spec.name in _RUN_PAIR_METRICS:
        from .beyond.runs import baseline_packed

        pb = baseline_packed(packed, ev.context, spec.key)
        other = pb.item_vocab[pb.items[pb.indptr[row]:pb.indptr[row + 1]]].tolist()
        ex = _compare_lists(spec, [it for it, _ in pairs], other, notes)
    else:
        ex = _compute(spec, pairs, truth_rel, notes, t_rel_all)
    ex.user = uid
    thr = float(spec.get("rel")) if any(p.name == "rel" for p in spec.definition.params) \
        else POSITIVE
    if ex.computed and spec.name not in _RUN_PAIR_METRICS and \
            not any(r >= thr for r in truth_rel.values()):
        if pol.empty_truth == "zero":
            ex.value = 0.0
            ex.steps.append("no relevant truth item: the value is 0 (empty_truth='zero')")
        else:
            ex.value = float("nan")
    # the library's number for the same packed rows
    ex.reference = float(evaluate_packed(packed, ev.plan, ev.context).values[row, 0])
    if not ex.computed:
        ex.value = ex.reference
    return ex


def _inst(spec: Any, rank: int, g: float, cum: float, depth: int) -> float:
    T = float(spec.get("T"))
    y = rank + T + (T - cum)
    return ((y - 1) / y) ** 2


def _insq(spec: Any, rank: int, g: float, cum: float, depth: int) -> float:
    y = rank + 2 * float(spec.get("T"))
    return ((y - 1) / y) ** 2


# continuation probability C(i) of each C/W/L model: (spec, rank, gain, cumulative gain, depth)
_CWL_C = {
    "cwl_rbp": lambda s, i, g, cum, d: float(s.get("phi")),
    "inst": _inst,
    "insq": _insq,
    "sdcg": lambda s, i, g, cum, d: math.log(i + 1) / math.log(i + 2) if i < d else 0.0,
    "bpm": lambda s, i, g, cum, d: 1.0 if cum < float(s.get("T")) and i < d else 0.0,
    "nerr_eq8": lambda s, i, g, cum, d: 1.0 - g if i < d else 0.0,
    "nerr_eq9": lambda s, i, g, cum, d: (i / (i + 1)) * (1.0 - g) if i < d else 0.0,
    "nerr_eq10": lambda s, i, g, cum, d: float(s.get("phi")) * (1.0 - g),
    "nerr_eq11": lambda s, i, g, cum, d: _insq(s, i, g, cum, d) * (1.0 - g),
}


def _compute(spec: Any, pairs: list[tuple[Any, float]], truth_rel: dict[Any, float],
             notes: list[str], all_truth_rel: np.ndarray) -> Explanation:
    name, k = spec.name, spec.k
    defn = spec.definition
    has_rel = any(p.name == "rel" for p in defn.params)
    thr = float(spec.get("rel")) if has_rel else POSITIVE
    L = len(pairs)
    K = k if k is not None else L
    shown = pairs[:K] if name not in ("bpref", "r_precision", "num_rel") else pairs
    rels = [truth_rel.get(it, 0.0) for it, _ in shown]
    b = [1 if (it in truth_rel and truth_rel[it] >= thr) else 0 for it, _ in shown]
    R = sum(1 for r in truth_rel.values() if r >= thr)
    at = f"@{k}" if k is not None else ""
    key = spec.key
    cols = ["rank", "item", "score", "relevance", "relevant", "hits"]
    rows: list[list[Any]] = []
    h = 0
    for i, ((it, s), r, bi) in enumerate(zip(shown, rels, b, strict=True), start=1):
        h += bi
        rows.append([i, it, float(s), (r if it in truth_rel else "-"), "yes" if bi else "",
                     h])
    hk = h if name not in ("bpref", "r_precision") else None
    steps: list[str] = []
    if has_rel:
        steps.append(f"R (truth items with relevance >= {thr:g}) = {R}")
    value = float("nan")
    ex = Explanation(key, None, cols, rows, steps, value, notes=notes)
    if name in ("precision", "recall", "hits", "hit_rate", "f1", "fbeta", "num_ret"):
        steps.append(f"h{at} (relevant in the top {K}) = {hk}")
        if name == "precision":
            den_kind = spec.get("denominator")
            den = {"k": K, "list": min(K, L), "min_k_rel": min(K, R)}[den_kind]
            steps.append(f"denominator ({den_kind}) = {den}")
            value = hk / den if den else 0.0
            steps.append(f"precision{at} = {hk} / {den}")
        elif name == "recall":
            den = R if spec.get("denominator") == "rel" else min(K, R)
            value = hk / den if den else float("nan")
            steps.append(f"recall{at} = {hk} / {den}")
        elif name == "hits":
            value = float(hk)
        elif name == "num_ret":
            value = float(min(K, L))
            steps.append(f"num_ret{at} = min({K}, {L})")
        elif name == "hit_rate":
            level = spec.get("level")
            if level == "user":
                value = 1.0 if hk > 0 else 0.0
                steps.append(f"hit_rate{at} = [h > 0] (the summary is the share of users)")
            elif level == "recommended":
                den = min(K, L)
                value = hk / den if den else 0.0
                steps.append(f"this user's ratio = {hk} / {den}; the summary is the micro "
                             "average sum(h) / sum(min(k, L)) over users")
            else:
                value = hk / R if R else float("nan")
                steps.append(f"this user's ratio = {hk} / {R}; the summary is the micro average "
                             "sum(h) / sum(R) over users")
        else:
            beta = 1.0 if name == "f1" else float(spec.get("beta"))
            den = beta * beta * R + K
            value = (1 + beta * beta) * hk / den if den else 0.0
            steps.append(f"{name}{at} = (1 + {beta:g}^2) * {hk} / ({beta:g}^2 * {R} + {K})")
        if R == 0 and name != "num_ret":
            value = float("nan")
            steps.append("no relevant truth item: the user is skipped (empty_truth='skip')")
    elif name in ("mrr", "first_hit_rank"):
        first = next((i for i, bi in enumerate(b, start=1) if bi), None)
        for row, bi in zip(rows, b, strict=True):
            row.append("first hit" if bi and row[0] == first else "")
        cols.append("note")
        if first is None:
            steps.append(f"no relevant item in the top {K}")
            value = 0.0 if name == "mrr" else float("nan")
        else:
            steps.append(f"first relevant item at rank {first}")
            value = 1.0 / first if name == "mrr" else float(first)
            if name == "mrr":
                steps.append(f"RR{at} = 1 / {first}")
        if R == 0:
            value = float("nan")
            steps.append("no relevant truth item: the user is skipped (empty_truth='skip')")
    elif name in ("map", "mar"):
        if name == "map":
            cols.append("P@i at hits")
            total = 0.0
            for row, bi in zip(rows, b, strict=True):
                p = row[5] / row[0] if bi else None
                row.append(p if bi else "")
                total += p or 0.0
            den_kind = spec.get("denominator")
            den = {"rel": R, "min_k_rel": min(K, R), "hits": hk, "k": K}[den_kind]
            steps.append(f"sum of P@i over the hits = {_num(total)}")
            steps.append(f"denominator ({den_kind}) = {den}")
            value = total / den if den else 0.0
            steps.append(f"AP{at} = {_num(total)} / {den}")
        else:
            cols.append("recall@i")
            total = 0.0
            for row in rows:
                rec = row[5] / R if R else 0.0
                row.append(rec)
                total += rec
            if len(rows) < K:  # ranks past the end of a short list keep the last recall
                last = (rows[-1][5] if rows else 0) / R if R else 0.0
                total += (K - len(rows)) * last
                steps.append(f"ranks {len(rows) + 1}..{K} are past the end of the list: "
                             f"recall stays {_num(last)}")
            value = total / K if K else 0.0
            steps.append(f"AR{at} = (sum of recall@i, i = 1..{K}) / {K} = {_num(total)} / {K}")
        if R == 0:
            value = float("nan")
            steps.append("no relevant truth item: the user is skipped (empty_truth='skip')")
    elif name in ("cg", "dcg", "idcg", "ndcg"):
        gain_kind = spec.get("gain")
        disc = spec.get("discount") if name != "cg" else "log2"

        def gain(r: float) -> float:
            r = max(r, 0.0)
            if gain_kind == "binary":
                return 1.0 if r > 0 else 0.0
            return 2.0 ** r - 1.0 if gain_kind == "exp" else r

        cols += ["gain", "discount", "contribution", "running sum"]
        dcg = 0.0
        for row, r in zip(rows, rels, strict=True):
            g = gain(r)
            d = 1.0 if name == "cg" else _discount(row[0], disc)
            dcg += g * d
            row += [g, d, g * d, dcg]
        gtext = {"exp": "2^rel - 1", "binary": "[rel > 0]"}.get(gain_kind, "rel")
        steps.append(f"gain = {gtext}; discount = {_DISCOUNT_TEXT[disc]}")
        steps.append(f"{'CG' if name == 'cg' else 'DCG'}{at} = {_num(dcg)}")
        value = dcg
        if name in ("idcg", "ndcg"):
            ideal_kind = spec.get("ideal")
            if ideal_kind == "truth":
                ideal = sorted((r for r in truth_rel.values() if r > 0), reverse=True)
                ex.ideal_title = "ideal list: all of the user's truth relevances, descending"
            elif ideal_kind == "k":
                top_rel = max(truth_rel.values(), default=0.0)
                ideal = [top_rel] * K
                ex.ideal_title = "ideal list: every position holds the largest truth relevance"
            else:
                ideal = sorted((truth_rel.get(it, 0.0) for it, _ in pairs), reverse=True)
                ex.ideal_title = "ideal list: the relevances of the user's own items, descending"
            if k is not None:
                ideal = ideal[:k]
                ex.ideal_title += f", cut at {k}"
            ex.ideal_columns = ["rank", "relevance", "gain", "discount", "contribution",
                                "running sum"]
            idcg = 0.0
            for i, r in enumerate(ideal, start=1):
                g, d = gain(r), _discount(i, disc)
                idcg += g * d
                ex.ideal_rows.append([i, r, g, d, g * d, idcg])
            steps.append(f"IDCG{at} = {_num(idcg)}")
            if name == "idcg":
                value = idcg
            else:
                value = dcg / idcg if idcg > 0 else 0.0
                steps.append(f"nDCG{at} = DCG{at} / IDCG{at} = {_num(dcg)} / {_num(idcg)}")
                if not any(r > 0 for r in truth_rel.values()):
                    value = float("nan")
                    steps.append("no relevant truth item: the user is skipped "
                                 "(empty_truth='skip')")
    elif name == "r_precision":
        m = R if k is None else min(k, R)
        top = b[:m]
        den = R if spec.get("denominator") == "rel" else m
        steps.append(f"h (relevant in the top {m}) = {sum(top)}")
        value = sum(top) / den if den else float("nan")
        steps.append(f"R-precision{at} = {sum(top)} / {den}")
    elif name == "rbp":
        p = float(spec.get("p"))
        cols += ["weight (1-p) p^(i-1)", "contribution", "running sum"]
        total = 0.0
        for row, bi in zip(rows, b, strict=True):
            w = (1 - p) * p ** (row[0] - 1)
            total += w * bi
            row += [w, w * bi, total]
        value = total
        steps.append(f"RBP{at} (p = {p:g}) = {_num(total)}")
        if R == 0:
            value = float("nan")
    elif name == "err":
        grade = spec.get("max_grade")
        if grade is None:
            grade = max(float(np.max(all_truth_rel)) if len(all_truth_rel) else 0.0, POSITIVE)
            notes.append(f"max_grade = {grade:g} (the largest relevance in the whole truth)")
        cols += ["R_i", "P(reach i)", "contribution", "running sum"]
        reach, total = 1.0, 0.0
        for row, r in zip(rows, rels, strict=True):
            ri = (2.0 ** max(r, 0.0) - 1.0) / 2.0 ** grade
            c = reach * ri / row[0]
            total += c
            row += [ri, reach, c, total]
            reach *= 1 - ri
        value = total
        steps.append(f"ERR{at} = {_num(total)}")
        if not any(r > 0 for r in truth_rel.values()):
            value = float("nan")
    elif name == "bpref":
        N = sum(1 for r in truth_rel.values() if r < thr)
        cols += ["judged non-relevant above", "contribution"]
        nonrel, total = 0, 0.0
        for row, (it, _), bi in zip(rows, shown, b, strict=True):
            if it in truth_rel and not bi:
                nonrel += 1
                row += [nonrel, ""]
            elif bi:
                c = 1.0 - min(nonrel, R) / min(R, N) if nonrel > 0 else 1.0
                total += c
                row += [nonrel, c]
            else:
                row += ["", ""]
        steps.append(f"N (judged non-relevant truth items) = {N}")
        value = total / R if R else float("nan")
        steps.append(f"bpref = {_num(total)} / {R}")
    elif name == "num_rel":
        value = float(R)
    elif name == "judged":
        cols.append("judged")
        n_j = 0
        for row, (it, _) in zip(rows, shown, strict=True):
            n_j += it in truth_rel
            row.append("yes" if it in truth_rel else "")
        den = min(K, L)
        value = n_j / den if den else 0.0
        steps.append(f"judged in the top {den} = {n_j}; Judged{at} = {n_j} / {den}")
        if R == 0:
            value = float("nan")
    elif name == "ncrr":
        cols += ["1/rank at hits"]
        crr = 0.0
        for row, bi in zip(rows, b, strict=True):
            row.append(1.0 / row[0] if bi else "")
            crr += 1.0 / row[0] if bi else 0.0
        m = min(R, K, L)
        icrr = sum(1.0 / i for i in range(1, m + 1))
        steps.append(f"CRR{at} = {_num(crr)}; ideal CRR over min(R, k, L) = {m} hits = "
                     f"{_num(icrr)}")
        value = crr / icrr if icrr > 0 else 0.0
        steps.append(f"NCRR{at} = {_num(crr)} / {_num(icrr)}")
        if R == 0:
            value = float("nan")
    elif name in _CWL_C:
        grade = spec.get("max_grade")
        if grade is None:
            grade = max(float(np.max(all_truth_rel)) if len(all_truth_rel) else 0.0, POSITIVE)
            notes.append(f"max_grade = {grade:g} (the largest relevance in the whole truth)")
        depth = k if k is not None else 1000
        gains = [max(r, 0.0) / grade for r in rels[:depth]]
        gains += [0.0] * (depth - len(gains))
        cont = _CWL_C[name]
        cols += ["gain", "C(i)", "P(reach i)"]
        reach, total_p, eu, etu, etc_, cum = 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for i, g in enumerate(gains):
            if reach == 0.0:
                break
            cum += g
            c = cont(spec, i + 1, g, cum, depth)
            if i < len(rows):
                rows[i] += [g, c, reach]
            total_p += reach
            eu += reach * g
            etu += reach * (1 - c) * cum
            etc_ += reach * (1 - c) * (i + 1)
            reach *= c
        steps.append(f"gains g_i = relevance / {grade:g}; ranks past the list have gain 0, up to "
                     f"depth {depth}")
        steps.append(f"sum P(i) = expected depth ED = {_num(total_p)}")
        steps.append(f"EU = sum P(i) g_i / sum P(i) = {_num(eu)} / {_num(total_p)}")
        out = spec.get("output")
        value = {"eu": eu / total_p if total_p else 0.0, "etu": etu, "etc": etc_,
                 "ed": total_p}[out]
        if out != "eu":
            steps.append(f"output = {out}: ETU = {_num(etu)}, ETC = {_num(etc_)}")
        if not any(r > 0 for r in truth_rel.values()):
            value = float("nan")
    else:
        notes.append(f"no step-by-step rule for {name}; the value is receval.evaluate's.")
        ex.computed = False
        return ex
    ex.value = float(value)
    ex.columns = cols
    return ex


_RUN_PAIR_METRICS = ("overlap", "rbo", "kendall_tau", "unexpectedness")


def _compare_lists(spec: Any, mine: list[Any], other: list[Any], notes: list[str]
                   ) -> Explanation:
    """The run-comparison metrics from the two ordered lists, in plain Python."""
    name, k = spec.name, spec.k
    a = mine[:k] if k is not None else mine
    b = other[:k] if k is not None else other
    notes.append("the second list is the baseline_run's list of this user, ordered the same way")
    depth = max(len(a), len(b))
    cols = ["rank", "item", "baseline item", "shared X_d", "agreement X_d/d"]
    rows: list[list[Any]] = []
    x = []
    for d in range(1, depth + 1):
        x.append(len(set(a[:d]) & set(b[:d])))
        rows.append([d, a[d - 1] if d <= len(a) else "", b[d - 1] if d <= len(b) else "",
                     x[-1], x[-1] / d])
    steps: list[str] = []
    shared = len(set(a) & set(b))
    nan = float("nan")
    value = nan
    if name == "overlap":
        union = len(set(a) | set(b))
        steps.append(f"|A & B| = {shared}, |A | B| = {union}")
        value = shared / union if union else nan
        steps.append(f"overlap = {shared} / {union}")
    elif name == "unexpectedness":
        den = k if k is not None else len(a)
        value = 1.0 - shared / den if a else nan
        steps.append(f"unexpectedness = 1 - {shared} / {den}" if a else "empty list: no value")
    elif name == "rbo":
        p = float(spec.get("p"))
        s_len, l_len = min(len(a), len(b)), depth
        if not a and not b:
            steps.append("both lists are empty: no value")
        elif not s_len:
            value = 0.0
            steps.append("one list is empty: 0")
        elif spec.get("form") == "sum":
            value = sum((1 - p) * p ** (d - 1) * x[d - 1] / d for d in range(1, s_len + 1))
            steps.append(f"sum_(d=1..{s_len}) (1-p) p^(d-1) X_d/d with p = {p:g}")
        else:
            xs, xl = x[s_len - 1], x[l_len - 1]
            body = sum(x[d - 1] / d * p**d for d in range(1, l_len + 1))
            body += sum(xs * (d - s_len) / (s_len * d) * p**d for d in range(s_len + 1, l_len + 1))
            value = (1 - p) / p * body + ((xl - xs) / l_len + xs / s_len) * p**l_len
            steps.append(f"s = {s_len}, l = {l_len}, X_s = {xs}, X_l = {xl}, p = {p:g}")
            steps.append("RBO_ext = (1-p)/p [sum_(d<=l) X_d/d p^d + sum_(s<d<=l) X_s (d-s)/(s d) "
                         "p^d] + [(X_l - X_s)/l + X_s/s] p^l")
    else:  # kendall_tau
        if spec.get("over") == "union":
            items = list(dict.fromkeys(a + b))
        else:
            items = [it for it in a if it in set(b)]
        pa = {it: (a.index(it) + 1 if it in a else len(a) + 1) for it in items}
        pb = {it: (b.index(it) + 1 if it in b else len(b) + 1) for it in items}
        num = den_a = den_b = 0
        for i in range(len(items)):
            for j in range(i + 1, len(items)):
                sx = (pa[items[j]] > pa[items[i]]) - (pa[items[j]] < pa[items[i]])
                sy = (pb[items[j]] > pb[items[i]]) - (pb[items[j]] < pb[items[i]])
                num += sx * sy
                den_a += abs(sx)
                den_b += abs(sy)
        steps.append(f"items compared ({spec.get('over')}): {len(items)}")
        steps.append(f"concordant - discordant = {num}; pairs ordered by each list: {den_a}, "
                     f"{den_b}")
        value = num / math.sqrt(den_a * den_b) if den_a and den_b else nan
    ex = Explanation(spec.key, None, cols, rows, steps, float(value), notes=notes)
    return ex
