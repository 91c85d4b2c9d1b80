"""Array kernels: integers and floats in, arrays out. Imports nothing else from receval.

``Request`` (the kernel's request codes) and the option tuples (``VARIANTS``, ``GAINS``,
``IDEALS``, ``DISCOUNTS``) are defined once, in ``_ranking.pyx``; metric definitions read them
from here.
"""

from ._packing import pack_lists
from ._ranking import DISCOUNTS, GAINS, IDEALS, VARIANTS, Request, compute_metrics, exact_partials

__all__ = ["DISCOUNTS", "GAINS", "IDEALS", "VARIANTS", "Request", "compute_metrics",
           "exact_partials", "pack_lists"]
