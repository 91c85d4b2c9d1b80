"""receval: offline evaluation of recommender systems and ranked retrieval.

Every metric of the field, computed exactly as documented, with every convention a named
parameter; one compiled pass over packed arrays.

>>> import receval as rv
>>> res = rv.evaluate(run, truth, ["ndcg@10", "map@100", "mrr"])
>>> res.summary, res.per_user, res.counts
"""

__version__ = "0.1.0"

from .errors import (  # noqa: E402
    InputError,
    MetricError,
    MissingDependencyError,
    PolicyError,
    RecevalError,
    RecevalWarning,
    TieWarning,
    UnknownMetricError,
)
from .evaluate import Evaluator, evaluate  # noqa: E402
from .metrics import MetricSpec, list_metrics, metric, parse_metric, parse_metrics  # noqa: E402
from .policies import Policies  # noqa: E402
from .results import EvalResult  # noqa: E402

__all__ = [
    "EvalResult", "Evaluator", "InputError", "MetricError", "MetricSpec",
    "MissingDependencyError", "Policies", "PolicyError", "RecevalError", "RecevalWarning",
    "TieWarning", "UnknownMetricError", "__version__", "evaluate", "list_metrics", "metric",
    "parse_metric", "parse_metrics",
]
