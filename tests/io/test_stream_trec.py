"""Streamed TREC runs: pyarrow chunks on single spaces, the line readers for anything else.

Whatever a file mixes (single spaces, tabs, runs of blanks, extra fields, CRLF, a BOM, gzip,
blank lines) and wherever the chunks are cut, the streamed rows are the rows
:func:`receval.io.files.read_trec_run` reads, and a malformed line is reported with its line
number.
"""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from receval.errors import InputError
from receval.io.files import _batches, read_trec_run

SEPARATORS = [" ", " ", " ", "\t", "  ", " \t "]


def _line(u: int, i: int, r: int, s: float, sep: str, extra: bool) -> str:
    fields = [f"q{u}", "Q0", f"d{i}", str(r), repr(s), "tag"] + (["more"] if extra else [])
    return sep.join(fields)


def _rows(batches) -> list[tuple]:
    out = []
    for b in batches:
        cols = {n: (b.column(n).to_pylist() if hasattr(b, "schema") else b[n].tolist())
                for n in ("qid", "docno", "score")}
        out += list(zip(cols["qid"], cols["docno"], cols["score"], strict=True))
    return out


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 30), st.floats(-5, 5),
                          st.sampled_from(SEPARATORS), st.booleans(), st.booleans()),
                min_size=1, max_size=120),
       st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans(), st.integers(1, 50))
def test_streamed_rows_equal_the_whole_file_reader(tmp_path_factory, lines, newline, bom, gz,
                                                   batch):
    path = tmp_path_factory.mktemp("trec") / ("run.trec.gz" if gz else "run.trec")
    text = newline.join(_line(u, i, n + 1, s, sep, extra) + ("" if not blank else newline)
                        for n, (u, i, s, sep, extra, blank) in enumerate(sorted(lines)))
    data = (("\ufeff" if bom else "") + text + newline).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    whole = read_trec_run(path)
    expect = list(zip(whole["qid"], whole["docno"], whole["score"], strict=True))
    got = _rows(_batches(str(path), "trec", batch))
    assert got == expect


def test_a_malformed_line_is_reported_with_its_number(tmp_path):
    good = [f"q1 Q0 d{i} {i + 1} {1.0 / (i + 1)!r} run" for i in range(3000)]
    bad = good[:2500] + ["q1 Q0 d9 oops"] + good[2500:]
    path = tmp_path / "run.trec"
    path.write_text("\n".join(bad) + "\n")
    with pytest.raises(InputError, match="line 2501"):
        list(_batches(str(path), "trec", 100))


def test_single_space_files_give_arrow_strings(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "run.trec"
    path.write_text("".join(f"q{u} Q0 d{i} {i + 1} {10 - i} run\n"
                            for u in range(3) for i in range(4)))
    batches = list(_batches(str(path), "trec", 5))
    assert all(hasattr(b, "schema") for b in batches)
    assert str(batches[0].schema.field("qid").type) == "string"
    scores = np.concatenate([b.column("score").to_numpy() for b in batches])
    assert scores.tolist() == [10.0 - i for _ in range(3) for i in range(4)]


# ---- chunks of whole lines in one reused buffer ------------------------------------------------
def _chunks(data: bytes, size: int, gz: bool = False) -> list[bytes]:
    import io

    from receval.io.files import _line_chunks

    raw = io.BytesIO(gzip.compress(data) if gz else data)
    fh = gzip.GzipFile(fileobj=raw) if gz else raw
    return [bytes(c) for c in _line_chunks(fh, size)]  # copied: the buffer is reused


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7, 16, 64, 4096])
@pytest.mark.parametrize("gz", [False, True])
def test_line_chunks_cut_at_line_ends_and_rejoin_the_file(size, gz):
    body = ("q\u00e9 Q0 d\u2603 1 0.5 t\r\n" + "q2 Q0 " + "x" * 40 + " 2 0.25 t\n\n"
            + "q3 Q0 d\U0001f600 3 0.125 t").encode()
    for data, expect in [(body, body), (b"\xef\xbb\xbf" + body, body), (body + b"\n", body + b"\n"),
                         (b"\xef\xbb\xbf", b""), (b"", b"")]:
        chunks = _chunks(data, size, gz)
        assert b"".join(chunks) == expect
        assert all(c.endswith(b"\n") and c for c in chunks[:-1])


def _stream(path, size: int) -> list[tuple]:
    import pyarrow as pa

    from receval.io.files import _RUN, _iter_trec_arrow

    tables = list(_iter_trec_arrow(str(path), _RUN, 1, chunk_bytes=size))
    table = pa.concat_tables(tables)
    return list(zip(*(table.column(n).to_pylist() for n in ("qid", "docno", "rank", "score")),
                    strict=True))


def _whole(path) -> list[tuple]:
    df = read_trec_run(path)
    return list(zip(df["qid"], df["docno"], df["rank"], df["score"], strict=True))


LINES = [f"q\u00e9{u} Q0 d\u2603{i}\U0001f600 {i + 1} {0.1 * (u + 1) / (i + 1)!r} tag"
         for u in range(7) for i in range(9)]


@pytest.mark.parametrize("size", [4, 9, 31, 32, 33, 57, 100, 333, 1 << 16])
@pytest.mark.parametrize("layout", ["lf", "crlf", "bom", "no_final_newline", "blank_lines",
                                    "tabs", "gzip"])
def test_streamed_chunks_equal_the_whole_file(tmp_path, size, layout):
    pytest.importorskip("pyarrow")
    newline = "\r\n" if layout == "crlf" else "\n"
    lines = [ln.replace(" ", "\t") if layout == "tabs" and n % 5 == 0 else ln
             for n, ln in enumerate(LINES)]
    if layout == "blank_lines":
        lines = [ln + ("\n" if n % 4 == 0 else "") for n, ln in enumerate(lines)]
    text = newline.join(lines) + ("" if layout == "no_final_newline" else newline)
    data = (("\ufeff" if layout == "bom" else "") + text).encode()
    path = tmp_path / ("run.trec.gz" if layout == "gzip" else "run.trec")
    path.write_bytes(gzip.compress(data) if layout == "gzip" else data)
    assert _stream(path, size) == _whole(path)


@pytest.mark.parametrize("size", [8, 40, 64, 200, 1 << 16])
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_numbers_count_blank_lines_and_carried_lines(tmp_path, size, newline):
    pytest.importorskip("pyarrow")
    from receval.io.files import _RUN, _iter_trec_arrow

    lines = [f"q{n // 10} Q0 d{n} {n % 10 + 1} 0.5 t" for n in range(60)]
    lines[7] = lines[23] = ""
    lines[41] = "q4 Q0 d41 oops"
    path = tmp_path / "run.trec"
    path.write_bytes(("\ufeff" + newline.join(lines) + newline).encode())
    with pytest.raises(InputError, match="line 42:"):
        list(_iter_trec_arrow(str(path), _RUN, 1, chunk_bytes=size))
