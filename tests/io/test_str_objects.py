"""Object id columns verified to hold only str are marked once (StrObjects) and stay correct."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from receval.io.frames import StrObjects, is_str_array, read_columns


def test_object_str_columns_are_marked_and_mixed_ones_are_not():
    df = pd.DataFrame({"user": pd.Series(["u1", "u1", "u2"], dtype=object),
                       "item": pd.Series(["a", 3, "b"], dtype=object), "score": [3.0, 2.0, 1.0]})
    assert df["user"].dtype == object
    cols = read_columns(df, role="run")
    assert isinstance(cols.user, StrObjects) and is_str_array(cols.user)
    assert not isinstance(cols.item, StrObjects) and not is_str_array(np.asarray(cols.item))


def test_the_mark_cannot_go_stale():
    a = np.array(["a", "b", "c"], dtype=object).view(StrObjects)
    assert is_str_array(a[1:]) and is_str_array(a.copy())
    assert not is_str_array(a == a)  # a boolean result is not a str column
    b = a.copy()
    b[0] = "z"
    b[1:] = ["y", "x"]
    assert b.tolist() == ["z", "y", "x"]
    for bad in (5, None, [1, "x"], np.array([1, 2], dtype=object)):
        with pytest.raises(TypeError, match="holds only str"):
            b[1:] = bad
    plain = np.asarray(a, dtype=object)
    plain[0] = 5  # the documented way out
    assert not is_str_array(plain)
