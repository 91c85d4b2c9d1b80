"""explain: step-by-step values equal the seeds' worked examples and receval.evaluate."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.cli import main
from receval.errors import InputError
from receval.explain import explain

ALICE_RUN = {"alice": {"banana": 5, "pear": 4, "cherry": 3, "melon": 2, "grape": 1}}
ALICE_TRUTH = {"alice": {"pineapple": 1, "apple": 1, "watermelon": 1, "banana": 1, "cherry": 1}}


def test_seed_002_alice_ndcg3():
    ex = explain("ndcg@3", ALICE_RUN, ALICE_TRUTH, "alice")
    assert ex.value == pytest.approx(1.5 / (1 + 1 / math.log2(3) + 1 / 2), rel=1e-15)
    assert ex.value == pytest.approx(0.7039180890341347, rel=1e-15)
    assert ex.agrees
    # position table: gains [1, 0, 1], discounts 1/log2(i+1), running DCG
    gains = [r[ex.columns.index("gain")] for r in ex.rows]
    running = [r[ex.columns.index("running sum")] for r in ex.rows]
    assert gains == [1.0, 0.0, 1.0]
    assert running == pytest.approx([1.0, 1.0, 1.5])
    ideal = [r[-1] for r in ex.ideal_rows]
    assert ideal[-1] == pytest.approx(2.1309297535714578)
    assert len(ex.ideal_rows) == 3
    # pattern [0, 1, 1] of the same seed
    run = {"alice": {"pear": 5, "banana": 4, "cherry": 3}}
    assert explain("ndcg@3", run, ALICE_TRUTH, "alice").value == \
        pytest.approx(0.5307212739772434, rel=1e-15)


def test_seed_002_precision_recall():
    assert explain("P@3", ALICE_RUN, ALICE_TRUTH, "alice").value == 2 / 3
    assert explain("recall@2", ALICE_RUN, ALICE_TRUTH, "alice").value == 1 / 5


def test_seed_003_exponential_gain():
    ratings = [5, 3, 2, 1, 2]
    run = {"u": {f"i{j}": 10 - j for j in range(5)}}
    truth = {"u": {**{f"i{j}": r for j, r in enumerate(ratings)}, "x": 4, "y": 0}}
    dcg = explain("dcg@5(gain=exp)", run, truth, "u")
    assert dcg.value == pytest.approx(38.507743254777225, rel=1e-15)
    ndcg = explain("ndcg@5(gain=exp)", run, truth, "u")
    assert [r[1] for r in ndcg.ideal_rows] == [5, 4, 3, 2, 2]
    assert ndcg.ideal_rows[-1][-1] == pytest.approx(46.41653439949567, rel=1e-15)
    assert ndcg.value == pytest.approx(0.8296126316400654, rel=1e-15)
    assert dcg.agrees and ndcg.agrees


def test_seed_004_both_readings_of_the_ideal():
    rels = [3, 2, 3, 0, 1]
    run = {"u": {f"i{j}": 10 - j for j in range(5)}}
    truth = {"u": {f"i{j}": r for j, r in enumerate(rels)}}
    assert explain("dcg@3", run, truth, "u").value == pytest.approx(5.761859507142915)
    own = explain("ndcg@3(ideal=list)", run, truth, "u")
    assert own.ideal_rows[-1][-1] == pytest.approx(5.892789260714372)
    assert own.value == pytest.approx(0.9777813616305049)
    truth["u"]["unseen"] = 3
    full = explain("ndcg@3", run, truth, "u")
    assert full.ideal_rows[-1][-1] == pytest.approx(6.392789260714372)
    assert full.value == pytest.approx(0.901306029678045)
    assert own.agrees and full.agrees


def test_seed_004_mrr_first_hits():
    run = {"q1": {"a": 3, "b": 2}, "q2": {"c": 3, "d": 2}, "q3": {"e": 1}}
    truth = {"q1": {"b": 1}, "q2": {"c": 1}, "q3": {"z": 1}}
    values = [explain("mrr", run, truth, q).value for q in ("q1", "q2", "q3")]
    assert values == [1 / 2, 1.0, 0.0]
    assert sum(values) / 3 == 0.5
    ex = explain("mrr", run, truth, "q1")
    assert ex.rows[1][-1] == "first hit" and "first relevant item at rank 2" in ex.steps


def test_ap_shows_precision_at_each_hit():
    ex = explain("map", {"u": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}},
                 {"u": {"a": 1, "c": 1, "x": 1, "y": 1, "z": 1}}, "u")
    col = ex.columns.index("P@i at hits")
    assert [r[col] for r in ex.rows] == [1.0, "", 2 / 3, "", ""]
    assert ex.value == pytest.approx(1 / 5 * (1 + 2 / 3))


def test_trec_eval_ties_order():
    run = {"q": {"a": 1.0, "b": 1.0}}
    truth = {"q": {"a": 1}}
    assert explain("mrr", run, truth, "q", ties="id").value == 1.0
    assert explain("mrr", run, truth, "q", ties="trec_eval").value == 0.5  # docno descending


def test_integer_user_found_by_text_and_unknown_user():
    run = pd.DataFrame({"user": [7, 7], "item": [1, 2], "score": [0.5, 0.9]})
    truth = pd.DataFrame({"user": [7], "item": [1]})
    assert explain("mrr", run, truth, "7").value == 0.5
    with pytest.raises(InputError, match="neither the run nor the truth"):
        explain("mrr", run, truth, "8")


METRICS = ["ndcg@5", "ndcg(gain=exp)", "ndcg@3(ideal=list)", "dcg@4", "idcg@2", "cg@3",
           "map", "map@3(denominator=min_k_rel)", "map@4(denominator=hits)", "mrr@3", "mrr",
           "precision@3", "precision@6(denominator=list)", "precision@4(denominator=min_k_rel)",
           "recall@3", "recall@2(denominator=min_k_rel)", "hits@3", "hit_rate@2",
           "hit_rate@3(level=recommended)", "hit_rate@3(level=truth)", "f1@3", "fbeta@4(beta=2)",
           "r_precision", "rbp(p=0.5)", "err@4", "err(max_grade=4)", "bpref", "mar@3",
           "first_hit_rank", "num_rel", "num_ret@3", "precision@3(rel=2)", "map(rel=2)"]


@settings(max_examples=12)
@given(seed=st.integers(0, 10_000), ties=st.sampled_from(["id", "trec_eval"]))
def test_step_by_step_equals_evaluate_for_every_metric(seed, ties):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 8))
    items = rng.choice(12, size=n, replace=False)
    run = pd.DataFrame({"user": ["u"] * n + ["v"], "item": list(items) + [0],
                        "score": list(rng.integers(0, 4, n).astype(float)) + [1.0]})
    t_items = rng.choice(12, size=int(rng.integers(1, 8)), replace=False)
    truth = pd.DataFrame({"user": "u", "item": t_items,
                          "relevance": rng.integers(0, 4, len(t_items)).astype(float)})
    truth = pd.concat([truth, pd.DataFrame({"user": ["v"], "item": [0], "relevance": [5.0]})])
    for key in METRICS:
        ex = explain(key, run, truth, "u", ties=ties)
        assert ex.reference is not None
        assert ex.agrees, (key, ex.value, ex.reference)


def test_cli_explain_table_and_json(files, capsys):
    run, truth = files
    assert main(["explain", "ndcg@3", "--run", str(run), "--truth", str(truth),
                 "--user", "alice"]) == 0
    out = capsys.readouterr().out
    assert "ideal list" in out and "(agrees)" in out and "IDCG@3 = 2.13092975357145" in out
    assert main(["explain", "AP", "--run", str(run), "--truth", str(truth), "--user", "bob",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["metric"] == "map" and data["value"] == 0.5 and data["agrees"] is True
    assert main(["explain", "mrr", "--run", str(run), "--truth", str(truth),
                 "--user", "nobody"]) == 1
