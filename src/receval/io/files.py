"""Read and write runs and truth files: TREC run / qrels (plain or gzip), CSV, TSV, Parquet, JSONL.

Formats
-------
=========  ==========================================  =========================================
format     extensions                                  layout
=========  ==========================================  =========================================
trec       .run .res .trec .txt .qrels                 run: ``qid Q0 docno rank score tag`` (extra
                                                       trailing fields are ignored, as trec_eval
                                                       does); qrels: ``qid iter docno rel``
csv        .csv                                        header line, comma separated
tsv        .tsv .tab                                   header line, tab separated
parquet    .parquet .pq                                any column names
jsonl      .jsonl .ndjson .json                        one JSON object per line
=========  ==========================================  =========================================

Every input path is read through one :class:`receval.io.source.Source`: gzip, bzip2, xz and
Zstandard data are recognised by their magic bytes whatever the name (a ``.gz`` / ``.bz2`` /
``.xz`` / ``.zst`` ending is looked through to find the format), a FIFO or a process
substitution is opened once, and a missing, empty, looping or broken-link file gets the same
error from the in-memory and the streaming readers.

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
>>> import pathlib, tempfile, receval as rv
>>> tmp = tempfile.TemporaryDirectory()
>>> run_path, qrels_path = pathlib.Path(tmp.name, "bm25.run"), pathlib.Path(tmp.name, "qrels.txt")
>>> write_run({"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d3": 0.5}}, run_path, tag="bm25")
>>> write_truth({"q1": {"d2": 1}, "q2": {"d3": 2}}, qrels_path)
>>> print(run_path.read_text(), end="")
q1 Q0 d1 1 2.5 bm25
q1 Q0 d2 2 1.5 bm25
q2 Q0 d3 1 0.5 bm25
>>> run = read_run(run_path)                   # columns qid, q0, docno, rank, score, tag
>>> truth = read_truth(qrels_path)             # columns qid, iter, docno, relevance
>>> rv.evaluate(run, truth, ["mrr"]).summary["mrr"]     # (1/2 + 1/1) / 2
0.75
>>> tmp.cleanup()
"""

from __future__ import annotations

import gzip
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import IN_MEMORY, InputError, require
from .source import Source, open_source, strip_compression_suffix

FORMATS = ("trec", "csv", "tsv", "parquet", "jsonl")
_EXT = {
    ".run": "trec", ".res": "trec", ".trec": "trec", ".txt": "trec", ".qrels": "trec",
    ".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".parquet": "parquet", ".pq": "parquet",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
}
RUN_COLUMNS = ("qid", "q0", "docno", "rank", "score", "tag")
QRELS_COLUMNS = ("qid", "iter", "docno", "relevance")


def detect_format(path: str | os.PathLike, given: str | None = None, *,
                  keyword: str = "format") -> str:
    """The file format: ``given`` when set, else from the extension (a compression ending
    such as ``.gz`` looked through), else sniffed from the data: Parquet's magic bytes, or the
    first line (whitespace-separated without a header -> trec). ``keyword``: the caller's
    parameter that gave ``given`` (named in the error)."""
    p = os.fspath(path)
    if given is not None:
        fmt = given.lower()
        if fmt not in FORMATS:
            raise InputError(f"{p}: unknown format {keyword}={given!r}; choose one of "
                             f"{list(FORMATS)}.")
        return fmt
    ext = os.path.splitext(strip_compression_suffix(p).lower())[1]
    if ext in _EXT:
        return _EXT[ext]
    src = open_source(p)
    if src.peek(4) == _PARQUET_MAGIC:
        return "parquet"
    first = _first_line(src)
    if first:
        parts = trec_fields(first)
        if "," not in first and "\t" not in first.strip() and len(parts) in (4, 6) or (
                len(parts) >= 6 and parts[1] in ("Q0", "q0")):
            return "trec"
        if first.lstrip().startswith("{"):  # before csv: an object holds commas
            return "jsonl"
        if "\t" in first:
            return "tsv"
        if "," in first:
            return "csv"
    raise InputError(
        f"{p}: cannot tell the file format from its name; pass {keyword}=<format>, one of "
        f"{list(FORMATS)}."
    )


_PARQUET_MAGIC = b"PAR1"


def _first_line(source: Source | str) -> str | None:
    """The first line of a file's text (its first 64 KiB at most, a BOM dropped); None when
    it is not UTF-8 text."""
    head = _src(source).peek()
    end = head.find(b"\n")
    line = head if end < 0 else head[:end + 1]
    for trim in range(4 if end < 0 else 1):  # a peek may cut a character in two
        try:
            return line[:len(line) - trim].decode("utf-8-sig")
        except UnicodeDecodeError:
            continue
    return None


def _src(source: Source | str | os.PathLike, role: str = "input") -> Source:
    return source if isinstance(source, Source) else open_source(source, role)


def _open_text(source: Source | str, *, once: bool = False) -> io.TextIOBase:
    """The data of a source as text (a leading BOM is not data); ``once``: one pass."""
    src = _src(source)
    return io.TextIOWrapper(src.stream() if once else src.open(), encoding="utf-8-sig",
                            newline=None)


def _check_exists(path: str, role: str) -> Source:
    """The checked source of an input path (see :func:`receval.io.source.check_path`)."""
    return open_source(path, role)


