"""Large arrays kept between evaluations (receval.engines.memory, receval.kernels._memory):
values do not depend on the cache, blocks are reused and bounded, the handler is numpy's
again after every call, and the limit refuses what is not a size."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.engines import memory
from receval.errors import ParameterError, RecevalWarning
from receval.kernels import _memory

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # numpy < 2
    from numpy.core.multiarray import get_handler_name

METRICS = ["ndcg@10", "map@20", "mrr", "precision@10", "recall@20", "hit_rate@10"]


@pytest.fixture
def limit():
    """Restore the limit (and return the kept blocks) after the test."""
    before = rv.set_memory_cache(1 << 30)
    rv.release_memory()
    yield
    rv.release_memory()
    rv.set_memory_cache(before)


def _frames(n_users: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    run = pd.DataFrame({"user": np.repeat(np.arange(n_users), k),
                        "item": rng.integers(0, 5000, n_users * k),
                        "score": rng.random(n_users * k)}).drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.repeat(np.arange(n_users), 3),
                          "item": rng.integers(0, 5000, n_users * 3)}).drop_duplicates()
    return run, truth


def _large():
    """A run whose arrays pass the size of a kept block (4 MiB)."""
    return _frames(100_000, 40)


def test_values_are_the_bits_of_an_evaluation_without_the_cache(limit):
    run, truth = _large()
    rv.set_memory_cache(0)
    plain = rv.evaluate(run, truth, METRICS)
    rv.set_memory_cache(1 << 30)
    first = rv.evaluate(run, truth, METRICS)
    again = rv.evaluate(run, truth, METRICS)  # on blocks the first one freed
    assert memory.memory_cache_info()["reused"] > 0
    for res in (first, again):
        pd.testing.assert_frame_equal(res.per_user, plain.per_user, check_exact=True)
        assert res.summary == plain.summary


def test_a_repeated_evaluation_takes_back_the_blocks_of_the_one_before(limit):
    run, truth = _large()
    rv.evaluate(run, truth, METRICS)
    kept = memory.memory_cache_info()
    assert kept["kept"] > 0 and kept["blocks"] > 0
    rv.evaluate(run, truth, METRICS)
    after = memory.memory_cache_info()
    assert after["fresh"] == kept["fresh"]  # every large request met by a kept block
    assert after["reused"] > kept["reused"]


def test_the_handler_is_numpys_again_after_every_call(limit):
    run, truth = _frames(50, 5)
    before = get_handler_name()
    rv.evaluate(run, truth, METRICS)
    assert get_handler_name() == before
    ev = rv.Evaluator(truth, METRICS)
    ev.evaluate(run)
    ev.pack(run)
    assert get_handler_name() == before
    with pytest.raises(rv.InputError):  # also when the call fails
        rv.evaluate(run.rename(columns={"user": "who", "item": "what"}), truth, METRICS,
                    user_col="nope")
    assert get_handler_name() == before


def test_nothing_is_kept_under_a_zero_limit_and_release_returns_it_all(limit):
    run, truth = _large()
    rv.evaluate(run, truth, METRICS)
    kept = memory.memory_cache_info()["kept"]
    assert kept > 0
    assert rv.release_memory() == kept
    assert memory.memory_cache_info()["kept"] == 0
    assert rv.set_memory_cache(0) == 1 << 30
    rv.evaluate(run, truth, METRICS)
    assert memory.memory_cache_info()["kept"] == 0


def test_the_limit_bounds_what_is_kept(limit):
    run, truth = _large()
    rv.set_memory_cache(12 << 20)
    for _ in range(3):
        rv.evaluate(run, truth, METRICS)
        assert memory.memory_cache_info()["kept"] <= 12 << 20
    rv.evaluate(run, truth, METRICS)
    rv.set_memory_cache(1 << 20)  # a lower limit returns what is kept
    assert memory.memory_cache_info()["kept"] == 0


def test_a_block_unused_through_the_last_evaluations_is_returned(limit):
    big, big_truth = _large()
    small, small_truth = _frames(30, 5)
    rv.evaluate(big, big_truth, METRICS)
    assert memory.memory_cache_info()["kept"] > 0
    for _ in range(memory.KEEP):
        rv.evaluate(small, small_truth, METRICS)  # takes and frees no large block
    assert memory.memory_cache_info()["kept"] == 0


def test_arrays_made_in_an_evaluation_live_on_after_it(limit):
    previous = _memory.enter()
    try:
        a = np.arange(2_000_000, dtype=np.int64)  # 16 MB: a kept block when freed
        b = np.zeros(10)
        c = np.arange(1_000_000, dtype=np.int64)
        c.resize(3_000_000, refcheck=False)  # realloc: the data is moved, then zero-filled
    finally:
        _memory.leave(previous, memory.KEEP)
    assert a[-1] == 1_999_999 and a.sum() == 1_999_999 * 2_000_000 // 2
    assert not b.any()
    assert c[999_999] == 999_999 and not c[1_000_000:].any()
    a[:] = -1  # still writable, freed (and kept) when it dies, outside the evaluation
    del a, c
    assert memory.memory_cache_info()["kept"] >= 16_000_000


def test_a_kept_block_handed_to_a_zeroed_request_is_cleared(limit):
    previous = _memory.enter()
    try:
        for _ in range(3):
            dirty = np.empty(3_000_000, dtype=np.float64)
            dirty.fill(7.0)
            del dirty
            clean = np.zeros(3_000_000, dtype=np.float64)  # the block just freed, cleared
            assert not clean.any()
            del clean
    finally:
        _memory.leave(previous, memory.KEEP)
    assert memory.memory_cache_info()["reused"] >= 5


def test_evaluations_in_threads_give_the_values_of_one_thread(limit):
    run, truth = _frames(20_000, 30)
    want = rv.evaluate(run, truth, METRICS).per_user
    got: list = []

    def work():
        for _ in range(3):
            got.append(rv.evaluate(run, truth, METRICS).per_user)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 9
    for res in got:
        pd.testing.assert_frame_equal(res, want, check_exact=True)
    assert get_handler_name() != "receval_cached"


@pytest.mark.parametrize("bad", [-1, 1.5, True, "1G", None, np.nan])
def test_the_limit_refuses_what_is_not_a_byte_count(bad, limit):
    with pytest.raises(ParameterError, match="max_bytes"):
        rv.set_memory_cache(bad)


@pytest.mark.parametrize(("text", "size"), [
    ("0", 0), ("1048576", 1 << 20), ("512M", 512 << 20), ("4G", 4 << 30), ("1.5GiB", 3 << 29),
    (" 2 g ", 2 << 30), ("64kb", 64 << 10), ("1T", 1 << 40),
])
def test_sizes_of_the_environment_variable(text, size):
    assert memory.parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "-1", "1X", "G", "1e9", "1,5G"])
def test_an_environment_value_that_is_not_a_size_warns_and_keeps_the_default(text,
                                                                           monkeypatch):
    monkeypatch.setenv("RECEVAL_MEMORY_CACHE", text)
    with pytest.warns(RecevalWarning, match="RECEVAL_MEMORY_CACHE"):
        assert memory.limit_from_environment() == memory.default_limit()
    monkeypatch.setenv("RECEVAL_MEMORY_CACHE", "256M")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert memory.limit_from_environment() == 256 << 20


def test_the_default_limit_is_at_most_two_gib():
    assert 0 < memory.default_limit() <= 2 << 30
