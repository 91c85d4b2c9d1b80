"""Memory kept between evaluations: the limit, its release, and the evaluations that use it.

Each evaluation frees most of the large arrays it made (the run's sorted lists, per-row
tables) before it returns. Memory new to a process is cleared by the system page by page on
first write, so each evaluation would pay for it again: on a 2-core machine, about a fifth
of the time of evaluating 1M users with six ranking metrics, and a third with the fairness
metrics (``benchmarks/bench_fairness.py``). The functions decorated with
:func:`reusing_memory` (``evaluate``, the :class:`~receval.Evaluator` methods) allocate
through a handler that keeps freed blocks of 4 MiB and more
(:mod:`receval.kernels._memory`), and the next evaluation takes them back.

What is kept is bounded:

- at most :func:`set_memory_cache` bytes in all (default: 2 GiB or an eighth of the
  machine's memory, whichever is smaller; the environment variable
  ``RECEVAL_MEMORY_CACHE`` sets it at import, e.g. ``512M``, ``4G`` or ``0``);
- a block that the last ``KEEP`` evaluations neither took nor freed is returned to the system
  when an evaluation ends;
- :func:`release_memory` returns everything now.

Values do not depend on it: the same bits with the cache on or off.
"""

from __future__ import annotations

import contextvars
import functools
import os
import re
import warnings
from collections.abc import Callable
from numbers import Integral
from typing import Any, TypeVar

from ..errors import RecevalWarning
from ..kernels import _memory
from ..validation import Interval, validate_params

__all__ = ["memory_cache_info", "release_memory", "reusing_memory", "set_memory_cache"]

#: evaluations a kept block may stay unused through before it is returned
KEEP = 3
_DEFAULT_CAP = 2 << 30
_ENV = "RECEVAL_MEMORY_CACHE"
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_active: contextvars.ContextVar[bool] = contextvars.ContextVar("receval_memory", default=False)

F = TypeVar("F", bound=Callable[..., Any])


def reusing_memory(func: F) -> F:
    """Run ``func`` with numpy allocating through the block cache (once: calls nested inside
    one evaluation share it)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _active.get():
            return func(*args, **kwargs)
        token = _active.set(True)
        previous = _memory.enter()
        try:
            return func(*args, **kwargs)
        finally:
            _memory.leave(previous, KEEP)
            _active.reset(token)

    return wrapper  # type: ignore[return-value]


@validate_params({"max_bytes": [Interval(Integral, 0, None)]})
def set_memory_cache(max_bytes: int) -> int:
    """Keep at most ``max_bytes`` of freed large arrays between evaluations (0: keep none;
    see :mod:`receval.engines.memory`). Returns the limit before. A limit below what is kept
    now returns every kept block to the system.

    >>> import receval as rv
    >>> before = rv.set_memory_cache(0)   # no memory kept between evaluations
    >>> _ = rv.set_memory_cache(before)
    """
    return int(_memory.set_limit(int(max_bytes)))


def release_memory() -> int:
    """Return every kept block to the system now; the number of bytes returned."""
    return int(_memory.release())


def memory_cache_info() -> dict[str, int]:
    """``{"kept", "blocks", "limit", "reused", "fresh"}``: the bytes and blocks kept now, the
    limit, and how many large allocations since import were served by a kept block or by the
    system."""
    return {k: int(v) for k, v in _memory.stats().items()}


def default_limit() -> int:
    """2 GiB, or an eighth of the machine's memory when that is less."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the fixed bound
        return _DEFAULT_CAP
    return min(_DEFAULT_CAP, max(int(total) // 8, 0))


def parse_size(text: str) -> int | None:
    """Bytes from ``"0"``, ``"1048576"``, ``"512M"``, ``"4G"``, ``"1.5GiB"`` (binary units);
    None when ``text`` is not a size."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    return None if m is None else int(float(m.group(1)) * _UNITS[m.group(2)])


def limit_from_environment() -> int:
    """The limit ``RECEVAL_MEMORY_CACHE`` sets, else :func:`default_limit`; a value that is
    not a size warns and gives the default (a typo must not stop receval from loading)."""
    text = os.environ.get(_ENV, "")
    if not text.strip():
        return default_limit()
    size = parse_size(text)
    if size is None:
        warnings.warn(
            f"{_ENV}={text!r} is not a size, so the default ({default_limit():,} bytes) "
            "applies; give bytes or a number with K, M, G or T (binary units), e.g. 512M, "
            "4G, or 0 to keep no memory between evaluations.", RecevalWarning, stacklevel=2)
        return default_limit()
    return size


_memory.set_limit(limit_from_environment())
