"""The EvalResult JSON document: vectorized numbers and the indented writer round-trip exactly."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import receval as rv
from receval.results.jsonio import dump, number, numbers

floats = st.floats(allow_nan=True, allow_infinity=True, width=64)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(0, 6), st.integers(0, 4)), elements=floats))
def test_numbers_is_number_of_every_element(values):
    want = [[number(v) for v in row] for row in values.tolist()]
    got = numbers(values)
    assert json.dumps(got) == json.dumps(want)
    assert [[type(v) for v in row] for row in got] == [[type(v) for v in row] for row in want]


def test_indented_document_round_trips():
    run = {"u1": {"a": 0.9, "b": 0.8}, "u2": {"a": 0.5}, "u3": {"z": 1.0}}
    truth = {"u1": {"b": 1}, "u2": {"c": 1}, "u4": {"a": 2}}
    res = rv.evaluate(run, truth, ["ndcg@10", "mrr", "precision@1"])
    text = res.to_json(indent=2)
    assert text.startswith('{\n  "format": ')
    assert json.loads(text) == json.loads(res.to_json())
    back = rv.EvalResult.from_json(text)
    np.testing.assert_array_equal(back.values, res.values)
    assert list(back.user_ids) == list(res.user_ids)
    assert dump({}, indent=2) == "{}"
    assert json.loads(dump({"a": [1, None], "b": {"c": "inf"}}, indent="\t")) == {
        "a": [1, None], "b": {"c": "inf"}}
