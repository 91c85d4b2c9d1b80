"""Metric names in the styles people already type, mapped to receval's canonical keys.

The names of other tools are read from the one table of foreign names
(:mod:`receval.metrics.foreign`); this module holds the grammar that reads them.

=================  ==============================  ========================================
style              examples                        canonical key
=================  ==============================  ========================================
trec_eval          ``ndcg_cut.10``, ``P.5``,       ``ndcg@10``, ``precision@5``,
                   ``recall_100``, ``map``,        ``recall@100``, ``map``, ``mrr``,
                   ``recip_rank``, ``Rprec``,      ``r_precision``, ``hit_rate@10``,
                   ``success.10``, ``map_cut.10``, ``map@10``, ``f1``,
                   ``set_F``, ``11pt_avg``,        ``iprec_avg``, ``iprec(recall=0.5)``
                   ``iprec_at_recall.0.50``
ir_measures        ``nDCG@10``, ``P@5``, ``AP``,   ``ndcg@10``, ``precision@5``, ``map``,
                   ``RR@10``, ``R@100``,           ``mrr@10``, ``recall@100``,
                   ``P(rel=2)@5``,                 ``precision@5(rel=2)``,
                   ``nDCG(dcg='exp-log2')@10``,    ``ndcg@10(gain=exp)``,
                   ``IPrec@0.5``, ``SetF``         ``iprec(recall=0.5)``, ``f1``
ranx               ``ndcg@10``, ``map@100``,       ``ndcg@10``, ``map@100``, ``mrr``,
                   ``mrr``, ``r-precision``,       ``r_precision``, ``ndcg@10(gain=exp)``,
                   ``ndcg_burges@10``,             ``precision@5(rel=2)``,
                   ``precision@5-l2``, ``rbp.95``  ``rbp(p=0.95)``
receval            ``ndcg@10(gain=exp)``           itself
=================  ==============================  ========================================

A trec_eval name is written as ``-m`` takes it (``P.5``) or as trec_eval prints it (``P_5``),
with one parameter value; without one, a cutoff measure is receval's whole-list metric
(``P``: ``precision``). A trec_eval measure without a receval metric (``utility``, ``G``,
``Rprec_mult``, ``gm_map``, ...) raises :class:`~receval.errors.UnknownMetricError` that
names ``receval trec``, which computes it. Counts (``num_ret``, ``num_rel_ret``) are
summarised by their mean here and by their sum in trec_eval's ``all`` line.

Note the conventions behind a name can differ between tools even when the name maps: ranx and
ir_measures cut AP at k with denominator R (receval's default), as trec_eval's ``map_cut`` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ..errors import MetricError, UnknownMetricError, plain, suggest
from ..policies import POLICY_PARAMS
from .foreign import BY_NAME, IR_MEASURE_NAMES, LIBRARY_NAMES, trec_measure
from .spec import _KEY, MetricSpec, metric

# an ir_measures name: Name, Name(params), Name@k, Name(params)@k (IPrec@0.5: a recall level)
_IRM_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\((.*)\))?(?:@([0-9.]+))?$")
_RANX = LIBRARY_NAMES["ranx"]
_RANX_LEVEL = re.compile(r"-l\d+\s*$")
_RANX_RBP = re.compile(r"^rbp\.(\d+)$", re.IGNORECASE)  # ranx's rbp.95: p = 0.95
# a name in trec_eval's form that receval's grammar does not read (``11pt_avg``, ``P.5``)
_TREC_FORM = re.compile(r"^([A-Za-z0-9_]+)(?:\..*)?$")
# after a comma, a parameter value of a trec_eval name (5, -1, .25, 2=9), not a name
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_CONTINUES = re.compile(rf"\s*{_NUM}(?:={_NUM})?\s*(?:,|$)")
_PARAM_TAIL = re.compile(r"_[0-9.]+$")  # the printed parameter of P_5, iprec_at_recall_0.50


def _foreign(s: str) -> MetricSpec | None:
    """The spec of a trec_eval, ranx or ir_measures name, or None if it is none of them."""
    trec = _trec(s)
    if trec is not None:
        return trec
    ranx = _ranx(s)
    if ranx is not None:
        return ranx
    m = _IRM_RE.match(s)
    if m and m.group(1).lower() in IR_MEASURE_NAMES:
        return _irm(s, m.group(1), m.group(2) or "", m.group(3))
    return None


def _ranx(s: str) -> MetricSpec | None:
    """The spec of a ranx name (ranx/meta/evaluate.py ``extract_metric_and_params``):
    ``name[@k][-lN]`` (``-lN``: relevance level N, receval's ``rel``) or ``rbp.p`` (the
    persistence 0.p: ``rbp.95`` is p = 0.95), or None if it is not one."""
    text, level = s, None
    if "-l" in s:
        text, _, tail = s.partition("-l")
        if not tail.isdigit():
            return None
        level = int(tail)
    rbp = _RANX_RBP.match(text)
    if rbp:
        spec = metric("rbp", None, p=float(f"0.{rbp.group(1)}"))
    else:
        base, at, rest = text.partition("@")
        entry = _RANX.get(base.lower())
        if entry is None:
            return None
        if entry.refused:
            raise UnknownMetricError(
                f"{plain(s)}: ranx's {base} ({entry.meaning}) has no receval metric: "
                f"{entry.refused}")
        spec = _parse_receval(entry.family + (at + rest if at else ""))
        spec = metric(spec.name, spec.k, **{**dict(entry.params), **dict(spec.params)})
    if level is None:
        return spec
    if any(p.name == "rel" for p in spec.definition.params):
        return metric(spec.name, spec.k, **{**dict(spec.params), "rel": level})
    if level == 1:  # ranx drops grades below 1: zero gains, the same value
        return spec
    raise MetricError(
        f"{plain(s)}: ranx's -l{level} drops the judgments below {level} before {spec.name}'s "
        f"gains; receval's {spec.name} has no relevance level (only -l1 is the same value).")


def _trec(s: str) -> MetricSpec | None:
    """The spec of a trec_eval measure name with at most one parameter value, or None."""
    found = trec_measure(s)
    if found is None:
        return None
    measure, text = found
    values = measure.parse(text)
    if not measure.maps(text):
        also = (f" (its per-query values are {measure.values_of}'s)"
                if measure.values_of else "")
        raise UnknownMetricError(
            f"{plain(s)}: trec_eval's {measure.name} ({measure.doc}) has no receval metric"
            f"{also}; `receval trec` and receval.trec.trec_eval compute it."
        )
    if not text:
        return measure.target()
    if measure.kind == "params":
        return measure.target(values)
    if len(values) != 1:
        raise MetricError(
            f"{plain(s)}: name one {measure.name} parameter a metric, e.g. "
            f"{measure.name}.{text.split(',')[0]} (receval trec -m {measure.name}.{text} "
            "prints each)."
        )
    return measure.target(values[0])


def _irm(text: str, name: str, ptext: str, at: str | None) -> MetricSpec:
    """The spec of an ir_measures name with its parameters (``P(rel=2)@5``, ``IPrec@0.5``,
    ``RBP(p=0.5,rel=1)``): each parameter as the ``compat="ir_measures"`` entry maps it. A
    parameter that is a policy (``judged_only=True``: ``unjudged="remove"``) is refused here,
    where no preset sets policies."""
    entry = IR_MEASURE_NAMES[name.lower()]
    if entry.refused:
        raise UnknownMetricError(
            f"{plain(text)}: ir_measures' {name} ({entry.meaning}) has no receval metric: "
            f"{entry.refused}")
    params: dict[str, object] = {k: v for k, v in entry.params if k != "summary"}
    seen: set[str] = set()
    for part in [p for p in ptext.split(",") if p.strip()]:
        pname, eq, value = part.partition("=")
        pname, value = pname.strip(), value.strip().strip("'\"")
        if not eq:
            raise MetricError(f"{plain(text)}: parameter {plain(part)} must be written name=value.")
        if pname in seen:
            raise MetricError(f"{plain(text)}: parameter {plain(pname)} is given twice; give it once.")
        seen.add(pname)
        try:
            meant = entry.option(pname, value)
        except MetricError as exc:
            raise MetricError(f"{plain(text)}: ir_measures' {exc}") from None
        if meant is None:
            raise MetricError(
                f"{plain(text)}: ir_measures' {name} takes no parameter {plain(pname)} that "
                f"receval reproduces; its parameters are "
                f"{sorted(k for k, _ in entry.options) or 'none'}.")
        policies = sorted(k for k in meant if k in POLICY_PARAMS)
        if policies:
            asked = ", ".join(f"{k}={meant[k]!r}" for k in policies)
            after = f"{name}@{at}({ptext})" if at else f"{name}({ptext})"
            raise MetricError(
                f"{plain(text)}: {pname}={value} is the policy {asked}: pass it to the "
                f"evaluation, or write {plain(after)} (parameters after the cutoff) under "
                "compat='ir_measures'.")
        if "@k" in meant:  # ir_measures' cutoff=5, as @5
            if at is not None:
                raise MetricError(f"{plain(text)}: two cutoffs, @{at} and {pname}={value}; "
                                  "give one.")
            at = str(meant.pop("@k"))
        params.update(meant)
    k: int | None = None
    if at is not None:
        if entry.family == "iprec":  # ir_measures' IPrec: '@' sets the recall level
            params["recall"] = _number(at)
        elif not at.isdigit():
            raise MetricError(f"{plain(text)}: the cutoff {plain(at)} must be an integer.")
        else:
            k = int(at)
    return metric(entry.family, k, **params)


def parse_metric(key: str | MetricSpec) -> MetricSpec:
    """The spec a metric name means, in any style the module docstring lists.

    ``ndcg@10(gain=exp)``, an alias (``mrr@10``), a trec_eval name (``ndcg_cut.10``), an
    ir_measures name (``nDCG@10``, ``P(rel=2)@5``) or a ranx name (``ndcg_burges@10``). An
    unknown name raises :class:`~receval.errors.UnknownMetricError` with the nearest valid one.
    """
    if isinstance(key, MetricSpec):
        return key
    if not isinstance(key, str):
        raise MetricError(f"a metric must be a string key or a MetricSpec, got {plain(key)}.")
    irm = _IRM_RE.match(key.strip())
    if irm and irm.group(1).lower() == "iprec" and irm.group(3):  # IPrec@0.5: a recall level
        return _irm(key.strip(), irm.group(1), irm.group(2) or "", irm.group(3))
    if _RANX_LEVEL.search(key):  # ranx's relevance level: precision@5-l2
        ranx = _ranx(key.strip())
        if ranx is not None:
            return ranx
    try:
        return _parse_receval(key)
    except MetricError as exc:
        ours = _KEY.match(key) is not None
        if ours and not isinstance(exc, UnknownMetricError):
            raise  # a receval key with a bad cutoff or parameter value
        try:
            foreign = _foreign(key.strip())
        except UnknownMetricError:
            raise  # a foreign name without a receval metric: its own message
        except MetricError:
            if ours:
                raise exc from None
            raise
        if foreign is None:
            _unknown_trec_form(key.strip(), ours, exc)
            msg = exc.args[0] if exc.args else str(exc)
            if key.strip() not in msg:
                raise type(exc)(f"metric {plain(key.strip())}: {msg}") from None
            raise exc from None
        return foreign


def _unknown_trec_form(key: str, ours: bool, exc: MetricError) -> None:
    """Raise :class:`UnknownMetricError` naming the nearest trec_eval measure for a name in
    trec_eval's form (``ndgc_cut.10``, ``mpa_cut_10``) when receval's own error suggests none."""
    m = _TREC_FORM.match(key)
    if m is None or (ours and " Did you mean" in str(exc)):
        return
    base = _PARAM_TAIL.sub("", m.group(1))
    hint = suggest(base, list(BY_NAME))
    if hint or not ours:
        raise UnknownMetricError(
            f"unknown metric {plain(key)}: no metric or trec_eval measure is named "
            f"{plain(base)}." + hint
        ) from None


def _parse_receval(key: str) -> MetricSpec:
    """receval's own grammar: ``name[@k][(param=value,...)]`` (names and aliases)."""
    m = _KEY.match(key)
    if not m:
        raise MetricError(
            f"cannot parse metric key {plain(key)}; expected name[@k][(param=value,...)], "
            "for example 'ndcg@10(gain=exp)'."
        )
    name, k_text, params_text = m.groups()
    params: dict[str, str] = {}
    if params_text:
        for part in params_text.split(","):
            if not part.strip():
                continue
            if "=" not in part:
                raise MetricError(f"{plain(key)}: parameter {plain(part.strip())} must be written name=value.")
            pname, value = part.split("=", 1)
            _put(params, key, pname.strip(), value.strip())
    # the cutoff is checked by metric() (an integer in [1, MAX_CUTOFF]): the number as written
    return metric(name, None if k_text is None else _number(k_text), **params)