def _check_data(src: Source, fmt: str, keyword: str = "format") -> None:
    """Refuse a file without data, or a Parquet file without Parquet's magic bytes, naming
    it: one check for every reader, whatever it would raise on its own."""
    if src.empty:
        raise _empty_file(src)
    if fmt == "parquet" and src.peek(4) != _PARQUET_MAGIC:
        raise InputError(f"{src.path}: the {src.role} file is not Parquet (it does not start "
                         f"with Parquet's magic bytes PAR1); check the file, or pass "
                         f"{keyword}=<its format>.")


def _empty_file(src: Source) -> InputError:
    return InputError(f"{src.path}: the {src.role} file is empty (0 bytes of data); check the "
                      "file (or the path).")


# ---- TREC ---------------------------------------------------------------------------------
# trec_eval splits a line on ASCII spaces and tabs only: any other character, Unicode
# whitespace included (U+00A0, U+2003, ...), belongs to a field. Both readers below (pandas' C
# parser, which splits the same way, and the line-by-line reader) follow that rule.
_TREC_SEP = re.compile(r"[ \t]+")


@dataclass(frozen=True)
class _TrecLayout:
    names: tuple[str, ...]
    numeric: dict[str, Any]
    layout: str  # as the error messages show it
    extra_fields: bool  # later fields allowed (and ignored)


_RUN = _TrecLayout(RUN_COLUMNS, {"rank": np.float64, "score": np.float64},
                   "qid Q0 docno rank score tag", True)
_QRELS = _TrecLayout(QRELS_COLUMNS, {"relevance": np.int64}, "qid iter docno rel", False)


def trec_fields(line: str) -> list[str]:
    """The fields of one TREC line: split on runs of ASCII spaces and tabs only (trec_eval's
    rule), ignoring them at both ends along with the line end."""
    line = line.rstrip("\r\n").strip(" \t")
    return _TREC_SEP.split(line) if line else []


def _read_lines(source: Source | str) -> list[str]:
    src = _src(source)
    path = src.path
    try:
        with _open_text(src) as fh:
            # universal newlines: \n, \r\n and \r end a line, as in pandas' C parser; no other
            # character does (str.splitlines would also split on U+0085, U+2028, \x0c, ...)
            return fh.read().split("\n")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc}); convert the file to UTF-8.") from None
    except (OSError, EOFError) as exc:
        raise InputError(f"{path}: cannot read the file: {exc}") from None


def _parse_trec_lines(lines: list[str], path: str, spec: _TrecLayout, first_line: int = 1) -> Any:
    """The line-by-line reader: exact errors (file, line number, value, fix)."""
    import pandas as pd

    parts = [trec_fields(ln) for ln in lines]
    n = len(spec.names)
    bad = [i for i, f in enumerate(parts)
           if f and (len(f) < n if spec.extra_fields else len(f) != n)]
    if bad:
        i = bad[0]
        raise InputError(
            f"{path}, line {first_line + i}: expected {n} fields {spec.layout!r}, got "
            f"{len(parts[i])}: {lines[i].strip()!r}. Fix the line ({len(bad)} malformed line(s)"
            + (" in all)." if first_line == 1 else " in this block).")
        )
    keep = [f[:n] for f in parts if f]
    lineno = [first_line + i for i, f in enumerate(parts) if f]
    cols = list(zip(*keep, strict=True)) if keep else [()] * n
    data: dict[str, Any] = {}
    for j, name in enumerate(spec.names):
        what = f"{name} ({_ORDINAL[j]} field)"
        if spec.numeric.get(name) is np.float64:
            data[name] = _floats(cols[j], path, lineno, what)
        elif spec.numeric.get(name) is np.int64:
            data[name] = _ints(cols[j], path, lineno, what)
        else:
            data[name] = pd.Series(np.array(cols[j], dtype=object), dtype=object)
    return pd.DataFrame(data)


_ORDINAL = ("1st", "2nd", "3rd", "4th", "5th", "6th")


def _read_trec(path: str | os.PathLike, role: str, spec: _TrecLayout) -> Any:
    src = open_source(path, role)
    try:
        with src.native() as source:
            fast = _fast_trec(source, spec)
        if fast is not None:
            return fast
        return _parse_trec_lines(_read_lines(src), src.path, spec)
    finally:
        src.done()


def read_trec_run(path: str | os.PathLike) -> Any:
    """A TREC run file as a pandas frame with columns qid, q0, docno, rank, score, tag.

    Every line needs at least 6 fields ``qid Q0 docno rank score tag`` separated by spaces or
    tabs (as in trec_eval, other whitespace such as U+00A0 is part of a field); later fields are
    ignored (trec_eval allows them). Blank lines are ignored.
    """
    return _read_trec(path, "run", _RUN)


def read_trec_qrels(path: str | os.PathLike) -> Any:
    """A TREC qrels file as a pandas frame with columns qid, iter, docno, relevance (int64).

    Every line needs 4 fields ``qid iter docno rel`` separated by spaces or tabs, with an
    integer ``rel`` (negative values mean judged-unjudged in trec_eval; see the
    ``negative_rel`` policy).
    """
    return _read_trec(path, "qrels", _QRELS)


def _iter_trec(source: Source | str, spec: _TrecLayout, chunk_lines: int) -> Iterator[Any]:
    """A TREC file as pandas frames of about ``chunk_lines`` lines each (bounded memory), read
    by the same two readers as :func:`read_trec_run` / :func:`read_trec_qrels`."""
    import itertools

    src = _src(source, "run")
    path = src.path
    first = 1
    try:
        with _open_text(src, once=True) as fh:
            while True:
                lines = list(itertools.islice(fh, chunk_lines))
                if not lines:
                    return
                frame = _fast_trec(io.StringIO("".join(lines)), spec)
                if frame is None:
                    frame = _parse_trec_lines(lines, path, spec, first)
                first += len(lines)
                yield frame
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc}); convert the file to UTF-8.") from None


