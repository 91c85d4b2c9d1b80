"""Kernel metrics with a catalogue size (``n_items``) refuse a catalogue smaller than what a
user occupies in it (the list positions read, or MCC's k slots, plus the relevant items
outside them), per user, in memory, in blocks; the smallest sufficient size is accepted."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval.metrics.spec import REGISTRY


def _catalogue_metrics() -> list[str]:
    return sorted(n for n, d in REGISTRY.items()
                  if d.kernel is not None and d.kernel.catalogue is not None)


def _need(name: str, k: int | None, run: dict, truth: dict) -> int:
    """The smallest catalogue every user fits in, from the definition: listed + unlisted."""
    need = 0
    for u, rel in truth.items():
        ranked = sorted(run.get(u, {}), key=lambda i: (-run[u][i], i))
        read = ranked if k is None else ranked[:k]
        hits = sum(1 for i in read if rel.get(i, 0) >= 1)
        n_rel = sum(1 for r in rel.values() if r >= 1)
        listed = k if name == "mcc" else len(read)
        need = max(need, listed + n_rel - hits)
    return need


def test_the_registry_has_catalogue_metrics():
    assert set(_catalogue_metrics()) >= {"mcc", "percentile_rank"}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", _catalogue_metrics())
def test_smallest_catalogue_accepted_and_one_less_refused(name, seed):
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(12)]
    run = {f"u{u}": {it: float(rng.random()) for it in rng.choice(items, rng.integers(1, 7),
                                                                   replace=False)}
           for u in range(5)}
    truth = {f"u{u}": {it: 1 for it in rng.choice(items, rng.integers(1, 5), replace=False)}
             for u in range(7)}  # two users without a list
    k = 4 if name == "mcc" else None
    need = _need(name, k, run, truth)
    key = f"{name}@{k}" if k else name
    ok = rv.evaluate(run, truth, [f"{key}(n_items={need})"])
    assert np.isfinite(ok.values).any()
    with pytest.raises(rv.InputError, match=rf"n_items={need - 1} is smaller than what user"):
        rv.evaluate(run, truth, [f"{key}(n_items={need - 1})"])
    rows = [(u, i, s) for u, d in run.items() for i, s in d.items()]
    frame = pd.DataFrame(rows, columns=["user", "item", "score"])
    t_rows = pd.DataFrame([(u, i, r) for u, d in truth.items() for i, r in d.items()],
                          columns=["user", "item", "relevance"])
    with pytest.raises(rv.InputError, match=r"is smaller than what user"):
        rv.evaluate_blocks([frame.iloc[:4], frame.iloc[4:]] if frame.user.iloc[3] !=
                           frame.user.iloc[4] else [frame], t_rows,
                           [f"{key}(n_items={need - 1})"])
