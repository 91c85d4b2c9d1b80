"""Every input path is opened once and read by one reader: FIFOs, pipes, compressed data under
any name, empty files of every format, symlink loops and broken links, rows longer than a
read block; the in-memory and the block readers give the same rows or the same error naming
the same file."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from input_edges import COMPRESSORS, fifo, pipe, release, within

import receval as rv
from receval.errors import InputError
from receval.io.files import (
    FORMATS,
    count_rows,
    detect_format,
    guess_user_col,
    iter_blocks,
    read_frame,
    read_run,
    read_trec_qrels,
    read_trec_run,
    read_truth,
)
from receval.io.source import MAGIC, compression_of

pa = pytest.importorskip("pyarrow")
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")

RUN = pd.DataFrame({"user": ["u1", "u1", "u1", "u2", "u2", "u3"],
                    "item": ["a", "b", "c", "a", "d", "e"],
                    "score": [3.0, 2.0, 1.0, 2.0, 1.0, 5.0]})
TRUTH = {"u1": {"b": 1}, "u2": {"a": 2, "d": 1}, "u3": {"x": 1}, "u4": {"a": 1}}
METRICS = ["ndcg@3", "mrr", "recall@2"]
TREC_RUN = "".join(f"{u} Q0 {i} {r} {s} tag\n" for r, (u, i, s) in
                   enumerate(zip(RUN["user"], RUN["item"], RUN["score"], strict=True), 1))
# a tab and an extra field: the fast reader declines, the line reader reads it again
TREC_RUN_ODD = TREC_RUN.replace("u1 Q0 a 1 3.0 tag", "u1\tQ0 a 1 3.0 tag extra")


def _bytes(fmt: str, run: pd.DataFrame = RUN) -> bytes:
    """The run in one of the file formats."""
    if fmt == "trec":
        return TREC_RUN.encode()
    if fmt == "parquet":
        sink = pa.BufferOutputStream()
        run.to_parquet(sink, index=False)
        return sink.getvalue().to_pybytes()
    if fmt == "jsonl":
        return run.to_json(orient="records", lines=True).encode()
    return run.to_csv(index=False, sep="," if fmt == "csv" else "\t").encode()


EXT = {"trec": ".run", "csv": ".csv", "tsv": ".tsv", "parquet": ".parquet", "jsonl": ".jsonl"}


def _summary(run: Any) -> dict[str, float]:
    # a TREC run: the score orders the list (its rank column is not read, as trec_eval)
    cols = {"score_col": "score"} \
        if "qid" in list(getattr(run, "columns", getattr(run, "column_names", []))) else {}
    return rv.evaluate(run, TRUTH, METRICS, **cols).summary


def _blocks_summary(path: Any, fmt: str | None = None, block_rows: int = 2) -> dict[str, float]:
    return rv.evaluate_blocks(path, TRUTH, METRICS, format=fmt, block_rows=block_rows).summary


EXPECTED = _summary(RUN)


# ---- the reader: magic bytes -------------------------------------------------------------
def test_magic_table_recognises_each_compressor():
    for name, compress in COMPRESSORS.items():
        assert compression_of(compress(b"user,item\n")) == name
    assert [m for m, _ in MAGIC] == list(COMPRESSORS)
    assert compression_of(b"user,item\n") is None


# ---- FIFOs and pipes ---------------------------------------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_fifo_read_once_in_memory(tmp_path, fmt):
    with fifo(tmp_path, "run" + EXT[fmt], _bytes(fmt)) as path:
        assert _summary(within(lambda: read_run(path))) == EXPECTED


@pytest.mark.parametrize("fmt", FORMATS)
def test_fifo_without_extension_is_sniffed_then_read_from_the_same_open(tmp_path, fmt):
    with fifo(tmp_path, "run", _bytes(fmt)) as path:
        assert within(lambda: detect_format(path)) == fmt
        assert _summary(within(lambda: read_run(path))) == EXPECTED


@pytest.mark.parametrize("fmt", FORMATS)
def test_fifo_in_blocks_after_every_peek_the_command_line_makes(tmp_path, fmt):
    """detect_format, count_rows, guess_user_col, then the blocks: one open of the FIFO."""
    with fifo(tmp_path, "run" + EXT[fmt], _bytes(fmt)) as path:
        def read() -> dict[str, float]:
            got = detect_format(path)
            count_rows(path, got)
            guess_user_col(path, got)
            return _blocks_summary(path, got)

        assert within(read) == EXPECTED


@pytest.mark.parametrize("comp", list(COMPRESSORS))
@pytest.mark.parametrize("fmt", ["csv", "trec", "jsonl"])
def test_compressed_fifo_without_extension(tmp_path, fmt, comp):
    data = COMPRESSORS[comp](_bytes(fmt))
    with fifo(tmp_path, "run", data) as path:
        assert within(lambda: detect_format(path)) == fmt
        assert _summary(within(lambda: read_run(path))) == EXPECTED
    with fifo(tmp_path, "run2", data) as path:
        assert within(lambda: _blocks_summary(path, block_rows=1)) == EXPECTED


def test_trec_pipe_read_by_both_trec_readers_from_one_pass(tmp_path):
    """``receval trec q <(cat r.run)``: the line reader must not read the pipe again."""
    (tmp_path / "r.run").write_text(TREC_RUN_ODD)
    expected = read_trec_run(tmp_path / "r.run")
    with pipe(TREC_RUN_ODD.encode()) as path:
        got = within(lambda: read_trec_run(path))
    pd.testing.assert_frame_equal(got, expected)
    assert len(got) == len(RUN)


def test_fifo_read_again_later_opens_it_for_its_next_writer(tmp_path):
    path = tmp_path / "feed.qrels"
    os.mkfifo(path)
    try:
        for k in (1, 2):
            lines = "".join(f"q{k} 0 d{j} 1\n" for j in range(k))
            writer = threading.Thread(target=path.write_text, args=(lines,), daemon=True)
            writer.start()
            got = within(lambda: read_trec_qrels(path))
            writer.join(5)
            assert got["qid"].tolist() == [f"q{k}"] * k
    finally:
        release(path)


# ---- empty files -------------------------------------------------------------------------
def _empty_outcome(fn):
    try:
        value = fn()
    except InputError as exc:
        return ("error", type(exc), str(exc))
    return ("value", len(value) if not isinstance(value, dict) else value)


@pytest.mark.parametrize("comp", [None, *COMPRESSORS])
@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_file_of_every_format_gives_one_answer_in_memory_and_in_blocks(tmp_path, fmt,
                                                                              comp):
    path = tmp_path / ("empty" + EXT[fmt])
    path.write_bytes(COMPRESSORS[comp](b"") if comp else b"")
    memory = _empty_outcome(lambda: read_run(path))
    blocks = _empty_outcome(lambda: list(iter_blocks(path)))
    if fmt == "trec":  # a TREC file of no lines is a run of no rows; blocks need a row
        assert memory == ("value", 0)
        assert blocks[0] == "error" and "has no rows" in blocks[2]
        return
    assert memory[0] == blocks[0] == "error"
    assert memory == blocks
    assert str(path) in memory[2] and "empty" in memory[2]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl"])
def test_empty_file_named_by_every_peek(tmp_path, fmt):
    path = tmp_path / ("empty" + EXT[fmt])
    path.write_bytes(b"")
    peeks = [lambda: guess_user_col(path, fmt), lambda: read_frame(path),
             lambda: read_truth(path)]
    if fmt == "parquet":
        peeks.append(lambda: count_rows(path, fmt))
    for peek in peeks:
        with pytest.raises(InputError, match=rf"{path}: the \w+ file is empty"):
            peek()


def test_header_only_csv_has_no_rows_in_both_readers(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("user,item,score\n")
    assert read_run(path).num_rows == 0
    with pytest.raises(InputError, match=f"{path}: the run file has no rows"):
        list(iter_blocks(path))


# ---- compression by magic bytes ----------------------------------------------------------
@pytest.mark.parametrize("comp", list(COMPRESSORS))
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["data", "data{ext}", "data{ext}.{comp}"])
def test_compressed_under_any_name(tmp_path, fmt, comp, name):
    path = tmp_path / name.format(ext=EXT[fmt], comp=comp)
    path.write_bytes(COMPRESSORS[comp](_bytes(fmt)))
    assert detect_format(path) == fmt
    assert _summary(read_run(path)) == EXPECTED
    assert _blocks_summary(path, block_rows=1) == EXPECTED


def test_truncated_gzip_is_an_error_naming_the_file_in_both_readers(tmp_path):
    path = tmp_path / "cut.csv"
    path.write_bytes(COMPRESSORS["gzip"](_bytes("csv") * 50)[:-20])
    for read in (lambda: read_run(path), lambda: list(iter_blocks(path))):
        with pytest.raises(InputError, match=f"{path}: cannot read it as csv"):
            read()


@pytest.mark.parametrize("comp", list(COMPRESSORS))
@pytest.mark.parametrize("damage", ["cut", "garbage"])
def test_damaged_compressed_file_is_an_error_naming_it_in_both_readers(tmp_path, comp,
                                                                       damage):
    packed = COMPRESSORS[comp](_bytes("csv") * 20)
    magic = dict(MAGIC)[comp]
    data = packed[:len(magic) + 4] if damage == "cut" else magic + b"\x00garbage" * 9
    path = tmp_path / "run.csv"
    path.write_bytes(data)
    errors = []
    for read in (lambda: read_run(path), lambda: list(iter_blocks(path))):
        with pytest.raises(InputError, match=str(path)) as info:
            read()
        errors.append(str(info.value))
    assert errors[0] == errors[1]


# ---- links -------------------------------------------------------------------------------
def _loop(tmp_path: Path, ext: str) -> Path:
    a, b = tmp_path / f"loop_a{ext}", tmp_path / f"loop_b{ext}"
    a.symlink_to(b)
    b.symlink_to(a)
    return a


def _broken(tmp_path: Path, ext: str) -> Path:
    link = tmp_path / f"broken{ext}"
    link.symlink_to(tmp_path / "gone.csv")
    return link


READERS = {
    "read_run": read_run,
    "read_truth": read_truth,
    "read_trec_run": read_trec_run,
    "read_trec_qrels": read_trec_qrels,
    "read_frame": read_frame,
    "iter_blocks": lambda p: list(iter_blocks(p)),
    "evaluate_blocks": lambda p: rv.evaluate_blocks(p, TRUTH, METRICS),
    "detect_format": detect_format,  # a name without extension: sniffed, so opened
}


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("make, says", [(_loop, "is a symlink loop"),
                                        (_broken, "is a broken symlink")])
def test_links_are_named_for_what_they_are(tmp_path, reader, make, says):
    path = make(tmp_path, "" if reader == "detect_format" else ".csv")
    with pytest.raises(InputError, match=f"'{path}' {says}"):
        READERS[reader](path)


def test_folder_and_missing_file(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        read_run(tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        list(iter_blocks(tmp_path / "nope.csv"))


# ---- rows longer than a read block -------------------------------------------------------
def _long_run() -> pd.DataFrame:
    long = RUN.copy()
    long.loc[len(long)] = ["u3", "z" * 3_000_000, 0.5]  # one 3 MB item id
    return long


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
@pytest.mark.parametrize("block_rows", [1, 2, 1_000_000])
def test_row_longer_than_a_block_is_read_in_memory_and_in_blocks(tmp_path, fmt, block_rows):
    long = _long_run()
    path = tmp_path / ("long" + EXT[fmt])
    path.write_bytes(_bytes(fmt, long))
    whole = read_run(path)
    assert whole.num_rows == len(long)
    assert max(len(x) for x in whole.column("item").to_pylist()) == 3_000_000
    blocks = list(iter_blocks(path, block_rows=block_rows))
    assert sum(b.num_rows for b in blocks) == len(long)
    assert pa.concat_tables(blocks).column("item").to_pylist() == long["item"].tolist()
    assert _summary(whole) == _blocks_summary(path, block_rows=block_rows)


def test_long_row_in_a_streamed_pipe_is_refused_naming_it(tmp_path):
    """A pipe cannot be read again with a larger block: refused, naming it."""
    data = _bytes("csv", _long_run())
    with fifo(tmp_path, "long.csv", data) as path, pytest.raises(
            InputError, match=f"{path}: a row is longer than"):
        within(lambda: list(iter_blocks(path, block_rows=1)))
    with fifo(tmp_path, "long2.csv", data) as path:  # in memory it reads
        assert within(lambda: read_run(path)).num_rows == len(_long_run())


# ---- JSON Lines in blocks ----------------------------------------------------------------
@pytest.mark.parametrize("block_rows", [1, 3, 100])
def test_jsonl_in_blocks_equals_in_memory(tmp_path, block_rows):
    path = tmp_path / "run.jsonl"
    path.write_bytes(_bytes("jsonl"))
    assert guess_user_col(path, "jsonl") == "user"
    assert _blocks_summary(path, block_rows=block_rows) == _summary(read_run(path)) == EXPECTED
    blocks = list(iter_blocks(path, block_rows=block_rows))
    users = [b.column("user").to_pylist() for b in blocks]
    assert [u for b in users for u in b] == RUN["user"].tolist()
    assert all(len(set(b) & set(c)) == 0 for i, b in enumerate(users) for c in users[i + 1:])


def test_jsonl_first_line_not_an_object(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text("[1, 2]\n")
    with pytest.raises(InputError, match=f"{path}: its first line is not a JSON object"):
        guess_user_col(path, "jsonl")


# ---- parity: the same outcome from both readers ------------------------------------------
def _outcome(fn) -> tuple:
    try:
        return ("value", fn())
    except InputError as exc:
        return ("error", type(exc))


CASES = {
    "plain": lambda d: (d / "r.csv", _bytes("csv")),
    "gzip, no extension": lambda d: (d / "r", COMPRESSORS["gzip"](_bytes("csv"))),
    "bz2 .csv": lambda d: (d / "r.csv", COMPRESSORS["bz2"](_bytes("csv"))),
    "empty csv": lambda d: (d / "r.csv", b""),
    "empty parquet": lambda d: (d / "r.parquet", b""),
    "not parquet": lambda d: (d / "r.parquet", b"user,item\n"),
    "ragged csv": lambda d: (d / "r.csv", b"user,item,score\nu1,a,1\nu1,b\n"),
    "long field": lambda d: (d / "r.csv", _bytes("csv", _long_run())),
    "jsonl": lambda d: (d / "r.jsonl", _bytes("jsonl")),
    "trec": lambda d: (d / "r.run", TREC_RUN_ODD.encode()),
}


@pytest.mark.parametrize("case", list(CASES))
def test_in_memory_and_blocks_agree(tmp_path, case):
    path, data = CASES[case](tmp_path)
    path.write_bytes(data)
    memory = _outcome(lambda: _summary(read_run(path)))
    blocks = _outcome(lambda: _blocks_summary(path, block_rows=2))
    assert memory == blocks
    if memory[0] == "error":
        for read in (lambda: read_run(path), lambda: _blocks_summary(path)):
            with pytest.raises(InputError, match=str(path)):
                read()
    else:
        assert np.isfinite(list(memory[1].values())).all()