def _iter_trec_arrow(source: Source | str, spec: _TrecLayout, chunk_lines: int,
                     keep: tuple[str, ...] | None = None, *,
                     chunk_bytes: int | None = None) -> Iterator[Any]:
    """A TREC run as pyarrow Tables of at most about ``chunk_lines`` lines: each chunk of
    bytes (cut at a line end, read into one reused buffer, see :func:`_line_chunks`) is parsed
    by pyarrow's CSV reader on single spaces, without quotes or nulls, so ids stay Arrow
    strings (no Python object per row). A chunk it cannot take as exactly one space between fields (tabs, runs of
    blanks, extra fields, malformed lines) goes to the readers of :func:`read_trec_run`, which
    split on runs of spaces and tabs and report errors by line; their rows are converted to the
    same schema. ``keep``: the columns returned (default all; every field is still checked).
    ``chunk_bytes``: the size of the buffer (default: from ``chunk_lines``)."""
    src = _src(source, "run")
    parser = _ArrowTrecParser(src.path, spec, keep)
    size = chunk_bytes or _trec_chunk_bytes(chunk_lines)
    first = 1
    with src.stream() as fh:
        for chunk in _line_chunks(fh, size):
            table, lines = parser.parse(chunk, first)
            parser.pa.default_memory_pool().release_unused()  # the parser's scratch memory
            first += lines
            if table.num_rows:
                yield table


def _trec_chunk_bytes(chunk_lines: int) -> int:
    """Bytes per chunk for ``chunk_lines`` lines of a TREC run: about a third of them (at ~36
    bytes a line), so that a block of ``chunk_lines`` rows ends within a chunk of its size
    instead of taking a second chunk that doubles it (and the working memory of packing)."""
    return max(256, min(chunk_lines * 12, 64 << 20))


def _line_chunks(fh: Any, size: int) -> Iterator[memoryview]:
    """The bytes of a binary file as chunks of whole lines (the last one may lack its line
    end), without a leading UTF-8 BOM. Every chunk is a view of one buffer that the next chunk
    overwrites: use it before asking for the next. The partial line after a chunk's last line
    end moves to the front of the buffer; the buffer doubles when one line does not fit."""
    buf = bytearray(max(size, 4))
    carry = 0  # bytes of a partial line at the front of buf
    start = -1  # where the data starts: after a BOM in the first chunk
    while True:
        if carry == len(buf):
            buf = buf + bytearray(len(buf))  # a line longer than the buffer
        end = carry + _fill(fh, memoryview(buf)[carry:])
        if start < 0:
            start = 3 if buf.startswith(b"\xef\xbb\xbf") else 0
        if end == carry:  # end of the file
            if carry > start:
                yield memoryview(buf)[start:carry]
            return
        cut = buf.rfind(b"\n", start, end) + 1
        if cut == 0:  # no line end yet: read on
            carry = end
            continue
        yield memoryview(buf)[start:cut]
        start = 0
        carry = end - cut
        buf[:carry] = buf[cut:end]


def _fill(fh: Any, view: memoryview) -> int:
    """Read into ``view`` until it is full or the file ends; the number of bytes read."""
    got = 0
    while got < len(view):
        n = fh.readinto(view[got:])
        if not n:
            break
        got += n
    return got


class _ArrowTrecParser:
    """Parses chunks of TREC lines into pyarrow Tables of one schema (see
    :func:`_iter_trec_arrow`)."""

    def __init__(self, path: str, spec: _TrecLayout, keep: tuple[str, ...] | None) -> None:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        self.pa, self.pcsv = pa, pcsv
        self.path, self.spec = path, spec
        types = {n: pa.float64() if spec.numeric.get(n) is np.float64 else
                 pa.int64() if n in spec.numeric else pa.string() for n in spec.names}
        self.keep = tuple(spec.names) if keep is None else keep
        self.schema = pa.schema([(n, types[n]) for n in self.keep])
        # blank lines are refused at first, so that a table's rows count the chunk's lines
        self.strict, self.lenient = (
            pcsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False,
                              ignore_empty_lines=blank) for blank in (False, True))
        self.convert = pcsv.ConvertOptions(
            column_types=types, null_values=[], true_values=[], false_values=[],
            strings_can_be_null=False, quoted_strings_can_be_null=False,
            include_columns=list(self.keep))
        self.read = pcsv.ReadOptions(column_names=list(spec.names), use_threads=False,
                                     block_size=1 << 26)

    def parse(self, chunk: memoryview, first: int) -> tuple[Any, int]:
        """The rows of a chunk of whole lines whose first line is line ``first``, and the
        number of lines in the chunk."""
        table = self._arrow(chunk, self.strict)
        if table is not None:  # no blank line: one row per line
            return table, table.num_rows
        lines = _count_lines(chunk)
        table = self._arrow(chunk, self.lenient)
        if table is None:
            table = self._lines(chunk, first)
        return table, lines

    def _arrow(self, chunk: memoryview, parse: Any) -> Any:
        pa = self.pa
        try:
            return self.pcsv.read_csv(pa.py_buffer(chunk), read_options=self.read,
                                      parse_options=parse, convert_options=self.convert)
        except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
            return None

    def _lines(self, chunk: memoryview, first: int) -> Any:
        """The line readers of :func:`read_trec_run` on one chunk (exact errors by line)."""
        try:
            text = str(chunk, "utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{self.path}: not UTF-8 text ({exc}); convert the file to "
                             "UTF-8.") from None
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        frame = _fast_trec(io.StringIO("\n".join(lines)), self.spec)
        if frame is None:
            frame = _parse_trec_lines(lines, self.path, self.spec, first)
        return self.pa.Table.from_pandas(frame[list(self.keep)], schema=self.schema,
                                         preserve_index=False)


