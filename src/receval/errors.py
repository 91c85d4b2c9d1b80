"""Exceptions and warnings raised by receval.

Every error names what was received and how to fix it. Errors subclass the builtin
exception a caller would expect (``ValueError`` for bad values, ``KeyError`` for unknown
names, ``ImportError`` for missing optional extras), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any


class RecevalError(Exception):
    """Base class of every receval error."""


class InputError(RecevalError, ValueError):
    """Input data is malformed: a missing column, a wrong type, a NaN score, a duplicate row."""


class MetricError(RecevalError, ValueError):
    """A metric name, parameter or cutoff is invalid."""


class UnknownMetricError(MetricError, KeyError):
    """A metric or parameter name is not known. ``str()`` gives the whole message."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class PolicyError(RecevalError, ValueError):
    """A policy value is invalid, or a policy forbids what the data contains."""


class MissingDependencyError(RecevalError, ImportError):
    """An optional extra is needed; the message says which ``pip install`` fixes it."""


class MissingExtensionError(RecevalError, ImportError):
    """receval's compiled kernels are not importable (a source tree that was never built).

    The message says which module failed, why, and how to fix it: install a prebuilt wheel, or
    install a C compiler and the Python headers and build the package in place.
    """


class RecevalWarning(UserWarning):
    """Base class of receval warnings."""


class UndefinedValueWarning(RecevalWarning):
    """A statistic has no finite value (NaN); the message says why (a zero denominator, a
    single group, no positive label, ...)."""


class RelevanceThresholdWarning(RecevalWarning):
    """No truth row reaches a metric's binary relevance threshold (``rel=``), so the metric is
    undefined for every user: e.g. fractional relevance in (0, 1) with the default ``rel=1``.
    The message names the metrics, the truth's largest relevance and the key that fixes it."""


#: The advice, in library messages, to evaluate without blocks; the command line, where the
#: same choice is a flag, says it its own way (``receval.cli.common.cli_message``).
IN_MEMORY = "evaluate the whole run in memory (receval.evaluate, not in blocks)"


def suggest(name: str, valid: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the nearest valid name, or ``""``."""
    close = difflib.get_close_matches(name, list(valid), n=1, cutoff=0.5)
    return f" Did you mean {close[0]!r}?" if close else ""


def require(module: str, extra: str):
    """Import an optional module or raise :class:`MissingDependencyError` naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            f"{module!r} is needed for this feature but is not installed. "
            f"Install it with: pip install 'receval[{extra}]'"
        ) from exc


class ParameterError(PolicyError, InputError, TypeError):
    """A parameter of a public function has a value it does not accept (wrong type, out of range,
    NaN, not one of the options).

    ``function``, ``param``, ``value`` and ``expected`` say which, so a front end (the CLI) can
    restate the message with its own names (``--at`` instead of ``at=``).
    """

    def __init__(self, message: str, *, function: str = "", param: str = "",
                 value: object = None, expected: str = "") -> None:
        super().__init__(message)
        self.function, self.param, self.value, self.expected = function, param, value, expected


class NoCommonUsersWarning(RecevalWarning):
    """The run and the truth have no user in common: every evaluated user scores without a hit.

    Usually the ids differ in type or spelling (``1`` vs ``"1"``, ``"u1"`` vs ``"1"``).
    """


class EmptyRunWarning(NoCommonUsersWarning):
    """The run has no rows: every truth user is without a list (the counts say how many were
    scored 0 and how many the ``users`` policy left out)."""


def plain(value: object, limit: int = 80) -> str:
    """A value as users write it, for messages: ``nan``, ``0``, ``0.02``, ``'abc'``.

    numpy scalars print as the Python value (never ``np.float64(nan)``); long reprs are cut.
    """
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        try:
            value = value.item()  # type: ignore[union-attr]
        except (TypeError, ValueError):  # pragma: no cover - exotic scalars
            pass
    if isinstance(value, float):
        text = repr(value)
    elif isinstance(value, (list, tuple)) and len(value) <= 20:
        inner = ", ".join(plain(v, limit) for v in value)
        text = f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    else:
        text = repr(value)
    return text if len(text) <= limit or isinstance(value, str) else text[: limit - 3] + "..."


def user_stacklevel() -> int:
    """The ``stacklevel`` for :func:`warnings.warn` that points at the first frame outside
    receval (the user's call), however deep inside receval the warning is raised."""
    import sys

    frame: Any = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("receval"):
        frame, level = frame.f_back, level + 1
    return level
