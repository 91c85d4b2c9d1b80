"""receval as an ir_measures provider: ``ir_measures.calc_aggregate`` and PyTerrier's
``pt.Experiment`` computing their measures through receval.

ir_measures (MacAvaney, Macdonald & Ounis, ECIR 2022) routes each measure to the first
provider of its pipeline that supports it. :func:`provider` is a provider named ``receval``
that supports every measure the ``compat="ir_measures"`` preset reproduces on every input
(``nDCG@10``, ``P(rel=2)@5``, ``AP``, ``RR``, ``R@100``, ``Success@1``, ``Bpref``, ...), with
ir_measures' conventions (the qrels' queries, ``users="truth"``); a measure the preset refuses,
or reproduces only on some inputs (``strict=True`` refuses it: ``Judged`` and ``RR`` under tied
scores), is left to the other providers. Use it on its own, or first in the default pipeline (which
``pt.Experiment`` and ``ir_measures.calc_aggregate`` use) with :func:`register`::

    import ir_measures
    from receval.integrations import ir_measures as rv_irm

    rv_irm.provider().calc_aggregate([ir_measures.nDCG@10, ir_measures.AP], qrels, run)
    rv_irm.register()          # then every ir_measures / PyTerrier call tries receval first
    pt.Experiment([bm25], topics, qrels, eval_metrics=[ir_measures.nDCG@10])

Qrels and runs are whatever ir_measures reads (dicts of dicts, DataFrames with ``query_id``,
``doc_id``, ``relevance`` / ``score``, TREC files through ``ir_measures.read_trec_*``). A query
of the qrels that the run lacks gets the measure's value for an empty ranking, as with
ir_measures' own providers.
"""

from __future__ import annotations

from typing import Any

from ..errors import MetricError, require

#: the provider's name in ir_measures' registry
NAME = "receval"


def _classes() -> tuple[type, type]:
    """The provider and evaluator classes, built on ir_measures' base classes (imported here,
    so that receval imports without ir_measures)."""
    irm = require("ir_measures", "ir_measures")
    from ir_measures.util import QrelsConverter, RunConverter

    from ..compat import resolve
    from ..evaluate import Evaluator

    class ReceVALEvaluator(irm.providers.Evaluator):  # type: ignore[misc,name-defined]
        """Per-query values of the measures for one run, by receval."""

        def __init__(self, measures: list[Any], qrels: Any) -> None:
            frame = QrelsConverter(qrels).as_pd_dataframe()
            super().__init__(measures, set(frame["query_id"].unique()))
            self.names = {m: str(m) for m in measures}
            self.evaluator = Evaluator(
                frame[["query_id", "doc_id", "relevance"]], list(self.names.values()),
                compat="ir_measures", user_col="query_id", item_col="doc_id",
                rel_col="relevance")

        def _iter_calc(self, run: Any) -> Any:
            frame = RunConverter(run).as_pd_dataframe()[["query_id", "doc_id", "score"]]
            res = self.evaluator.evaluate(frame, user_col="query_id", item_col="doc_id",
                                          score_col="score")
            qids = res.user_ids.tolist()
            for measure, name in self.names.items():
                values = res.user_values(name)
                for qid, value in zip(qids, values.tolist(), strict=True):
                    if value == value:  # a query without a value: the pipeline's default
                        yield irm.Metric(query_id=qid, measure=measure, value=value)

    class ReceVALProvider(irm.providers.Provider):  # type: ignore[misc,name-defined]
        """Every measure ``compat="ir_measures"`` maps, computed by receval."""

        NAME = NAME

        def supports(self, measure: Any) -> bool:
            try:
                measure.validate_params()
                resolve("ir_measures", [str(measure)], strict=True)
            except (MetricError, ValueError, TypeError):
                return False
            return True

        def _evaluator(self, measures: Any, qrels: Any) -> Any:
            return ReceVALEvaluator(list(measures), qrels)

    return ReceVALProvider, ReceVALEvaluator


def provider() -> Any:
    """An ir_measures provider that computes through receval (module docstring)."""
    cls, _ = _classes()
    return cls()


def register(first: bool = True) -> Any:
    """Add the provider to ir_measures' registry (``ir_measures.providers.registry
    ["receval"]``) and, with ``first=True``, put it first in ir_measures' default pipeline, so
    that ``ir_measures.calc_aggregate`` and ``pt.Experiment`` use it for every measure it
    supports (the others keep their providers). Returns the provider; calling it twice does not
    add it twice."""
    irm = require("ir_measures", "ir_measures")
    current = irm.providers.registry.get(NAME)
    prov = current if current is not None else provider()
    irm.providers.registry[NAME] = prov
    pipeline = irm.DefaultPipeline.providers
    if first and not any(getattr(p, "NAME", None) == NAME for p in pipeline):
        pipeline.insert(0, prov)
    return prov


def unregister() -> None:
    """Take the provider out of ir_measures' default pipeline and registry."""
    irm = require("ir_measures", "ir_measures")
    irm.DefaultPipeline.providers[:] = [p for p in irm.DefaultPipeline.providers
                                        if getattr(p, "NAME", None) != NAME]
    irm.providers.registry.pop(NAME, None)
