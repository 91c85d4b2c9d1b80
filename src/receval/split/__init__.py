"""Train/test splitting of interaction tables, leakage checks and filtering steps.

Splitters: :func:`random_split`, :func:`temporal_split`, :func:`user_temporal_split`,
:func:`leave_one_out`, :func:`kfold_split`, :func:`cold_start_split`. Checks and explicit
steps: :func:`check_leakage`, :func:`filter_min_interactions`, :func:`drop_cold`.
"""

from ._checks import (
    LeakageReport,
    LeakageWarning,
    check_leakage,
    drop_cold,
    filter_min_interactions,
)
from ._split import (
    Split,
    cold_start_split,
    kfold_split,
    leave_one_out,
    random_split,
    temporal_split,
    user_temporal_split,
)

__all__ = [
    "LeakageReport", "LeakageWarning", "Split", "check_leakage", "cold_start_split", "drop_cold",
    "filter_min_interactions", "kfold_split", "leave_one_out", "random_split", "temporal_split",
    "user_temporal_split",
]
