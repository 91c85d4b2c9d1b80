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
