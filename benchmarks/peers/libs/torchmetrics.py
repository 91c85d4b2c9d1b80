"""torchmetrics: the ``compat="torchmetrics"`` preset against the library itself."""

from __future__ import annotations

from common import CUTS, TOL_F32, Report, Run, Truth, check, make_data, need, ours, version


@check("torchmetrics", "torchmetrics")
def check_torchmetrics(report: Report) -> None:
    torch = need("torch")
    retrieval = need("torchmetrics.retrieval")
    label = f"torchmetrics {version('torchmetrics')} (torch {torch.__version__})"

    def tensors(run: Run, truth: Truth, graded: bool):
        preds, target, indexes = [], [], []
        for u, items in run.items():
            for i, s in items.items():
                rel = truth.get(u, {}).get(i, 0)
                preds.append(s)
                target.append(rel if graded else int(rel > 0))
                indexes.append(u)
        return (torch.tensor(preds, dtype=torch.float64), torch.tensor(target),
                torch.tensor(indexes))

    def restricted(run: Run, truth: Truth) -> Truth:
        # torchmetrics knows only the targets of the scored candidates
        return {u: {i: r for i, r in truth.get(u, {}).items() if i in items}
                for u, items in run.items()}

    classes = {"retrievalmap": retrieval.RetrievalMAP,
               "retrievalprecision": retrieval.RetrievalPrecision,
               "retrievalrecall": retrieval.RetrievalRecall,
               "retrievalhitrate": retrieval.RetrievalHitRate,
               "retrievalmrr": retrieval.RetrievalMRR,
               "retrievalnormalizeddcg": retrieval.RetrievalNormalizedDCG}
    # distinct scores: torch.topk leaves the order of tied scores unspecified
    run, truth = make_data(101, ties=False)
    sub = restricted(run, truth)
    for graded in (False, True):
        preds, target, indexes = tensors(run, truth, graded)
        t = sub if graded else {u: {i: int(r > 0) for i, r in x.items()} for u, x in sub.items()}
        for name, cls in classes.items():
            if graded and name != "retrievalnormalizeddcg":
                continue  # the other retrieval metrics take binary targets only
            for k in (*CUTS, None):
                m = cls() if k is None else cls(top_k=k)
                theirs = float(m(preds, target, indexes=indexes))
                key = name if k is None else f"{name}@{k}"
                got = ours(run, t, [key], "torchmetrics")[key]
                report.add("torchmetrics", label, key + (" graded" if graded else ""), got,
                           theirs, tol=TOL_F32)
        if not graded:
            m = retrieval.RetrievalPrecision(top_k=5, adaptive_k=True)
            theirs = float(m(preds, target, indexes=indexes))
            key = "retrievalprecision@5(denominator=list)"
            report.add("torchmetrics", label, key + " adaptive_k", ours(run, t, [key],
                       "torchmetrics")[key], theirs, tol=TOL_F32)
            theirs = float(retrieval.RetrievalRPrecision()(preds, target, indexes=indexes))
            report.add("torchmetrics", label, "retrievalrprecision",
                       ours(run, t, ["retrievalrprecision"], "torchmetrics")[
                           "retrievalrprecision"], theirs, tol=TOL_F32)
    # tied scores: RetrievalNormalizedDCG averages them (ties='average')
    run, truth = make_data(102, ties=True)
    sub = restricted(run, truth)
    preds, target, indexes = tensors(run, truth, True)
    for k in (*CUTS, None):
        m = retrieval.RetrievalNormalizedDCG() if k is None else \
            retrieval.RetrievalNormalizedDCG(top_k=k)
        key = "retrievalnormalizeddcg" if k is None else f"retrievalnormalizeddcg@{k}"
        report.add("torchmetrics", label, key + " graded ties(average)",
                   ours(run, sub, [key], "torchmetrics", ties="average")[key],
                   float(m(preds, target, indexes=indexes)), tol=TOL_F32)