def _count_lines(chunk: memoryview) -> int:
    """Line ends in a chunk: ``\\n``, ``\\r\\n`` and ``\\r`` (universal newlines)."""
    data = bytes(chunk)
    returns = data.count(b"\r")
    return data.count(b"\n") + returns - (data.count(b"\r\n") if returns else 0)


def _fast_trec(source: Any, spec: _TrecLayout) -> Any:
    """Read a well-formed TREC file (a path or a text buffer) with pandas' C parser; None when
    it needs the line-by-line reader (extra fields, malformed lines: it reports them
    precisely). The C parser splits on spaces and tabs only and honours no quotes, as
    trec_eval."""
    import csv
    import warnings

    import pandas as pd

    names = spec.names
    numeric = spec.numeric
    dtypes = {n: numeric.get(n, object) for n in names}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. extra fields: leave them to the line reader
            df = pd.read_csv(source, sep=r"\s+", header=None, names=list(names), dtype=dtypes,
                             engine="c", quoting=csv.QUOTE_NONE,
                             na_filter=False, skip_blank_lines=True, index_col=False)
    except Exception:  # malformed or unusual lines: fall back
        return None
    if len(df.columns) != len(names) or any(
            (df[n] == "").any() or df[n].isna().any() if n not in numeric else df[n].isna().any()
            for n in names):
        return None
    for n in names:
        if n not in numeric:
            df[n] = df[n].astype(object)
    return df


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


def _ints(texts: tuple, path: str, lineno: list[int], what: str) -> np.ndarray:
    out = np.empty(len(texts), dtype=np.int64)
    for j, text in enumerate(texts):
        try:
            out[j] = int(text)
        except (ValueError, OverflowError):
            raise InputError(
                f"{path}, line {lineno[j]}: {what} must be an integer, got {text!r}. Fix the "
                "line."
            ) from None
    return out


