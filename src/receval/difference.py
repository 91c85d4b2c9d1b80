"""Why does my number differ? One run, two sets of conventions, the difference decomposed.

``rv.diff(run, truth, ["ndcg@10", "map@10"], a="trec_eval", b="rectools")`` evaluates each
metric under both convention sets (a library preset, ``None`` for receval's defaults, or a
mapping ``{"empty_truth": "zero", "ndcg": {"gain": "exp"}}`` of policies and per-family
parameters), then splits each difference over the conventions that differ:

- the *ordered path* switches the conventions from A to B one at a time, in a fixed order
  (metric parameters, then policies), and reports each step's change; the steps sum to the
  difference, but depend on the order;
- the *Shapley attribution* averages each convention's step over every order (Shapley 1953;
  exact, over all 2^n subsets): phi_i = sum_{S subset of N - {i}} |S|! (n - |S| - 1)! / n!
  (v(S + i) - v(S)). The attributions sum to the difference and do not depend on an order.

When the two sets name different metric families (recmetrics' ``mark`` is AP), the whole
definition is one convention. The users whose values move most are listed per metric.

Some mixes of the two sets are not valid together (``ranks="position"`` from one with
``unjudged="remove"`` from the other): they are skipped and counted
(:attr:`MetricDiff.invalid`). The path and the Shapley average then run over the orders of
switching that pass only through valid mixes: phi_i = sum_S in(S) out(S + i) (v(S + i) - v(S))
/ in(N), over the valid S and S + i, with in(S) the valid orders from A to S and out(S) those
from S to B (with every mix valid, in(S) = |S|! and out(S + i) = (n - |S| - 1)!: Shapley's
weights). Both still sum to the difference. Where no such order exists the decomposition is
NaN.

A mapping names policies (:data:`receval.policies.POLICY_TABLE`) and metric families by their
canonical names; any other key is refused, with the nearest valid name.
"""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .engines.evaluator import evaluate_local as evaluate
from .errors import InputError, PolicyError, plain, suggest
from .metrics import MetricSpec, metric, parse_metric
from .policies import POLICY_CHOICES, POLICY_TABLE, Policies
from .validation import NON_NEGATIVE_INT, InstanceOf, validate_params

__all__ = ["Diff", "MetricDiff", "diff"]

_DEFAULTS = Policies().to_dict()


@dataclass
class _Side:
    label: str
    specs: list[MetricSpec]
    policies: dict[str, str]


@dataclass
class MetricDiff:
    """One metric under both convention sets, with the difference decomposed."""

    name: str
    key_a: str
    key_b: str
    value_a: float
    value_b: float
    factors: list[str]                       # the conventions that differ, in path order
    changes: dict[str, tuple[Any, Any]]      # convention -> (value under A, value under B)
    path: list[tuple[str, float, float]]     # (convention switched, value after, step)
    shapley: dict[str, float]
    top_users: list[tuple[Any, float, float]]  # (user, value under A, value under B)
    invalid: list[tuple[str, ...]] = field(default_factory=list)
    # the mixes (conventions switched to B) that are not valid together: skipped
    orders: int = 0  # the orders of switching that pass only through valid mixes

    @property
    def difference(self) -> float:
        return self.value_b - self.value_a


