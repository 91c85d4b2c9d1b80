"""Read and write runs and truth files: TREC run / qrels (plain or gzip), CSV, TSV, Parquet, JSONL.

Formats
-------
=========  ==========================================  =========================================
format     extensions                                  layout
=========  ==========================================  =========================================
trec       .run .res .trec .txt .qrels (+ .gz)         run: ``qid Q0 docno rank score tag`` (extra
                                                       trailing fields are ignored, as trec_eval
                                                       does); qrels: ``qid iter docno rel``
csv        .csv (+ .gz)                                header line, comma separated
tsv        .tsv .tab (+ .gz)                           header line, tab separated
parquet    .parquet .pq                                any column names
jsonl      .jsonl .ndjson (+ .gz)                      one JSON object per line
=========  ==========================================  =========================================

TREC ids stay strings (trec_eval compares docnos with ``strcmp``), scores are floats and
relevances integers. The user and item columns of CSV and TSV files are read as strings too
(the given ``user_col`` / ``item_col`` and every column named like an id, see
:func:`text_id_columns`), so ``"01"`` stays ``"01"`` and text files always agree on the kind of
their ids. The tables these readers return mark their text columns
(:func:`receval.io.frames.mark_text_columns`): integer ids from a typed source (a Parquet file,
a DataFrame) are compared with them by their decimal text. Parquet and JSONL files keep their
own types. See ``docs/ids.md``. A malformed TREC line raises
:class:`~receval.errors.InputError` naming the file, the line number, the value and the fix;
lines are never skipped silently.

Large grouped files are read in blocks of whole users by :func:`iter_blocks` (rows of one user
must be contiguous, which model output usually is); :func:`evaluate_blocks` evaluates block by
block with bounded memory (:func:`evaluate_blocks`).

Example
-------
>>> run = read_run("bm25.run")                 # columns qid, q0, docno, rank, score, tag
>>> truth = read_truth("qrels.txt")            # columns qid, iter, docno, relevance
>>> rv.evaluate(run, truth, ["ndcg@10"])
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import InputError

FORMATS = ("trec", "csv", "tsv", "parquet", "jsonl")
_EXT = {
    ".run": "trec", ".res": "trec", ".trec": "trec", ".txt": "trec", ".qrels": "trec",
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
}
RUN_COLUMNS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ("qid", "iter", "docno", "relevance")


def detect_format(path: str | os.PathLike, given: str | None = None, *, flag: str = "--format") -> str:
    """The file format: ``given`` when set, else from the extension (``.gz`` looked through),
    else sniffed from the first line (whitespace-separated without a header -> trec)."""
    p = os.fspath(path)
    if given is not None:
        fmt = given.lower()
        if fmt not in FORMATS:
            raise InputError(f"{p}: unknown format {given!r} ({flag}); choose one of {list(FORMATS)}.")
        return fmt
    name = p.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    ext = os.path.splitext(name)[1]
    if ext in _EXT:
        return _EXT[ext]
    first = _first_line(p)
    if first is not None:
        parts = first.split()
        if "," not in first and "\t" not in first.strip() and len(parts) in (4, 6) or (
                len(parts) >= 6 and parts[1] in ("Q0", "q0")):
            return "trec"
        if "\t" in first:
            return "tsv"
        if "," in first:
            return "csv"
        if first.lstrip().startswith("{"):
            return "jsonl"
    raise InputError(
        f"{p}: cannot tell the file format from its name; pass {flag} with one of {list(FORMATS)}."
    )


def _first_line(path: str) -> str | None:
    try:
        with _open_text(path) as fh:
            return fh.readline()
    except (OSError, UnicodeDecodeError, EOFError):
        return None


def _open_text(path: str) -> io.TextIOBase:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")  # noqa: SIM115


def _check_exists(path: str, role: str) -> None:
    if not os.path.exists(path):
        raise InputError(f"{role} file {path!r} does not exist; check the path.")
    if os.path.isdir(path):
        raise InputError(f"{role} file {path!r} is a directory; pass a file.")


# ---- TREC ---------------------------------------------------------------------------------
def _read_lines(path: str) -> list[str]:
    try:
        with _open_text(path) as fh:
            return fh.read().splitlines()
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc}); convert the file to UTF-8.") from None
    except (OSError, EOFError) as exc:
        raise InputError(f"{path}: cannot read the file: {exc}") from None


def read_trec_run(path: str | os.PathLike) -> Any:
    """A TREC run file as a pandas frame with columns qid, q0, docno, rank, score, tag.

    Every line needs at least 6 whitespace-separated fields ``qid Q0 docno rank score tag``;
    later fields are ignored (trec_eval allows them). Blank lines are ignored.
    """
    import pandas as pd

    p = os.fspath(path)
    _check_exists(p, "run")
    fast = _fast_trec(p, RUN_COLUMNS, {"rank": np.float64, "score": np.float64})
    if fast is not None:
        return fast
    lines = _read_lines(p)
    parts = [ln.split() for ln in lines]
    bad = [i for i, f in enumerate(parts) if 0 < len(f) < 6]
    if bad:
        i = bad[0]
        raise InputError(
            f"{p}, line {i + 1}: expected 6 fields 'qid Q0 docno rank score tag', got "
            f"{len(parts[i])}: {lines[i].strip()!r}. Fix the line ({len(bad)} malformed line(s) "
            "in all)."
        )
    keep = [f for f in parts if f]
    lineno = [i + 1 for i, f in enumerate(parts) if f]
    cols = list(zip(*[f[:6] for f in keep], strict=True)) if keep else [()] * 6
    score = _floats(cols[4], p, lineno, "score (5th field)")
    rank = _floats(cols[3], p, lineno, "rank (4th field)")
    return pd.DataFrame({
        "qid": pd.Series(np.array(cols[0], dtype=object), dtype=object),
        "q0": pd.Series(np.array(cols[1], dtype=object), dtype=object),
        "docno": pd.Series(np.array(cols[2], dtype=object), dtype=object),
        "rank": rank, "score": score,
        "tag": pd.Series(np.array(cols[5], dtype=object), dtype=object),
    })


def read_trec_qrels(path: str | os.PathLike) -> Any:
    """A TREC qrels file as a pandas frame with columns qid, iter, docno, relevance (int64).

    Every line needs 4 fields ``qid iter docno rel`` with an integer ``rel`` (negative values mean
    judged-unjudged in trec_eval; see the ``negative_rel`` policy).
    """
    import pandas as pd

    p = os.fspath(path)
    _check_exists(p, "qrels")
    fast = _fast_trec(p, QRELS_COLUMNS, {"relevance": np.int64})
    if fast is not None:
        return fast
    lines = _read_lines(p)
    parts = [ln.split() for ln in lines]
    bad = [i for i, f in enumerate(parts) if f and len(f) != 4]
    if bad:
        i = bad[0]
        raise InputError(
            f"{p}, line {i + 1}: expected 4 fields 'qid iter docno rel', got {len(parts[i])}: "
            f"{lines[i].strip()!r}. Fix the line ({len(bad)} malformed line(s) in all)."
        )
    keep = [f for f in parts if f]
    lineno = [i + 1 for i, f in enumerate(parts) if f]
    cols = list(zip(*keep, strict=True)) if keep else [()] * 4
    rel = np.empty(len(keep), dtype=np.int64)
    for j, text in enumerate(cols[3]):
        try:
            rel[j] = int(text)
        except ValueError:
            raise InputError(
                f"{p}, line {lineno[j]}: relevance (4th field) must be an integer, got {text!r}. "
                "Fix the line."
            ) from None
    return pd.DataFrame({
        "qid": pd.Series(np.array(cols[0], dtype=object), dtype=object),
        "iter": pd.Series(np.array(cols[1], dtype=object), dtype=object),
        "docno": pd.Series(np.array(cols[2], dtype=object), dtype=object),
        "relevance": rel,
    })


def _fast_trec(path: str, names: tuple[str, ...], numeric: dict[str, Any]) -> Any:
    """Read a well-formed TREC file with pandas' C parser; None when the file needs the
    line-by-line reader (extra fields, malformed lines: it reports them precisely)."""
    import warnings

    import pandas as pd

    dtypes = {n: numeric.get(n, object) for n in names}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. extra fields: leave them to the line reader
            df = pd.read_csv(path, sep=r"\s+", header=None, names=list(names), dtype=dtypes,
                             engine="c", compression="gzip" if _is_gzip(path) else None,
                             na_filter=False, skip_blank_lines=True, index_col=False)
    except Exception:  # malformed or unusual lines: fall back
        return None
    if len(df.columns) != len(names) or any(
            (df[n] == "").any() if n not in numeric else df[n].isna().any() for n in names):
        return None
    for n in names:
        if n not in numeric:
            df[n] = df[n].astype(object)
    return df


def _is_gzip(path: str) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _floats(texts: tuple, path: str, lineno: list[int], what: str) -> np.ndarray:
    try:
        return np.array(texts, dtype=np.float64) if texts else np.zeros(0)
    except ValueError:
        pass
    out = np.empty(len(texts), dtype=np.float64)
    for j, text in enumerate(texts):
        try:
            out[j] = float(text)
        except ValueError:
            raise InputError(
                f"{path}, line {lineno[j]}: {what} must be a number, got {text!r}. Fix the line."
            ) from None
    return out


# ---- tabular ------------------------------------------------------------------------------
def text_id_columns(path: str, fmt: str,
                    given: tuple[str | None, ...] = ()) -> tuple[list[str], list[str]]:
    """``(header, id_columns)`` of a CSV / TSV file: its column names, and those to read as
    strings: the ``given`` names and every column named like a user or item id
    (case-insensitive, the names :mod:`receval.io.frames` detects).

    Ids in text files are text: reading them as strings keeps ``"01"`` (an integer would be
    ``1``) and gives every text file the same id kind, whatever its values look like.
    """
    import csv

    from .frames import ITEM_NAMES, USER_NAMES

    first = _first_line(path)
    if not first:
        return [], []
    try:
        header = next(csv.reader([first.lstrip("\ufeff").rstrip("\r\n")],
                                 delimiter="," if fmt == "csv" else "\t"))
    except (csv.Error, StopIteration):  # pragma: no cover - the reader reports a bad header
        return [], []
    wanted = {c.lower() for c in USER_NAMES + ITEM_NAMES}
    return header, [n for n in header if n in given or n.lower() in wanted]


def _csv_convert(path: str, fmt: str, ids: tuple[str | None, ...]) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = text_id_columns(path, fmt, ids)[1]
    return pcsv.ConvertOptions(column_types=dict.fromkeys(names, pa.string()))


def _read_table(path: str, fmt: str, role: str, ids: tuple[str | None, ...] = ()) -> Any:
    """A CSV / TSV / Parquet / JSONL file as a pyarrow Table (pandas for JSONL fallback)."""
    _check_exists(path, role)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(path)
        if fmt in ("csv", "tsv"):
            import pyarrow.csv as pcsv

            parse = pcsv.ParseOptions(delimiter="," if fmt == "csv" else "\t")
            return pcsv.read_csv(path, parse_options=parse,
                                 convert_options=_csv_convert(path, fmt, ids))
        if fmt == "jsonl":
            import pyarrow.json as pj

            return pj.read_json(path)
    except ImportError:
        return _read_table_pandas(path, fmt, ids)
    except InputError:
        raise
    except Exception as exc:  # pyarrow raises ArrowInvalid / ArrowTypeError / OSError
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(
            f"{path}: cannot read it as {fmt}: {msg}. Check the file, or pass the right "
            f"--{role}-format."
        ) from None
    raise InputError(f"{path}: unsupported format {fmt!r}.")


def _read_table_pandas(path: str, fmt: str, ids: tuple[str | None, ...] = ()) -> Any:
    import pandas as pd

    if fmt == "parquet":
        return pd.read_parquet(path)
    if fmt == "jsonl":
        return pd.read_json(path, lines=True)
    # as pyarrow reads it: id columns are strings, kept as written ("NA" and "" are ids there)
    header, id_cols = text_id_columns(path, fmt, ids)
    na = ["", "NA", "N/A", "NaN", "nan", "-NaN", "-nan", "NULL", "null", "None", "#N/A", "n/a",
          "<NA>", "#NA", "-1.#IND", "-1.#QNAN", "1.#IND", "1.#QNAN"]
    return pd.read_csv(path, sep="," if fmt == "csv" else "\t",
                       dtype=dict.fromkeys(id_cols, str), keep_default_na=False,
                       na_values={n: na for n in header if n not in id_cols})


def _rename(table: Any, mapping: dict[str, str | None], path: str) -> Any:
    """Rename user-given columns to canonical names (only those given)."""
    names = list(table.column_names) if hasattr(table, "column_names") else list(table.columns)
    ren = {}
    for canon, given in mapping.items():
        if given is None:
            continue
        if given not in names:
            from ..errors import suggest

            raise InputError(
                f"{path}: column {given!r} is not in the file; its columns are {names}."
                + suggest(given, names)
            )
        ren[given] = canon
    if not ren:
        return table
    if hasattr(table, "rename_columns"):
        return table.rename_columns([ren.get(n, n) for n in names])
    return table.rename(columns=ren)


def read_run(path: str | os.PathLike, *, format: str | None = None, user_col: str | None = None,
             item_col: str | None = None, score_col: str | None = None,
             rank_col: str | None = None) -> Any:
    """Read a run file; returns a pandas frame (TREC) or a pyarrow Table (other formats).

    ``user_col`` / ``item_col`` / ``score_col`` / ``rank_col`` rename those columns to ``user``,
    ``item``, ``score``, ``rank`` so that :func:`receval.evaluate` finds them.
    """
    p = os.fspath(path)
    _check_exists(p, "run")
    fmt = detect_format(p, format, flag="--run-format")
    if fmt == "trec":
        return _mark(read_trec_run(p), fmt)
    table = _read_table(p, fmt, "run", (user_col, item_col))
    return _mark(_rename(table, {"user": user_col, "item": item_col, "score": score_col,
                                 "rank": rank_col}, p), fmt)


def read_truth(path: str | os.PathLike, *, format: str | None = None,
               user_col: str | None = None, item_col: str | None = None,
               rel_col: str | None = None) -> Any:
    """Read a truth file (TREC qrels or a table with user, item[, relevance] columns)."""
    p = os.fspath(path)
    _check_exists(p, "truth")
    fmt = detect_format(p, format, flag="--truth-format")
    if fmt == "trec":
        return _mark(read_trec_qrels(p), fmt)
    table = _read_table(p, fmt, "truth", (user_col, item_col))
    return _mark(_rename(table, {"user": user_col, "item": item_col, "relevance": rel_col}, p),
                 fmt)


def _mark(table: Any, fmt: str) -> Any:
    """Mark the string columns of a table read from a text file (TREC, CSV, TSV) as text."""
    from .frames import mark_text_columns

    return mark_text_columns(table) if fmt in ("trec", "csv", "tsv") else table


# ---- writers ------------------------------------------------------------------------------
def _to_pandas(data: Any) -> Any:
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data
    if hasattr(data, "to_pandas"):
        return data.to_pandas()
    from .frames import _to_frame

    frame, kind = _to_frame(data, "data")
    return frame if kind == "pandas" else frame.to_pandas()


def _write_table(df: Any, path: str, fmt: str) -> None:
    if fmt == "parquet":
        df.to_parquet(path, index=False)
    elif fmt in ("csv", "tsv"):
        df.to_csv(path, sep="," if fmt == "csv" else "\t", index=False)
    elif fmt == "jsonl":
        df.to_json(path, orient="records", lines=True)
    else:  # pragma: no cover
        raise InputError(f"{path}: cannot write format {fmt!r}.")


def write_run(run: Any, path: str | os.PathLike, *, format: str | None = None,
              tag: str = "receval", user_col: str | None = None, item_col: str | None = None,
              score_col: str | None = None, rank_col: str | None = None) -> None:
    """Write a run. TREC output is ``qid Q0 docno rank score tag``, ranked by score descending
    (item id ascending on ties) with ranks from 1; a rank-only run gets score = -rank."""
    from .frames import read_columns

    p = os.fspath(path)
    fmt = _out_format(p, format)
    cols = read_columns(run, role="run", user_col=user_col, item_col=item_col,
                        score_col=score_col, rank_col=rank_col)
    import pandas as pd

    value = np.asarray(cols.value, dtype=np.float64)
    score = -value if cols.value_kind == "rank" else value
    df = pd.DataFrame({"user": _values(cols.user), "item": _values(cols.item), "score": score})
    df = df.sort_values(["user", "score", "item"], ascending=[True, False, True], kind="stable")
    df["rank"] = df.groupby("user", sort=False).cumcount() + 1
    if fmt == "trec":
        _write_lines(p, (f"{u} Q0 {i} {r} {s!r} {tag}\n" for u, i, r, s in
                         zip(df["user"], df["item"], df["rank"], df["score"].tolist(),
                             strict=True)))
    else:
        _write_table(df[["user", "item", "score", "rank"]], p, fmt)


def write_truth(truth: Any, path: str | os.PathLike, *, format: str | None = None,
                user_col: str | None = None, item_col: str | None = None,
                rel_col: str | None = None) -> None:
    """Write truth rows. TREC output is ``qid 0 docno rel`` (relevances written as integers)."""
    from .frames import read_columns

    p = os.fspath(path)
    fmt = _out_format(p, format)
    cols = read_columns(truth, role="truth", user_col=user_col, item_col=item_col,
                        rel_col=rel_col)
    import pandas as pd

    rel = np.ones(cols.n_rows) if cols.value is None else np.asarray(cols.value)
    df = pd.DataFrame({"user": _values(cols.user), "item": _values(cols.item), "relevance": rel})
    if fmt == "trec":
        if not np.all(rel == np.round(rel)):
            raise InputError(
                f"{p}: TREC qrels need integer relevances; round them or write CSV/Parquet."
            )
        _write_lines(p, (f"{u} 0 {i} {int(r)}\n" for u, i, r in
                         zip(df["user"], df["item"], rel.tolist(), strict=True)))
    else:
        _write_table(df, p, fmt)


def _values(col: Any) -> np.ndarray:
    if hasattr(col, "to_numpy"):
        try:
            return col.to_numpy(zero_copy_only=False)
        except TypeError:
            return col.to_numpy()
    return np.asarray(col)


def _out_format(path: str, given: str | None) -> str:
    if given is not None:
        return detect_format(path, given)
    name = path.lower()[:-3] if path.lower().endswith(".gz") else path.lower()
    ext = os.path.splitext(name)[1]
    if ext not in _EXT:
        raise InputError(f"{path}: cannot tell the output format from the name; pass format=...")
    return _EXT[ext]


def _write_lines(path: str, lines: Iterator[str]) -> None:
    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.writelines(lines)


# ---- streaming ----------------------------------------------------------------------------
def count_rows(path: str, fmt: str) -> int | None:
    """Rows in a Parquet file (from metadata); None for other formats."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    return None


