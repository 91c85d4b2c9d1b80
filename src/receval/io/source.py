"""One reader for every input path: checked once, opened once, decompressed by its magic bytes.

Every reader of :mod:`receval.io.files` (format sniffing, header peeks, row counts, the
in-memory and the streaming readers) reaches an input path through :func:`open_source`, so
that they agree on what the file is:

- **where it is**: a missing file, a broken symlink, a symlink loop, a folder or an unreadable
  file is refused at once, naming the file and the caller's ``role``;
- **what it holds**: gzip (``1f 8b``), bzip2 (``BZh``), xz (``fd 37 7a 58 5a 00``) and
  Zstandard (``28 b5 2f fd``) data are decompressed whatever the file's name (the extension is
  never trusted for compression), and a file with no bytes (after decompression) is
  :attr:`Source.empty`;
- **how often it is opened**: a regular file may be opened any number of times, but a FIFO, a
  process substitution (``<(cmd)``, ``/dev/fd/N``) or ``/dev/stdin`` can be read only once.
  Such a stream is opened once per process: its first bytes are kept for peeks
  (:meth:`Source.peek`), and the one full read replays them before the rest of the stream
  (:meth:`Source.stream`), or holds the whole stream in memory when a reader needs random
  access or a second pass (:meth:`Source.open`). :meth:`Source.done` forgets it once read,
  so a named FIFO read again later is opened again for its next writer.

Compression by magic bytes follows the convention of ``file(1)`` / libmagic and of
``zcat``-like tools (``zstdcat``, ``xzcat``), which do not look at the name either.
"""

from __future__ import annotations

import bz2
import contextlib
import errno
import gzip
import io
import lzma
import os
import stat
import zlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ..errors import InputError

#: Compression formats recognised by their first bytes, in the order they are tried.
MAGIC: tuple[tuple[str, bytes], ...] = (
    ("gzip", b"\x1f\x8b"),
    ("bz2", b"BZh"),
    ("xz", b"\xfd7zXZ\x00"),
    ("zstd", b"\x28\xb5\x2f\xfd"),
)
#: File name endings of compressed files, looked through to find the format's extension.
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zstd")
PEEK_BYTES = 1 << 16


def compression_of(head: bytes) -> str | None:
    """The compression whose magic bytes start ``head`` (see :data:`MAGIC`), or None."""
    for name, magic in MAGIC:
        if head.startswith(magic):
            return name
    return None


def strip_compression_suffix(name: str) -> str:
    """``name`` without one compression ending (``run.csv.gz`` -> ``run.csv``)."""
    low = name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        if low.endswith(suffix):
            return name[: -len(suffix)]
    return name


def check_path(path: str | os.PathLike, role: str) -> os.stat_result:
    """The ``os.stat`` of an input file, or an :class:`InputError` that says why it cannot be
    read: missing, a broken symlink, a symlink loop, a folder, no permission."""
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except OSError as exc:
        raise InputError(_stat_problem(p, role, exc)) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"{role} file {p!r} is a directory; pass a file.")
    if not os.access(p, os.R_OK):
        raise InputError(f"{role} file {p!r} cannot be read (permission denied); check its "
                         "permissions.")
    return st


