"""User groups for ``groups=``: builders for the common cases.

Each builder returns a :class:`receval.io.groups.Membership` (user -> group label) that
``rv.evaluate(..., groups=...)`` takes as it is; see :mod:`receval.groups.builders` for the
definitions:

- :func:`activity`: activity quantiles (training interactions per user), cold users apart;
- :func:`cold_warm`: no training history vs some;
- :func:`popularity_taste`: share of popular items in the training profile (niche / diverse /
  blockbuster, after Abdollahpouri et al. 2019);
- :func:`from_split`: a train/test split's cold users (and cold items).
"""

from __future__ import annotations

from ..io.groups import Membership, read_groups
from .builders import activity, cold_warm, from_split, popularity_taste

__all__ = ["Membership", "activity", "cold_warm", "from_split", "popularity_taste", "read_groups"]
