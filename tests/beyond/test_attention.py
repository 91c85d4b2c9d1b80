"""Rank weights (attention models): exact values, and geometric attention = RBP's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.beyond.attention import Cascade, Geometric, LogDiscount, Uniform, attention
from receval.errors import InputError


def test_geometric_weights_are_powers_of_the_patience():
    assert Geometric(0.5).weights(4).tolist() == [1.0, 0.5, 0.25, 0.125]
    assert Geometric(0.5, normalize=True).weights(3).tolist() == [0.5, 0.25, 0.125]
    # normalised: the infinite series sums to 1
    assert math.fsum(Geometric(0.9, normalize=True).weights(2000)) == pytest.approx(1.0, abs=1e-12)
    assert attention("geometric", 0.25).weights(2).tolist() == [1.0, 0.25]


def test_log_weights_dcg_and_clipped():
    assert LogDiscount().weights(3).tolist() == [1.0, 1 / math.log2(3), 0.5]
    assert LogDiscount("clip").weights(4).tolist() == [1.0, 1.0, 1 / math.log2(3), 0.5]
    assert attention("log", offset="clip").weights(2).tolist() == [1.0, 1.0]
    assert Uniform().weights(3).tolist() == [1.0, 1.0, 1.0]
    assert Geometric(0.5).weights(0).tolist() == []


def test_cascade_stops_at_satisfying_items():
    # grades 1, 0, 1 of max 1: stop probability 1/2, 0, 1/2 (ERR's (2^g - 1) / 2^gmax)
    assert Cascade(1.0).weights(3, np.array([1, 0, 1])).tolist() == [1.0, 0.5, 0.5]
    # patience multiplies: p^(r-1) times the probability of reaching r
    assert Cascade(0.5).weights(3, np.array([1, 0, 1])).tolist() == [1.0, 0.25, 0.125]
    # max grade 2: a grade 2 item stops with probability 3/4
    assert Cascade(1.0, max_grade=2).weights(2, np.array([2, 0])).tolist() == [1.0, 0.25]
    with pytest.raises(InputError, match="grades"):
        Cascade().weights(3)


def test_invalid_models_are_refused():
    with pytest.raises(InputError, match="patience"):
        Geometric(1.0)
    with pytest.raises(InputError, match="attention model"):
        attention("linear")


def test_rbp_is_geometric_attention_on_relevant_ranks():
    """RBP (Moffat & Zobel 2008) with persistence p = (1 - p) x the geometric attention of the
    relevant ranks: the same attention, one user model."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(1, 9))
        rel = rng.integers(0, 2, size=n)
        items = [f"i{j}" for j in range(n)]
        run = pd.DataFrame({"user": "u", "item": items, "score": -np.arange(n, dtype=float)})
        truth = pd.DataFrame({"user": "u", "item": [i for i, r in zip(items, rel, strict=True) if r] or ["x"]})
        p = float(rng.choice([0.3, 0.5, 0.8]))
        key = rv.metric("rbp", p=p).key
        got = rv.evaluate(run, truth, [key]).summary[key]
        w = Geometric(p, normalize=True).weights(n)
        assert got == pytest.approx(math.fsum(w[rel > 0]), rel=1e-13, abs=1e-15)
