"""ranx: the ``compat="ranx"`` preset against the library itself.

Every metric of ranx's ``metric_switch`` (ranx/metrics/__init__.py), without a cutoff and at
1, 3, 5, 10, with ranx's suffixes (``-l2``: relevance level 2; ``rbp.95``: persistence 0.95),
through ``ranx.evaluate``.
"""

from __future__ import annotations

from common import CUTS, Report, binary, check, make_data, need, ours, strings, version

_RANX_TIES = "ties: ranx sorts"
_CUT = ("ndcg", "ndcg_burges", "dcg", "dcg_burges", "map", "mrr", "precision", "recall",
        "hit_rate", "hits", "f1")


def _names() -> list[str]:
    names = [n for base in _CUT for n in (base, *(f"{base}@{k}" for k in CUTS))]
    names += ["r-precision", "precision@5-l2", "recall@10-l2", "map-l2", "mrr@3-l2",
              "hits@5-l2", "hit_rate@3-l2", "f1@5-l2", "r-precision-l2", "ndcg@5-l1",
              "dcg_burges@10-l1"]
    return names


@check("ranx", "ranx")
def check_ranx(report: Report) -> None:
    ranx = need("ranx")
    label = f"ranx {version('ranx')}"
    names = _names()
    for ties in (False, True):
        run, truth = strings(*make_data(701 + ties, ties=ties))
        if ties:
            # lists of up to 15 items keep their input order in ranx: give receval's
            run = {q: {d: items[d] for d in sorted(items, key=lambda d: (-items[d], d))}
                   for q, items in run.items()}
        values = ranx.evaluate(ranx.Qrels(truth), ranx.Run(run), names, make_comparable=True)
        got = ours(run, truth, names, "ranx")
        for name in names:
            report.add("ranx", label, name + (" ties" if ties else ""), got[name],
                       values[name], known=_RANX_TIES if ties else "")
    # rbp.p: binary qrels (graded ones are weighed by the grade in ranx: see the notes)
    run, truth = strings(*make_data(704, ties=False))
    rbp = ["rbp.8", "rbp.95", "rbp.5", "rbp.8-l1"]
    for qrels, tag in ((binary(truth), ""), (truth, " graded")):
        values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), rbp, make_comparable=True)
        got = ours(run, qrels, rbp, "ranx")
        for name in rbp:
            report.add("ranx", label, name + tag, got[name], values[name],
                       known="rbp: ranx weighs" if tag else "")
    # bpref: every query with a relevant and a judged non-relevant item, then the edge users
    run, truth = strings(*make_data(703, ties=False))
    both = {q: t for q, t in truth.items() if any(t.values()) and not all(t.values())}
    report.add("ranx", label, "bpref", ours(run, both, ["bpref"], "ranx")["bpref"],
               ranx.evaluate(ranx.Qrels(both), ranx.Run(run), "bpref", make_comparable=True))
    report.add("ranx", label, "bpref edge users", ours(run, truth, ["bpref"], "ranx")["bpref"],
               ranx.evaluate(ranx.Qrels(truth), ranx.Run(run), "bpref", make_comparable=True),
               known="bpref: a query without")