@dataclass
class Diff:
    """The comparison of two convention sets on one run: :meth:`to_text`, :meth:`to_markdown`,
    :meth:`to_html`."""

    a: str
    b: str
    metrics: list[MetricDiff] = field(default_factory=list)

    def __getitem__(self, name: str) -> MetricDiff:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)

    def explanation(self, m: MetricDiff) -> str:
        """A plain-language paragraph: the two values and what moves the number most."""
        head = (f"{m.name} is {_num(m.value_a)} under {self.a} ({m.key_a}) and "
                f"{_num(m.value_b)} under {self.b} ({m.key_b}), a difference of "
                f"{_signed(m.difference)}.")
        if not m.factors:
            return head + " Both name the same conventions, so the values are the same."
        if m.invalid:
            mix = ", ".join(f"{f}={m.changes[f][1]}" for f in m.invalid[0])
            head += (f" {len(m.invalid)} mix(es) of the two are not valid together (e.g. "
                     f"{self.a} with {mix}) and are skipped: the decomposition runs over the "
                     f"{m.orders} order(s) of switching that avoid them.")
        if not m.orders:
            return head + (" No order of switching one convention at a time avoids them, so "
                           "the difference is not decomposed.")
        ranked = sorted(m.shapley.items(), key=lambda kv: -abs(kv[1]))
        parts = []
        for name, phi in ranked:
            if phi != 0:
                va, vb = m.changes[name]
                parts.append(f"{_describe(name)}: {va} in {self.a}, {vb} in {self.b}, which "
                             f"moves it by {_signed(phi)}")
        idle = [n for n, phi in ranked if phi == 0]
        if parts:
            text = (f"{head} Averaged over every order of switching (Shapley), the largest "
                    f"share comes from {parts[0]}")
            text += f"; then {'; '.join(parts[1:])}." if parts[1:] else "."
        else:
            text = f"{head} None of the differing conventions changes it on this data."
        if idle and parts:
            text += (" " + ", ".join(_describe(n) for n in idle).capitalize()
                     + " differ but do not change it on this data.")
        if m.top_users:
            u, ua, ub = m.top_users[0]
            text += (f" The user whose value changes most is {u!s} ({_num(ua)} -> "
                     f"{_num(ub)}).")
        return text

    # ---- renderings -------------------------------------------------------------------------
    def _tables(self) -> list[tuple[str, list[str], list[list[str]], list[str], list[list[str]],
                                    list[list[str]], str]]:
        out = []
        for m in self.metrics:
            path_rows = [[c, str(m.changes[c][0]), str(m.changes[c][1]), _num(v), _signed(s),
                          _signed(m.shapley[c])] for c, v, s in m.path]
            users = [[str(u), _num(ua), _num(ub), _signed(ub - ua)] for u, ua, ub in m.top_users]
            out.append((m.name, [self.a, self.b, "difference"],
                        [[_num(m.value_a), _num(m.value_b), _signed(m.difference)]],
                        ["convention", self.a, self.b, "value after", "step", "Shapley"],
                        path_rows, users, self.explanation(m)))
        return out

    def to_text(self) -> str:
        lines: list[str] = [f"{self.a} vs {self.b}"]
        for name, h1, r1, h2, r2, users, expl in self._tables():
            lines += ["", name, _text_table(h1, r1)]
            if r2:
                lines += ["", "one convention at a time (A -> B):", _text_table(h2, r2)]
            if users:
                lines += ["", "users whose value changes most:",
                          _text_table(["user", self.a, self.b, "change"], users)]
            lines += ["", expl]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        lines: list[str] = [f"# {self.a} vs {self.b}"]
        for name, h1, r1, h2, r2, users, expl in self._tables():
            lines += ["", f"## {name}", "", _md_table(h1, r1)]
            if r2:
                lines += ["", "One convention at a time (A -> B):", "", _md_table(h2, r2)]
            if users:
                lines += ["", "Users whose value changes most:", "",
                          _md_table(["user", self.a, self.b, "change"], users)]
            lines += ["", expl]
        return "\n".join(lines) + "\n"

    def to_html(self) -> str:
        e = html.escape
        parts = [f"<h1>{e(self.a)} vs {e(self.b)}</h1>"]
        for name, h1, r1, h2, r2, users, expl in self._tables():
            parts.append(f"<h2>{e(name)}</h2>{_html_table(h1, r1)}")
            if r2:
                parts.append(f"<p>One convention at a time (A &rarr; B):</p>{_html_table(h2, r2)}")
            if users:
                parts.append("<p>Users whose value changes most:</p>"
                             + _html_table(["user", self.a, self.b, "change"], users))
            parts.append(f"<p>{e(expl)}</p>")
        return "<!DOCTYPE html><html><head><meta charset='utf-8'><title>receval diff</title>" \
               "</head><body>" + "".join(parts) + "</body></html>\n"

    def __str__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        return self.to_html()


#: a convention set: a preset name, None (receval's defaults) or a mapping
_CONVENTIONS = [None, InstanceOf(str, Mapping, name="preset name or mapping of conventions")]


