"""receval trec vs pytrec_eval (trec_eval's C code) on generated qrels and runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from receval.trec.evaluate import trec_eval

pytrec_eval = pytest.importorskip("pytrec_eval")

SKIP = {"runid", "num_q", "gm_map", "gm_bpref", "relstring"}


def _generate(seed: int, n_q: int = 25, neg: bool = True):
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_q):
        qid = f"q{q:02d}"
        pool = [f"d{rng.integers(0, 10 ** rng.integers(1, 4))}x{i}" for i in range(60)]
        judged = rng.choice(pool, size=int(rng.integers(1, 40)), replace=False)
        levels = [0, 0, 1, 1, 2, 3] + ([-1] if neg else [])
        qrels[qid] = {d: int(rng.choice(levels)) for d in judged}
        if q % 7 == 3:
            continue  # query absent from the run
        docs = rng.choice(pool, size=int(rng.integers(1, 60)), replace=False)
        # scores on a coarse grid (exact in float32) so that ties are frequent
        run[qid] = {d: float(rng.integers(0, 12)) / 8.0 for d in docs}
    run["only_in_run"] = {"a": 1.0, "b": 0.5}
    return qrels, run


def _frames(qrels, run):
    q = pd.DataFrame([(qid, d, r) for qid, docs in qrels.items() for d, r in docs.items()],
                     columns=["qid", "docno", "relevance"])
    r = pd.DataFrame([(qid, d, s) for qid, docs in run.items() for d, s in docs.items()],
                     columns=["qid", "docno", "score"])
    r["tag"] = "gen"
    return q, r


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", [1, 2])
def test_all_trec_per_query_equals_pytrec_eval(seed, level):
    qrels, run = _generate(seed)
    q, r = _frames(qrels, run)
    ours = trec_eval(q, r, ["all_trec"], level=level)
    ref = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures,
                                         relevance_level=level).evaluate(run)
    assert sorted(ours.qids) == sorted(ref)
    n = 0
    for qid, values in ref.items():
        i = ours.qids.index(qid)
        for name, expected in values.items():
            if name in SKIP:
                continue
            got = float(ours.values[name][i])
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (qid, name)
            n += 1
    assert n > 1000


def test_summary_is_mean_of_per_query_and_gm_uses_floor():
    qrels, run = _generate(5, neg=False)
    q, r = _frames(qrels, run)
    ours = trec_eval(q, r, ["map", "gm_map", "num_rel", "P.5"])
    ap = np.asarray(ours.values["map"])
    assert ours.summary["map"] == pytest.approx(ap.mean())
    assert ours.summary["gm_map"] == pytest.approx(np.exp(np.log(np.maximum(ap, 1e-5)).mean()))
    assert ours.summary["num_rel"] == np.sum(ours.values["num_rel"])
    # -c: every qrels query counts, absent ones score 0
    full = trec_eval(q, r, ["map", "num_q"], complete=True)
    assert full.summary["num_q"] == len(qrels)
    assert full.summary["map"] == pytest.approx(ap.sum() / len(qrels))


def test_max_docs_equals_truncated_run():
    qrels, run = _generate(9)
    q, r = _frames(qrels, run)
    cut = trec_eval(q, r, ["all_trec"], max_docs=7)
    # the same run cut to its top 7 by trec_eval's order (score as float32 desc, docno desc)
    r2 = r.assign(s32=r["score"].astype(np.float32)).sort_values(
        ["qid", "s32", "docno"], ascending=[True, False, False])
    r2 = r2.groupby("qid").head(7)
    ref = trec_eval(q, r2, ["all_trec"])
    for name, value in ref.summary.items():
        assert cut.summary[name] == pytest.approx(value), name


def test_evaluate_with_trec_policies_equals_trec_measures():
    """rv.evaluate with ties=trec_eval, users=intersection, empty_truth=zero gives trec_eval's
    values for the measures that do not look at judged non-relevant documents."""
    import receval as rv

    qrels, run = _generate(11, neg=False)
    q, r = _frames(qrels, run)
    ours = trec_eval(q, r, ["map", "P.5", "ndcg_cut.10", "recip_rank", "recall.20", "Rprec"])
    res = rv.evaluate(r, q, ["map", "precision@5", "ndcg@10", "mrr", "recall@20",
                             "r_precision"], ties="trec_eval", users="intersection",
                      empty_truth="zero", score_col="score")
    for col, key in [("map", "map"), ("P_5", "precision@5"), ("ndcg_cut_10", "ndcg@10"),
                     ("recip_rank", "mrr"), ("recall_20", "recall@20"),
                     ("Rprec", "r_precision")]:
        assert res[key] == pytest.approx(ours.summary[col], rel=1e-12), key


def test_trec_eval_ties_compare_integer_ids_as_text():
    # trec_eval compares docnos as strings (strcmp: '9' sorts after '10', so with a descending
    # tie break '9' comes first); ties="trec_eval" does the same for integer ids.
    import receval as rv

    run = pd.DataFrame({"user": [1, 1], "item": [9, 10], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [9]})
    ref = pytrec_eval.RelevanceEvaluator({"1": {"9": 1}}, {"recip_rank"}).evaluate(
        {"1": {"9": 1.0, "10": 1.0}})["1"]["recip_rank"]
    assert ref == 1.0
    assert rv.evaluate(run, truth, ["mrr"], ties="trec_eval")["mrr"] == ref
