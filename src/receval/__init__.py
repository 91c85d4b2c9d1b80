"""receval: offline evaluation of recommender systems and ranked retrieval.

Every metric of the field, computed exactly as documented, with every convention a named
parameter; one compiled pass over packed arrays.

>>> import receval as rv
>>> run = {"u1": {"a": 0.9, "b": 0.8, "c": 0.1}, "u2": {"a": 0.5, "c": 0.4}}
>>> truth = {"u1": {"b": 1}, "u2": {"c": 1, "d": 1}}
>>> res = rv.evaluate(run, truth, ["ndcg@10", "mrr"])
>>> res.summary["mrr"]              # first hit at rank 2 for both users
0.5
>>> res.counts["evaluated"]
2

Then ``res.per_user`` (one row per user), ``rv.compare({"pop": res_pop, "knn": res_knn},
baseline="pop")`` (paired significance tests) and ``rv.report(cmp, format="html",
path="report.html")``.

Heavier parts (statistics, splitting, sampling, top-k, file readers, datasets) load on first
use, so ``import receval`` stays fast.
"""

import importlib as _importlib
from typing import Any as _Any

from ._version import __version__
from .errors import (
    EmptyRunWarning,
    InputError,
    MetricError,
    MissingDependencyError,
    MissingExtensionError,
    NoCommonUsersWarning,
    ParameterError,
    PolicyError,
    RecevalError,
    RecevalWarning,
    RelevanceThresholdWarning,
    UndefinedValueWarning,
    UnknownMetricError,
)
from .evaluate import Evaluator, evaluate, evaluate_blocks
from .metrics import MetricSpec, list_metrics, metric, parse_metric, parse_metrics
from .metrics import spec as _spec
from .policies import Policies
from .report import report  # the function; the package stays receval.report
from .results import EvalResult

# the metric families outside the ranking kernel (receval.metrics.spec.PLUGIN_MODULES) sit
# above the metrics layer: the package root imports them for it, on first need
_spec.PLUGIN_LOADER = _importlib.import_module

# public name -> module that defines it (imported on first access)
_LAZY: dict[str, str | tuple[str, str | None]] = {
    "Accumulator": "receval.training",
    "compare": "receval.stats",
    "Comparison": "receval.results",
    "load_report": ("receval.report", "load"),
    "read_run": "receval.io.files",
    "read_truth": "receval.io.files",
    "write_run": "receval.io.files",
    "write_truth": "receval.io.files",
    "trec_eval": "receval.trec",
    "topk_from_scores": "receval.topk",
    "TopK": "receval.topk",
    "check_leakage": "receval.split",
    "LeakageWarning": "receval.split",
    "topk": ("receval.topk", None),
    "split": ("receval.split", None),
    "sampling": ("receval.sampling", None),
    "classification": ("receval.classification", None),
    "beyond": ("receval.beyond", None),
    "datasets": ("receval.datasets", None),
    "groups": ("receval.groups", None),
    "integrations": ("receval.integrations", None),
    "baselines": ("receval.baselines", None),
    "stats": ("receval.stats", None),
    "meta": ("receval.stats.meta", None),
    "online": ("receval.online", None),
    "compat": ("receval.compat", None),
    "diff": ("receval.difference", "diff"),
    "run_demo": ("receval.demo", "run_demo"),
    "run_overlap": ("receval.beyond.runs", "run_overlap"),
    "set_memory_cache": "receval.engines.memory",
    "release_memory": "receval.engines.memory",
    "memory_cache_info": "receval.engines.memory",
}


def __getattr__(name: str) -> _Any:
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'receval' has no attribute {name!r}")
    module_name, attr = (target, name) if isinstance(target, str) else target
    module = _importlib.import_module(module_name)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


# public modules reached as attributes (``rv.metrics.metric``, ``rv.errors.InputError``)
_MODULES = ["errors", "io", "metrics", "policies", "results", "trec"]

__all__ = [  # sub-packages (baselines, beyond, ...) are imported on first use
    "Accumulator", "Comparison", "EmptyRunWarning", "EvalResult", "Evaluator", "InputError",
    "LeakageWarning", "MetricError",
    "MetricSpec", "MissingDependencyError", "MissingExtensionError", "NoCommonUsersWarning",
    "ParameterError", "Policies", "PolicyError", "RecevalError", "RecevalWarning",
    "RelevanceThresholdWarning", "TopK", "UndefinedValueWarning", "UnknownMetricError", "__version__", "baselines",
    "beyond", "check_leakage", "classification", "compare", "compat", "datasets", "diff",
    "evaluate", "evaluate_blocks", "groups", "integrations", "list_metrics", "load_report",
    "memory_cache_info", "meta", "metric", "online",
    "parse_metric", "parse_metrics", "read_run", "read_truth", "release_memory", "report",
    "run_demo", "run_overlap", "set_memory_cache", "sampling", "split", "stats", "topk", "topk_from_scores", "training",
    "trec_eval",
    "write_run", "write_truth",
]


def __dir__() -> list[str]:
    """The public names only (``__all__`` and the public modules), not the imports that
    implement the package."""
    return sorted({*__all__, *_MODULES})
