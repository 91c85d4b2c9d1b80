"""User groups for ``groups=``: builders for the common cases.

Each builder returns a :class:`receval.io.groups.Membership` (user -> group label) that
``rv.evaluate(..., groups=...)`` takes as it is; see :mod:`receval.groups.builders` for the
definitions.
"""

from __future__ import annotations

from ..io.groups import Membership, read_groups

__all__ = ["Membership", "read_groups"]
