"""trec_eval (pytrec_eval): the ``compat="trec_eval"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import CUTS, Report, check, make_data, need, ours, strings, version


@check("trec_eval", "trec_eval (pytrec_eval)")
def check_trec_eval(report: Report) -> None:
    pytrec_eval = need("pytrec_eval")
    label = f"pytrec_eval-terrier {version('pytrec_eval-terrier')}"
    run, truth = strings(*make_data(601, ties=True))
    cuts = ",".join(map(str, CUTS))
    measures = {"map", "recip_rank", "Rprec", "ndcg", "bpref", "num_rel_ret", "num_rel",
                "num_ret"} | {f"{m}.{cuts}" for m in ("map_cut", "P", "recall", "ndcg_cut",
                                                      "success")}
    per_query = pytrec_eval.RelevanceEvaluator(truth, measures).evaluate(run)
    fields = {"map": "map", "recip_rank": "recip_rank", "rprec": "Rprec", "ndcg": "ndcg",
              "bpref": "bpref", "num_rel_ret": "num_rel_ret", "num_rel": "num_rel",
              "num_ret": "num_ret"}
    names = list(fields) + [f"{m}@{k}" for m in ("map_cut", "p", "recall", "ndcg_cut",
                                                  "success") for k in CUTS]
    cut_fields = {"map_cut": "map_cut", "p": "P", "recall": "recall", "ndcg_cut": "ndcg_cut",
                  "success": "success"}
    got = ours(run, truth, names, "trec_eval")
    for name in names:
        base, _, k = name.partition("@")
        field = f"{cut_fields[base]}_{k}" if k else fields[base]
        theirs = float(np.mean([v[field] for v in per_query.values()]))
        report.add("trec_eval", label, name, got[name], theirs)
