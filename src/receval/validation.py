"""Declarative validation of public parameters, in the spirit of scikit-learn's ``validate_params``.

A public function declares, for each scalar parameter, the constraints a value must meet (any
one of them is enough)::

    @validate_params({"n_items": [Interval(Integral, 1, None)],
                      "alpha": [Interval(Real, 0, 1, closed="neither")],
                      "sampler": [Options({"uniform", "popularity"})],
                      "k": [None, Interval(Integral, 1, None)]})
    def f(..., n_items, alpha, sampler, k=None): ...

Every call is checked before the body runs; a value that meets no constraint raises
:class:`~receval.errors.ParameterError` naming the function, the parameter, the value (printed
plainly: ``nan``, ``0``, never ``np.float64(nan)``) and what is accepted. The decorator also
records the declaration in :data:`TABLE`, which the test suite walks to feed every declared
constraint values it must refuse (:meth:`Constraint.bad_values`).

Conventions: a bool is never an integer or a number here (``True`` for a count is a mistake);
numpy scalars are accepted wherever the Python type is; a real interval never holds NaN, and
holds an infinity only when a bound says so explicitly (``Interval(Real, 0, inf, closed="both")``).
"""

from __future__ import annotations

import functools
import inspect
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from numbers import Integral, Real
from typing import Any

from .errors import ParameterError, plain, suggest

__all__ = ["TABLE", "Boolean", "Callable_", "Constraint", "InstanceOf", "Integral", "Interval",
           "Options", "Real", "check_param", "describe", "validate_params"]


class Constraint(ABC):
    """One acceptable kind of value for a parameter."""

    @abstractmethod
    def ok(self, value: Any) -> bool:
        """Whether ``value`` meets the constraint."""

    @abstractmethod
    def describe(self) -> str:
        """What the constraint accepts, for messages (``"an integer in [1, inf)"``)."""

    @abstractmethod
    def good_value(self) -> Any:
        """One value that meets the constraint (the generated test fills required parameters)."""

    def bad_values(self) -> list[Any]:
        """Values that violate this constraint (the generated boundary test feeds them)."""
        return []

    def __str__(self) -> str:
        return self.describe()


def _is_bool(value: Any) -> bool:
    import numpy as np

    return isinstance(value, (bool, np.bool_))


class Interval(Constraint):
    """A number of ``kind`` (``Integral`` or ``Real``) between ``low`` and ``high``.

    ``None`` for a bound means unbounded on that side (and, for reals, finite); ``closed`` is
    ``"both"``, ``"left"``, ``"right"`` or ``"neither"``.
    """

    def __init__(self, kind: type, low: float | None, high: float | None, *,
                 closed: str = "both") -> None:
        if kind not in (Integral, Real):
            raise TypeError("Interval kind must be numbers.Integral or numbers.Real")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed={closed!r}")
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def ok(self, value: Any) -> bool:
        if _is_bool(value) or not isinstance(value, self.kind):
            return False
        if self.kind is Real:
            if isinstance(value, Integral):
                value = int(value)
                if abs(value) > 2**1023:  # no float holds it (10**400)
                    return False
            else:
                value = float(value)  # type: ignore[arg-type]
                if math.isnan(value):
                    return False
                if math.isinf(value) and not (value == self.low or value == self.high):
                    return False
        else:
            value = int(value)  # type: ignore[call-overload]
            if not -(2**63) <= value < 2**63:  # beyond int64: no array or seed can take it
                return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.low is not None and (value < self.low or (value == self.low and not left_closed)):
            return False
        return not (self.high is not None
                    and (value > self.high or (value == self.high and not right_closed)))

    def good_value(self) -> Any:
        step = 1 if self.kind is Integral else 0.5
        if self.low is not None:
            if self.closed in ("both", "left"):
                return self.low
            if self.high is None:
                return self.low + step
            return (self.low + self.high) / 2 if self.kind is Real else self.low + 1
        if self.high is not None:
            return self.high if self.closed in ("both", "right") else self.high - step
        return 0

    def describe(self) -> str:
        kind = "an integer" if self.kind is Integral else "a number"
        lo = "-inf" if self.low is None else plain(self.low)
        hi = "inf" if self.high is None else plain(self.high)
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        return f"{kind} in {left}{lo}, {hi}{right}"

    def bad_values(self) -> list[Any]:
        import numpy as np

        out: list[Any] = [float("nan"), np.float64("nan"), float("1e400"), -float("1e400"),
                          "1", True, np.bool_(True), object()]
        if self.low is not None and not math.isinf(self.low):
            below = self.low - 1 if self.closed in ("both", "left") else self.low
            out += [below, np.int64(below) if self.kind is Integral else np.float64(below)]
            if self.kind is Real and self.closed in ("both", "left"):
                out.append(float(np.nextafter(float(self.low), -math.inf)))
        if self.high is not None and not math.isinf(self.high):
            above = self.high + 1 if self.closed in ("both", "right") else self.high
            out += [above, np.int64(above) if self.kind is Integral else np.float64(above)]
        out.append(10**400)
        if self.kind is Integral:
            out += [2.5, 1.0, np.float64(3.0)]
        return out


