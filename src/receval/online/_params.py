"""Constraints shared by the declared parameters of the online functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..stats.corrections import _ALIASES, CORRECTIONS
from ..validation import (
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    PROBABILITY_OPEN,
    Constraint,
    Interval,
    Options,
    Real,
)


class Generator(Constraint):
    """A ``numpy.random.Generator`` (passed on to share one random stream)."""

    def ok(self, value: Any) -> bool:
        return isinstance(value, np.random.Generator)

    def describe(self) -> str:
        return "a random Generator (default_rng)"

    def good_value(self) -> Any:
        return np.random.default_rng(0)

    def bad_values(self) -> list[Any]:
        return [np.random.RandomState(0)]


#: a seed: None, a non-negative integer or a Generator
RNG: list[Any] = [None, *NON_NEGATIVE_INT, Generator()]
#: a multiple-testing correction (names and aliases of receval.stats.corrections)
CORRECTION: list[Any] = [None, Options(CORRECTIONS + tuple(k for k in _ALIASES if k))]
POSITIVE = [Interval(Real, 0, None, closed="neither")]
NON_NEGATIVE = [Interval(Real, 0, None)]
UNIT = [Interval(Real, 0, 1)]
__all__ = ["CORRECTION", "NON_NEGATIVE", "POSITIVE", "POSITIVE_INT", "PROBABILITY_OPEN", "RNG",
           "UNIT", "Generator"]
