"""RePlay: the ``compat="replay"`` preset against the library itself."""

from __future__ import annotations

import numpy as np
from common import (
    CUTS,
    Report,
    binary,
    check,
    make_data,
    need,
    ours,
    ranked,
    relevant,
    strings,
    version,
)

_REPLAY_ROCAUC = "RocAuc orders"


@check("replay", "RePlay")
def check_replay(report: Report) -> None:
    pd = need("pandas")
    metrics = need("replay.metrics")
    label = f"replay-rec {version('replay-rec')}"
    names = {"map": metrics.MAP, "ndcg": metrics.NDCG, "precision": metrics.Precision,
             "recall": metrics.Recall, "mrr": metrics.MRR, "hitrate": metrics.HitRate,
             "rocauc": metrics.RocAuc}
    # dict inputs: lists in receval's tie order (RePlay keeps the given order of tied scores);
    # users whose ground truth is empty are given with an empty list and score 0
    run, truth = make_data(1201, ties=True)
    recs = {u: [(i, run[u][i]) for i in ranked(items)] for u, items in run.items()}
    gt = {u: [i for i, r in t.items() if r > 0] for u, t in truth.items()}
    for name, cls in names.items():
        values = cls(topk=list(CUTS))(recs, gt)
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth, keys, "replay")
        for k, key in zip(CUTS, keys, strict=True):
            report.add("replay", label, key + " dict ties", got[key],
                       values[f"{cls.__name__}@{k}"],
                       known=_REPLAY_ROCAUC if name == "rocauc" else "")
    # pandas frames with distinct scores
    run, truth = make_data(1202, ties=False)
    rec_df = pd.DataFrame([(u, i, s) for u, items in run.items() for i, s in items.items()],
                          columns=["query_id", "item_id", "rating"])
    gt_df = pd.DataFrame([(u, i) for u, items in relevant(truth).items() for i in items],
                         columns=["query_id", "item_id"])
    # a frame holds no user without a relevant item: those users are not evaluated
    truth_rel = binary(truth)
    for name, cls in names.items():
        values = cls(topk=list(CUTS))(rec_df, gt_df)
        keys = [f"{name}@{k}" for k in CUTS]
        got = ours(run, truth_rel, keys, "replay")
        for k, key in zip(CUTS, keys, strict=True):
            report.add("replay", label, key + " pandas", got[key], values[f"{cls.__name__}@{k}"])
    # pandas frames with tied scores: RePlay sorts by (score, item id) descending. With
    # integer ids receval has no such order (known); with string ids (zero-padded, so that
    # string and number order agree) ties='trec_eval' (score as float32, then id descending)
    # is that order
    run, truth = make_data(1203, ties=True)
    truth_rel = binary(truth)
    s_run, s_truth = strings(run, truth_rel)
    for ids, r, t in (("int", run, truth_rel), ("str", s_run, s_truth)):
        rec_df = pd.DataFrame([(u, i, s) for u, items in r.items() for i, s in items.items()],
                              columns=["query_id", "item_id", "rating"])
        gt_df = pd.DataFrame([(u, i) for u, items in t.items() for i in items],
                             columns=["query_id", "item_id"])
        policy = "id" if ids == "int" else "trec_eval"
        for name in ("map", "ndcg", "mrr", "precision"):
            cls = names[name]
            values = cls(topk=list(CUTS))(rec_df, gt_df)
            keys = [f"{name}@{k}" for k in CUTS]
            got = ours(r, t, keys, "replay", ties=policy)
            for k, key in zip(CUTS, keys, strict=True):
                report.add("replay", label, f"{key} pandas ties {ids} ids ties={policy}",
                           got[key], values[f"{cls.__name__}@{k}"],
                           known="DataFrame inputs" if ids == "int" else "")
    # Surprisal: a property of the lists (every user with a list), weights from training
    rng = np.random.default_rng(1204)
    train = {u: [int(i) for i in rng.choice(30, size=int(rng.integers(1, 10)), replace=False)]
             for u in range(50)}
    frame = pd.DataFrame([(u, i) for u, items in train.items() for i in items],
                         columns=["user", "item"])
    recs = {u: [(i, run[u][i]) for i in ranked(items)] for u, items in run.items()}
    values = metrics.Surprisal(topk=list(CUTS))(recs, train)
    keys = [f"surprisal@{k}" for k in CUTS]
    got = ours(run, truth, keys, "replay", train=frame, users="run")
    for k, key in zip(CUTS, keys, strict=True):
        report.add("replay", label, key, got[key], values[f"Surprisal@{k}"])
    # Coverage (over the users of the recommendations, / distinct train items),
    # Unexpectedness against a second run, CategoricalDiversity of one category per item
    values = metrics.Coverage(topk=list(CUTS))(recs, train)
    keys = [f"coverage@{k}" for k in CUTS]
    got = ours(run, truth, keys, "replay", train=frame, catalog="train", users="run")
    for k, key in zip(CUTS, keys, strict=True):
        report.add("replay", label, key, got[key], values[f"Coverage@{k}"])
    base, _ = make_data(1205, ties=False)
    base = {u: items for u, items in base.items() if u in run}
    base_recs = {u: [(i, base[u][i]) for i in ranked(items)] for u, items in base.items()}
    values = metrics.Unexpectedness(topk=list(CUTS))(
        {u: v for u, v in recs.items() if u in base}, base_recs)
    keys = [f"unexpectedness@{k}" for k in CUTS]
    got = ours({u: v for u, v in run.items() if u in base}, truth, keys, "replay",
               baseline_run=base, users="run")
    for k, key in zip(CUTS, keys, strict=True):
        report.add("replay", label, key + " users with a baseline", got[key],
                   values[f"Unexpectedness@{k}"])
    run_d, _ = make_data(1206, ties=False)
    values = metrics.CategoricalDiversity(topk=list(CUTS))(
        {u: [(i % 4, s) for i, s in items.items()] for u, items in run_d.items()})
    cats = {i: [i % 4] for items in run_d.values() for i in items}
    keys = [f"categoricaldiversity@{k}" for k in CUTS]
    got = ours(run_d, truth, keys, "replay", item_categories=cats, users="run")
    for k, key in zip(CUTS, keys, strict=True):
        report.add("replay", label, key, got[key], values[f"CategoricalDiversity@{k}"])
