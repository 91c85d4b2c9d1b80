"""Readers and writers: TREC run / qrels (plain and gzip), CSV, TSV, Parquet, JSON Lines."""

from __future__ import annotations

import gzip
import importlib.util

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import InputError
from receval.io.files import (
    detect_format,
    read_run,
    read_trec_qrels,
    read_trec_run,
    read_truth,
    write_run,
    write_truth,
)

RUN_TEXT = (
    "q1 Q0 d1 1 2.5 sys\n"
    "q1 Q0 d2 2 1.5 sys extra junk\n"
    "\n"
    "q2 Q0 d1 1 0.25 sys\n"
)
QRELS_TEXT = "q1 0 d1 1\nq1 0 d3 2\nq2 0 d1 0\nq2 0 d9 -1\n"


@pytest.fixture
def trec_files(tmp_path):
    run = tmp_path / "a.run"
    run.write_text(RUN_TEXT)
    qrels = tmp_path / "a.qrels"
    qrels.write_text(QRELS_TEXT)
    return run, qrels


def test_trec_run_columns_and_extra_fields(trec_files):
    df = read_trec_run(trec_files[0])
    assert list(df.columns) == ["qid", "q0", "docno", "rank", "score", "tag"]
    assert df["qid"].tolist() == ["q1", "q1", "q2"]
    assert df["score"].tolist() == [2.5, 1.5, 0.25]
    assert df["tag"].tolist() == ["sys"] * 3


def test_trec_ids_stay_strings(tmp_path):
    p = tmp_path / "num.run"
    p.write_text("1 Q0 010 1 1.0 t\n1 Q0 9 2 0.5 t\n")
    df = read_trec_run(p)
    assert df["docno"].tolist() == ["010", "9"]  # no int conversion: "010" != 10


def test_qrels_ints_and_negative(trec_files):
    df = read_trec_qrels(trec_files[1])
    assert df["relevance"].dtype == np.int64
    assert df["relevance"].tolist() == [1, 2, 0, -1]


def test_gzip_equals_plain(trec_files, tmp_path):
    run, qrels = trec_files
    gz = tmp_path / "a.run.gz"
    with gzip.open(gz, "wt") as fh:
        fh.write(RUN_TEXT)
    gq = tmp_path / "qrels.txt.gz"  # .gz detected by magic bytes as well as by name
    with gzip.open(gq, "wt") as fh:
        fh.write(QRELS_TEXT)
    pd.testing.assert_frame_equal(read_run(gz), read_trec_run(run))
    pd.testing.assert_frame_equal(read_truth(gq), read_trec_qrels(qrels))


@pytest.mark.parametrize("text,line,what", [
    ("q1 Q0 d1 1 2.5 sys\nq1 Q0 d2 2 1.5\n", 2, "expected 6 fields"),
    ("q1 Q0 d1 1 2.5 sys\n\nq1 Q0 d2 2 high sys\n", 3, "score (5th field) must be a number"),
])
def test_malformed_run_line_is_reported_with_its_number(tmp_path, text, line, what):
    p = tmp_path / "bad.run"
    p.write_text(text)
    with pytest.raises(InputError) as err:
        read_trec_run(p)
    msg = str(err.value)
    assert f"{p}, line {line}:" in msg and what in msg


def test_malformed_qrels_lines(tmp_path):
    p = tmp_path / "bad.qrels"
    p.write_text("q1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(InputError, match=r"line 2: expected 4 fields"):
        read_trec_qrels(p)
    p.write_text("q1 0 d1 1\nq1 0 d2 yes\n")
    with pytest.raises(InputError, match=r"line 2: relevance \(4th field\) must be an integer, "
                                          r"got 'yes'"):
        read_trec_qrels(p)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        read_run(tmp_path / "nope.run")
    with pytest.raises(InputError, match="is a directory"):
        read_truth(tmp_path)


def test_detect_format(tmp_path):
    for name, fmt in [("a.csv", "csv"), ("a.tsv", "tsv"), ("a.parquet", "parquet"),
                      ("a.jsonl", "jsonl"), ("a.run", "trec"), ("a.csv.gz", "csv"),
                      ("a.qrels", "trec")]:
        assert detect_format(tmp_path / name) == fmt
    sniff = tmp_path / "results_no_ext"
    sniff.write_text("301 Q0 doc 1 0.5 tag\n")
    assert detect_format(sniff) == "trec"
    unknown = tmp_path / "blob.bin"
    unknown.write_text("???\n")
    with pytest.raises(InputError, match="format="):
        detect_format(unknown)
    with pytest.raises(InputError, match="unknown format"):
        detect_format(sniff, "xlsx")


RUN = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [10, 11, 12, 10, 13],
                    "score": [0.9, 0.5, 0.7, 0.2, 0.8]})
TRUTH = pd.DataFrame({"user": [1, 1, 2], "item": [12, 99, 10], "relevance": [1.0, 2.0, 1.0]})


NEEDS_ARROW = pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None,
                                 reason="Parquet files need the arrow extra")


@pytest.mark.parametrize("ext", ["csv", "tsv", pytest.param("parquet", marks=NEEDS_ARROW),
                                 "jsonl", "run", "csv.gz"])
def test_write_read_round_trip_gives_same_evaluation(tmp_path, ext):
    path = tmp_path / f"run.{ext}"
    write_run(RUN, path)
    back = read_run(path)
    tpath = tmp_path / f"truth.{ext.replace('run', 'qrels')}"
    write_truth(TRUTH, tpath)
    tback = read_truth(tpath)
    metrics = ["ndcg@2", "map", "mrr", "precision@2"]
    ref = rv.evaluate(RUN, TRUTH, metrics)
    got = rv.evaluate(back, tback, metrics)
    for key in ref.metrics:
        assert got[key] == pytest.approx(ref[key], rel=1e-12), key


def test_trec_writer_ranks_by_score(tmp_path):
    path = tmp_path / "out.run"
    write_run(RUN, path, tag="x")
    lines = path.read_text().splitlines()
    assert lines[:3] == ["1 Q0 10 1 0.9 x", "1 Q0 12 2 0.7 x", "1 Q0 11 3 0.5 x"]
    qrels = tmp_path / "out.qrels"
    write_truth(TRUTH, qrels)
    assert qrels.read_text().splitlines()[1] == "1 0 99 2"
    with pytest.raises(InputError, match="integer relevances"):
        write_truth(TRUTH.assign(relevance=[0.5, 1, 1]), tmp_path / "frac.qrels")


def test_column_mapping_and_bad_column(tmp_path):
    p = tmp_path / "r.csv"
    RUN.rename(columns={"user": "uid", "item": "iid", "score": "pred"}).to_csv(p, index=False)
    table = read_run(p, user_col="uid", item_col="iid", score_col="pred")
    assert rv.evaluate(table, TRUTH, ["ndcg@2"])["ndcg@2"] == \
        pytest.approx(rv.evaluate(RUN, TRUTH, ["ndcg@2"])["ndcg@2"])
    with pytest.raises(InputError, match="column 'user_id' is not in the file"):
        read_run(p, user_col="user_id")


@NEEDS_ARROW
def test_unreadable_parquet_names_the_file(tmp_path):
    p = tmp_path / "broken.parquet"
    p.write_text("not parquet")
    with pytest.raises(InputError, match="broken.parquet: the run file is not Parquet"):
        read_run(p)
    p.write_bytes(b"PAR1 cut short")  # the magic bytes, then no footer
    with pytest.raises(InputError, match="broken.parquet: cannot read it as parquet"):
        read_run(p)