# ---- tabular ------------------------------------------------------------------------------
def text_id_columns(path: str | Source, fmt: str,
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


def _csv_convert(src: Source | str, fmt: str, ids: tuple[str | None, ...]) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = text_id_columns(src, fmt, ids)[1]
    return pcsv.ConvertOptions(column_types=dict.fromkeys(names, pa.string()))


# pyarrow reads CSV and JSON in blocks that must hold a whole row: a longer row (one 3 MB
# field) is read again with blocks 8 times larger, up to this size
_FIRST_BLOCK, _LAST_BLOCK = 1 << 20, 1 << 30


def _straddles(exc: BaseException) -> bool:
    """pyarrow's error for a row longer than its block."""
    return "straddl" in str(exc)


def _row_too_long(src: Source, block: int) -> InputError:
    return InputError(
        f"{src.path}: a row is longer than the {block:,} bytes read at a time, and the "
        f"{src.role} file cannot be read again from its start (a pipe); write it to a file "
        "first."
    )


def _arrow_read(src: Source, read: Any) -> Any:
    """``read(source, block_size)``, again with larger blocks while a row straddles two."""
    block = _FIRST_BLOCK
    while True:
        try:
            with src.native() as source:
                return read(source, block)
        except Exception as exc:
            if not _straddles(exc) or block >= _LAST_BLOCK:
                raise
            block *= 8


def _read_table(path: str | Source, fmt: str, role: str,
                ids: tuple[str | None, ...] = (), keyword: str = "format") -> Any:
    """A CSV / TSV / Parquet / JSONL file as a pyarrow Table (pandas without pyarrow)."""
    src = _src(path, role)
    try:
        return _read_source(src, fmt, ids, keyword)
    finally:
        src.done()


def _read_source(src: Source, fmt: str, ids: tuple[str | None, ...],
                 keyword: str = "format") -> Any:
    _check_data(src, fmt, keyword)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            with src.seekable() as source:
                return pq.read_table(source)
        if fmt in ("csv", "tsv"):
            import pyarrow.csv as pcsv

            parse = pcsv.ParseOptions(delimiter="," if fmt == "csv" else "\t")
            convert = _csv_convert(src, fmt, ids)
            return _arrow_read(src, lambda source, block: pcsv.read_csv(
                source, parse_options=parse, convert_options=convert,
                read_options=pcsv.ReadOptions(block_size=block)))
        if fmt == "jsonl":
            import pyarrow.json as pj

            return _arrow_read(src, lambda source, block: pj.read_json(
                source, read_options=pj.ReadOptions(block_size=block)))
    except ImportError:
        return _read_table_pandas(src, fmt, ids)
    except InputError:
        raise
    except Exception as exc:  # pyarrow raises ArrowInvalid / ArrowTypeError / OSError
        raise _unreadable(src, fmt, exc, keyword) from None
    raise InputError(f"{src.path}: unsupported format {fmt!r}.")


def _unreadable(src: Source, fmt: str, exc: BaseException,
                keyword: str = "format") -> InputError:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError(f"{src.path}: cannot read it as {fmt}: {msg.rstrip('.')}. Check the "
                      f"file, or pass {keyword}=<its format>.")


# pandas' default missing-value texts, applied to value columns only (in id columns they are ids)
_NA_TEXTS = ["", "NA", "N/A", "NaN", "nan", "-NaN", "-nan", "NULL", "null", "None", "#N/A", "n/a",
             "<NA>", "#NA", "-1.#IND", "-1.#QNAN", "1.#IND", "1.#QNAN"]


def _read_table_pandas(path: str | Source, fmt: str, ids: tuple[str | None, ...] = ()) -> Any:
    import pandas as pd

    src = _src(path)
    if fmt == "parquet":
        try:
            with src.seekable() as source:  # fastparquet, if that is what is installed
                return pd.read_parquet(source)
        except ImportError:
            require("pyarrow", "arrow")
            raise
    if fmt == "jsonl":
        with src.native() as source:
            return pd.read_json(source, lines=True)
    # as pyarrow reads it: id columns are strings, kept as written ("NA" and "" are ids there)
    header, id_cols = text_id_columns(src, fmt, ids)
    with src.native() as source:
        return pd.read_csv(source, sep="," if fmt == "csv" else "\t",
                           dtype=dict.fromkeys(id_cols, str), keep_default_na=False,
                           na_values={n: _NA_TEXTS for n in header if n not in id_cols})


def read_frame(path: str | os.PathLike, *, format: str | None = None, role: str = "input",
               keyword: str = "format", dtype: dict[str, Any] | None = None) -> Any:
    """A CSV / TSV / Parquet / JSON Lines file as a pandas frame, read by pandas (its own
    type inference: ids that look like numbers are numbers) through the same
    :class:`~receval.io.source.Source` as every other reader: compression by magic bytes,
    FIFOs read once, and an empty, missing or unreadable file refused naming it and ``role``.
    ``format``: as :func:`detect_format` (``keyword`` names it in errors); ``dtype``: column
    types for pandas' CSV / TSV / JSON readers."""
    import pandas as pd

    src = open_source(path, role)
    fmt = detect_format(src.path, format, keyword=keyword)
    if fmt == "trec":
        raise InputError(f"{src.path}: the {role} file is read as a table (CSV, TSV, Parquet "
                         f"or JSON Lines), not a TREC file; pass {keyword}= with one of those.")
    _check_data(src, fmt, keyword)
    try:
        with src.seekable() if fmt == "parquet" else src.native() as source:
            if fmt == "parquet":
                return pd.read_parquet(source)
            if fmt == "jsonl":
                return pd.read_json(source, lines=True, dtype=dtype)
            return pd.read_csv(source, sep="," if fmt == "csv" else "\t", dtype=dtype)
    except ImportError:
        raise
    except Exception as exc:  # pandas / pyarrow parse errors
        raise _unreadable(src, fmt, exc, keyword) from None
    finally:
        src.done()


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
             rank_col: str | None = None, format_keyword: str = "format") -> Any:
    """Read a run file; returns a pandas frame (TREC) or a pyarrow Table (other formats).

    ``user_col`` / ``item_col`` / ``score_col`` / ``rank_col`` rename those columns to ``user``,
    ``item``, ``score``, ``rank`` so that :func:`receval.evaluate` finds them.
    ``format_keyword``: the caller's name of ``format`` in error messages.
    """
    src = open_source(path, "run")
    p = src.path
    fmt = detect_format(p, format, keyword=format_keyword)
    if fmt == "trec":
        return _mark(read_trec_run(p), fmt)
    table = _read_table(src, fmt, "run", (user_col, item_col), format_keyword)
    return _mark(_rename(table, {"user": user_col, "item": item_col, "score": score_col,
                                 "rank": rank_col}, p), fmt)


def read_truth(path: str | os.PathLike, *, format: str | None = None,
               user_col: str | None = None, item_col: str | None = None,
               rel_col: str | None = None, format_keyword: str = "format") -> Any:
    """Read a truth file (TREC qrels or a table with user, item[, relevance] columns).
    ``format_keyword``: the caller's name of ``format`` in error messages."""
    src = open_source(path, "truth")
    p = src.path
    fmt = detect_format(p, format, keyword=format_keyword)
    if fmt == "trec":
        return _mark(read_trec_qrels(p), fmt)
    table = _read_table(src, fmt, "truth", (user_col, item_col), format_keyword)
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
    from .output import atomic_path

    if fmt not in ("parquet", "csv", "tsv", "jsonl"):  # pragma: no cover
        raise InputError(f"{path}: cannot write format {fmt!r}.")
    if fmt == "parquet":
        require("pyarrow", "arrow")
    with atomic_path(path) as tmp:
        if fmt == "parquet":
            df.to_parquet(tmp, index=False)
        elif fmt in ("csv", "tsv"):
            df.to_csv(tmp, sep="," if fmt == "csv" else "\t", index=False)
        else:
            df.to_json(tmp, orient="records", lines=True)


def check_trec_ids(values: Any, path: str, what: str) -> None:
    """Refuse ids that a TREC file cannot hold: empty, or with a space, tab or line break (they
    would shift the fields of the line, and trec_eval would read another id or score)."""
    import pandas as pd

    arr = np.asarray(values)
    if arr.dtype.kind in "iub":  # integers print without a blank
        return
    for v in pd.unique(arr.astype(object).ravel()).tolist():
        s = str(v)
        if not s or _TREC_BREAKS.search(s):
            raise InputError(
                f"{path}: {what} {v!r} cannot be written to a TREC file: TREC fields are "
                "separated by spaces and tabs, one line per row, so an id must be non-empty "
                "and hold no space, tab or line break. Rename the id, or write CSV / Parquet."
            )


_TREC_BREAKS = re.compile(r"[ \t\r\n]")  # what the TREC readers split fields and lines on


