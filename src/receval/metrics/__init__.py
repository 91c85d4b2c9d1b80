"""Metric definitions, the registry and the canonical-key parser (no array code here)."""

from . import ranking  # noqa: F401  (registers the ranking metrics)
from .names import (
    best_value,
    canonical_key,
    canonical_keys,
    goodness,
    higher_is_better,
    parse_metric,
    parse_metrics,
    resolve_key,
)
from .spec import (
    ALIASES,
    REGISTRY,
    MetricDef,
    MetricSpec,
    Param,
    load_plugins,
    metric,
    register,
)


def list_metrics() -> list[MetricDef]:
    """Every registered metric family (plugins included), sorted by name."""
    load_plugins()
    return [REGISTRY[name] for name in sorted(REGISTRY)]


__all__ = [
    "ALIASES", "REGISTRY", "canonical_key", "best_value", "canonical_keys", "goodness", "higher_is_better", "MetricDef", "MetricSpec", "Param", "list_metrics", "metric",
    "load_plugins", "parse_metric", "parse_metrics", "register", "resolve_key",
]
