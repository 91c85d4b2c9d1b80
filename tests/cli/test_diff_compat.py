"""``receval diff`` and ``--compat`` on the command line (in-process)."""

from __future__ import annotations

import json

import pytest

import receval as rv
from receval.cli import main

RUN = "user,item,score\nu,a,3\nu,b,2\nu,c,1\nw,a,2\nw,d,1\n"
TRUTH = "user,item,relevance\nu,a,2\nu,c,1\nv,a,1\nw,d,1\nw,e,1\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "run.csv").write_text(RUN)
    (tmp_path / "truth.csv").write_text(TRUTH)
    return tmp_path


def _frames(files):
    import pandas as pd

    return pd.read_csv(files / "run.csv"), pd.read_csv(files / "truth.csv")


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_diff_command_prints_the_library_diff(files, capsys, fmt):
    out_path = files / f"diff.{fmt}"
    code = main(["diff", "--run", str(files / "run.csv"), "--truth", str(files / "truth.csv"),
                 "-m", "ndcg@3,map@3", "--a", "trec_eval", "--b", "rectools",
                 "--format", fmt, "-o", str(out_path)])
    assert code == 0
    run, truth = _frames(files)
    expected = rv.diff(run, truth, ["ndcg@3", "map@3"], "trec_eval", "rectools")
    text = out_path.read_text()
    want = {"text": expected.to_text, "markdown": expected.to_markdown,
            "html": expected.to_html}[fmt]()
    assert text.strip() == want.strip()


def test_evaluate_compat_reads_the_library_names(files, capsys):
    code = main(["evaluate", "--run", str(files / "run.csv"), "--truth",
                 str(files / "truth.csv"), "-m", "ndcg@3,hit@3", "--compat", "recbole",
                 "--format", "json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    run, truth = _frames(files)
    direct = rv.evaluate(run, truth, ["ndcg@3(gain=binary)", "hit_rate@3"])
    got = {row["metric"]: row["mean"] for row in doc["stats"]}
    assert got == direct.summary
    assert doc["info"]["compat"]["names"] == {"ndcg@3": "ndcg@3(gain=binary)",
                                              "hit@3": "hit_rate@3"}


def test_evaluate_compat_strict_refuses_a_known_bug(files, capsys):
    code = main(["evaluate", "--run", str(files / "run.csv"), "--truth",
                 str(files / "truth.csv"), "-m", "mark@3", "--compat", "recmetrics",
                 "--strict"])
    assert code == 1
    assert "known bug" in capsys.readouterr().err


def test_metrics_compat_describes_a_preset(capsys):
    assert main(["metrics", "--compat", "rectools"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == rv.compat.describe("rectools").strip()
    assert main(["metrics", "--compat"]) == 0
    assert "rectools" in capsys.readouterr().out
