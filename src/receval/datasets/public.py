"""Readers for public data sets a user has downloaded: MovieLens ratings and TREC collections.

Nothing here downloads anything: point the readers at the files you have.

- :func:`load_movielens`: the ratings of ml-100k (``u.data``), ml-1m / ml-10m (``ratings.dat``)
  and ml-latest / ml-latest-small / ml-20m / ml-25m / ml-32m (``ratings.csv``), as one frame
  with columns ``user, item, rating, timestamp``.
- :func:`load_trec`: a qrels file with one run file or a folder of runs, as a
  :class:`TrecCollection` ready for ``rv.evaluate`` / ``rv.trec_eval``.
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, plain
from ..io.source import Source, open_source, strip_compression_suffix

#: File names of the MovieLens ratings, in the order a folder is searched.
MOVIELENS_FILES = {"u.data": "100k", "ratings.dat": "1m", "ratings.csv": "csv"}
COLUMNS = ["user", "item", "rating", "timestamp"]
_CSV_HEADER = ["userId", "movieId", "rating", "timestamp"]


#: The fields of each layout: (separator, number of fields split on it, the fields kept, how
#: the line reads)
_LAYOUTS = {
    "100k": ("\t", 4, (0, 1, 2, 3), "user<TAB>item<TAB>rating<TAB>timestamp"),
    # 'u::i::r::t' split on ':' gives u, '', i, '', r, '', t: the C parser, no regex
    "1m": (":", 7, (0, 2, 4, 6), "user::item::rating::timestamp"),
    "csv": (",", 4, (0, 1, 2, 3), "userId,movieId,rating,timestamp"),
}


def _movielens_file(path: Path) -> tuple[Source, str]:
    """The ratings file under ``path`` (checked and opened once) and its layout: ``100k``,
    ``1m`` or ``csv``."""
    if path.is_dir():
        for name, layout in MOVIELENS_FILES.items():
            if os.path.lexists(path / name):  # a broken link is reported, not passed over
                return open_source(path / name, "ratings"), layout
        raise InputError(
            f"{path}: no MovieLens ratings file found in this folder; looked for "
            f"{', '.join(MOVIELENS_FILES)} (ml-100k, ml-1m / ml-10m, ml-latest / ml-20m / "
            "ml-25m). Pass the folder of the unpacked archive or the ratings file itself."
        )
    src = open_source(path, "ratings")
    name = strip_compression_suffix(path.name)
    if name in MOVIELENS_FILES:
        return src, MOVIELENS_FILES[name]
    first = src.peek().split(b"\n", 1)[0].decode("latin-1")  # sniff any other name
    if "::" in first:
        return src, "1m"
    if first.strip().split(",") == _CSV_HEADER:
        return src, "csv"
    if len(first.rstrip("\r\n").split("\t")) == 4:
        return src, "100k"
    raise InputError(
        f"{path}: not a MovieLens ratings file; its first line is {plain(first.strip()[:80])}. "
        "Expected 'user<TAB>item<TAB>rating<TAB>timestamp' (u.data), "
        "'user::item::rating::timestamp' (ratings.dat) or the header "
        "'userId,movieId,rating,timestamp' (ratings.csv)."
    )


def _read_ratings(src: Source, layout: str) -> pd.DataFrame:
    """The ratings, read by pandas' C parser with their final types; a file it cannot read
    that way (a line with more or fewer fields, a value that is not a number, a rating that
    is not finite) is read again as text to name the first bad line."""
    sep, n, keep, _ = _LAYOUTS[layout]
    header = 0 if layout == "csv" else None
    if src.empty:
        raise InputError(f"{src.path}: the ratings file is empty; check the file (or the "
                         "path).")
    if layout == "csv":
        first = src.peek().split(b"\n", 1)[0].decode("latin-1").strip()
        if first.split(",") != _CSV_HEADER:
            raise InputError(f"{src.path}: expected the header {','.join(_CSV_HEADER)}; got "
                             f"{plain(first[:80])}.")
    types = dict(zip(keep, (np.int64, np.int64, np.float64, np.int64), strict=True))
    gaps = {j: np.float64 for j in range(n) if j not in keep}  # '' between '::' -> NaN
    try:
        with src.native() as source:
            df = pd.read_csv(source, sep=sep, header=header, names=list(range(n)),
                             index_col=False, engine="c", dtype={**types, **gaps})
        ok = np.isfinite(df[keep[2]].to_numpy()).all() and all(
            df[j].isna().all() for j in gaps)
    except (ValueError, pd.errors.ParserError, OverflowError):
        ok = False
    if not ok:
        raise _bad_line(src, layout)
    df = df[list(keep)]
    df.columns = COLUMNS
    return df


def _bad_line(src: Source, layout: str) -> InputError:
    """The error naming the first line of a ratings file that does not fit its layout."""
    sep, n, keep, shape = _LAYOUTS[layout]
    with src.native() as source:
        text = io.TextIOWrapper(source, encoding="latin-1") if not isinstance(source, str) \
            else open(source, encoding="latin-1")  # noqa: SIM115
        with text:
            lines = text.read().splitlines()
    for i, line in enumerate(lines):
        if layout == "csv" and i == 0 or not line.strip():
            continue
        fields = line.split(sep)
        values = [fields[j] for j in keep] if len(fields) == n else []
        why = _field_problem(fields, values, n, keep)
        if why:
            return InputError(
                f"{src.path}, line {i + 1}: {why}; expected {shape!r} (MovieLens {layout}), "
                f"got {plain(line[:120])}. Fix the line."
            )
    return InputError(f"{src.path}: cannot read it as MovieLens {layout} ratings "
                      f"({shape!r}); check the file.")


def _field_problem(fields: list[str], values: list[str], n: int,
                   keep: tuple[int, ...]) -> str | None:
    """Why one line's fields do not fit (None when they do)."""
    if len(fields) != n or any(fields[j] for j in range(n) if j not in keep):
        return f"{len([f for f in fields if f])} fields"
    for name, text in zip(COLUMNS, values, strict=True):
        try:
            value = float(text) if name == "rating" else int(text)
        except ValueError:
            return f"{name} {text!r} is not {'a number' if name == 'rating' else 'an integer'}"
        if name == "rating" and not np.isfinite(value):
            return f"rating {text!r} is not a finite number"
    return None


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
    src, layout = _movielens_file(Path(path))
    try:
        df = _read_ratings(src, layout)
    finally:
        src.done()
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
    """Every entry of a folder but subfolders and hidden files: a broken link or a FIFO is
    a run that its reader reports, never one passed over."""
    same = skip.resolve() if skip is not None else None
    files = sorted(p for p in folder.iterdir()
                   if not p.is_dir() and not p.name.startswith(".") and p.resolve() != same)
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
        found = sorted(p for p in q.iterdir() if not p.is_dir()
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
        # a path that is not a folder is a run file: its reader says what is wrong with it
        run_paths = _run_files(r, q) if r.is_dir() else [r]
    table = read_trec_qrels(q)
    out: dict[str, pd.DataFrame] = {}
    for p in run_paths:
        name = _run_name(p)
        if name in out:
            raise InputError(f"two runs are named {plain(name)} (plain and gzip?); rename one.")
        out[name] = read_trec_run(p)
    return TrecCollection(table, out)


__all__ = ["COLUMNS", "MOVIELENS_FILES", "TrecCollection", "load_movielens", "load_trec"]
