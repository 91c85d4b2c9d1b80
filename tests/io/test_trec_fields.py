"""TREC lines split on ASCII spaces and tabs only, as trec_eval does, in every reader: the fast
one (pandas' C parser), the line-by-line one, whole files and streamed blocks, runs and qrels."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.errors import InputError
from receval.io import files
from receval.io.files import _QRELS, _RUN, _fast_trec, _iter_trec, _parse_trec_lines, trec_fields

# docnos with Unicode whitespace inside (one field each for trec_eval), \r\n line ends,
# trailing blanks, tabs, runs of separators and a blank line
RUN_TEXT = (
    "q1 Q0 d\u00a0x 1 2.5 t\r\n"
    "q1\tQ0\td\u2003y\t2\t1.5\tt  \r\n"
    "q1  Q0 \t z\u2028z 3 0.5 t\t\r\n"
    "\r\n"
    "q2 Q0 \u00a0 1 1e3 t \r\n"
    "q2 Q0 w\u0085 2 -4 t\r\n"
)
QRELS_TEXT = (
    "q1 0 d\u00a0x 1\r\n"
    "q1\t0\td\u2003y\t0  \r\n"
    "q2 0 \u00a0 2\t\r\n"
    "q2 0 w\u0085 1\r\n"
)
DOCNOS = ["d\u00a0x", "d\u2003y", "z\u2028z", "\u00a0", "w\u0085"]


def _write(path, text, gz=False):
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def test_trec_fields_split_on_space_and_tab_only():
    assert trec_fields("a\u00a0b\tc  d \r\n") == ["a\u00a0b", "c", "d"]
    assert trec_fields(" \t \r\n") == []
    assert trec_fields("x\u2003y") == ["x\u2003y"]


@pytest.mark.parametrize("gz", [False, True])
def test_run_readers_agree_on_adversarial_lines(tmp_path, gz):
    path = _write(tmp_path / ("r.run.gz" if gz else "r.run"), RUN_TEXT, gz)
    whole = rv.read_run(path)
    lines = files._read_lines(str(path))
    slow = _parse_trec_lines(lines, str(path), _RUN)
    with files._open_text(str(path)) as fh:
        import io

        fast = _fast_trec(io.StringIO(fh.read()), _RUN)
    assert fast is not None  # the C parser reads these lines itself
    for frame in (whole, slow, fast):
        assert frame["docno"].tolist() == DOCNOS
        assert frame["score"].tolist() == [2.5, 1.5, 0.5, 1000.0, -4.0]
        assert frame["qid"].tolist() == ["q1", "q1", "q1", "q2", "q2"]
        assert frame["tag"].tolist() == ["t"] * 5
    streamed = pd.concat(list(_iter_trec(str(path), _RUN, 2)), ignore_index=True)
    pd.testing.assert_frame_equal(streamed, whole.reset_index(drop=True), check_dtype=False)


def test_qrels_readers_agree_on_adversarial_lines(tmp_path):
    path = _write(tmp_path / "q.qrels", QRELS_TEXT)
    whole = rv.read_truth(path)
    slow = _parse_trec_lines(files._read_lines(str(path)), str(path), _QRELS)
    for frame in (whole, slow):
        assert frame["docno"].tolist() == ["d\u00a0x", "d\u2003y", "\u00a0", "w\u0085"]
        assert frame["relevance"].tolist() == [1, 0, 2, 1]
        assert frame["relevance"].dtype == np.int64


def test_fallback_reader_keeps_unicode_whitespace_in_fields(tmp_path):
    """A line the fast reader declines (extra fields) goes to the line reader, which must not
    split a docno at U+00A0 (that shifted the score into the rank field before)."""
    path = _write(tmp_path / "r.run", "q1 Q0 d\u00a0x 1 2.5 t extra\nq1 Q0 e 2 1.5 t\n")
    run = rv.read_run(path)
    assert run["docno"].tolist() == ["d\u00a0x", "e"]
    assert run["score"].tolist() == [2.5, 1.5]


def test_short_line_reported_with_its_number(tmp_path):
    path = _write(tmp_path / "r.run", "q1 Q0 a 1 2 t\nq1 Q0 b\u00a0c 2\n")
    with pytest.raises(InputError, match=r"line 2: expected 6 fields"):
        rv.read_run(path)
    with pytest.raises(InputError, match=r"line 2: expected 6 fields"):
        list(_iter_trec(str(path), _RUN, 1))


def test_bom_is_not_part_of_the_first_qid(tmp_path):
    path = tmp_path / "r.run"
    path.write_bytes(b"\xef\xbb\xbf" + b"q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t extra\n")
    assert rv.read_run(path)["qid"].tolist() == ["q1", "q1"]
    path.write_bytes(b"\xef\xbb\xbf" + b"q1 Q0 a 1 2 t\n")
    assert rv.read_run(path)["qid"].tolist() == ["q1"]


def test_quotes_are_ordinary_characters(tmp_path):
    path = _write(tmp_path / "r.run", 'q1 Q0 "a" 1 2 t\nq1 Q0 b"c 2 1 t\n')
    run = rv.read_run(path)  # trec_eval compares '"a"' with strcmp: the quotes are the id
    assert run["docno"].tolist() == ['"a"', 'b"c']
    assert run["score"].tolist() == [2.0, 1.0]


@pytest.mark.parametrize("bad", ["a b", "a\tb", "", "a\nb", "a\r", " "])
def test_write_run_refuses_ids_that_break_trec(tmp_path, bad):
    run = pd.DataFrame({"user": ["u", bad], "item": ["i", "j"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match="cannot be written to a TREC file"):
        rv.write_run(run, tmp_path / "r.run")
    items = pd.DataFrame({"user": ["u", "u"], "item": ["i", bad], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=r"item \(docno\)"):
        rv.write_run(items, tmp_path / "r.run")
    assert not list(tmp_path.iterdir())  # nothing written, no temporary file left


def test_write_run_keeps_unicode_ids_that_trec_can_hold(tmp_path):
    items = ["d\u00a0x", "e\u2028f", "g\x85", "h\x0ci"]
    run = pd.DataFrame({"user": ["u"] * 4, "item": items, "score": [4.0, 3.0, 2.0, 1.0]})
    rv.write_run(run, tmp_path / "r.run")
    back = rv.read_run(tmp_path / "r.run")
    assert back["docno"].tolist() == items


def test_write_run_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "r.csv"
    path.write_text("old\n")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", boom)
    with pytest.raises(OSError, match="disk full"):
        rv.write_run({"u": {"a": 1.0}}, path)
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]
