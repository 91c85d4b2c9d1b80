"""Adversarial input files for the reader tests: FIFOs and pipes fed by a writer thread,
compressed data under any name, and a guard that turns a hang into a failure."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HANG_SECONDS = 30


def within(fn: Callable[[], Any], seconds: float = HANG_SECONDS) -> Any:
    """``fn()`` run in a thread: its value or its exception, or a test failure when it has not
    returned after ``seconds`` (a reader that opens a FIFO twice waits forever)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"no answer after {seconds} s: the reader hangs (an input opened twice?)")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _zstd(data: bytes) -> bytes:
    pa = pytest.importorskip("pyarrow")
    return pa.Codec("zstd").compress(data, asbytes=True)


#: compression name -> compress(bytes)
COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress, "zstd": _zstd,
}


@contextlib.contextmanager
def fifo(folder: Path, name: str, data: bytes) -> Iterator[Path]:
    """A named FIFO that a thread fills with ``data`` for its first reader. At the end, any
    reader still waiting for a writer is let go (an open for reading and writing)."""
    path = folder / name
    os.mkfifo(path)

    def write() -> None:
        with contextlib.suppress(OSError), open(path, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        release(path)
        thread.join(5)


def release(path: Path) -> None:
    """Let every thread blocked opening the FIFO ``path`` go on (to end of file)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)


@contextlib.contextmanager
def pipe(data: bytes) -> Iterator[str]:
    """``/dev/fd/N`` of an anonymous pipe filled with ``data`` by a thread: what a shell's
    process substitution ``<(cmd)`` passes."""
    r, w = os.pipe()

    def write() -> None:
        with contextlib.suppress(OSError), os.fdopen(w, "wb") as fh:
            fh.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    try:
        yield f"/dev/fd/{r}"
    finally:
        thread.join(5)
        with contextlib.suppress(OSError):
            os.close(r)