@validate_params({"a": _CONVENTIONS, "b": _CONVENTIONS, "top": NON_NEGATIVE_INT})
def diff(run: Any, truth: Any, metrics: Any, a: Any = None, b: Any = None, *,
         top: int = 5, **kwargs: Any) -> Diff:
    """Evaluate ``metrics`` under convention sets ``a`` and ``b`` and decompose each difference.

    ``a``, ``b``: a library preset name (see :mod:`receval.compat`), ``None`` (receval's
    defaults) or a mapping of policies and per-family parameters, e.g.
    ``{"empty_truth": "zero", "map": {"denominator": "k"}}``. ``top``: how many users to list.
    ``**kwargs``: column names and optional inputs passed to :func:`receval.evaluate`
    (policies belong in ``a`` / ``b``).

    >>> import receval as rv
    >>> run = {"u": {"a": 3.0, "b": 2.0, "c": 1.0}}
    >>> truth = {"u": {"a": 1, "c": 1}, "v": {"a": 1}}
    >>> d = rv.diff(run, truth, ["ndcg@3"], "trec_eval", "rectools")
    >>> round(d["ndcg@3"].value_a, 4), round(d["ndcg@3"].value_b, 4)
    (0.9197, 0.352)
    """
    bad = sorted(set(kwargs) & set(POLICY_CHOICES))
    if bad:
        raise PolicyError(f"diff: policy {bad[0]!r} given as a keyword; put it in a or b, e.g. "
                          f"b={{{bad[0]!r}: ...}}, so that it is part of what is compared.")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    side_a, side_b = _side(a, names), _side(b, names)
    pol_factors = [p for p in POLICY_CHOICES if side_a.policies[p] != side_b.policies[p]]

    # per metric: the parameter factors (or one 'definition' factor when the families differ)
    per_metric: list[tuple[list[str], dict[str, tuple[Any, Any]]]] = []
    for sa, sb in zip(side_a.specs, side_b.specs, strict=True):
        changes: dict[str, tuple[Any, Any]] = {}
        if sa.name != sb.name or sa.k != sb.k:
            changes["definition"] = (sa.key, sb.key)
        else:
            for param in sa.definition.params:
                va, vb = sa.get(param.name), sb.get(param.name)
                if va != vb:
                    changes[param.name] = (va, vb)
        for p in pol_factors:
            changes[p] = (side_a.policies[p], side_b.policies[p])
        per_metric.append((list(changes), changes))

    # one evaluation per subset of the policy factors, holding every parameter variant; a
    # mix of the two sets that is not valid together is skipped (None)
    values: dict[tuple[frozenset[str], str], float] = {}
    user_rows: dict[frozenset[str], Any] = {}
    ends: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset(pol_factors))
    for pset in sorted((frozenset(c) for r in range(len(pol_factors) + 1)
                        for c in itertools.combinations(pol_factors, r)),
                       key=lambda c: c not in ends):  # A and B first: their errors are real
        pols = {p: (side_b if p in pset else side_a).policies[p] for p in POLICY_CHOICES}
        variants: dict[str, MetricSpec] = {}
        for (factors, _), sa, sb in zip(per_metric, side_a.specs, side_b.specs, strict=True):
            params = [f for f in factors if f not in POLICY_CHOICES]
            for rr in range(len(params) + 1):
                for sub in itertools.combinations(params, rr):
                    spec = _mix(sa, sb, set(sub))
                    variants[spec.key] = spec
        try:
            res = evaluate(run, truth, list(variants.values()), **pols, **kwargs)
        except (PolicyError, InputError):
            if pset in ends:
                raise
            continue
        for key in variants:
            values[(pset, key)] = res[key]
        user_rows[pset] = res

    out = Diff(side_a.label, side_b.label)
    all_pols = frozenset(pol_factors)
    for name, (factors, changes), sa, sb in zip(names, per_metric, side_a.specs, side_b.specs,
                                                strict=True):
        def v(subset: frozenset[str], sa: MetricSpec = sa, sb: MetricSpec = sb) -> float:
            pset = frozenset(f for f in subset if f in POLICY_CHOICES)
            spec = _mix(sa, sb, {f for f in subset if f not in POLICY_CHOICES})
            return values[(pset, spec.key)]

        def valid(subset: frozenset[str]) -> bool:
            return frozenset(f for f in subset if f in POLICY_CHOICES) in user_rows

        path, shapley, orders = _decompose(factors, v, valid)
        invalid = [tuple(f for f in factors if f in c) for c in _subsets(factors)
                   if not valid(c)]
        users = _top_users(user_rows[frozenset()], sa.key, user_rows[all_pols], sb.key, top)
        out.metrics.append(MetricDiff(name, sa.key, sb.key, v(frozenset()),
                                      v(frozenset(factors)), factors, changes, path, shapley,
                                      users, invalid, orders))
    return out


