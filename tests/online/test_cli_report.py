"""The online CLI commands, the report rendering, the lazy import and demo --online."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.cli import main


def test_import_receval_does_not_import_online():
    code = "import sys, receval; assert 'receval.online' not in sys.modules; " \
           "receval.online; assert 'receval.online' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_ab_units_events_and_aggregates(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    units = pd.DataFrame({"user_id": range(n), "variant": np.where(np.arange(n) % 2, "B", "A"),
                          "clicks": rng.poisson(2, n), "impr": rng.poisson(20, n) + 1,
                          "rev": rng.gamma(2, 3, n)})
    units["rev_pre"] = units["rev"] * 0.5 + rng.normal(0, 1, n)
    path = tmp_path / "units.csv"
    units.to_csv(path, index=False)
    assert main(["ab", str(path), "--control", "A", "--ratio", "clicks/impr", "--mean", "rev",
                 "--covariate", "rev=rev_pre", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = rv.online.ab.analyze(units, control="A", metrics=[
        rv.online.ab.mean("rev", covariate="rev_pre"), rv.online.ab.ratio("clicks", "impr")])
    got = {r["metric"]: r for r in out["rows"]}
    assert got["rev"]["effect"] == pytest.approx(ref.row("rev")["effect"], rel=1e-12)
    assert got["clicks/impr"]["se"] == pytest.approx(ref.row("clicks/impr")["se"], rel=1e-12)
    ev = units.loc[units.index.repeat(1 + np.arange(n) % 3), ["user_id", "variant"]].assign(click=1)
    if importlib.util.find_spec("pyarrow") is not None:
        ep = tmp_path / "events.parquet"
        ev.to_parquet(ep)
    else:  # a bare install reads CSV
        ep = tmp_path / "events.csv"
        ev.to_csv(ep, index=False)
    assert main(["ab", str(ep), "--events", "--control", "A", "--sum", "n=1", "--mean", "n"]) == 0
    assert "A/B test" in capsys.readouterr().out
    aggs = pd.DataFrame([{"variant": a, **rv.online.ab.Aggregates.from_frame(g, ["rev"]).to_row()}
                         for a, g in units.groupby("variant")])
    aggs.to_csv(tmp_path / "aggs.csv", index=False)
    assert main(["ab", str(tmp_path / "aggs.csv"), "--aggregates", "--control", "A",
                 "--mean", "rev", "--format", "json"]) == 0
    agg_out = json.loads(capsys.readouterr().out)["rows"][0]
    raw = rv.online.ab.analyze(units, control="A", metrics=["rev"]).rows[0]
    assert agg_out["se"] == pytest.approx(raw["se"], rel=1e-10)
    assert main(["ab", str(path), "--control", "Z", "--mean", "rev"]) == 1
    assert "--control 'Z'" in capsys.readouterr().err


def test_cli_interleave_ope_agreement(tmp_path, capsys):
    rng = np.random.default_rng(1)
    il = pd.DataFrame({"user_id": np.repeat(np.arange(100), 4), "impression_id": 0,
                       "team": np.tile(["a", "b"], 200), "click": rng.random(400) < 0.3})
    il.to_csv(tmp_path / "il.csv", index=False)
    assert main(["interleave", str(tmp_path / "il.csv"), "--format", "markdown"]) == 0
    assert "| a vs b |" in capsys.readouterr().out
    log = pd.DataFrame({"user_id": np.arange(200), "slate_id": np.arange(200), "position": 1,
                        "item_id": rng.integers(0, 4, 200), "reward": rng.random(200),
                        "propensity": 0.25})
    run = pd.DataFrame({"user": np.repeat(np.arange(200), 4), "item": np.tile(np.arange(4), 200),
                        "score": rng.random(800)})
    log.to_csv(tmp_path / "log.csv", index=False)
    run.to_csv(tmp_path / "run.csv", index=False)
    assert main(["ope", str(tmp_path / "log.csv"), "--run", str(tmp_path / "run.csv"),
                 "--policy", "plackett_luce", "-e", "ips", "-e", "snips", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    ref = rv.online.estimate(rv.online.read_log(log), rv.online.policy_from_run(
        run, kind="plackett_luce"), estimators=["ips", "snips"])
    got = pd.read_csv(__import__("io").StringIO(text))
    assert got["value"].tolist() == pytest.approx([ref["ips"], ref["snips"]], rel=1e-12)
    led = pd.DataFrame([(f"e{i}", s, m, d, 0.1, np.nan) for i in range(6)
                        for s, m, d in (("offline", "ndcg", i * 0.1), ("online", "kpi", i * 0.2 + (i % 2) * 0.05))],
                       columns=["experiment", "side", "metric", "delta", "se", "p_value"])
    led.to_csv(tmp_path / "ledger.csv", index=False)
    out = tmp_path / "agr.html"
    assert main(["agreement", str(tmp_path / "ledger.csv"), "--format", "html", "-o", str(out)]) == 0
    page = out.read_text()
    assert "<svg" in page and "ndcg" in page


def test_report_formats_and_json_round_trip():
    r = rv.online.ab.msprt(n=[10, 20], mean=[0.1, 0.2], sigma2=1, tau2=1)
    text = rv.report(r, format="plain")
    assert "msprt" in text
    back = rv.online.OnlineResult.from_json(rv.report(r, format="json"))
    assert back.rows == r.rows
    np.testing.assert_allclose(back.per_unit["p_value"], r.per_unit["p_value"])
    assert rv.report(r, format="markdown").startswith("###")
    assert rv.report(r, format="csv").startswith("test,")


def test_demo_online(capsys):
    assert main(["demo", "--online", "--users", "500", "--items", "300", "--no-html",
                 "--resamples", "50", "--format", "plain"]) == 0
    out = capsys.readouterr().out
    assert "Simulated shop" in out and "tracked the KPI best" in out
    assert "Offline-online agreement" in out
