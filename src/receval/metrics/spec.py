"""Metric specs and canonical keys.

A :class:`MetricSpec` is a frozen, validated value: a metric name, an optional cutoff ``k`` and
the parameters that differ from their defaults. Its canonical key is a string that
:func:`parse_metric` turns back into an equal spec::

    ndcg@10                      ndcg@10(gain=exp)
    ap@100(denominator=min_k_rel) hit_rate@10(level=truth)
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import MetricError, UnknownMetricError, plain, suggest

#: How a metric's per-user values make its summary row's ``mean`` (``MetricDef.summary``, or a
#: key's ``summary=`` parameter): ``"mean"`` over the users that enter the summary; ``"sum"``
#: of their values (trec_eval's ``all`` line of a count); ``"geometric"``: the values are
#: logarithms and the summary is exp of their mean (trec_eval's ``gm_map``). Each is computed
#: once from the exact sum of the values (:mod:`receval.engines.aggregate`).
SUMMARIES = ("mean", "sum", "geometric")
#: the summaries a key may choose with ``summary=`` (besides its family's own)
CHOSEN_SUMMARIES = ("mean", "sum")

#: The largest cutoff a key may ask for (the longest list any array can hold is far shorter;
#: a larger value is a typo or an overflow, e.g. ``ndcg@1e30``). Omit ``@k`` for the whole list.
MAX_CUTOFF = 2**31 - 1


@dataclass(frozen=True)
class Param:
    """One named parameter of a metric: its default, type and allowed values.

    A numeric parameter (``kind`` ``float`` or ``int``) lies in ``[low, high]`` (open ends with
    ``low_open`` / ``high_open``; ``None``: unbounded) and is finite unless ``finite=False``; an
    ``int`` parameter fits in int64. Every other value raises :class:`MetricError`.
    """

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    kind: type = str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    finite: bool = True

    def convert(self, metric: str, value: Any) -> Any:
        """Validate and convert a value (given as text in a key, or as an object)."""
        if self.kind is str or self.choices is not None:
            text = str(value)
            if self.choices is not None and text not in self.choices:
                raise MetricError(
                    f"{metric}: parameter {self.name}={plain(value)} is not valid; choose one of "
                    f"{list(self.choices)}." + suggest(text, self.choices)
                )
            return text
        if value is None or (isinstance(value, str) and value in ("auto", "None")):
            if self.default is None:
                return None
            raise MetricError(f"{metric}: parameter {self.name} needs a number, got {plain(value)}.")
        try:
            if isinstance(value, (bool, np.bool_)):
                raise TypeError
            num = float(value)
        except (TypeError, ValueError, OverflowError):
            raise MetricError(
                f"{metric}: parameter {self.name} needs a number, got {plain(value)}."
            ) from None
        bad_low = self.low is not None and (num <= self.low if self.low_open else num < self.low)
        bad_high = self.high is not None and (
            num >= self.high if self.high_open else num > self.high
        )
        if bad_low or bad_high or num != num or (self.finite and math.isinf(num)):
            lo = "(" if self.low_open or self.low is None else "["
            hi = ")" if self.high_open or self.high is None else "]"
            raise MetricError(
                f"{metric}: parameter {self.name}={plain(value)} is out of range; it must be a "
                f"{'finite ' if self.finite else ''}number in "
                f"{lo}{plain(self.low) if self.low is not None else '-inf'}, "
                f"{plain(self.high) if self.high is not None else 'inf'}{hi}."
            )
        if self.kind is int:
            if num != int(num) or not -(2**63) <= int(num) < 2**63:
                raise MetricError(
                    f"{metric}: parameter {self.name} must be an integer (int64), got "
                    f"{plain(value)}.")
            return int(num)
        return num


@dataclass(frozen=True)
class Kernel:
    """How the compiled ranking kernel computes a metric family: the family's binding.

    The engine is generic: everything it needs to know about a kernel metric is here.

    ``request``: the kernel's request code (:class:`receval.kernels.Request`).
    ``graded``: relevance is graded (a gain); relevant means relevance > 0 and the family has no
    ``rel`` threshold.
    ``count``: a count that stays defined for a user without relevant items (``empty_truth=
    'zero'`` keeps its true value instead of 0).
    ``undefined_without_hit``: the value is NaN when nothing relevant is retrieved (no value,
    left out of the mean; ``n`` counts users that have one).
    ``ranked``: needs the ranked positions (``False``: a truth-only count such as ``num_rel``).
    ``full_list``: reads the whole list whatever the cutoff (RecTools' partial AUC).
    ``whole_list``: parameter values that need the whole list whatever the cutoff
    (``(("ideal", "list"),)``).
    ``variant``: the parameter whose choice index is the kernel's variant (denominator, level).
    ``par``: the request's numeric parameter from ``(spec, largest truth relevance)``;
    ``par2``: its second numeric parameter, the same way (the C/W/L gain scale).
    ``average``: ``ties="average"`` has an exact form; ``not_average`` lists parameter values
    without one.
    ``micro``: ``(variant choice, numerator request, denominator request)`` entries: for that
    choice the summary is the sum of numerators over the sum of denominators, not a mean.
    ``catalogue``: for a metric whose ``par`` is a catalogue size N,
    ``catalogue(spec, nret, hits, nrel) -> (listed, unlisted, what)``: what each user occupies
    in the catalogue (:func:`receval.metrics.catalogue.check_catalogue` refuses an N smaller
    than ``listed + unlisted``), from the list positions read, the hits among them and the
    user's relevant items, which the engine asks the kernel for.

    Options named ``gain``, ``ideal`` and ``discount`` are passed to the kernel as the index of
    their value in :data:`receval.kernels.GAINS` / ``IDEALS`` / ``DISCOUNTS``.
    """

    request: int
    graded: bool = False
    count: bool = False
    undefined_without_hit: bool = False
    ranked: bool = True
    full_list: bool = False
    whole_list: tuple[tuple[str, Any], ...] = ()
    variant: str | None = None
    par: Callable[[Any, float], float] | None = None
    par2: Callable[[Any, float], float] | None = None
    average: bool = True
    not_average: tuple[tuple[str, Any], ...] = ()
    micro: tuple[tuple[str, int, int], ...] = ()
    catalogue: Callable[..., tuple[Any, Any, str]] | None = None

    def micro_requests(self, spec: Any) -> tuple[int, int] | None:
        """(numerator, denominator) requests of a micro-averaged spec, else None."""
        choice = spec.get(self.variant) if self.variant else None
        for value, num, den in self.micro:
            if value == choice:
                return num, den
        return None

    def exact_under_average(self, spec: Any) -> bool:
        """Whether ``ties="average"`` has an exact form for this spec."""
        return self.average and not any(spec.get(p) == v for p, v in self.not_average)

    def needs_whole_list(self, spec: Any) -> bool:
        return self.full_list or spec.k is None or any(spec.get(p) == v
                                                       for p, v in self.whole_list)


@dataclass(frozen=True)
class MetricDef:
    """A metric family: name, cutoff rule, parameters, summary rule and documentation.

    ``cutoff``: ``"optional"`` (``name`` = whole list, ``name@k``), ``"none"`` (never a cutoff).
    ``aggregate``: ``"mean"`` over evaluated users, or ``"micro"``: sum of per-user numerators
    over sum of per-user denominators (item-level hit rates), or ``"pooled"``: one value over
    the pairs of every user together (a pooled AUC), which is not a function of per-user values.
    ``compute``: for metrics outside the compiled ranking kernel, a function
    ``compute(spec, packed, context) -> MetricValues`` (see :mod:`receval.engines.plugins`);
    ``needs`` names the optional inputs it requires (``"train"``, ``"item_features"``, ...).
    ``kernel``: for metrics of the compiled ranking kernel, their :class:`Kernel` binding.
    ``whole_list``: for a plugin metric with a cutoff, ``whole_list(spec)`` is true when it
    reads every position of the lists, not only the top k (e.g. the user's candidates).
    ``explain``: the metric's own step-by-step display, ``explain(spec, user) -> Steps | None``
    over one user's packed list (:mod:`receval.metrics.steps`; ``None``: no rule for that
    parameter choice); :func:`receval.explain` calls it and checks it against the engine.
    ``reads_scores``: for a plugin metric, whether it reads the score at each position
    (``False``: the packed lists need no score column for it, which saves writing one).
    ``reads_relevance``: likewise, whether it reads the relevance or the judged flag at each
    position of the packed lists (``False``: when every plugin metric of an evaluation says
    so, the lists joined with the truth keep neither, which saves writing two columns).
    ``item_lookup``: whether it reads the recommended items only by looking them up in a
    vocabulary of its own (:meth:`receval.pack.packed.Packed.items_in`; ``True``: when every
    plugin metric of an evaluation does, the lists keep each position's run row and the
    run's item column is never factorized).
    ``item_vocab``: for such a metric, ``item_vocab(spec, context)``, the distinct ids it will
    look the items up in when they are known before the lists are packed (``None`` when they
    are not): when every plugin metric of an evaluation names the same ids, the join writes
    each position's place in them (with the hash it has already taken of the id) instead of
    its run row, and no position is looked up again.
    ``summary``: how the per-user values make the summary (:data:`SUMMARIES`); a key of a
    ``"mean"`` aggregate may choose ``"mean"`` or ``"sum"`` with the ``summary`` parameter
    (``num_ret(summary=sum)``, what ``compat="trec_eval"`` asks for trec_eval's counts).
    """

    name: str
    title: str
    formula: str
    doc: str
    params: tuple[Param, ...] = ()
    cutoff: str = "optional"
    aggregate: str = "mean"
    higher_is_better: bool = True
    bounds: tuple[float, float | None] = (0.0, 1.0)
    family: str = "ranking"
    #: the best value when it is neither end of the range (a calibration ratio's 1): values
    #: are then better the closer they are to it, whatever ``higher_is_better`` says
    best: float | None = None
    reference: str = ""
    example: str = ""
    compute: Callable[..., Any] | None = None
    needs: tuple[str, ...] = ()
    kernel: Kernel | None = None
    whole_list: Callable[[Any], bool] | None = None
    explain: Callable[[Any, Any], Any] | None = None
    summary: str = "mean"
    reads_scores: bool = True
    reads_relevance: bool = True
    item_lookup: bool = False
    item_vocab: Callable[[Any, Any], Any] | None = None

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        if name == "summary":
            return self.summary_param
        valid = [p.name for p in self.params]
        raise UnknownMetricError(
            f"{self.name}: unknown parameter {plain(name)}; valid parameters are {valid or 'none'}."
            + suggest(name, valid)
        )

    @property
    def summary_param(self) -> Param:
        """The ``summary`` parameter every key may write (default: the family's summary)."""
        return Param("summary", self.summary, "how the per-user values are summarised: "
                     "their mean or their sum", choices=tuple(dict.fromkeys(
                         (self.summary, *CHOSEN_SUMMARIES))))


@dataclass(frozen=True)
class MetricSpec:
    """A metric with its cutoff and non-default parameters (hashable, comparable).

    Build it with :func:`parse_metric` (from a key) or :func:`metric` (from keywords).
    """

    name: str
    k: int | None = None
    params: tuple[tuple[str, Any], ...] = field(default=())

    @property
    def definition(self) -> MetricDef:
        return REGISTRY[self.name]

    def get(self, name: str) -> Any:
        """The value of a parameter (its default when not set)."""
        for key, value in self.params:
            if key == name:
                return value
        return self.definition.param(name).default

    @property
    def summary(self) -> str:
        """How the summary row is formed from the per-user values (:data:`SUMMARIES`)."""
        return str(self.get("summary"))

    @property
    def key(self) -> str:
        """Canonical key: ``name[@k][(p=v,...)]`` with only non-default parameters, sorted."""
        out = self.name if self.k is None else f"{self.name}@{self.k}"
        if self.params:
            out += "(" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params) + ")"
        return out

    def __str__(self) -> str:
        return self.key

    def __repr__(self) -> str:
        return f"MetricSpec({plain(self.key)})"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return repr(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)
    return str(value)


REGISTRY: dict[str, MetricDef] = {}
ALIASES: dict[str, str] = {}

# Modules that register metric families outside the ranking kernel. They are imported on first
# need (an unknown name, or a full listing), so that ``import receval`` stays fast. They sit
# above this layer, so this module names them but never imports them: the package root, which
# may import every layer, installs the loader (``receval/__init__.py``).
PLUGIN_MODULES = (  # the one list: each family registers its metrics beside its array code
    "receval.classification.auc", "receval.classification.confusion",
    "receval.classification.rating", "receval.classification.probability",
    "receval.classification.calibration",
    "receval.beyond.catalogue", "receval.beyond.dq", "receval.beyond.popularity",
    "receval.beyond.diversity", "receval.beyond.serendipity", "receval.beyond.personalization",
    "receval.beyond.runs", "receval.beyond.categories", "receval.beyond.miscalibration",
    "receval.beyond.expected", "receval.beyond.groupfair", "receval.beyond.exposure",
    "receval.debiased.registered", "receval.trec.registered", "receval.trec.ir_extra",
    "receval.trec.diversity",
)
#: ``loader(module_name)`` imports one plugin module (set by the package root)
PLUGIN_LOADER: Callable[[str], object] | None = None
_plugins_loaded = False


def load_plugins() -> None:
    """Import every plugin module once (registering its metrics)."""
    global _plugins_loaded
    if _plugins_loaded or PLUGIN_LOADER is None:
        return
    _plugins_loaded = True
    for name in PLUGIN_MODULES:
        try:
            PLUGIN_LOADER(name)
        except ModuleNotFoundError as exc:  # a plugin package that is not present
            if exc.name is None or not name.startswith(exc.name):
                raise


def register(defn: MetricDef, aliases: tuple[str, ...] = ()) -> MetricDef:
    """Add a metric family (and name aliases) to the registry."""
    REGISTRY[defn.name] = defn
    for alias in aliases:
        ALIASES[alias] = defn.name
    return defn


_KEY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:@\s*([^()\s]+))?\s*(?:\((.*)\))?\s*$")


def metric(name: str, k: int | float | str | None = None, **params: Any) -> MetricSpec:
    """Build a validated spec from keywords: ``metric("ndcg", 10, gain="exp")``."""
    canonical = ALIASES.get(name.lower(), name.lower())
    if canonical not in REGISTRY and not _plugins_loaded:
        load_plugins()
        canonical = ALIASES.get(name.lower(), name.lower())
    if canonical not in REGISTRY:
        valid = sorted(REGISTRY) + sorted(ALIASES)
        raise UnknownMetricError(
            f"unknown metric {plain(name)}." + suggest(name.lower(), valid)
            + " Run `receval metrics` (or receval.list_metrics()) for the full list."
        )
    defn = REGISTRY[canonical]
    if k is not None:
        k = _cutoff(canonical, k)
        if defn.cutoff == "none":
            raise MetricError(f"{canonical} takes no cutoff, got @{k}; use {plain(canonical)}.")
    values = []
    for pname in sorted(params):
        p = defn.param(pname)
        value = p.convert(canonical, params[pname])
        if value != p.default:
            values.append((pname, value))
    spec = MetricSpec(canonical, k, tuple(values))
    if spec.summary != defn.summary and (
            defn.aggregate != "mean" or (defn.kernel and defn.kernel.micro_requests(spec))):
        raise MetricError(
            f"{spec.key}: summary={spec.summary} needs per-user values summarised by their "
            f"mean; {canonical} here is a ratio of sums over users (or one pooled value).")
    return spec


def _cutoff(metric: str, k: Any) -> int:
    """A cutoff as an int in [1, MAX_CUTOFF]: ``10``, ``10.0``, ``"10"``, ``np.int64(10)``."""
    bad = MetricError(
        f"{metric}: cutoff k must be a positive integer up to {MAX_CUTOFF}, got {plain(k)}. "
        f"Use {plain(metric)} without @k for the whole list."
    )
    if isinstance(k, (bool, np.bool_)):
        raise bad
    if isinstance(k, str):
        k = k.strip()
    try:
        as_int = int(k)  # exact for ints and integer strings of any length
    except (TypeError, ValueError, OverflowError):
        try:
            as_float = float(k)
        except (TypeError, ValueError, OverflowError):
            raise bad from None
        if not math.isfinite(as_float) or as_float != int(as_float):
            raise bad from None
        as_int = int(as_float)
    else:
        if not isinstance(k, str) and not hasattr(k, "__index__") and float(k) != as_int:
            raise bad  # 2.5 -> 2 would be a silent truncation
    if not 1 <= as_int <= MAX_CUTOFF:
        raise bad
    return as_int
