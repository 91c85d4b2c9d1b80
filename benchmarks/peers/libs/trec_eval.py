"""trec_eval (pytrec_eval): the ``compat="trec_eval"`` preset against the library itself.

Every entry of the preset that is a trec_eval measure, at cutoffs 1, 3, 5, 10 where it takes
one, against pytrec_eval's ``all`` line: the mean over the queries of both the run and the
qrels, and the sum for the counts (``num_ret``, ``num_rel``, ``num_rel_ret``), as trec_eval
prints it. ir_measures' names of the same preset: ``ir_measures.py``.
"""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, strings, version

from receval.metrics.foreign import TREC_EVAL

#: entry -> the pytrec_eval measure it names (``None``: the entry itself)
_CUT = {"p": "P", "recall": "recall", "ndcg_cut": "ndcg_cut", "map_cut": "map_cut",
        "relative_p": "relative_P", "success": "success"}
_RECALLS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@check("trec_eval", "trec_eval (pytrec_eval)")
def check_trec_eval(report: Report) -> None:
    pytrec_eval = need("pytrec_eval")
    label = f"pytrec_eval-terrier {version('pytrec_eval-terrier')}"
    measures = {m.name: m for m in TREC_EVAL if m.family is not None and not m.plugin}
    cuts = ",".join(map(str, CUTS))
    asked = {f"{_CUT[n.lower()]}.{cuts}" if n.lower() in _CUT else n for n in measures}
    asked.discard("iprec_at_recall")
    asked.add("iprec_at_recall")  # its 11 default levels
    for rel_level in (1, 2):
        run, truth = strings(*make_data(601 + rel_level, ties=True))
        per_query = pytrec_eval.RelevanceEvaluator(
            truth, asked, relevance_level=rel_level).evaluate(run)
        # our name -> (line label, pytrec_eval field, how the all line sums it)
        lines: dict[str, tuple[str, str, str]] = {}
        for name, m in measures.items():
            low = name.lower()
            if low in _CUT:
                for k in CUTS:
                    lines[f"{name}@{k}"] = (f"{name}@{k}", f"{_CUT[low]}_{k}", m.summary)
            elif name == "iprec_at_recall":
                for p in _RECALLS:
                    lines[f"iprec_at_recall_{p:.2f}"] = (
                        f"iprec_at_recall {p:.2f}", f"iprec_at_recall_{p:.2f}", m.summary)
            else:
                lines[name] = (name, name, m.summary)
        names = list(lines)
        level = {} if rel_level == 1 else {"rel": rel_level}
        keys = [n if not level else _with_rel(n, measures, rel_level) for n in names]
        got = ours(run, truth, keys, "trec_eval")
        for name, key in zip(names, keys, strict=True):
            line, field, summary = lines[name]
            values = [v[field] for v in per_query.values()]
            theirs = float(np.sum(values) if summary == "sum" else np.mean(values))
            report.add("trec_eval", label, f"{line} (-l {rel_level})" if level else line,
                       got[key], theirs)


def _with_rel(name: str, measures: dict, level: int) -> str:
    """The name with trec_eval's relevance level ``-l`` as ``rel`` where the family has one
    (``ndcg`` and ``ndcg_cut`` read grades, not a level)."""
    from receval.metrics import metric

    base = name.split("@")[0]
    if base.startswith("iprec_at_recall_"):
        return f"iprec_at_recall(recall={float(base.rsplit('_', 1)[1])},rel={level})"
    family = measures[base].family
    if any(p.name == "rel" for p in metric(family).definition.params):
        # 11pt_avg is no key of receval's grammar with parameters: its family's key
        return f"{family if name[0].isdigit() else name}(rel={level})"
    return name
