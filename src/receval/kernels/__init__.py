"""Array kernels: integers and floats in, arrays out. Imports nothing else from receval."""

from ._packing import pack_lists
from ._ranking import compute_metrics

__all__ = ["compute_metrics", "pack_lists"]