def write_run(run: Any, path: str | os.PathLike, *, format: str | None = None,
              tag: str = "receval", user_col: str | None = None, item_col: str | None = None,
              score_col: str | None = None, rank_col: str | None = None) -> None:
    """Write a run. TREC output is ``qid Q0 docno rank score tag``, ranked by score descending
    (item id ascending on ties) with ranks from 1; a rank-only run gets score = -rank."""
    from .frames import column_values, read_columns

    p = os.fspath(path)
    fmt = _out_format(p, format)
    cols = read_columns(run, role="run", user_col=user_col, item_col=item_col,
                        score_col=score_col, rank_col=rank_col)
    import pandas as pd

    value = np.asarray(cols.value, dtype=np.float64)
    score = -value if cols.value_kind == "rank" else value
    df = pd.DataFrame({"user": column_values(cols.user), "item": column_values(cols.item),
                       "score": score})
    df = df.sort_values(["user", "score", "item"], ascending=[True, False, True], kind="stable")
    df["rank"] = df.groupby("user", sort=False).cumcount() + 1
    if fmt == "trec":
        check_trec_ids(df["user"], p, "user (qid)")
        check_trec_ids(df["item"], p, "item (docno)")
        check_trec_ids([tag], p, "tag")
        _write_lines(p, (f"{u} Q0 {i} {r} {s!r} {tag}\n" for u, i, r, s in
                         zip(df["user"], df["item"], df["rank"], df["score"].tolist(),
                             strict=True)))
    else:
        _write_table(df[["user", "item", "score", "rank"]], p, fmt)


def write_truth(truth: Any, path: str | os.PathLike, *, format: str | None = None,
                user_col: str | None = None, item_col: str | None = None,
                rel_col: str | None = None) -> None:
    """Write truth rows. TREC output is ``qid 0 docno rel`` (relevances written as integers)."""
    from .frames import column_values, read_columns

    p = os.fspath(path)
    fmt = _out_format(p, format)
    cols = read_columns(truth, role="truth", user_col=user_col, item_col=item_col,
                        rel_col=rel_col)
    import pandas as pd

    rel = np.ones(cols.n_rows) if cols.value is None else np.asarray(cols.value)
    df = pd.DataFrame({"user": column_values(cols.user), "item": column_values(cols.item),
                       "relevance": rel})
    if fmt == "trec":
        if not np.all(rel == np.round(rel)):
            raise InputError(
                f"{p}: TREC qrels need integer relevances; round them or write CSV/Parquet."
            )
        check_trec_ids(df["user"], p, "user (qid)")
        check_trec_ids(df["item"], p, "item (docno)")
        _write_lines(p, (f"{u} 0 {i} {int(r)}\n" for u, i, r in
                         zip(df["user"], df["item"], rel.tolist(), strict=True)))
    else:
        _write_table(df, p, fmt)


def _out_format(path: str, given: str | None) -> str:
    if given is not None:
        return detect_format(path, given)
    name = path.lower()[:-3] if path.lower().endswith(".gz") else path.lower()
    ext = os.path.splitext(name)[1]
    if ext not in _EXT:
        raise InputError(f"{path}: cannot tell the output format from the name; pass format=...")
    return _EXT[ext]


def _write_lines(path: str, lines: Iterator[str]) -> None:
    from .output import atomic_path

    opener = gzip.open if path.lower().endswith(".gz") else open
    with atomic_path(path) as tmp, opener(tmp, "wt", encoding="utf-8") as fh:
        fh.writelines(lines)


# ---- streaming ----------------------------------------------------------------------------
def count_rows(path: str | os.PathLike, fmt: str, *, role: str = "run") -> int | None:
    """Rows in a Parquet file (from its metadata); None for other formats. A FIFO is read
    once (and kept for the reader that follows)."""
    if fmt != "parquet":
        return None
    pq = require("pyarrow.parquet", "arrow")
    src = open_source(path, role)
    _check_data(src, fmt)
    try:
        with src.seekable() as source:
            return pq.ParquetFile(source).metadata.num_rows
    except Exception as exc:  # not Parquet: ArrowInvalid and the like
        raise _unreadable(src, fmt, exc) from None


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _stream_block(batch_rows: int) -> int:
    """Bytes per block of the streaming CSV / JSONL readers: about ``batch_rows`` rows of ~16
    bytes, between 4 KiB and 16 MiB (a longer row is read again with larger blocks)."""
    return int(min(1 << 24, max(1 << 12, batch_rows * 16)))


def _arrow_batches(src: Source, open_reader: Any, block: int) -> Iterator[Any]:
    """The record batches of ``open_reader(source, block_size)``. A row longer than a block
    restarts the reader with blocks 8 times larger, skipping the rows already given (a file
    can be read again; a pipe cannot: refused naming it)."""
    done = 0
    while True:
        reopen = src.regular
        target = src.path if src.regular and src.compression is None else src.stream()
        try:
            skip = done
            for batch in open_reader(target, block):
                if skip >= len(batch):
                    skip -= len(batch)
                    continue
                if skip:
                    batch, skip = batch.slice(skip), 0
                done += len(batch)
                yield batch
            return
        except Exception as exc:
            if not _straddles(exc):
                raise
            if not reopen or block >= _LAST_BLOCK:
                raise _row_too_long(src, block) from None
            block *= 8
        finally:
            if not isinstance(target, str):
                target.close()


