"""One name resolver: trec_eval, ir_measures and ranx names work in the library and the CLI."""

from __future__ import annotations

import json

import pytest

import receval as rv
from receval.cli import main

NAMES = ["P.5", "ndcg_cut.10", "nDCG@10", "RR@10", "recip_rank", "map_cut.10", "AP@10",
         "ndcg_burges@10", "r-precision", "P(rel=2)@5", "success.1"]


def test_library_accepts_every_style(tmp_path):
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0, "d5": 0.5}}
    truth = {"q1": {"d2": 1, "d3": 2}, "q2": {"d5": 1}}
    res = rv.evaluate(run, truth, NAMES)
    assert res.metrics == list(dict.fromkeys(rv.parse_metric(n).key for n in NAMES))
    assert res["P.5"] == res["precision@5"] == pytest.approx((2 / 5 + 1 / 5) / 2)
    assert res["nDCG@10"] == res["ndcg_cut.10"] == res["ndcg@10"]
    assert res["RR@10"] == res["mrr@10"] == pytest.approx((1 / 2 + 1 / 2) / 2)


def test_library_and_cli_agree(tmp_path, capsys):
    run = tmp_path / "run.csv"
    truth = tmp_path / "truth.csv"
    run.write_text("user,item,score\nq1,d1,3\nq1,d2,2\nq1,d3,1\nq2,d4,1\nq2,d5,0.5\n")
    truth.write_text("user,item,relevance\nq1,d2,1\nq1,d3,2\nq2,d5,1\n")
    keys = ["P.5", "ndcg_cut.10", "nDCG@10", "RR@10"]
    lib = rv.evaluate(rv.read_run(run), rv.read_truth(truth), keys)
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", ",".join(keys),
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    cli = rv.EvalResult.from_dict(doc)
    assert cli.metrics == lib.metrics
    assert cli.summary == lib.summary
    assert cli.values.tobytes() == lib.values.tobytes()


def test_unknown_name_suggests_the_nearest():
    with pytest.raises(rv.UnknownMetricError, match="Did you mean 'ndcg'"):
        rv.evaluate({"u": {"a": 1.0}}, {"u": {"a": 1}}, ["ndgc@10"])
