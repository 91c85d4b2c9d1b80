"""The command line through its real entry points (subprocess) and in-process."""

from __future__ import annotations

import gzip
import json
import math
import os
import shutil
import subprocess
import sys

import pytest

from receval.cli import main

# the two users of the fixture: alice (seed 002) and bob (one relevant item at rank 2)
P3 = (2 / 3, 1 / 3)
NDCG3 = (1.5 / (1 + 1 / math.log2(3) + 0.5), (1 / math.log2(3)) / 1.0)
MRR = (1.0, 0.5)


def _stats(pair):
    mean = (pair[0] + pair[1]) / 2
    std = abs(pair[0] - pair[1]) / math.sqrt(2)
    return mean, std, std / math.sqrt(2)


def run_cli(*args, cwd=None):
    env = dict(os.environ, PYTHONWARNINGS="error")
    return subprocess.run([sys.executable, "-m", "receval", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_python_m_receval_help_and_version():
    out = run_cli("--help")
    assert out.returncode == 0
    for cmd in ("evaluate", "trec", "metrics", "explain"):
        assert cmd in out.stdout
    assert run_cli("--version").stdout.startswith("receval ")


@pytest.mark.skipif(shutil.which("receval") is None, reason="console script not installed")
def test_console_script(files):
    run, truth = files
    out = subprocess.run(["receval", "evaluate", "--run", run, "--truth", truth, "-m", "mrr",
                          "--format", "csv"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].startswith("mrr,0.75,")


@pytest.mark.parametrize("cmd", ["evaluate", "trec", "metrics", "explain"])
def test_every_command_has_help_with_examples(cmd, capsys):
    assert main([cmd, "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"receval {cmd}" in out


def test_evaluate_table_golden(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "precision@3",
                 "-m", "ndcg@3,mrr"]) == 0
    rows = []
    for key, pair in (("precision@3", P3), ("ndcg@3", NDCG3), ("mrr", MRR)):
        m, s, e = _stats(pair)
        rows.append(f"{key:<11}  {m:.4f}  {s:.4f}  {e:.4f}  2        0")
    expected = "\n".join([
        "metric         mean     std      se  n  skipped",
        "-----------  ------  ------  ------  -  -------",
        *rows,
        "users: 2 evaluated, 0 missing from the run (scored 0), 0 in the run but not the truth "
        "(ignored), 0 with no relevant item (skipped)",
    ]) + "\n"
    assert capsys.readouterr().out == expected


def test_evaluate_markdown_golden(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "P@3",
                 "--format", "markdown", "--digits", "3"]) == 0
    m, s, e = _stats(P3)
    assert capsys.readouterr().out == (
        "| metric | mean | std | se | n | skipped |\n"
        "|:---|---:|---:|---:|---:|---:|\n"
        f"| precision@3 | {m:.3f} | {s:.3f} | {e:.3f} | 2 | 0 |\n")


def test_evaluate_csv_keeps_full_precision(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "ndcg@3",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "metric,mean,std,se,n,skipped"
    fields = lines[1].split(",")
    assert fields[0] == "ndcg@3" and float(fields[1]) == _stats(NDCG3)[0]


def test_evaluate_json_and_per_user_json(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"] == {"mrr": 0.75}
    assert data["counts"]["evaluated"] == 2 and data["policies"]["ties"] == "id"
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr,P@3",
                 "--per-user", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows == [{"user": "alice", "mrr": 1.0, "precision@3": P3[0]},
                    {"user": "bob", "mrr": 0.5, "precision@3": P3[1]}]


def test_evaluate_latex_golden(files, capsys):
    run, truth = files
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "mrr",
                 "--format", "latex"]) == 0
    m, s, e = _stats(MRR)
    assert capsys.readouterr().out == (
        "\\begin{tabular}{lrrrrr}\n\\toprule\n"
        "metric & mean & std & se & n & skipped \\\\\n\\midrule\n"
        f"mrr & {m:.4f} & {s:.4f} & {e:.4f} & 2 & 0 \\\\\n"
        "\\bottomrule\n\\end{tabular}\n")


def test_evaluate_per_user_csv_to_output_file(files, tmp_path, capsys):
    run, truth = files
    out = tmp_path / "per_user.csv"
    assert main(["evaluate", "--run", str(run), "--truth", str(truth), "-m", "ndcg@3",
                 "--per-user", "--format", "csv", "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text() == (f"user,ndcg@3\nalice,{NDCG3[0]!r}\nbob,{NDCG3[1]!r}\n")


def test_evaluate_policy_and_column_flags(tmp_path, capsys):
    run = tmp_path / "r.tsv"
    run.write_text("uid\tiid\tpos\nu\ta\t1\nu\tb\t2\nv\ta\t1\n")
    truth = tmp_path / "t.tsv"
    truth.write_text("uid\tiid\tgrade\nu\tb\t2\nw\tc\t1\n")
    args = ["evaluate", "--run", str(run), "--truth", str(truth), "--user-col", "uid",
            "--item-col", "iid", "--rank-col", "pos", "--rel-col", "grade", "-m", "mrr",
            "--format", "json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["mrr"] == pytest.approx((1 / 2 + 0) / 2)  # u: rank 2; w: no list
    assert main(args + ["--users", "intersection"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["mrr"] == 0.5


def test_evaluate_trec_files_with_gzip(tmp_path, capsys):
    run = tmp_path / "r.run.gz"
    with gzip.open(run, "wt") as fh:
        fh.write("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.8 t\n2 Q0 c 1 0.5 t\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 b 1\n2 0 c 1\n2 0 d 0\n")
    assert main(["evaluate", "--run", str(run), "--truth", str(qrels), "-m", "RR",
                 "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("mrr,0.75,")


def test_trec_subprocess_matches_in_process(tmp_path):
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 0.9 t\n2 Q0 c 1 0.5 t\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a 1\n2 0 c 1\n2 0 d 0\n3 0 e 1\n")
    out = run_cli("trec", "-q", "-m", "map", "-m", "P.1", "-c", qrels, run)
    assert out.returncode == 0, out.stderr
    # ties at 0.9: trec_eval puts docno 'b' before 'a' (docno descending) -> AP(1) = 1/2
    assert out.stdout.splitlines() == [
        "map                   \t1\t0.5000", "P_1                   \t1\t0.0000",
        "map                   \t2\t1.0000", "P_1                   \t2\t1.0000",
        "map                   \tall\t0.5000", "P_1                   \tall\t0.3333",
    ]


# ---- errors --------------------------------------------------------------------------------
def _one_line_error(out, *needles):
    assert out.returncode == 1, (out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("receval: error: ") and "Traceback" not in out.stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_error_missing_file(files, tmp_path):
    run, _ = files
    _one_line_error(run_cli("evaluate", "--run", run, "--truth", tmp_path / "nope.csv",
                            "-m", "mrr"), "nope.csv", "does not exist")


def test_error_malformed_trec_line(tmp_path):
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 0.9 t\n1 Q0 b 2 t\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a 1\n")
    _one_line_error(run_cli("trec", qrels, run), "r.run, line 2", "expected 6 fields",
                    "'1 Q0 b 2 t'")


def test_error_unknown_metric_and_measure(files):
    run, truth = files
    _one_line_error(run_cli("evaluate", "--run", run, "--truth", truth, "-m", "ndgc@10"),
                    "ndgc@10", "Did you mean")
    _one_line_error(run_cli("trec", truth, run, "-m", "mapp"), "Did you mean 'map'")


def test_error_bad_column_names_the_column(files):
    run, truth = files
    _one_line_error(run_cli("evaluate", "--run", run, "--truth", truth, "-m", "mrr",
                            "--score-col", "pred"), "'pred'", "score")


def test_error_negative_relevance_names_the_fix(tmp_path):
    run = tmp_path / "r.csv"
    run.write_text("user,item,score\n1,a,1.0\n")
    truth = tmp_path / "t.csv"
    truth.write_text("user,item,relevance\n1,a,-1\n")
    _one_line_error(run_cli("evaluate", "--run", run, "--truth", truth, "-m", "mrr"),
                    "negative", "--negative-rel 'zero'")


def test_usage_errors_exit_2(files):
    run, truth = files
    out = run_cli("evaluate", "--run", run, "-m", "mrr")
    assert out.returncode == 2 and "--truth" in out.stderr
    assert run_cli("evaluate", "--run", run, "--truth", truth, "-m", "mrr",
                   "--format", "xml").returncode == 2
    assert run_cli("no-such-command").returncode == 2
    assert run_cli().returncode == 2


def test_debug_shows_traceback(files, tmp_path):
    run, _ = files
    out = run_cli("evaluate", "--run", run, "--truth", tmp_path / "nope.csv", "-m", "mrr",
                  "--debug")
    assert out.returncode != 0 and "Traceback" in out.stderr


def test_metrics_lists_every_registered_metric(capsys):
    from receval.metrics import REGISTRY

    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    names = {line.split()[0] for line in out.splitlines()[2:] if line.strip()}
    assert names == set(REGISTRY)
    assert main(["metrics", "AP", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("map - ") and "denominator = rel" in out and "formula:" in out
    assert main(["metrics", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ndcg = next(d for d in data if d["name"] == "ndcg")
    assert {p["name"]: p["default"] for p in ndcg["params"]} == {"gain": "linear",
                                                                "ideal": "truth",
                                                                "discount": "log2"}
    assert main(["metrics", "nope"]) == 1


def test_stream_flag_gives_the_same_table(tmp_path, capsys):
    import numpy as np
    import pandas as pd

    pytest.importorskip("pyarrow", reason="Parquet files need the arrow extra")

    rng = np.random.default_rng(3)
    users = np.repeat(np.arange(200), 10)
    run = pd.DataFrame({"user": users, "item": rng.integers(0, 50, len(users)),
                        "score": rng.random(len(users))}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": rng.integers(-5, 200, 600), "item": rng.integers(0, 50, 600)})
    truth = truth.drop_duplicates()
    rp, tp = tmp_path / "run.parquet", tmp_path / "truth.csv"
    run.to_parquet(rp, index=False)
    truth.to_csv(tp, index=False)
    base = ["evaluate", "--run", str(rp), "--truth", str(tp), "-m",
            "ndcg@5,map,hit_rate@5(level=recommended)", "--format", "csv"]
    assert main(base + ["--no-stream"]) == 0
    whole = capsys.readouterr().out
    assert main(base + ["--stream", "--block-rows", "300"]) == 0
    streamed = capsys.readouterr()
    assert streamed.err == ""  # no progress bar when stderr is not a terminal
    for a, b in zip(whole.splitlines()[1:], streamed.out.splitlines()[1:], strict=True):
        fa, fb = a.split(","), b.split(",")
        assert fa[0] == fb[0] and fa[4:] == fb[4:]
        assert float(fa[1]) == pytest.approx(float(fb[1]), rel=1e-12)


def test_progress_bar_only_on_a_terminal():
    import io

    from receval.cli.common import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        bar = Progress(100, stream=stream, delay=0.0)
        bar(50)
        bar(100)
        bar.close()
    assert pipe.getvalue() == ""
    assert "50.0%" in tty.getvalue() and "100.0%" in tty.getvalue()
    quiet = Tty()
    bar = Progress(100, stream=quiet, delay=0.0, enabled=False)
    bar(10)
    assert quiet.getvalue() == ""


def test_error_empty_files(tmp_path, files):
    run, truth = files
    empty = tmp_path / "empty.run"
    empty.write_text("")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a 1\n")
    _one_line_error(run_cli("trec", qrels, empty), "empty.run", "has no rows")
    empty_csv = tmp_path / "empty.csv"
    empty_csv.write_text("user,item\n")
    _one_line_error(run_cli("evaluate", "--run", run, "--truth", empty_csv, "-m", "mrr"),
                    "empty.csv", "truth file has no rows")


def test_trec_run_orders_by_score_unless_rank_col(tmp_path, capsys):
    run = tmp_path / "g.run"
    run.write_text("1 Q0 a 2 0.9 t\n1 Q0 b 1 0.1 t\n")  # rank column disagrees with the score
    qrels = tmp_path / "g.qrels"
    qrels.write_text("1 0 b 1\n")
    base = ["evaluate", "--run", str(run), "--truth", str(qrels), "-m", "mrr", "--format", "json"]
    assert main(base) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["mrr"] == 0.5
    assert main(base + ["--rank-col", "rank"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["mrr"] == 1.0
