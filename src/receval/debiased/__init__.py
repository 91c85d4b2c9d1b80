"""Propensity-scored (debiased) ranking metrics: PSP@k, PSnDCG@k and an IPS-weighted hit rate.

They are plugin metric families of :func:`receval.evaluate` (registered by
:mod:`receval.debiased.registered`); the array code is in :mod:`receval.debiased._propensity`.
"""

from ._propensity import jain_propensities

__all__ = ["jain_propensities"]
