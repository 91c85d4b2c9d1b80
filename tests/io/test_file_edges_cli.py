"""The command line on adversarial inputs: a FIFO or a process substitution is read once
(no hang, no "no rows"), compressed data is recognised under any name, and ``--stream`` and
``--no-stream`` give the same table or the same one-line error naming the same file."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pandas as pd
import pytest
from input_edges import COMPRESSORS, fifo, pipe, within

from receval.cli import main

pa = pytest.importorskip("pyarrow")
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")

RUN_CSV = b"user,item,score\nu1,a,3\nu1,b,2\nu2,a,2\nu2,d,1\nu3,e,5\n"
TRUTH_CSV = "user,item,relevance\nu1,b,1\nu2,a,2\nu2,d,1\nu4,a,1\n"
RUN_TREC = b"".join(f"q{q} Q0 d{d} {d} {9 - d}.5 t\n".encode() for q in (1, 2) for d in (1, 2, 3))
QRELS = "q1 0 d2 1\nq2 0 d1 1\nq2 0 d3 2\n"
STREAM_FLAGS = ("--stream", "--no-stream")


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = within(lambda: main([str(a) for a in args]))
    out = capsys.readouterr()
    return code, out.out, out.err


def _evaluate(capsys, run, truth, *extra) -> tuple[int, str, str]:
    return _cli(capsys, "evaluate", "--run", run, "--truth", truth, "-m", "ndcg@3",
                "-m", "mrr", "--name", "run", "--quiet", *extra)


@pytest.fixture
def truth(tmp_path) -> Path:
    path = tmp_path / "truth.csv"
    path.write_text(TRUTH_CSV)
    return path


@pytest.fixture
def expected(tmp_path, truth, capsys) -> str:
    plain = tmp_path / "plain.csv"
    plain.write_bytes(RUN_CSV)
    code, out, err = _evaluate(capsys, plain, truth)
    assert code == 0, err
    return out


def _parquet(data: bytes) -> bytes:
    import io

    sink = pa.BufferOutputStream()
    pd.read_csv(io.BytesIO(data)).to_parquet(sink, index=False)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize("flag", [*STREAM_FLAGS, None])
@pytest.mark.parametrize("name, data", [
    ("run.csv", RUN_CSV), ("run", RUN_CSV), ("run.csv", gzip.compress(RUN_CSV)),
    ("run", COMPRESSORS["bz2"](RUN_CSV)), ("run.parquet", None)])
def test_evaluate_reads_a_fifo_once(tmp_path, truth, expected, capsys, flag, name, data):
    data = _parquet(RUN_CSV) if data is None else data
    extra = [] if flag is None else [flag]
    if name == "run":
        extra += ["--run-format", "csv"]
    with fifo(tmp_path, name, data) as path:
        code, out, err = _evaluate(capsys, path, truth, *extra)
    assert (code, err) == (0, "")
    assert out == expected


@pytest.mark.parametrize("flag", STREAM_FLAGS)
def test_evaluate_reads_process_substitution(tmp_path, truth, expected, capsys, flag):
    with pipe(RUN_CSV) as run, pipe(TRUTH_CSV.encode()) as t:
        code, out, err = _evaluate(capsys, run, t, flag, "--run-format", "csv",
                                   "--truth-format", "csv")
    assert (code, err) == (0, "")
    assert out == expected


def test_trec_reads_process_substitution(tmp_path, capsys):
    """``receval trec q <(cat r.run)`` equals ``receval trec q r.run`` (no "no rows")."""
    (tmp_path / "r.run").write_bytes(RUN_TREC)
    (tmp_path / "q").write_text(QRELS)
    code, want, err = _cli(capsys, "trec", tmp_path / "q", tmp_path / "r.run")
    assert code == 0, err
    with pipe(RUN_TREC) as run, pipe(QRELS.encode()) as qrels:
        got = _cli(capsys, "trec", qrels, run)
    assert got == (0, want, "")


# ---- same outcome with and without --stream ----------------------------------------------
def _error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err  # one line, no traceback
    return lines[0]


EMPTY_OR_BAD = {
    "empty.csv": b"", "empty.tsv": b"", "empty.parquet": b"", "empty.jsonl": b"",
    "empty.csv.gz": gzip.compress(b""), "header.csv": b"user,item,score\n",
    "bad.parquet": b"user,item,score\n", "empty.run": b"",
}


@pytest.mark.parametrize("name", list(EMPTY_OR_BAD))
def test_empty_or_bad_run_same_error_naming_the_file(tmp_path, truth, capsys, name):
    path = tmp_path / name
    path.write_bytes(EMPTY_OR_BAD[name])
    lines = set()
    for flag in STREAM_FLAGS:
        code, out, err = _evaluate(capsys, path, truth, flag)
        assert (code, out) == (1, "")
        lines.add(_error_line(err))
    assert len(lines) == 1, lines
    line = lines.pop()
    assert str(path) in line
    assert "empty" in line or "no rows" in line or "cannot read it as parquet" in line


@pytest.mark.parametrize("comp", list(COMPRESSORS))
@pytest.mark.parametrize("name", ["run", "run.csv", "run.csv.{comp}"])
def test_compressed_run_under_any_name(tmp_path, truth, expected, capsys, comp, name):
    path = tmp_path / name.format(comp=comp)
    path.write_bytes(COMPRESSORS[comp](RUN_CSV))
    for flag in STREAM_FLAGS:
        assert _evaluate(capsys, path, truth, flag) == (0, expected, "")


@pytest.mark.parametrize("flag", STREAM_FLAGS)
def test_long_field_read_with_and_without_stream(tmp_path, truth, capsys, flag):
    path = tmp_path / "long.csv"
    path.write_bytes(RUN_CSV + b"u3," + b"z" * 3_000_000 + b",1\n")
    plain = tmp_path / "plain.csv"
    plain.write_bytes(RUN_CSV)
    want = _evaluate(capsys, plain, truth)  # the long item is not relevant: same numbers
    assert _evaluate(capsys, path, truth, flag, "--block-rows", "2") == want


@pytest.mark.parametrize("flag", STREAM_FLAGS)
def test_links_named_for_what_they_are(tmp_path, truth, capsys, flag):
    loop_a, loop_b = tmp_path / "a.csv", tmp_path / "b.csv"
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    broken = tmp_path / "broken.csv"
    broken.symlink_to(tmp_path / "gone.csv")
    for path, says in ((loop_a, "is a symlink loop"), (broken, "is a broken symlink")):
        code, out, err = _evaluate(capsys, path, truth, flag)
        assert code == 1
        assert f"'{path}' {says}" in _error_line(err)


def test_output_in_a_missing_folder_names_the_output(tmp_path, truth, capsys):
    run = tmp_path / "r.csv"
    run.write_bytes(RUN_CSV)
    target = tmp_path / "nodir" / "out.json"
    code, out, err = _evaluate(capsys, run, truth, "-o", target)
    line = _error_line(err)
    assert code == 1
    assert f"{target}: cannot write the output" in line and ".receval-" not in line
    assert not (tmp_path / "nodir").exists()


def test_split_reads_a_compressed_log_as_the_plain_one(tmp_path, capsys):
    log = "".join(f"u{u},i{(u * 7 + k) % 11},{1000 + 10 * k + u}\n" for u in range(6)
                  for k in range(5))
    plain = tmp_path / "log.csv"
    plain.write_text("user,item,timestamp\n" + log)
    for name, data in (("log.csv.gz", gzip.compress(plain.read_bytes())),
                       ("log_noext", COMPRESSORS["xz"](plain.read_bytes()))):
        (tmp_path / name).write_bytes(data)
    outs = {}
    for name in ("log.csv", "log.csv.gz", "log_noext"):
        code, out, err = _cli(capsys, "split", tmp_path / name, "-o", tmp_path / f"o_{name}",
                              "--method", "random", "--seed", "3")
        assert (code, err) == (0, ""), err
        outs[name] = [(tmp_path / f"o_{name}" / f"{p}.csv").read_text() for p in ("train",
                                                                                   "test")]
    assert outs["log.csv"] == outs["log.csv.gz"] == outs["log_noext"]
    assert sum(len(t.splitlines()) - 1 for t in outs["log.csv"]) == 30


def test_split_empty_input_named(tmp_path, capsys):
    path = tmp_path / "log.csv"
    path.write_bytes(b"")
    code, out, err = _cli(capsys, "split", path, "-o", tmp_path / "o")
    assert code == 1
    assert f"{path}: the input file is empty" in _error_line(err)


def test_ab_empty_file_named(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    path.write_bytes(b"")
    code, out, err = _cli(capsys, "ab", path, "--control", "A", "--mean", "x")
    assert code == 1
    assert str(path) in _error_line(err)
