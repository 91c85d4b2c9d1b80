"""Streaming a Parquet run holds a bounded number of rows in Arrow memory, whatever its length.

pyarrow's ``ParquetFile`` pre-buffers by default and then keeps every row group it has read
until the file is closed; the stream reader must not, or its memory grows with the file.
"""

from __future__ import annotations

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from receval.io.files import iter_blocks  # noqa: E402


def test_parquet_stream_memory_does_not_grow_with_the_file(tmp_path):
    groups, rows = 24, 50_000
    users, per = groups * rows // 50, 50
    user = np.repeat(np.arange(users, dtype=np.int64), per)
    table = pa.table({"user": user, "item": np.arange(len(user), dtype=np.int64) % 997,
                      "score": np.linspace(1.0, 0.0, len(user))})
    path = tmp_path / "run.parquet"
    pq.write_table(table, path, row_group_size=rows)
    group_bytes = rows * 3 * 8
    base = pa.total_allocated_bytes()
    peak, n = 0, 0
    for block in iter_blocks(str(path), block_rows=rows):
        n += block.num_rows
        peak = max(peak, pa.total_allocated_bytes() - base)
        del block
    assert n == len(user)
    # a few row groups at a time (the current block, the pending rows, decoding buffers);
    # pre-buffering would hold all 24 by the end
    assert peak < 6 * group_bytes, (peak, group_bytes)
