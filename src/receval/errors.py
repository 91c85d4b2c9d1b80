"""Exceptions and warnings raised by receval.

Every error names what was received and how to fix it. Errors subclass the builtin
exception a caller would expect (``ValueError`` for bad values, ``KeyError`` for unknown
names, ``ImportError`` for missing optional extras), so ``except ValueError`` keeps working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


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


class RelevanceThresholdWarning(RecevalWarning):
    """No truth row reaches a metric's binary relevance threshold (``rel=``), so the metric is
    undefined for every user: e.g. fractional relevance in (0, 1) with the default ``rel=1``.
    The message names the metrics, the truth's largest relevance and the key that fixes it."""


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
