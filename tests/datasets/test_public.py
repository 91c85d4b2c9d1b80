"""MovieLens and TREC readers on small files written in the exact public layouts."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.datasets import load_movielens, load_trec
from receval.errors import InputError

# (user, item, rating, timestamp) rows shared by the three MovieLens layouts
ROWS = [(196, 242, 3, 881250949), (186, 302, 3, 891717742), (22, 377, 1, 878887116),
        (196, 51, 2, 880606923)]


def _expected(ratings=None) -> pd.DataFrame:
    df = pd.DataFrame(ROWS, columns=["user", "item", "rating", "timestamp"]).astype(
        {"user": "int64", "item": "int64", "rating": "float64", "timestamp": "int64"})
    if ratings is not None:
        df["rating"] = ratings
    return df


def _ml100k(folder: Path) -> Path:
    folder.mkdir()
    (folder / "u.data").write_text("".join(f"{u}\t{i}\t{r}\t{t}\n" for u, i, r, t in ROWS))
    (folder / "u.item").write_text("242|Kolya (1996)|24-Jan-1997||\n")  # other files beside it
    return folder


def _ml1m(folder: Path) -> Path:
    folder.mkdir()
    (folder / "ratings.dat").write_text("".join(f"{u}::{i}::{r}::{t}\n" for u, i, r, t in ROWS))
    (folder / "movies.dat").write_bytes("242::Kolya (1996)::Comedy\n".encode("latin-1"))
    return folder


HALF = [3.5, 3.0, 0.5, 2.0]


def _mlcsv(folder: Path) -> Path:
    folder.mkdir()
    lines = ["userId,movieId,rating,timestamp"] + [
        f"{u},{i},{h},{t}" for (u, i, _, t), h in zip(ROWS, HALF, strict=True)]
    (folder / "ratings.csv").write_text("\n".join(lines) + "\n")
    (folder / "movies.csv").write_text("movieId,title,genres\n242,Kolya (1996),Comedy\n")
    return folder


def test_ml100k_folder_and_file(tmp_path: Path) -> None:
    folder = _ml100k(tmp_path / "ml-100k")
    pd.testing.assert_frame_equal(load_movielens(folder), _expected())
    pd.testing.assert_frame_equal(load_movielens(folder / "u.data"), _expected())


def test_ml1m_double_colon(tmp_path: Path) -> None:
    folder = _ml1m(tmp_path / "ml-1m")
    pd.testing.assert_frame_equal(load_movielens(folder), _expected())
    pd.testing.assert_frame_equal(load_movielens(str(folder / "ratings.dat")), _expected())


def test_ml_latest_csv_with_header_and_half_stars(tmp_path: Path) -> None:
    folder = _mlcsv(tmp_path / "ml-latest-small")
    pd.testing.assert_frame_equal(load_movielens(folder), _expected(HALF))


def test_layout_sniffed_from_first_line_when_renamed(tmp_path: Path) -> None:
    for make, name, ratings in [(_ml100k, "u.data", None), (_ml1m, "ratings.dat", None),
                                (_mlcsv, "ratings.csv", HALF)]:
        folder = make(tmp_path / name.replace(".", "_"))
        renamed = folder / "renamed.txt"
        (folder / name).rename(renamed)
        pd.testing.assert_frame_equal(load_movielens(renamed), _expected(ratings))


def test_datetime_option(tmp_path: Path) -> None:
    df = load_movielens(_ml100k(tmp_path / "ml-100k"), datetime=True)
    assert isinstance(df["timestamp"].dtype, pd.DatetimeTZDtype)
    assert df["timestamp"].iloc[0] == pd.Timestamp(881250949, unit="s", tz="UTC")


def test_movielens_errors_name_the_file_and_the_layouts(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no MovieLens ratings file"):
        load_movielens(tmp_path)
    with pytest.raises(InputError, match="ratings file '.*missing' does not exist"):
        load_movielens(tmp_path / "missing")
    other = tmp_path / "other.txt"
    other.write_text("a b c\n")
    with pytest.raises(InputError, match="not a MovieLens ratings file"):
        load_movielens(other)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "u.data").write_text("1\t2\tthree\t4\n")
    with pytest.raises(InputError, match="u.data, line 1: rating 'three' is not a number"):
        load_movielens(bad)


def test_movielens_feeds_split_and_evaluate(tmp_path: Path) -> None:
    df = load_movielens(_ml100k(tmp_path / "ml-100k"))
    split = rv.split.leave_one_out(df)
    assert len(split.train) + len(split.test) == len(df)


QRELS = """301 0 FBIS3-10082 1
301 0 FBIS3-10169 0
301 0 FBIS3-10243 2
302 0 FBIS3-10491 1
302 0 FBIS3-10590 -1
"""
RUN_A = """301 Q0 FBIS3-10082 1 12.5 runA
301 Q0 FBIS3-10999 2 11.0 runA
301 Q0 FBIS3-10243 3 10.0 runA
302 Q0 FBIS3-10491 1 9.0 runA
"""
RUN_B = """301 Q0 FBIS3-10999 1 3.0 runB
301 Q0 FBIS3-10082 2 2.0 runB
302 Q0 FBIS3-10590 1 5.0 runB
302 Q0 FBIS3-10491 2 4.0 runB
"""


def _collection(folder: Path, *, gzip_b: bool = False, subfolder: bool = False) -> Path:
    folder.mkdir()
    (folder / "qrels.301-302.txt").write_text(QRELS)
    runs = folder / "runs" if subfolder else folder
    runs.mkdir(exist_ok=True)
    (runs / "input.runA").write_text(RUN_A)
    if gzip_b:
        with gzip.open(runs / "input.runB.gz", "wt") as fh:
            fh.write(RUN_B)
    else:
        (runs / "input.runB").write_text(RUN_B)
    (runs / ".hidden").write_text("not a run\n")
    return folder


def test_trec_qrels_and_one_run(tmp_path: Path) -> None:
    folder = _collection(tmp_path / "c")
    col = load_trec(folder / "qrels.301-302.txt", folder / "input.runA")
    assert list(col.runs) == ["input.runA"]
    assert list(col.qrels.columns) == ["qid", "iter", "docno", "relevance"]
    assert col.qrels["relevance"].tolist() == [1, 0, 2, 1, -1]
    run = col.runs["input.runA"]
    assert list(run.columns) == ["qid", "q0", "docno", "rank", "score", "tag"]
    assert run["score"].tolist() == [12.5, 11.0, 10.0, 9.0]


@pytest.mark.parametrize("subfolder", [False, True])
def test_trec_folder_of_runs_with_gzip(tmp_path: Path, subfolder: bool) -> None:
    folder = _collection(tmp_path / "c", gzip_b=True, subfolder=subfolder)
    col = load_trec(folder)                      # the qrels file is found by its name
    assert list(col.runs) == ["input.runA", "input.runB"]
    col2 = load_trec(folder / "qrels.301-302.txt", folder / "runs" if subfolder else folder)
    assert list(col2.runs) == ["input.runA", "input.runB"]  # the qrels file is not a run


def _summary(lines: list[str]) -> dict[str, str]:
    return {ln.split("\t")[0].strip(): ln.split("\t")[2] for ln in lines}


def test_trec_collection_evaluates_like_trec_eval(tmp_path: Path) -> None:
    col = load_trec(_collection(tmp_path / "c"))
    res = col.evaluate(["map", "P.5"])
    # runA: 301 relevant {10082, 10243}: AP = (1/1 + 2/3) / 2; 302 relevant {10491}: AP = 1
    # runB: 301: AP = (1/2) / 2; 302: 10491 at rank 2 (10590 is unjudged): AP = 1/2
    lines_a = _summary(res["input.runA"].lines())
    assert float(lines_a["map"]) == pytest.approx(((1 + 2 / 3) / 2 + 1) / 2, abs=5e-5)
    lines_b = _summary(res["input.runB"].lines())
    assert float(lines_b["map"]) == pytest.approx((1 / 4 + 1 / 2) / 2, abs=5e-5)
    direct = rv.evaluate(col.runs["input.runA"], col.qrels, ["map"], ties="trec_eval",
                         negative_rel="drop")
    assert direct.summary["map"] == pytest.approx(((1 + 2 / 3) / 2 + 1) / 2)
    assert np.isfinite(direct.summary["map"])


def test_trec_errors(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(InputError, match="exactly one qrels file"):
        load_trec(folder)
    (folder / "qrels.txt").write_text(QRELS)
    with pytest.raises(InputError, match="no run files"):
        load_trec(folder)
    with pytest.raises(InputError, match="run file .*nope. does not exist"):
        load_trec(folder / "qrels.txt", folder / "nope")
    (folder / "run1").write_text("301 Q0 D1 1\n")
    with pytest.raises(InputError, match="line 1"):
        load_trec(folder)