def _batches(path: str | Source, fmt: str, batch_rows: int,
             ids: tuple[str | None, ...] = ()) -> Iterator[Any]:
    """The rows of a run file, in order, as pyarrow RecordBatches or pandas frames."""
    from .frames import mark_text_columns

    src = _src(path, "run")
    if fmt == "parquet":
        pq = require("pyarrow.parquet", "arrow")
        # pre_buffer=False: with it on, the reader keeps every row group it has read until the
        # file is closed, so memory grows with the file (1 GB more per 100M rows of 3 columns)
        with src.seekable() as source:
            yield from pq.ParquetFile(source, pre_buffer=False).iter_batches(
                batch_size=batch_rows)
    elif fmt in ("csv", "tsv") and _has_pyarrow():
        import pyarrow.csv as pcsv

        parse = pcsv.ParseOptions(delimiter="," if fmt == "csv" else "\t")
        convert = _csv_convert(src, fmt, ids)
        for batch in _arrow_batches(src, lambda source, block: pcsv.open_csv(
                source, parse_options=parse, convert_options=convert,
                read_options=pcsv.ReadOptions(block_size=block)), _stream_block(batch_rows)):
            yield mark_text_columns(batch)
    elif fmt in ("csv", "tsv"):
        import pandas as pd

        header, id_cols = text_id_columns(src, fmt, ids)
        with src.stream() as fh, pd.read_csv(
                fh, sep="," if fmt == "csv" else "\t", chunksize=batch_rows,
                dtype=dict.fromkeys(id_cols, str), keep_default_na=False,
                na_values={n: _NA_TEXTS for n in header if n not in id_cols}) as chunks:
            for chunk in chunks:  # closed even when the caller stops early (an error)
                yield mark_text_columns(chunk, id_cols)
    elif fmt == "jsonl" and _has_pyarrow():
        import pyarrow.json as pj

        yield from _arrow_batches(src, lambda source, block: pj.open_json(
            source, read_options=pj.ReadOptions(block_size=block)), _stream_block(batch_rows))
    elif fmt == "jsonl":
        import pandas as pd

        with src.stream() as fh, pd.read_json(fh, lines=True, chunksize=batch_rows) as chunks:
            yield from chunks
    elif fmt == "trec":
        # the run tag and the Q0 field are not evaluated: not kept (every field still checked)
        chunks = _iter_trec_arrow(src, _RUN, batch_rows, ("qid", "docno", "rank", "score")) \
            if _has_pyarrow() \
            else _iter_trec(src, _RUN, batch_rows)
        for chunk in chunks:
            yield mark_text_columns(chunk, ["qid", "docno"])
    else:
        raise _not_streamable(src.path, fmt)


def _not_streamable(path: str, fmt: str) -> InputError:
    return InputError(
        f"{path}: streaming reads Parquet, CSV, TSV, JSON Lines or TREC run files; convert the "
        f"{fmt} file, or {IN_MEMORY}."
    )


def _names(batch: Any) -> list[str]:
    return list(batch.schema.names) if hasattr(batch, "schema") else list(batch.columns)


def _ids(batch: Any, col: str) -> Any:
    if hasattr(batch, "schema"):  # pyarrow: read in Arrow (see _blocks_of)
        return batch.column(col)
    return batch[col].to_numpy()


class _UserOrder:
    """Checks, batch by batch, that the rows of each user are contiguous, and says where the
    first user that comes back after other users' rows is. Keeps one entry per finished user
    (the truth already holds one per user), never the rows."""

    def __init__(self, path: str, user_col: str) -> None:
        self.path = path
        self.user_col = user_col
        self.done: set[Any] = set()
        self.current: Any = _NO_USER
        self.trailing = 0  # rows of the current (last) user so far
        self.rows = 0

    def add(self, users: Any) -> None:
        """The user column of the next batch (numpy, or Arrow: compared in Arrow, and only the
        first id of each block of rows becomes a Python object)."""
        n = len(users)
        starts, firsts = _blocks_of(users)
        prev = self.current
        for s, u in zip(starts.tolist(), firsts, strict=True):
            if s == 0 and prev is not _NO_USER and _same_id(u, prev):
                continue  # the previous batch's last user goes on
            if u in self.done:
                raise InputError(
                    f"{self.path}: the rows of {self.user_col} {_plain_id(u)!r} are not "
                    f"contiguous: it comes back at data row {self.rows + s + 1} after rows of "
                    "other users, and streaming needs the file grouped by user. Sort the file "
                    f"by {self.user_col} (or {IN_MEMORY})."
                )
            if self.current is not _NO_USER:
                self.done.add(self.current)
            self.current = u
        if len(starts) == 1 and prev is not _NO_USER and _same_id(firsts[0], prev):
            self.trailing += n
        else:
            self.trailing = n - int(starts[-1])
        self.rows += n


_NO_USER = object()


def _blocks_of(users: Any) -> tuple[np.ndarray, Any]:
    """Starts of the blocks of equal adjacent ids, and the id of each block."""
    n = len(users)
    if not n:
        return np.zeros(0, dtype=np.int64), []
    if not isinstance(users, np.ndarray) and not users.null_count:  # an Arrow array
        import pyarrow as pa
        import pyarrow.compute as pc

        try:
            change = pc.not_equal(users.slice(1), users.slice(0, n - 1))
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid):  # a type without comparison
            change = None
        if change is not None:
            starts = np.concatenate(([0], np.flatnonzero(
                change.to_numpy(zero_copy_only=False)) + 1)).astype(np.int64)
            return starts, users.take(pa.array(starts)).to_numpy(zero_copy_only=False)
    users = np.asarray(users.to_numpy(zero_copy_only=False) if not isinstance(users, np.ndarray)
                       else users)
    starts = np.concatenate(([0], np.flatnonzero(users[1:] != users[:-1]) + 1))
    return starts, users[starts]


