"""Readers for public data sets a user has downloaded: MovieLens ratings and TREC collections.

Nothing here downloads anything: point the readers at the files you have.

- :func:`load_movielens`: the ratings of ml-100k (``u.data``), ml-1m / ml-10m (``ratings.dat``),
  ml-latest / ml-latest-small / ml-20m / ml-25m / ml-32m (``ratings.csv``) and RecBole's atomic
  files (``ml-100k.inter``), as one frame with columns ``user, item, rating, timestamp``.
- :func:`recbole_movielens_path`: the ``ml-100k.inter`` file inside an installed RecBole (its
  wheel ships MovieLens 100K), or None; it neither imports RecBole nor downloads.
- :func:`load_trec`: a qrels file with one run file or a folder of runs, as a
  :class:`TrecCollection` ready for ``rv.evaluate`` / ``rv.trec_eval``.
"""

from __future__ import annotations

import importlib.util
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


#: RecBole's atomic files: a header of ``name:type`` fields, then tab-separated rows
_ATOMIC_SUFFIX = ".inter"
_ATOMIC_TYPES = ("token", "token_seq", "float", "float_seq")
#: the atomic fields read, in the order of :data:`COLUMNS`
_ATOMIC_FIELDS = ("user_id", "item_id", "rating", "timestamp")
_ATOMIC_HEADER = "user_id:token<TAB>item_id:token<TAB>rating:float<TAB>timestamp:float"
_EXPECTED = (
    "Expected 'user<TAB>item<TAB>rating<TAB>timestamp' (ml-100k u.data), "
    "'user::item::rating::timestamp' (ratings.dat), the header "
    "'userId,movieId,rating,timestamp' (ratings.csv) or RecBole's atomic header "
    f"'{_ATOMIC_HEADER}' (ml-100k.inter)."
)


def _is_atomic_header(first: str) -> bool:
    fields = first.rstrip("\r\n").split("\t")
    return all(f.count(":") == 1 and f.split(":")[1] in _ATOMIC_TYPES for f in fields)


def _atomic_in(folder: Path) -> Path | None:
    """The one RecBole ``.inter`` file of a folder (the folder's own name first), or None."""
    found = sorted(p for p in folder.iterdir() if not p.name.startswith(".")
                   and strip_compression_suffix(p.name).endswith(_ATOMIC_SUFFIX))
    own = [p for p in found if strip_compression_suffix(p.name) == folder.name + _ATOMIC_SUFFIX]
    if len(own) == 1 or len(found) == 1:
        return (own or found)[0]
    if found:
        raise InputError(
            f"{folder}: {len(found)} RecBole interaction files ({', '.join(p.name for p in found)})"
            f" and none is named {folder.name}{_ATOMIC_SUFFIX}; pass the file itself.")
    return None


def _movielens_file(path: Path) -> tuple[Source, str]:
    """The ratings file under ``path`` (checked and opened once) and its layout: ``100k``,
    ``1m``, ``csv`` or ``atomic``."""
    if path.is_dir():
        for name, layout in MOVIELENS_FILES.items():
            if os.path.lexists(path / name):  # a broken link is reported, not passed over
                return open_source(path / name, "ratings"), layout
        inter = _atomic_in(path)
        if inter is not None:
            return open_source(inter, "ratings"), "atomic"
        raise InputError(
            f"{path}: no MovieLens ratings file found in this folder; looked for "
            f"{', '.join(MOVIELENS_FILES)} (ml-100k, ml-1m / ml-10m, ml-latest / ml-20m / "
            "ml-25m) and a RecBole *.inter file. Pass the folder of the unpacked archive or "
            "the ratings file itself."
        )
    src = open_source(path, "ratings")
    name = strip_compression_suffix(path.name)
    if name in MOVIELENS_FILES:
        return src, MOVIELENS_FILES[name]
    first = src.peek().split(b"\n", 1)[0].decode("latin-1")  # sniff any other name
    if name.endswith(_ATOMIC_SUFFIX) or _is_atomic_header(first):
        return src, "atomic"
    if "::" in first:
        return src, "1m"
    if first.strip().split(",") == _CSV_HEADER:
        return src, "csv"
    if len(first.rstrip("\r\n").split("\t")) == 4:
        return src, "100k"
    raise InputError(
        f"{path}: not a MovieLens ratings file; its first line is {plain(first.strip()[:80])}. "
        + _EXPECTED
    )


def _atomic_positions(src: Source) -> tuple[list[str], tuple[int, ...]]:
    """The header fields of a RecBole atomic file and the positions of the fields read."""
    first = src.peek().split(b"\n", 1)[0].decode("latin-1").rstrip("\r\n")
    fields = first.split("\t")
    if not _is_atomic_header(first):
        raise InputError(
            f"{src.path}: a RecBole atomic file starts with a header of name:type fields "
            f"(types {', '.join(_ATOMIC_TYPES)}); its first line is {plain(first[:80])}. "
            + _EXPECTED)
    names = [f.split(":")[0] for f in fields]
    missing = [f for f in _ATOMIC_FIELDS if f not in names]
    if missing or len(set(names)) != len(names):
        why = f"no field {', '.join(missing)}" if missing else "a field name is repeated"
        raise InputError(
            f"{src.path}: the header {plain(first[:120])} has {why}; the MovieLens ratings of "
            f"RecBole's atomic layout have the header '{_ATOMIC_HEADER}' (other fields may "
            "follow).")
    return fields, tuple(names.index(f) for f in _ATOMIC_FIELDS)