def _subsets(factors: list[str]) -> list[frozenset[str]]:
    return [frozenset(c) for r in range(len(factors) + 1)
            for c in itertools.combinations(factors, r)]


def _decompose(factors: list[str], v: Any, valid: Any
               ) -> tuple[list[tuple[str, float, float]], dict[str, float], int]:
    """The ordered path, the Shapley attribution and the number of orders of switching
    ``factors`` from A (empty set) to B (all) one at a time through valid mixes only.

    ``ins[S]`` counts the valid orders from A to ``S``, ``outs[S]`` those from ``S`` to B; each
    step S -> S + i is weighted by the orders through it, ins[S] outs[S + i] / ins[B] (with
    every mix valid: |S|! (n - |S| - 1)! / n!, Shapley 1953). The path takes, at each step, the
    first factor in ``factors``' order that leads on to B through valid mixes."""
    subsets = [c for c in _subsets(factors) if valid(c)]
    everything = frozenset(factors)
    ins: dict[frozenset[str], int] = {}
    for c in subsets:  # by size: every c - {f} comes first
        ins[c] = 1 if not c else sum(ins.get(c - {f}, 0) for f in c)
    outs: dict[frozenset[str], int] = {}
    for c in reversed(subsets):
        outs[c] = 1 if c == everything else sum(outs.get(c | {f}, 0)
                                                for f in factors if f not in c)
    orders = ins.get(everything, 0)
    if not orders:
        return [], dict.fromkeys(factors, math.nan), 0
    shapley = dict.fromkeys(factors, 0.0)
    for c in subsets:
        for f in factors:
            if f not in c and c | {f} in outs and ins[c]:
                shapley[f] += ins[c] * outs[c | {f}] / orders * (v(c | {f}) - v(c))
    path: list[tuple[str, float, float]] = []
    done: frozenset[str] = frozenset()
    prev = v(done)
    while done != everything:
        f = next(f for f in factors if f not in done and outs.get(done | {f}, 0))
        done = done | {f}
        cur = v(done)
        path.append((f, cur, cur - prev))
        prev = cur
    return path, shapley, orders


def _side(conv: Any, names: list[str]) -> _Side:
    if conv is None:
        return _Side("receval", [parse_metric(n) for n in names], dict(_DEFAULTS))
    if isinstance(conv, str):
        from .compat import get, resolve

        preset = get(conv)
        specs = [resolve(preset, [n])[0][0] for n in names]
        return _Side(preset.name, specs, {**_DEFAULTS, **dict(preset.policies)})
    if isinstance(conv, Mapping):
        _check_keys(conv, names)
        pols = {k: str(v) for k, v in conv.items() if k in POLICY_CHOICES}
        Policies(**{**_DEFAULTS, **pols})  # validates
        specs = []
        for n in names:
            spec = parse_metric(n)
            params = dict(spec.params)
            extra = conv.get(spec.name, {})
            if not isinstance(extra, Mapping):
                raise PolicyError(f"diff: {spec.name!r} in a convention set must map parameter "
                                  f"names to values, got {extra!r}; e.g. "
                                  f"{{{spec.name!r}: {{'denominator': 'k'}}}}.")
            params.update(extra)
            specs.append(metric(spec.name, spec.k, **params))
        label = ", ".join(f"{k}={v}" for k, v in conv.items() if not isinstance(v, Mapping))
        label += "".join(f" {k}({', '.join(f'{p}={x}' for p, x in v.items())})"
                         for k, v in conv.items() if isinstance(v, Mapping))
        return _Side(label.strip() or "receval", specs, {**_DEFAULTS, **pols})
    raise PolicyError(f"diff: a convention set is a preset name, None or a mapping; got "
                      f"{conv!r}.")


