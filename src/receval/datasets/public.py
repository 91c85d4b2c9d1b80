"""Readers for public data sets a user has downloaded: MovieLens ratings and TREC collections.

Nothing here downloads anything: point the readers at the files you have.

- :func:`load_movielens`: the ratings of ml-100k (``u.data``), ml-1m / ml-10m (``ratings.dat``)
  and ml-latest / ml-latest-small / ml-20m / ml-25m / ml-32m (``ratings.csv``), as one frame
  with columns ``user, item, rating, timestamp``.
- :func:`load_trec`: a qrels file with one run file or a folder of runs, as a
  :class:`TrecCollection` ready for ``rv.evaluate`` / ``rv.trec_eval``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain

#: File names of the MovieLens ratings, in the order a folder is searched.
MOVIELENS_FILES = {"u.data": "100k", "ratings.dat": "1m", "ratings.csv": "csv"}
COLUMNS = ["user", "item", "rating", "timestamp"]
_CSV_HEADER = ["userId", "movieId", "rating", "timestamp"]


def _movielens_file(path: Path) -> tuple[Path, str]:
    """The ratings file under ``path`` and its layout: ``100k``, ``1m`` or ``csv``."""
    if path.is_dir():
        for name, layout in MOVIELENS_FILES.items():
            if (path / name).is_file():
                return path / name, layout
        raise InputError(
            f"{path}: no MovieLens ratings file found in this folder; looked for "
            f"{', '.join(MOVIELENS_FILES)} (ml-100k, ml-1m / ml-10m, ml-latest / ml-20m / "
            "ml-25m). Pass the folder of the unpacked archive or the ratings file itself."
        )
    if not path.is_file():
        raise InputError(f"{path}: no such file or folder.")
    if path.name in MOVIELENS_FILES:
        return path, MOVIELENS_FILES[path.name]
    with open(path, encoding="latin-1") as fh:  # sniff any other name from its first line
        first = fh.readline()
    if "::" in first:
        return path, "1m"
    if first.strip().split(",") == _CSV_HEADER:
        return path, "csv"
    if len(first.rstrip("\r\n").split("\t")) == 4:
        return path, "100k"
    raise InputError(
        f"{path}: not a MovieLens ratings file; its first line is {plain(first.strip()[:80])}. "
        "Expected 'user<TAB>item<TAB>rating<TAB>timestamp' (u.data), "
        "'user::item::rating::timestamp' (ratings.dat) or the header "
        "'userId,movieId,rating,timestamp' (ratings.csv)."
    )


def _read_ratings(path: Path, layout: str) -> pd.DataFrame:
    dtype = {"user": np.int64, "item": np.int64, "rating": np.float64, "timestamp": np.int64}
    if layout == "100k":
        return pd.read_csv(path, sep="\t", header=None, names=COLUMNS, dtype=dtype,
                           engine="c")
    if layout == "1m":
        # 'u::i::r::t' split on ':' gives u, '', i, '', r, '', t: the C parser, no regex
        df = pd.read_csv(path, sep=":", header=None, usecols=[0, 2, 4, 6], engine="c",
                         dtype={0: np.int64, 2: np.int64, 4: np.float64, 6: np.int64})
        df.columns = COLUMNS
        return df
    df = pd.read_csv(path, header=0, engine="c",
                     dtype=dict(zip(_CSV_HEADER, dtype.values(), strict=True)))
    if list(df.columns) != _CSV_HEADER:
        raise InputError(
            f"{path}: expected the header {','.join(_CSV_HEADER)}; got {','.join(df.columns)}."
        )
    df.columns = COLUMNS
    return df


def load_movielens(path: str | os.PathLike[str], *, datetime: bool = False) -> pd.DataFrame:
    """The ratings of a downloaded MovieLens data set as ``user, item, rating, timestamp``.

    ``path`` is the unpacked folder (``ml-100k/``, ``ml-1m/``, ``ml-25m/``, ...) or the ratings
    file itself. The layout is detected from the file name, or else from the first line:

    - ml-100k: ``u.data``, ``user<TAB>item<TAB>rating<TAB>timestamp``, no header;
    - ml-1m, ml-10m: ``ratings.dat``, ``user::item::rating::timestamp``, no header;
    - ml-latest, ml-latest-small, ml-20m, ml-25m, ml-32m: ``ratings.csv`` with the header
      ``userId,movieId,rating,timestamp``.

    ``user`` and ``item`` are the data set's integer ids (int64); ``rating`` is float64 (half
    stars in the newer sets); ``timestamp`` is Unix seconds (int64), or a UTC
    ``datetime64`` column with ``datetime=True``. Rows keep the file's order.

    The frame feeds :mod:`receval.split` directly (``user_col="user"``, ``item_col="item"``,
    ``timestamp_col="timestamp"`` are its defaults).
    """
    file, layout = _movielens_file(Path(path))
    try:
        df = _read_ratings(file, layout)
    except (ValueError, pd.errors.ParserError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{file}: cannot read it as MovieLens {layout} ratings: {msg}") from None
    if datetime:
        df["timestamp"] = pd.to_datetime(df["timestamp"], unit="s", utc=True)
    return df


@dataclass
class TrecCollection:
    """Qrels and runs of a TREC-style collection, as read by :func:`load_trec`.

    ``qrels``: columns ``qid, iter, docno, relevance``; ``runs``: run name -> frame with
    columns ``qid, q0, docno, rank, score, tag`` (names: the file names, in sorted order).
    """

    qrels: pd.DataFrame
    runs: dict[str, pd.DataFrame] = field(default_factory=dict)

    def evaluate(self, measures: list[str] | None = None, **options: Any) -> dict[str, Any]:
        """``receval.trec.trec_eval(qrels, run, measures, **options)`` for every run."""
        from ..trec import trec_eval

        return {name: trec_eval(self.qrels, run, measures, **options)
                for name, run in self.runs.items()}


_QRELS_HINTS = ("qrels", "qrel", "judgments", "judgements")


def _run_files(folder: Path, skip: Path | None = None) -> list[Path]:
    same = skip.resolve() if skip is not None else None
    files = sorted(p for p in folder.iterdir()
                   if p.is_file() and not p.name.startswith(".") and p.resolve() != same)
    if not files:
        raise InputError(f"{folder}: no run files in this folder.")
    return files


def _run_name(path: Path) -> str:
    name = path.name
    return name[:-3] if name.endswith(".gz") else name


def load_trec(qrels: str | os.PathLike[str],
              runs: str | os.PathLike[str] | None = None) -> TrecCollection:
    """Read a TREC qrels file and its runs (plain or gzip files, trec_eval's formats).

    - ``load_trec("qrels.txt", "run.txt")``: one run, named after its file;
    - ``load_trec("qrels.txt", "runs/")``: every file of the folder is a run (sorted by name;
      hidden files skipped);
    - ``load_trec("collection/")``: a folder holding one qrels file (its name contains
      ``qrels`` or ``judgments``) and the runs: the folder's ``runs/`` subfolder if there is
      one, else the folder's other files.

    Qrels lines are ``qid iter docno rel``; run lines ``qid Q0 docno rank score tag``. A
    malformed line is reported with its file and line number. Evaluate the collection with
    :meth:`TrecCollection.evaluate` (trec_eval semantics) or pass ``qrels`` and a run to
    ``rv.evaluate(..., ties="trec_eval")``.
    """
    from ..io.files import read_trec_qrels, read_trec_run

    q = Path(qrels)
    if q.is_dir():
        if runs is not None:
            raise InputError(f"{q} is a folder: pass the qrels file, or the folder alone.")
        found = sorted(p for p in q.iterdir() if p.is_file()
                       and any(h in p.name.lower() for h in _QRELS_HINTS))
        if len(found) != 1:
            names = [p.name for p in found]
            raise InputError(
                f"{q}: expected exactly one qrels file (a name containing 'qrels' or "
                f"'judgments'); found {names or 'none'}. Pass the qrels file and the runs "
                "explicitly: load_trec(qrels_file, run_file_or_folder)."
            )
        run_paths = _run_files(q / "runs") if (q / "runs").is_dir() else _run_files(q, found[0])
        q = found[0]
    elif runs is None:
        run_paths = []
    else:
        r = Path(runs)
        if r.is_dir():
            run_paths = _run_files(r, q)  # the qrels file may sit among the runs
        elif r.is_file():
            run_paths = [r]
        else:
            raise InputError(f"{r}: no such run file or folder.")
    table = read_trec_qrels(q)
    out: dict[str, pd.DataFrame] = {}
    for p in run_paths:
        name = _run_name(p)
        if name in out:
            raise InputError(f"two runs are named {plain(name)} (plain and gzip?); rename one.")
        out[name] = read_trec_run(p)
    return TrecCollection(table, out)


__all__ = ["COLUMNS", "MOVIELENS_FILES", "TrecCollection", "load_movielens", "load_trec"]
