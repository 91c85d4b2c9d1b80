"""Any Arrow stream (the PyCapsule interface, ``__arrow_c_stream__``) is a container: the
evaluation, the splitters and the online analyses read it as the same rows in a Table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv

pa = pytest.importorskip("pyarrow")


class _Stream:
    """A container known only by the Arrow stream interface (as DuckDB or nanoarrow give)."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def _frames():
    rng = np.random.default_rng(7)
    run = pd.DataFrame({"user": np.repeat(np.arange(20), 5), "item": rng.integers(0, 30, 100),
                        "score": rng.random(100)}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.repeat(np.arange(20), 3), "item": rng.integers(0, 30, 60),
                          "relevance": rng.integers(1, 3, 60)}).drop_duplicates(["user", "item"])
    return run, truth


@pytest.mark.parametrize("wrap", [
    lambda t: t.to_reader(max_chunksize=7),   # pyarrow's RecordBatchReader
    lambda t: _Stream(t),                      # any other producer of the interface
])
def test_an_arrow_stream_evaluates_as_its_table(wrap):
    run, truth = _frames()
    metrics = ["ndcg@5", "map", "recall@3"]
    want = rv.evaluate(run, truth, metrics)
    got = rv.evaluate(wrap(pa.Table.from_pandas(run, preserve_index=False)),
                      wrap(pa.Table.from_pandas(truth, preserve_index=False)), metrics)
    assert got.summary == want.summary
    np.testing.assert_array_equal(got.values, want.values)
    assert got.counts == want.counts


def test_the_frame_reader_takes_an_arrow_stream():
    from receval.io.containers import to_pandas

    run, _ = _frames()
    table = pa.Table.from_pandas(run, preserve_index=False)
    pd.testing.assert_frame_equal(to_pandas(_Stream(table), "log"), run.reset_index(drop=True))


def test_something_else_is_still_refused_naming_the_type():
    with pytest.raises(rv.InputError, match="unsupported container object"):
        rv.evaluate(object(), {"u": {"a": 1}}, ["mrr"])
