"""From offline metrics to online outcomes: A/B analysis, interleaving, off-policy estimates and
the agreement of offline metrics with online results over past experiments.

    on = rv.online
    units = on.ab.per_unit(events, unit="user_id", variant="arm", sums={"clicks": "click", "impr": 1})
    on.ab.analyze(units, control="A", metrics=[on.ab.ratio("clicks", "impr")])
    log = on.read_log(df, unit="user_id", slate="impression_id", propensity="pscore")
    on.estimate(log, on.policy_from_run(run, kind="plackett_luce"), estimators=["ips", "snips"])
    on.agreement(ledger, offline_metrics=["ndcg@10"])

Every result is an :class:`OnlineResult` (table, per-unit values, counts, diagnostics,
provenance; JSON round trip) and renders through :func:`receval.report`.
"""

from __future__ import annotations

from . import ab, interleave, simulate
from ._results import OnlineResult
from .agreement import agreement
from .estimate import ESTIMATORS, compare_policies, estimate, overlap
from .ledger import Ledger
from .propensity import Log, Policy, policy_from_run, policy_from_table, read_log
from .sequential import msprt

check_overlap = overlap

__all__ = ["ESTIMATORS", "Ledger", "Log", "OnlineResult", "Policy", "ab", "agreement",
           "check_overlap", "compare_policies", "estimate", "interleave", "msprt", "overlap",
           "policy_from_run", "policy_from_table", "read_log", "simulate"]