def _check_keys(conv: Mapping[Any, Any], names: list[str]) -> None:
    """Refuse a key that is neither a policy nor a metric family's canonical name (a misspelt
    key, or an alias such as ``hr``, would otherwise be ignored and the sets reported the
    same)."""
    from .metrics import ALIASES, REGISTRY

    for key in conv:
        if key in POLICY_CHOICES:
            if isinstance(conv[key], Mapping):
                raise PolicyError(f"diff: policy {key!r} takes one of "
                                  f"{list(POLICY_CHOICES[key])}, not a mapping.")
            continue
        if key in REGISTRY:
            continue
        families = list(dict.fromkeys(parse_metric(n).name for n in names))
        hint = (f" Did you mean {ALIASES[key]!r}?" if isinstance(key, str) and key in ALIASES
                else suggest(str(key), [*POLICY_CHOICES, *families, *REGISTRY]))
        raise PolicyError(
            f"diff: {plain(key)} in a convention set is neither a policy nor a metric family; "
            f"valid keys are the policies {list(POLICY_CHOICES)} and the metric families "
            f"(canonical names) such as {families}." + hint)


def _mix(sa: MetricSpec, sb: MetricSpec, switched: set[str]) -> MetricSpec:
    """Spec A with the parameters in ``switched`` taken from B (``definition``: all of B)."""
    if "definition" in switched:
        return sb
    if not switched:
        return sa
    params = dict(sa.params)
    for p in switched:
        params[p] = sb.get(p)
    return metric(sa.name, sa.k, **params)


def _top_users(res_a: Any, key_a: str, res_b: Any, key_b: str, top: int
               ) -> list[tuple[Any, float, float]]:
    a = dict(zip(res_a.user_ids.tolist(), res_a.user_values(key_a).tolist(), strict=True))
    b = dict(zip(res_b.user_ids.tolist(), res_b.user_values(key_b).tolist(), strict=True))
    # users with a value under both first, by the size of the change; then users that have a
    # value under one set only (skipped or not evaluated under the other)
    rows = []
    for u in list(dict.fromkeys([*a, *b])):
        va, vb = a.get(u, math.nan), b.get(u, math.nan)
        if math.isnan(va) and math.isnan(vb):
            continue
        if math.isnan(va) or math.isnan(vb):
            rows.append((1, 0.0, u, va, vb))
        elif vb != va:
            rows.append((0, -abs(vb - va), u, va, vb))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [(u, va, vb) for _, _, u, va, vb in rows[:top]]


#: what each factor governs, in words: the policies' from their table, then the metric
#: parameters that a compat preset may change
_POLICY_WORDS = {
    **{name: p.governs for name, p in POLICY_TABLE.items()},
    "definition": "the metric's definition", "gain": "the gain of a relevance grade",
    "ideal": "the ideal list of the normaliser", "discount": "the rank discount",
    "denominator": "the denominator", "level": "what a hit rate counts",
    "rel": "the relevance threshold",
}


def _describe(factor: str) -> str:
    return _POLICY_WORDS.get(factor, f"the parameter {factor!r}")


def _num(x: float) -> str:
    """A value, or '-' where a user has none (skipped or not evaluated)."""
    return "-" if isinstance(x, float) and math.isnan(x) else f"{x:.4f}"


def _signed(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:+.4f}"


def _text_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    fmt = "  ".join(f"{{:{w}}}" for w in widths)
    return "\n".join([fmt.format(*header), fmt.format(*("-" * w for w in widths))]
                     + [fmt.format(*r) for r in rows])


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    def esc(c: str) -> str:
        return str(c).replace("|", "\\|")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows])


def _html_table(header: list[str], rows: list[list[str]]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

