"""Optional heavy modules, imported only when an input or a caller needs them.

``import receval`` and an evaluation of dicts or numpy arrays never import pandas: a fresh
process would spend about half a second on it. An object can only be a pandas object once
pandas has been imported, so a type test needs no import: :func:`is_pandas` looks pandas up
in ``sys.modules`` and answers ``False`` when it is not there.
"""

from __future__ import annotations

import sys
from typing import Any


def is_pandas(obj: Any, *names: str) -> bool:
    """``isinstance(obj, pandas.<name>)`` for any of ``names``, without importing pandas."""
    pd = sys.modules.get("pandas")
    if pd is None:
        return False
    return isinstance(obj, tuple(getattr(pd, n) for n in names))


def pandas_loaded() -> bool:
    """Whether pandas is imported already (then its hash tables cost nothing to reach)."""
    return "pandas" in sys.modules


def pandas() -> Any:
    """The pandas module, imported on first use."""
    import pandas as pd

    return pd
