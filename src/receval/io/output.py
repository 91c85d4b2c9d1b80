"""Writing output files safely: all or nothing, and never over an input.

Every file receval writes (runs, truth, reports, split halves, CLI output) goes through
:func:`atomic_path` / :func:`write_text`: the data is written to a temporary file in the same
directory and renamed over the target with :func:`os.replace`, so a crash or an error half-way
leaves the previous file intact, never a truncated one.

:func:`same_file` tells whether two paths name the same file (symlinks, ``..`` and hard links
included); the command line refuses to write an output over one of its inputs with it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """True when ``a`` and ``b`` are the same file: same inode (hard links, symlinks) or, when
    either does not exist yet, the same resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path next to ``path``; when the block ends without an error it is
    renamed over ``path`` (atomically), else removed.

    The temporary name ends with the target's name, so writers that infer a format or a
    compression from the extension (``.parquet``, ``.csv.gz``) infer the same one. A symlink
    target is followed (the file it points to is replaced, not the link), and an existing
    file's permission bits are kept.
    """
    target = os.path.realpath(os.fspath(path))
    folder, name = os.path.split(target)
    _check_folder(os.fspath(path), folder or ".")
    fd, tmp = tempfile.mkstemp(prefix=".receval-", suffix="-" + name, dir=folder or ".")
    os.close(fd)
    try:
        yield tmp
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _check_folder(path: str, folder: str) -> None:
    """Refuse an output whose folder is missing or not writable, naming the output itself
    (not the temporary file next to it)."""
    from ..errors import InputError

    if not os.path.isdir(folder):
        raise InputError(f"{path}: cannot write the output: its folder {folder!r} does not "
                         "exist; create it first.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write the output: its folder {folder!r} is not "
                         "writable.")


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