class Options(Constraint):
    """One of a fixed set of values (usually strings)."""

    def __init__(self, options: Iterable[Any]) -> None:
        self.options = tuple(options)

    def ok(self, value: Any) -> bool:
        return not _is_bool(value) and any(
            isinstance(value, type(o)) and value == o for o in self.options)

    def good_value(self) -> Any:
        return self.options[0]

    def describe(self) -> str:
        return "one of " + ", ".join(plain(o) for o in self.options)

    def bad_values(self) -> list[Any]:
        return ["no-such-option", 1, float("nan")]


class InstanceOf(Constraint):
    """An instance of one of ``types`` (described as ``name``)."""

    def __init__(self, *types: type, name: str | None = None) -> None:
        self.types = types
        self.name = name or " or ".join(t.__name__ for t in types)

    def ok(self, value: Any) -> bool:
        return isinstance(value, self.types) and not (
            _is_bool(value) and bool not in self.types)

    def describe(self) -> str:
        return f"a {self.name}"

    def good_value(self) -> Any:
        return self.types[0]()

    def bad_values(self) -> list[Any]:
        return [object(), float("nan")]


class Boolean(Constraint):
    """``True`` or ``False`` (Python or numpy bool)."""

    def ok(self, value: Any) -> bool:
        return _is_bool(value)

    def good_value(self) -> Any:
        return True

    def describe(self) -> str:
        return "True or False"

    def bad_values(self) -> list[Any]:
        return ["yes", "False", 1, 0, None, float("nan")]


class Callable_(Constraint):  # noqa: N801 - the name says what it accepts
    """Any callable."""

    def ok(self, value: Any) -> bool:
        return callable(value)

    def describe(self) -> str:
        return "a callable"

    def good_value(self) -> Any:
        return len

    def bad_values(self) -> list[Any]:
        return ["f", 1]


class _NoneConstraint(Constraint):
    def ok(self, value: Any) -> bool:
        return value is None

    def good_value(self) -> Any:
        return None

    def describe(self) -> str:
        return "None"

    def bad_values(self) -> list[Any]:
        return []


def _as_constraint(c: Any) -> Constraint:
    if c is None:
        return _NoneConstraint()
    if isinstance(c, Constraint):
        return c
    raise TypeError(f"not a constraint: {c!r}")


def describe(constraints: list[Constraint]) -> str:
    """``"an integer in [1, inf) or None"``."""
    parts = [c.describe() for c in constraints]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def check_param(where: str, name: str, value: Any, constraints: list[Any]) -> Any:
    """Return ``value`` if it meets one of ``constraints``, else raise :class:`ParameterError`."""
    cs = [_as_constraint(c) for c in constraints]
    if any(c.ok(value) for c in cs):
        return value
    expected = describe(cs)
    hint = ""
    if isinstance(value, str):
        for c in cs:
            if isinstance(c, Options):
                hint = suggest(value, [str(o) for o in c.options])
    rule = (f"choose {expected}" if all(isinstance(c, Options) for c in cs)
            else f"{name} must be {expected}")
    raise ParameterError(
        f"{where}: {name}={plain(value)} is not valid; {rule}.{hint}",
        function=where, param=name, value=value, expected=expected,
    )


#: qualified function name -> {parameter: [constraints]}; filled by :func:`validate_params`.
TABLE: dict[str, dict[str, list[Constraint]]] = {}
#: qualified function name -> the validated (decorated) callable, for the generated tests.
FUNCTIONS: dict[str, Callable[..., Any]] = {}


def validate_params(spec: dict[str, list[Any]], *, name: str | None = None
                    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: check the declared parameters of every call before the body runs.

    ``spec`` maps parameter names to lists of constraints (``None`` in a list accepts ``None``).
    A parameter taken through ``**kwargs`` is checked when it is passed. ``name`` is the name
    errors use (default: the function's ``__qualname__``; ``Evaluator.__init__`` is reported as
    ``Evaluator``).
    """
    table = {p: [_as_constraint(c) for c in cs] for p, cs in spec.items()}

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(func)
        where = name or func.__qualname__.replace(".__init__", "")
        var_kw = next((p.name for p in sig.parameters.values()
                       if p.kind is inspect.Parameter.VAR_KEYWORD), None)
        unknown = [p for p in table if p not in sig.parameters and var_kw is None]
        if unknown:
            raise TypeError(f"{where}: validate_params names unknown parameters {unknown}")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = sig.bind_partial(*args, **kwargs)
            except TypeError:
                return func(*args, **kwargs)  # Python's own message for a wrong call
            arguments = bound.arguments
            extra = arguments.get(var_kw, {}) if var_kw else {}
            for pname, cs in table.items():
                if pname in arguments:
                    check_param(where, pname, arguments[pname], cs)  # type: ignore[arg-type]
                elif pname in extra:
                    check_param(where, pname, extra[pname], cs)  # type: ignore[arg-type]
            return func(*args, **kwargs)

        key = f"{func.__module__}.{func.__qualname__}"
        TABLE[key] = table
        FUNCTIONS[key] = wrapper
        wrapper.__validated_params__ = table  # type: ignore[attr-defined]
        return wrapper

    return decorate


#: Shared constraint shorthands.
SEED = [Interval(Integral, 0, None)]
POSITIVE_INT = [Interval(Integral, 1, None)]
NON_NEGATIVE_INT = [Interval(Integral, 0, None)]
PROBABILITY_OPEN = [Interval(Real, 0, 1, closed="neither")]
FINITE = [Interval(Real, None, None)]
#: a logarithm base: positive and not 1
LOG_BASE = [Interval(Real, 0, 1, closed="neither"), Interval(Real, 1, None, closed="neither")]