def _batches(path: str, fmt: str, batch_rows: int,
             ids: tuple[str | None, ...] = ()) -> Iterator[Any]:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        yield from pq.ParquetFile(path).iter_batches(batch_size=batch_rows)
    elif fmt in ("csv", "tsv"):
        import pyarrow.csv as pcsv

        parse = pcsv.ParseOptions(delimiter="," if fmt == "csv" else "\t")
        # about batch_rows rows per batch (short rows are ~16 bytes)
        read = pcsv.ReadOptions(block_size=int(min(1 << 24, max(1 << 12, batch_rows * 16))))
        from .frames import mark_text_columns

        for batch in pcsv.open_csv(path, parse_options=parse, read_options=read,
                                   convert_options=_csv_convert(path, fmt, ids)):
            yield mark_text_columns(batch)
    else:
        raise InputError(
            f"{path}: streaming reads Parquet, CSV or TSV files; convert the {fmt} file, or "
            "evaluate it without --stream."
        )


def iter_blocks(path: str | os.PathLike, *, format: str | None = None, user_col: str = "user",
                block_rows: int = 5_000_000, item_col: str | None = None) -> Iterator[Any]:
    """Yield pyarrow Tables of about ``block_rows`` rows, each holding whole users.

    The rows of one user must be contiguous in the file (grouped by user). A block ends at the
    last user boundary; the rows of the user that runs on are carried into the next block.
    Callers check that no user appears in two blocks (``Evaluator.evaluate_blocks`` does).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    p = os.fspath(path)
    _check_exists(p, "run")
    fmt = detect_format(p, format, flag="--run-format")
    pending: list[Any] = []
    n_pending = 0
    try:
        for batch in _batches(p, fmt, min(block_rows, 1 << 20), (user_col, item_col)):
            if batch.num_rows == 0:
                continue
            if user_col not in batch.schema.names:
                raise InputError(
                    f"{p}: no column {user_col!r} to group by; its columns are "
                    f"{batch.schema.names}. Pass --user-col."
                )
            pending.append(batch)
            n_pending += batch.num_rows
            if n_pending < block_rows:
                continue
            table = pa.Table.from_batches(pending)
            users = table.column(user_col)
            last = users[len(users) - 1]
            # first row of the trailing run of the last user
            same = pc.equal(users, last)
            idx = np.flatnonzero(~same.to_numpy(zero_copy_only=False))
            cut = int(idx[-1]) + 1 if len(idx) else 0
            if cut == 0:  # one user fills the block: keep accumulating
                continue
            yield table.slice(0, cut)
            rest = table.slice(cut)
            pending = rest.to_batches()
            n_pending = rest.num_rows
    except InputError:
        raise
    except Exception as exc:  # pyarrow parse errors
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{p}: cannot read it as {fmt}: {msg}") from None
    if n_pending:
        yield pa.Table.from_batches(pending)


def guess_user_col(path: str, fmt: str) -> str:
    """The user column of a tabular file, by the same names :mod:`receval.io.frames` tries."""
    from .frames import USER_NAMES

    if fmt == "parquet":
        import pyarrow.parquet as pq

        names = pq.ParquetFile(path).schema_arrow.names
    else:
        first = _first_line(path) or ""
        names = [n.strip().strip('"') for n in first.split("," if fmt == "csv" else "\t")]
    for cand in USER_NAMES:
        if cand in names:
            return cand
    raise InputError(f"{path}: no user column among {names}; pass --user-col.")
