"""The public data set loaders on adversarial files: every line that does not fit its layout
(a field more or less, an id that is not an integer, a rating that is not a finite number) is
refused naming the file and the line; no file is passed over (broken links, FIFOs); a
compressed ratings file is read as the plain one."""

from __future__ import annotations

import gzip
import os
import threading
from pathlib import Path

import pandas as pd
import pytest

from receval.datasets import load_movielens, load_trec
from receval.datasets.public import _LAYOUTS, MOVIELENS_FILES
from receval.errors import InputError

ROWS = [(1, 10, 4.0, 100), (1, 20, 3.5, 101), (2, 10, 1.0, 102)]
HEADER = "userId,movieId,rating,timestamp"


def _line(layout: str, fields: list[str]) -> str:
    sep = {"100k": "\t", "1m": "::", "csv": ","}[layout]
    return sep.join(fields)


def _file_text(layout: str, lines: list[str]) -> str:
    head = [HEADER] if layout == "csv" else []
    return "\n".join(head + lines) + "\n"


def _good(layout: str) -> list[str]:
    return [_line(layout, [str(u), str(i), str(r), str(t)]) for u, i, r, t in ROWS]


NAME = {layout: name for name, layout in MOVIELENS_FILES.items()}
# a bad second data line, and what the error says about it
BAD = {
    "a field more": (["3", "10", "2.0", "103", "9"], "5 fields"),
    "a field less": (["3", "10", "2.0"], "3 fields"),
    "user not an integer": (["3.5", "10", "2.0", "103"], "user '3.5' is not an integer"),
    "item not an integer": (["3", "x", "2.0", "103"], "item 'x' is not an integer"),
    "rating not a number": (["3", "10", "good", "103"], "rating 'good' is not a number"),
    "rating not finite": (["3", "10", "inf", "103"], "rating 'inf' is not a finite number"),
    "timestamp not an integer": (["3", "10", "2.0", "soon"],
                                 "timestamp 'soon' is not an integer"),
}


@pytest.mark.parametrize("layout", list(_LAYOUTS))
def test_every_layout_reads_its_good_lines(tmp_path: Path, layout: str) -> None:
    path = tmp_path / NAME[layout]
    path.write_text(_file_text(layout, _good(layout)))
    want = pd.DataFrame(ROWS, columns=["user", "item", "rating", "timestamp"]).astype(
        {"user": "int64", "item": "int64", "rating": "float64", "timestamp": "int64"})
    pd.testing.assert_frame_equal(load_movielens(path), want)
    packed = tmp_path / "packed"  # compressed, under a name of no layout: sniffed
    packed.write_bytes(gzip.compress(path.read_bytes()))
    pd.testing.assert_frame_equal(load_movielens(packed), want)


@pytest.mark.parametrize("bad", list(BAD))
@pytest.mark.parametrize("layout", list(_LAYOUTS))
def test_a_bad_line_is_refused_naming_file_and_line(tmp_path: Path, layout: str,
                                                    bad: str) -> None:
    fields, says = BAD[bad]
    lines = _good(layout)
    lines.insert(1, _line(layout, fields))
    path = tmp_path / NAME[layout]
    path.write_text(_file_text(layout, lines))
    line_no = 2 + (layout == "csv")
    with pytest.raises(InputError, match=rf"{path}, line {line_no}: {says}"):
        load_movielens(path)
    with pytest.raises(InputError, match=rf"line {line_no}: {says}"):
        load_movielens(tmp_path)  # the folder: the same file, the same error


def test_single_colons_in_ratings_dat_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "ratings.dat"
    path.write_text("1::10::4::100\n1:20:3:101\n")
    with pytest.raises(InputError, match=r"line 2: 4 fields; expected 'user::item"):
        load_movielens(path)


@pytest.mark.parametrize("name", list(MOVIELENS_FILES))
def test_empty_ratings_file_named(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"")
    with pytest.raises(InputError, match=f"{tmp_path / name}: the ratings file is empty"):
        load_movielens(tmp_path)


def test_broken_link_in_a_folder_is_reported_not_passed_over(tmp_path: Path) -> None:
    (tmp_path / "u.data").symlink_to(tmp_path / "gone")
    (tmp_path / "ratings.csv").write_text(_file_text("csv", _good("csv")))
    with pytest.raises(InputError, match="u.data' is a broken symlink"):
        load_movielens(tmp_path)


def test_ratings_from_a_fifo(tmp_path: Path) -> None:
    path = tmp_path / "ratings.dat"
    os.mkfifo(path)
    writer = threading.Thread(target=path.write_text,
                              args=(_file_text("1m", _good("1m")),), daemon=True)
    writer.start()
    box: dict[str, pd.DataFrame] = {}
    reader = threading.Thread(target=lambda: box.setdefault("df", load_movielens(path)),
                              daemon=True)
    reader.start()
    reader.join(30)
    if reader.is_alive():  # opened twice: the second open waits for a writer forever
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # let it go
        os.close(fd)
        pytest.fail("load_movielens hangs on a FIFO")
    writer.join(5)
    assert len(box["df"]) == len(ROWS)


QRELS = "q1 0 d1 1\nq1 0 d2 0\n"
RUN = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"


def test_trec_broken_link_among_runs_is_reported(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.run").write_text(RUN)
    (runs / "b.run").symlink_to(runs / "gone.run")
    with pytest.raises(InputError, match="b.run' is a broken symlink"):
        load_trec(tmp_path)
    with pytest.raises(InputError, match="b.run' is a broken symlink"):
        load_trec(tmp_path / "qrels.txt", runs)


def test_trec_symlink_loop_named(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.symlink_to(b)
    b.symlink_to(a)
    with pytest.raises(InputError, match="a.run' is a symlink loop"):
        load_trec(tmp_path / "qrels.txt", a)


def test_trec_runs_folder_reads_every_run_and_skips_subfolders(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    (runs / "sub").mkdir(parents=True)
    (runs / "a.run").write_text(RUN)
    (runs / "b.run.gz").write_bytes(gzip.compress(RUN.encode()))
    got = load_trec(tmp_path)
    assert sorted(got.runs) == ["a.run", "b.run"]
    pd.testing.assert_frame_equal(got.runs["a.run"], got.runs["b.run"])