def _number(text: str) -> int | float | str:
    """``"10"`` -> 10, ``"1e30"`` -> 1e30, ``"1e400"`` -> inf; anything else stays text."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _put(params: dict[str, str], key: str, name: str, value: str) -> None:
    """Add one ``name=value`` of a key; a parameter given twice is an error, not "last wins"."""
    if name in params:
        raise MetricError(
            f"{plain(key)}: parameter {plain(name)} is given twice ({name}={params[name]}, {name}={value}); "
            "give it once."
        )
    params[name] = value


def parse_metrics(metrics: str | MetricSpec | list | tuple) -> list[MetricSpec]:
    """Parse one key, a comma-separated string of simple keys, or a list of keys/specs."""
    if isinstance(metrics, (str, MetricSpec)):
        metrics = split_keys(metrics) if isinstance(metrics, str) else [metrics]
    elif not isinstance(metrics, (list, tuple)) and not (
            isinstance(metrics, Iterable) and not isinstance(metrics, (bytes, dict))):
        raise MetricError(
            f"metrics must be a metric key, a MetricSpec or a list of them, got "
            f"{type(metrics).__name__} {plain(metrics)}; pass e.g. ['ndcg@10', 'map']."
        )
    specs: list[MetricSpec] = []
    for m in metrics:
        spec = parse_metric(m)
        if spec not in specs:
            specs.append(spec)
    if not specs:
        raise MetricError("no metric was requested; pass e.g. ['ndcg@10', 'map'].")
    return specs


def resolve_key(key: str, keys: list[str], where: str) -> str:
    """The entry of ``keys`` that ``key`` names (exactly, or through an alias / other spelling).

    Raises :class:`UnknownMetricError` naming ``where`` (e.g. "this result") and the nearest key.
    """
    if key in keys:
        return key
    try:
        canonical = parse_metric(key).key
    except (KeyError, ValueError):
        canonical = key
    if canonical in keys:
        return canonical
    raise UnknownMetricError(
        f"metric {plain(key)} is not in {where}; it has {keys}." + suggest(key, keys)
    )


def canonical_key(text: str) -> str:
    """The canonical key of a metric name in any accepted style.

    >>> canonical_key("ndcg_cut.10"), canonical_key("nDCG@10"), canonical_key("RR@10")
    ('ndcg@10', 'ndcg@10', 'mrr@10')
    """
    return parse_metric(text).key


def canonical_keys(texts: list[str]) -> list[str]:
    """Canonical keys of several names (each item may be a comma-separated list), deduplicated."""
    out: list[str] = []
    for t in texts:
        for part in split_keys(t):
            key = parse_metric(part).key
            if key not in out:
                out.append(key)
    if not out:
        raise MetricError("no metric was requested; pass e.g. -m ndcg@10 -m map.")
    return out


def split_keys(text: str) -> list[str]:
    """Split ``'ndcg@10,map(denominator=hits),utility.2,-1,0,0'`` into names: on commas
    outside parentheses that a name follows (a comma before a number continues a trec_eval
    name's parameters: ``P.5,10``, ``utility.2,-1,0,0``)."""
    out, depth, cur = [], 0, ""
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0 and not _CONTINUES.match(text, i + 1):
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [s for s in (x.strip() for x in out) if s]


def best_value(key: str) -> float | None:
    """The best value of the metric ``key`` when it is inside its range (a calibration
    ratio's 1), else None (its best is an end: see :func:`higher_is_better`)."""
    try:
        best = parse_metric(key).definition.best
    except MetricError:
        return None
    return None if best is None else float(best)


def goodness(key: str) -> Callable[[float], float]:
    """How good a value of the metric ``key`` is, as a number where larger is better: the
    value (higher is better), its negative (lower is better), or minus its distance to the
    metric's best value (:attr:`MetricDef.best`, a calibration ratio's 1)."""
    try:
        definition = parse_metric(key).definition
    except MetricError:
        return float
    if definition.best is not None:
        best = float(definition.best)
        return lambda v: -abs(float(v) - best)
    return float if definition.higher_is_better else (lambda v: -float(v))


def higher_is_better(key: str) -> bool:
    """Whether larger values of the metric named ``key`` are better (True for unknown names)."""
    try:
        return bool(parse_metric(key).definition.higher_is_better)
    except MetricError:
        return True
