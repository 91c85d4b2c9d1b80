"""ranx: the ``compat="ranx"`` preset against the library itself."""

from __future__ import annotations

from common import Report, check, make_data, need, ours, strings, version

_RANX_TIES = "ties: ranx sorts"


@check("ranx", "ranx")
def check_ranx(report: Report) -> None:
    ranx = need("ranx")
    label = f"ranx {version('ranx')}"
    names = ["ndcg@5", "ndcg_burges@5", "map@10", "map", "mrr", "mrr@3", "precision@5",
             "recall@10", "hit_rate@3", "hits@5", "f1@5", "r-precision"]
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
    # bpref: every query with a relevant and a judged non-relevant item, then the edge users
    run, truth = strings(*make_data(703, ties=False))
    both = {q: t for q, t in truth.items() if any(t.values()) and not all(t.values())}
    report.add("ranx", label, "bpref", ours(run, both, ["bpref"], "ranx")["bpref"],
               ranx.evaluate(ranx.Qrels(both), ranx.Run(run), "bpref", make_comparable=True))
    report.add("ranx", label, "bpref edge users", ours(run, truth, ["bpref"], "ranx")["bpref"],
               ranx.evaluate(ranx.Qrels(truth), ranx.Run(run), "bpref", make_comparable=True),
               known="bpref: a query without")