def _same_id(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # pragma: no cover - exotic id types
        return a is b


def _plain_id(u: Any) -> Any:
    return u.item() if hasattr(u, "item") else u


def iter_blocks(path: str | os.PathLike, *, format: str | None = None,
                user_col: str | None = None, block_rows: int = 1_000_000,
                item_col: str | None = None, format_keyword: str = "format") -> Iterator[Any]:
    """Yield blocks of about ``block_rows`` rows, each holding whole users: pyarrow Tables
    (Parquet, CSV, TSV, JSON Lines and TREC runs when pyarrow is installed) or pandas frames
    (without pyarrow).

    The rows of one user must be contiguous in the file (grouped by user): the first user that
    comes back after other users' rows raises :class:`~receval.errors.InputError` naming the user
    and the row, as soon as it is read. A block ends at the last user boundary; the rows of the
    user that runs on are carried into the next block. A file without data rows (a header only)
    raises, as the in-memory readers' callers do. ``user_col``: default, the first of the usual
    names (``user``, ``user_id``, ``qid``, ...) in the file. ``format_keyword``: the caller's
    name of ``format`` in error messages.
    """
    src = open_source(path, "run")
    p = src.path
    fmt = detect_format(p, format, keyword=format_keyword)
    if block_rows <= 0:
        raise InputError(f"block_rows must be a positive number of rows, got {block_rows}.")
    if fmt != "trec":  # an empty TREC file is a file of no rows (below)
        _check_data(src, fmt, format_keyword)
    try:
        yield from _user_blocks(src, fmt, user_col, item_col, block_rows, format_keyword)
    finally:
        src.done()


def _user_blocks(src: Source, fmt: str, user_col: str | None, item_col: str | None,
                 block_rows: int, keyword: str) -> Iterator[Any]:
    """The blocks of :func:`iter_blocks`."""
    p = src.path
    pending: list[Any] = []
    n_pending = 0
    order: _UserOrder | None = None
    try:
        for batch in _batches(src, fmt, min(block_rows, 1 << 20), (user_col, item_col)):
            if len(batch) == 0:
                continue
            if order is None:
                names = _names(batch)
                col = user_col or _guess_user(names, p)
                if col not in names:
                    from ..errors import suggest

                    raise InputError(
                        f"{p}: no column {col!r} to group by; its columns are {names}. Pass "
                        "user_col=<the user column>." + suggest(col, names)
                    )
                order = _UserOrder(p, col)
            order.add(_ids(batch, order.user_col))
            pending.append(batch)
            n_pending += len(batch)
            if n_pending < block_rows:
                continue
            cut = n_pending - order.trailing  # first row of the last user's trailing rows
            if cut <= 0:  # one user fills the block: keep accumulating
                continue
            block = _concat(pending)
            yield _slice(block, 0, cut)
            pending = [_slice(block, cut, n_pending)]
            n_pending -= cut
    except InputError:
        raise
    except Exception as exc:  # parse errors of pyarrow / pandas: as the in-memory readers say
        raise _unreadable(src, fmt, exc, keyword) from None
    if order is None:
        raise InputError(f"{p}: the run file has no rows; check the file (or the path).")
    if n_pending:
        yield _concat(pending)


def _concat(parts: list[Any]) -> Any:
    first = parts[0]
    if hasattr(first, "schema"):
        import pyarrow as pa

        batches = [b for part in parts
                   for b in (part.to_batches() if isinstance(part, pa.Table) else [part])]
        return pa.Table.from_batches(batches, schema=first.schema)
    import pandas as pd

    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)


def _slice(block: Any, start: int, stop: int) -> Any:
    if hasattr(block, "schema"):
        return block.slice(start, stop - start)
    return block.iloc[start:stop].reset_index(drop=True)


def _guess_user(names: list[str], path: str) -> str:
    from .frames import USER_NAMES

    for cand in USER_NAMES:
        if cand in names:
            return cand
    raise InputError(f"{path}: no user column among {names}; pass user_col=<the user "
                     "column>.")


def guess_user_col(path: str | os.PathLike, fmt: str) -> str:
    """The user column of a run file, by the same names :mod:`receval.io.frames` tries."""
    if fmt == "trec":
        return "qid"
    if fmt not in ("csv", "tsv", "parquet", "jsonl"):
        raise _not_streamable(os.fspath(path), fmt)
    src = open_source(path, "run")
    _check_data(src, fmt)
    if fmt == "parquet":
        pq = require("pyarrow.parquet", "arrow")
        try:
            with src.seekable() as source:
                names = pq.ParquetFile(source).schema_arrow.names
        except Exception as exc:  # not Parquet
            raise _unreadable(src, fmt, exc) from None
    elif fmt == "jsonl":
        names = _json_keys(src)
    else:
        names = text_id_columns(src, fmt)[0]
    return _guess_user(names, src.path)


def _json_keys(src: Source) -> list[str]:
    """The keys of the first object of a JSON Lines file."""
    import json

    first = (_first_line(src) or "").strip()
    try:
        obj = json.loads(first)
    except ValueError as exc:
        raise InputError(f"{src.path}: its first line is not a JSON object ({exc}); check "
                         "the file, or pass format=<its format>.") from None
    if not isinstance(obj, dict):
        raise InputError(f"{src.path}: its first line is not a JSON object; check the file, "
                         "or pass format=<its format>.")
    return [str(k) for k in obj]