def _stat_problem(p: str, role: str, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return (f"{role} file {p!r} is a symlink loop (a link that leads back to itself); "
                "point the link at a file.")
    if os.path.islink(p):
        return (f"{role} file {p!r} is a broken symlink (to {os.readlink(p)!r}, which does "
                "not exist); point the link at a file.")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return f"{role} file {p!r} does not exist; check the path."
    return f"{role} file {p!r} cannot be read: {exc.strerror or exc}."


class _Pipe:
    """A stream that can be opened once (FIFO, pipe, character device): the open handle and the
    bytes read from it so far (all of them once ``complete``)."""

    def __init__(self, path: str) -> None:
        self.fh: BinaryIO | None = open(path, "rb", buffering=0)  # noqa: SIM115
        self.head = b""
        self.complete = False
        self.streamed = False

    def fill(self, n: int | None) -> bytes:
        """The first ``n`` raw bytes (all of them for None), reading on as needed."""
        parts = [self.head]
        have = len(self.head)
        while not self.complete and (n is None or have < n):
            assert self.fh is not None
            chunk = self.fh.read(1 << 20 if n is None else max(n - have, 1 << 16))
            if not chunk:
                self.close()
                break
            parts.append(chunk)
            have += len(chunk)
        self.head = b"".join(parts)
        return self.head if n is None else self.head[:n]

    def close(self) -> None:
        self.complete = True
        if self.fh is not None:
            self.fh.close()
            self.fh = None


class _Replay(io.RawIOBase):
    """The kept first bytes of a pipe, then the rest of it, as one binary stream."""

    def __init__(self, pipe: _Pipe) -> None:
        self.pipe = pipe
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        view = memoryview(b).cast("B")
        head = self.pipe.head
        if self.pos < len(head):
            n = min(len(view), len(head) - self.pos)
            view[:n] = head[self.pos:self.pos + n]
            self.pos += n
            return n
        if self.pipe.fh is None:
            return 0
        n = self.pipe.fh.readinto(view) or 0
        if n == 0:
            self.pipe.close()
        return n

    def close(self) -> None:
        if not self.closed and self.pipe.fh is not None:
            self.pipe.close()
        super().close()


# streams opened in this process, by (device, inode): one open per stream
_PIPES: dict[tuple[int, int], _Pipe] = {}


class Source:
    """An input file, checked and recognised once (see the module docstring)."""

    def __init__(self, path: str | os.PathLike, role: str = "input") -> None:
        self.path = os.fspath(path)
        self.role = role
        st = check_path(self.path, role)
        self.regular = stat.S_ISREG(st.st_mode)
        self._key = (st.st_dev, st.st_ino)
        self._pipe: _Pipe | None = None
        if not self.regular:
            pipe = _PIPES.get(self._key)
            if pipe is None or (pipe.streamed and pipe.complete):
                pipe = _PIPES[self._key] = _Pipe(self.path)
            self._pipe = pipe
        self.compression = compression_of(self._raw_head(8))

    # ---- raw bytes -------------------------------------------------------------------------
    def _raw_head(self, n: int) -> bytes:
        if self._pipe is not None:
            return self._pipe.fill(n)
        with open(self.path, "rb") as fh:
            return fh.read(n)

    def _raw(self) -> BinaryIO:
        """The raw bytes as a binary stream (a pipe: replayed, or from memory once read)."""
        if self._pipe is None:
            return open(self.path, "rb")  # noqa: SIM115
        if self._pipe.complete:
            return io.BytesIO(self._pipe.head)
        if self._pipe.streamed:
            raise InputError(f"{self.path}: this stream was read already and cannot be read "
                             "twice; write it to a file first.")
        self._pipe.streamed = True
        return io.BufferedReader(_Replay(self._pipe), 1 << 20)

    # ---- decompressed bytes ------------------------------------------------------------
    def peek(self, n: int = PEEK_BYTES) -> bytes:
        """Up to ``n`` first bytes of the data (decompressed); the file stays unread."""
        if self.compression is None:
            return self._raw_head(n)
        if self._pipe is not None:
            return _inflate_head(self.compression, self._pipe, n, self.path)
        try:
            with self.open() as fh:
                return fh.read(n)
        except EOFError:  # fewer than n bytes, then a cut: the reader reports it
            return self._head_of_cut(n)
        except (OSError, ValueError, zlib.error, lzma.LZMAError) as exc:
            raise _undecodable(self.path, self.compression, exc) from None

    def _head_of_cut(self, n: int) -> bytes:
        """The first bytes of a compressed file cut short (as many as decompress)."""
        assert self.compression is not None and self.compression in _INFLATERS
        with open(self.path, "rb") as fh:
            raw = fh.read(max(n, 1 << 16))
        try:
            return _INFLATERS[self.compression]().decompress(raw, n)
        except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
            raise _undecodable(self.path, self.compression, exc) from None

    @property
    def empty(self) -> bool:
        """True when the file holds no data (no bytes, or a compressed file of none)."""
        return self.peek(1) == b""

    def open(self) -> BinaryIO:
        """The data (decompressed) as a binary stream from its start; may be called again
        (a pipe is read into memory the first time)."""
        if self._pipe is not None and not self._pipe.complete:
            self._pipe.fill(None)
        return self._decompress(self._raw())

    def stream(self) -> BinaryIO:
        """The data (decompressed) as a binary stream, for one pass: a pipe is not held in
        memory (its kept first bytes are replayed before the rest)."""
        return self._decompress(self._raw())

    @contextlib.contextmanager
    def native(self) -> Iterator[Any]:
        """The path itself for a regular uncompressed file (readers map or split it as they
        like), else :meth:`open` (closed when the block ends)."""
        if self._pipe is None and self.compression is None:
            yield self.path
            return
        with self.open() as fh:
            yield fh

    @contextlib.contextmanager
    def seekable(self) -> Iterator[Any]:
        """As :meth:`native`, for readers that seek (Parquet keeps its metadata at the end):
        compressed data or a pipe is held in memory."""
        if self._pipe is None and self.compression is None:
            yield self.path
            return
        with io.BytesIO(self.read_bytes()) as fh:
            yield fh

    def read_bytes(self) -> bytes:
        """All the data (decompressed)."""
        with self.open() as fh:
            return fh.read()

    def done(self) -> None:
        """Forget a pipe once it has been read: a later reader of the path opens it anew."""
        if self._pipe is not None and _PIPES.get(self._key) is self._pipe:
            if self._pipe.complete or self._pipe.streamed:
                del _PIPES[self._key]

    def _decompress(self, raw: BinaryIO) -> BinaryIO:
        comp = self.compression
        try:
            if comp is None:
                return raw
            if comp == "zstd":
                with raw:
                    return _zstd(raw.read(), self.path)
            reader = _READERS[comp](raw)
        except BaseException:
            raw.close()
            raise
        reader.owned = raw
        return reader  # type: ignore[return-value]


class _Owning:
    """A decompressing reader that closes the raw stream it reads (the standard library's
    readers leave a given file object open)."""

    owned: Any = None

    def close(self) -> None:
        try:
            super().close()  # type: ignore[misc]
        finally:
            if self.owned is not None:
                self.owned.close()


class _GzipReader(_Owning, gzip.GzipFile):
    pass


class _Bz2Reader(_Owning, bz2.BZ2File):
    pass


class _XzReader(_Owning, lzma.LZMAFile):
    pass


_READERS: dict[str, Callable[[BinaryIO], Any]] = {
    "gzip": lambda raw: _GzipReader(fileobj=raw, mode="rb"),
    "bz2": _Bz2Reader,
    "xz": _XzReader,
}


def _undecodable(path: str, comp: str, exc: BaseException) -> InputError:
    return InputError(f"{path}: cannot decompress it as {comp} (its first bytes say {comp}): "
                      f"{exc}; check the file.")


def _zstd(data: bytes, path: str) -> BinaryIO:
    """Zstandard data as a binary stream (pyarrow's codec: the standard library has none
    before Python 3.14)."""
    try:
        import pyarrow as pa
    except ImportError:
        raise InputError(f"{path}: Zstandard-compressed data needs pyarrow; install it, or "
                         "decompress the file (zstd -d).") from None
    return pa.CompressedInputStream(pa.BufferReader(data), "zstd")  # type: ignore[return-value]


_INFLATERS: dict[str, Callable[[], Any]] = {
    "gzip": lambda: zlib.decompressobj(16 + zlib.MAX_WBITS),
    "bz2": bz2.BZ2Decompressor,
    "xz": lzma.LZMADecompressor,
}


def _inflate_head(comp: str, pipe: _Pipe, n: int, path: str) -> bytes:
    """The first ``n`` decompressed bytes of a compressed pipe, from its kept first bytes
    (reading more of it while they decompress to fewer than ``n`` bytes)."""
    want = 1 << 16
    while True:
        raw = pipe.fill(want)
        if comp == "zstd":  # no incremental decoder at hand: the whole (compressed) stream
            try:
                return _zstd(pipe.fill(None), path).read(n)
            except InputError:
                raise
            except Exception as exc:
                raise _undecodable(path, comp, exc) from None
        try:
            out = _INFLATERS[comp]().decompress(raw, n)
        except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
            raise _undecodable(path, comp, exc) from None
        if len(out) >= n or pipe.complete or len(raw) < want:
            return out[:n]
        want *= 4


def open_source(path: str | os.PathLike, role: str = "input") -> Source:
    """The :class:`Source` of an input path (checked: see :func:`check_path`)."""
    return Source(path, role)
