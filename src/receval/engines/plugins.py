"""The contract for metrics computed outside the compiled ranking kernel.

A metric family registered with ``MetricDef(compute=fn, needs=(...))`` is evaluated by calling
``fn(spec, packed, context)``, which returns :class:`MetricValues`:

- ``per_user``: one float per evaluated user (row order of ``packed.user_ids``; NaN where the
  metric is undefined for that user, left out of the mean), or ``None`` for catalogue-level
  metrics that have only a global value;
- ``value``: the summary value; when ``None`` the mean of ``per_user`` over non-NaN users is used;
- ``info``: extra facts to report (e.g. the catalogue size used);
- ``num`` / ``den``: per-user numerators and denominators of a micro-averaged metric (the
  summary is their ratio of sums over users with a value).
- ``skipped``: a boolean mask of the users the metric leaves out by its own rule (e.g. gauc's
  single-class users); they are NaN in ``per_user`` and counted in the summary's ``skipped``.

Catalogue metrics should compute from mergeable partial states (counts per item) so that blocks
of users, or a distributed engine, combine them with the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from ..errors import InputError, plain


@dataclass
class MetricValues:
    per_user: np.ndarray | None = None
    value: float | None = None
    info: dict[str, Any] = field(default_factory=dict)
    # micro averages: per-user numerators and denominators (summary = sum num / sum den,
    # mergeable over blocks like the kernel's item-level hit rates)
    num: np.ndarray | None = None
    den: np.ndarray | None = None
    skipped: np.ndarray | None = None
    # a pooled value over the block's rows that merges exactly over blocks: an object with
    # ``merge(other)`` (the state of both blocks) and ``value()`` (the summary), e.g. the
    # exact sums of the CTR metrics (receval.classification.calibration)
    pooled: Any = None


# Extra keyword options of evaluate() / Evaluator() that plugin metrics read from
# ``context.options``; anything else is rejected as a likely typo.
OPTION_NAMES: dict[str, str] = {
    "similarity": "callable sim(a, b) -> float for ILD / ILS with sim=custom (beyond metrics)",
    "baseline_run": "a second run (any run container) that overlap, rbo, kendall_tau and "
                    "unexpectedness compare each list with",
    "item_categories": "{item: [categories]} (or item, category rows) for the categorical "
                       "diversity and coverage metrics",
    "propensities": "{item: propensity in (0, 1]} for psp / psndcg / ips_hit_rate (else they "
                    "are estimated from train=)",
    "intents": "subtopic judgments for alpha_ndcg, err_ia, nrbp, p_ia, ap_ia, strec: a (query, "
               "doc, subtopic, relevance) table, ndeval's qrels path, or (query, subtopic, doc, "
               "relevance) tuples",
    "intent_weights": "P(subtopic | query) for the intent-aware metrics: {query: {subtopic: w}} "
                      "or a (query, subtopic, weight) table (uniform when absent, as in ndeval)",
    "item_alignment": "{item: {group: weight}} (or a table: items by groups, or item, group, "
                      "weight columns) for awrf(membership=alignment): each item's weights "
                      "over groups (TREC Fair 2022 alignment vectors)",
    "group_target": "{group: weight} for awrf(target=given): the target distribution over "
                    "the item groups",
    "item_groups": "{item: group} (a Series, or a table with an item column and group_col) "
                   "for the metrics per item group (exposure, provider fairness); read once "
                   "as a receval.io.groups.Membership",
    "rankings": "rankings drawn from a stochastic policy, for ee_loss / ee_disparity / "
                "ee_relevance with policy=samples: a table of (user, sample, item, rank) rows, "
                "or score instead of rank (receval.beyond.rankings)",
    "sample_weights": "weights of the run's scored (user, item) pairs (a table with user, item "
                      "and weight columns, or {(user, item): w}) for normalized_entropy, "
                      "calibration_ratio, ece and brier_score",
}


T = TypeVar("T")


def memo(cache: dict, key: Hashable, sources: tuple[Any, ...], build: Callable[[], T]) -> T:
    """``build()``, kept in ``cache[key]`` and reused while each of ``sources`` is the same
    object as when it was built (identity, not equality: a new object, even an equal one, is
    read again, so a changed input is never answered from the cache)."""
    entry = cache.get(key)
    if entry is None or len(entry[0]) != len(sources) or \
            any(a is not b for a, b in zip(entry[0], sources, strict=True)):
        entry = (sources, build())
        cache[key] = entry
    return entry[1]


@dataclass
class Context:
    """Optional inputs of an evaluation, as the user passed them (validated by their users)."""

    train: Any = None
    item_features: Any = None
    catalog: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    policies: Any = None  # the evaluation's receval.policies.Policies (to pack a second run)

    def memo(self, key: Hashable, sources: tuple[Any, ...], build: Callable[[], T]) -> T:
        """:func:`memo` in this evaluation's own cache: an input read once per evaluation."""
        return memo(self.__dict__.setdefault("_memo", {}), key, sources, build)

    def require(self, name: str, metric: str) -> Any:
        value = getattr(self, name)
        if value is None:
            raise InputError(
                f"{metric} needs {name}=...; pass it to evaluate() / Evaluator(), e.g. "
                f"rv.evaluate(run, truth, [{plain(metric)}], {name}=...)."
            )
        return value