def _read_atomic(src: Source) -> pd.DataFrame:
    """A RecBole atomic ``.inter`` file's user, item, rating and timestamp fields, with the
    types of the other layouts (ids and Unix seconds as int64: a token that is not an integer,
    or a timestamp with a fraction, is an error naming its line)."""
    fields, keep = _atomic_positions(src)
    n = len(fields)
    types = dict(zip(keep, (np.int64, np.int64, np.float64, np.float64), strict=True))
    try:
        with src.native() as source:
            df = pd.read_csv(source, sep="\t", header=0, names=list(range(n)),
                             usecols=list(keep), index_col=False, engine="c", dtype=types,
                             quoting=3)  # csv.QUOTE_NONE: RecBole reads fields verbatim
        stamps = df[keep[3]].to_numpy()
        # the C parser drops the extra fields of a longer row: count the separators
        tabs = src.read_bytes().count(b"\t")
        ok = bool(tabs == (n - 1) * (len(df) + 1) and np.isfinite(df[keep[2]].to_numpy()).all()
                  and np.isfinite(stamps).all()
                  and (stamps == np.floor(stamps)).all() and (np.abs(stamps) < 2.0**62).all())
    except (ValueError, pd.errors.ParserError, OverflowError):
        ok = False
    if not ok:
        raise _bad_atomic_line(src, len(fields), keep)
    out = pd.DataFrame({c: df[j].to_numpy() for c, j in zip(COLUMNS, keep, strict=True)})
    out["timestamp"] = out["timestamp"].astype(np.int64)
    return out


def _bad_atomic_line(src: Source, n: int, keep: tuple[int, ...]) -> InputError:
    """The error naming the first row of an atomic file that does not fit its header."""
    with src.native() as source:
        text = io.TextIOWrapper(source, encoding="latin-1") if not isinstance(source, str) \
            else open(source, encoding="latin-1")  # noqa: SIM115
        with text:
            lines = text.read().splitlines()
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        why = None if len(fields) == n else f"{len(fields)} fields, the header has {n}"
        for name, j in zip(COLUMNS, keep, strict=True):
            if why is not None:
                break
            why = _atomic_value_problem(name, fields[j])
        if why:
            return InputError(f"{src.path}, line {i}: {why} (RecBole atomic layout, "
                              f"'{_ATOMIC_HEADER}'); got {plain(line[:120])}. Fix the line.")
    return InputError(f"{src.path}: cannot read it as MovieLens ratings in RecBole's atomic "
                      f"layout ('{_ATOMIC_HEADER}'); check the file.")


def _atomic_value_problem(name: str, text: str) -> str | None:
    """Why one field of an atomic row cannot be read (None when it can)."""
    if name in ("user", "item"):
        try:
            int(text)
        except ValueError:
            return f"{name} {text!r} is not an integer id"
        return None
    try:
        value = float(text)
    except ValueError:
        return f"{name} {text!r} is not a number"
    if not np.isfinite(value):
        return f"{name} {text!r} is not a finite number"
    if name == "timestamp" and (value != np.floor(value) or abs(value) >= 2.0**62):
        return f"timestamp {text!r} is not whole Unix seconds"
    return None


def _read_ratings(src: Source, layout: str) -> pd.DataFrame:
    """The ratings, read by pandas' C parser with their final types; a file it cannot read
    that way (a line with more or fewer fields, a value that is not a number, a rating that
    is not finite) is read again as text to name the first bad line."""
    if src.empty:
        raise InputError(f"{src.path}: the ratings file is empty; check the file (or the "
                         "path).")
    if layout == "atomic":
        return _read_atomic(src)
    sep, n, keep, _ = _LAYOUTS[layout]
    header = 0 if layout == "csv" else None
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
      ``userId,movieId,rating,timestamp``;
    - RecBole's atomic files (``ml-100k.inter``, any ``*.inter``, or a first line of
      ``name:type`` fields): the header
      ``user_id:token<TAB>item_id:token<TAB>rating:float<TAB>timestamp:float``, fields found by
      name (other fields are ignored). The MovieLens 100K that RecBole's wheel ships:
      ``load_movielens(recbole_movielens_path())``.

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


def recbole_movielens_path() -> Path | None:
    """The MovieLens 100K ratings that an installed RecBole ships, or None.

    ``rv.datasets.load_movielens(rv.datasets.recbole_movielens_path())`` reads them: RecBole's
    wheel carries ``recbole/dataset_example/ml-100k/ml-100k.inter`` (100,000 ratings of 943
    users on 1,682 movies). The file is found with :func:`importlib.util.find_spec`: RecBole
    (and its torch dependency) is not imported, and nothing is downloaded. None when RecBole is
    not installed or its package holds no such file.
    """
    try:
        spec = importlib.util.find_spec("recbole")
    except (ImportError, ValueError):  # a broken or half-removed installation
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        path = Path(root) / "dataset_example" / "ml-100k" / "ml-100k.inter"
        if path.is_file():
            return path
    return None


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


__all__ = ["COLUMNS", "MOVIELENS_FILES", "TrecCollection", "load_movielens", "load_trec",
           "recbole_movielens_path"]
