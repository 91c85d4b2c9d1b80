"""Library presets: what each metric name means in another library, as receval conventions.

A :class:`Preset` is pure data: the library's names for its metrics, the evaluation policies
that match the library's user set, tie order and empty-truth rule, the version and source
files it was checked against, and the conventions receval does not reproduce. Each library's
preset is one module of the one table of foreign names,
:mod:`receval.metrics.foreign.libraries`; :mod:`receval.compat` resolves metric names with
it; executors never read it.
"""

from __future__ import annotations

from ..metrics.foreign import PRESET_ALIASES, PRESETS, Name, Preset

__all__ = ["PRESETS", "PRESET_ALIASES", "Name", "Preset"]
