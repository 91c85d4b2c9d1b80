"""One evaluation setup: metric specs, policies, context and library names, built once.

Every entry point that evaluates (the local :class:`~receval.engines.evaluator.Evaluator`
and so ``rv.evaluate`` / ``rv.evaluate_blocks``, the Spark ``Evaluator``, ``rv.explain``,
the trec_eval emulator, ``rv.diff`` and the command line) turns its arguments into an
:class:`EvaluationSetup` with :func:`evaluation_setup`, so a preset, a policy or an optional
input means the same wherever it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..compat import Preset
from ..compat import get as get_preset
from ..compat import resolve as resolve_preset
from ..errors import PolicyError, plain, suggest
from ..metrics import MetricSpec, parse_metrics
from ..policies import POLICY_CHOICES, Policies
from .plan import Plan
from .plugins import OPTION_NAMES, Context

#: the keywords of every evaluating entry point beside the policies and plugin options
COMMON_KEYWORDS = ("train", "item_features", "catalog", "user_col", "item_col", "rel_col",
                   "compat", "strict")


@dataclass
class EvaluationSetup:
    """What an evaluation computes and under which conventions.

    ``specs``: the metrics (canonical keys); ``policies``: explicit policies over the
    preset's over receval's defaults; ``context``: optional inputs of plugin metrics;
    ``plan``: :class:`~receval.engines.plan.Plan` of the specs under the policies;
    ``compat``: ``(preset, {name as written: canonical key})`` under ``compat=``, else None.
    """

    specs: list[MetricSpec]
    policies: Policies
    context: Context
    plan: Plan
    compat: tuple[Preset, dict[str, str]] | None = None


def evaluation_setup(metrics: Any, *, policies: Mapping[str, str | None] | None = None,
                     compat: str | Preset | None = None, strict: bool = False,
                     train: Any = None, item_features: Any = None, catalog: Any = None,
                     options: Mapping[str, Any] | None = None,
                     keywords: Iterable[str] = COMMON_KEYWORDS) -> EvaluationSetup:
    """Resolve names, policies and optional inputs into an :class:`EvaluationSetup`.

    ``policies``: the policies given (``None`` values: not given); under ``compat`` the
    preset's policies fill the others (:func:`receval.compat.resolve`). ``options``: the
    remaining keyword arguments, each a plugin option of
    :data:`~receval.engines.plugins.OPTION_NAMES`; any other raises
    :class:`~receval.errors.PolicyError` naming the keyword and listing ``keywords`` (the
    caller's own) with the policies and options. Metrics that need an optional input
    (``train=``, ...) refuse a setup without it.
    """
    given = {k: v for k, v in (policies or {}).items() if v is not None}
    options = dict(options or {})
    for name in set(options) & set(POLICY_CHOICES):  # a policy passed among the options
        value = options.pop(name)
        if value is not None:
            given.setdefault(name, value)
    names = None
    if compat is not None:
        preset = get_preset(compat) if isinstance(compat, str) else compat
        metrics, given, written = resolve_preset(preset, metrics, strict=strict,
                                                 policies=given)
        names = (preset, written)
    specs = parse_metrics(metrics)
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        valid = sorted(POLICY_CHOICES) + sorted(OPTION_NAMES) + list(keywords)
        raise PolicyError(f"unknown keyword {plain(unknown[0])}; valid keywords are {valid}."
                          + suggest(unknown[0], valid))
    pol = Policies(**given)
    context = Context(train=train, item_features=item_features, catalog=catalog,
                      options=options, policies=pol)
    for spec in specs:
        for need in spec.definition.needs:
            if hasattr(context, need):
                context.require(need, spec.key)
    return EvaluationSetup(specs=specs, policies=pol, context=context,
                           plan=Plan(specs, pol), compat=names)
