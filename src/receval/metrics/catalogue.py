"""The catalogue-size domain: a catalogue of N items holds every item a metric reads.

A metric with a catalogue-size parameter (``n_items``, ``catalog``) treats each user's top k
as a subset of the N catalogue items and counts what lies outside it (true negatives, the
unranked rest of the catalogue). That is defined only when N is at least what the user
occupies: the list positions the metric reads (or the k slots it counts, RecTools' ``FP = k -
TP``) plus the relevant truth items outside them. A smaller N would give TN < 0, a rate
outside [0, 1] or a percentile above 100; it is refused here, in one place, for every family.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError, plain


def check_catalogue(key: str, size: str, n: float, listed: np.ndarray, unlisted: np.ndarray,
                    user_ids: Any, listed_what: str = "list position(s) read") -> None:
    """Refuse a catalogue of ``n`` items smaller than some user's ``listed + unlisted``.

    ``size`` names where ``n`` came from as the user wrote it (``"n_items=2"``,
    ``"catalog=5"``, ``"evaluate(catalog=5)"``); ``listed``: per user, the list positions
    (or slots) the metric reads; ``unlisted``: per user, the relevant truth items outside
    them; ``listed_what`` describes ``listed`` in the message.
    """
    listed = np.asarray(listed, dtype=np.float64)
    unlisted = np.asarray(unlisted, dtype=np.float64)
    need = listed + unlisted
    over = need > n
    if not over.any():
        return
    u = int(np.flatnonzero(over)[0])
    raise InputError(
        f"{key}: the catalogue size {size} is smaller than what user {plain(user_ids[u])} "
        f"occupies in the catalogue: {_count(listed[u])} {listed_what} + "
        f"{_count(unlisted[u])} relevant truth item(s) outside them = {_count(need[u])} "
        f"items ({int(over.sum())} user(s) exceed {_count(n)}). Pass the real catalogue size "
        "(the number of items that could be recommended)."
    )


def _count(x: float) -> str:
    """A count as written: ``20``, or ``2.5`` (an expected count under ``ties="average"``)."""
    x = float(x)
    return plain(int(x)) if x == int(x) else plain(x)
