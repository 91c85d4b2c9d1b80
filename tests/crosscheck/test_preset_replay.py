"""``compat="replay"``: RePlay's own expected values, and its options.

Worked examples from RePlay's tests (sb-ai-lab/RePlay ``tests/metrics/test_metrics.py``, with
the ``recs_data``, ``gt_data`` and ``base_recs_data`` fixtures of ``tests/metrics/conftest.py``),
compared as RePlay compares them (``abs=1e-5``: its expected values are written to 5-6
decimals). The whole check against RePlay itself is ``benchmarks/peers/libs/replay.py``.
"""

from __future__ import annotations

import pandas as pd
import pytest

import receval as rv
from receval.compat import PRESETS, resolve
from receval.errors import MetricError

NAMES = PRESETS["replay"].names
ABS = 1e-5

#: conftest.py recs_data, gt_data, base_recs_data
RECS = [(1, 3, 0.6), (1, 7, 0.5), (1, 10, 0.4), (1, 11, 0.3), (1, 2, 0.2),
        (2, 5, 0.6), (2, 8, 0.5), (2, 11, 0.4), (2, 1, 0.3), (2, 3, 0.2),
        (3, 4, 1.0), (3, 9, 0.5), (3, 2, 0.1)]
GT = [(1, 5), (1, 6), (1, 7), (1, 8), (1, 9), (1, 10), (2, 6), (2, 7), (2, 4), (2, 10),
      (2, 11), (3, 1), (3, 2), (3, 3), (3, 4), (3, 5)]
BASE = [(1, 3, 0.5), (1, 7, 0.5), (1, 10, 0.3), (1, 11, 0.3), (1, 2, 0.7),
        (2, 5, 0.6), (2, 8, 0.6), (2, 11, 0.4), (2, 1, 0.3), (2, 3, 0.3),
        (3, 4, 1.0), (3, 9, 0.5), (3, 2, 0.3)]


def _run(rows: list) -> dict:
    run: dict = {}
    for u, i, s in rows:
        run.setdefault(u, {})[i] = s
    return run


def _frame(rows: list) -> pd.DataFrame:
    return pd.DataFrame([r[:2] for r in rows], columns=["user", "item"])


RUN = _run(RECS)
TRUTH = _run([(u, i, 1) for u, i in GT])


def _values(keys: list[str], **kwargs: object) -> list[float]:
    res = rv.evaluate(RUN, TRUTH, keys, compat="replay", **kwargs)
    return [float(res[k]) for k in keys]


@pytest.mark.parametrize(("name", "answer"), [
    # test_metric
    ("precision", [0.55555, 0.333333, 0.166666]),
    ("hitrate", [1.0, 1.0, 1.0]),
    ("mrr", [0.61111, 0.61111, 0.61111]),
    ("map", [0.35185, 0.21111, 0.198148]),
    ("ndcg", [0.48975, 0.35396, 0.34018]),
    ("rocauc", [0.16666, 0.55555, 0.55555]),
])
def test_metric(name: str, answer: list[float]) -> None:
    got = _values([f"{name}@{k}" for k in (3, 5, 10)])
    assert got == pytest.approx(answer, abs=ABS)


def test_metric_mode_mean_is_the_same() -> None:
    """``mode=Mean()`` (the default) is the mean over users."""
    plain = _values(["ndcg@5"])
    assert _values(["ndcg@5(mode=Mean())"]) == plain
    assert _values(["ndcg@5(mode=mean)"]) == plain


@pytest.mark.parametrize("mode", ["Median()", "PerUser()", "ConfidenceInterval()"])
def test_other_modes_refused_naming_the_value(mode: str) -> None:
    with pytest.raises(MetricError, match="mode="):
        _values([f"ndcg@5(mode={mode})"])


def test_recall() -> None:
    assert _values(["recall@5", "recall@10"]) == pytest.approx([0.31111, 0.31111], abs=ABS)


def test_categoricaldiversity() -> None:
    """test_diversity_metric: the item column read as the category column."""
    cats = {i: [i] for _, i, _ in RECS}
    got = _values(["categoricaldiversity@3", "categoricaldiversity@5"],
                  item_categories=cats)
    assert got == pytest.approx([1.0, 0.866666], abs=ABS)


def test_coverage() -> None:
    """test_coverage_metric: the recommendations as their own train (9 distinct items)."""
    got = _values(["coverage@3", "coverage@5"], train=_frame(RECS), catalog="train",
                  users="run")
    assert got == pytest.approx([0.9, 1.0], abs=ABS)
    assert _values(["coverage@5(allow_caching=False)"], train=_frame(RECS),
                   catalog="train", users="run") == pytest.approx([1.0], abs=ABS)


@pytest.mark.parametrize(("base", "ks", "answer"), [
    (RECS, [5], [0.133333]),
    (BASE, [3, 5], [0.111111111, 0.133333]),
    # test_offline_metrics_unexpectedness_and_diversity
    (BASE, [2, 5, 10, 20], [0.16666, 0.133333, 0.566666, 0.783333]),
])
def test_unexpectedness(base: list, ks: list[int], answer: list[float]) -> None:
    got = _values([f"unexpectedness@{k}" for k in ks], baseline_run=_run(base), users="run")
    assert got == pytest.approx(answer, abs=ABS)


def test_categoricaldiversity_long_cutoffs() -> None:
    """test_offline_metrics_unexpectedness_and_diversity: k beyond the lists divides by k."""
    cats = {i: [i] for _, i, _ in RECS}
    got = _values([f"categoricaldiversity@{k}" for k in (2, 5, 10, 20)], item_categories=cats)
    assert got == pytest.approx([1, 0.86666, 0.43333, 0.21666], abs=ABS)


@pytest.mark.parametrize(("train", "answer"), [(RECS, [0.78969, 0.614294]),
                                               (GT, [0.719586, 0.698418])])
def test_surprisal(train: list, answer: list[float]) -> None:
    got = _values(["surprisal@3", "surprisal@5"], train=_frame(train), users="run")
    assert got == pytest.approx(answer, abs=ABS)


def test_novelty_refused_with_the_reason() -> None:
    with pytest.raises(MetricError, match="divides by k"):
        _values(["novelty@5"], train=_frame(GT))


def test_every_name_resolves_at_every_cutoff() -> None:
    for name, entry in NAMES.items():
        if entry.refused:
            continue
        keys = [f"{name}@{k}" for k in (1, 3, 5, 10)]
        mapped = resolve("replay", keys)[2]
        for key in keys:
            assert mapped[key].startswith(entry.family), key


def test_every_metric_but_coverage_takes_mode() -> None:
    """RePlay's metrics take ``mode=`` (descriptors.py); Coverage takes ``allow_caching``."""
    for name, entry in NAMES.items():
        if entry.refused:
            continue
        options = dict(entry.options)
        assert ("allow_caching" in options) == (name == "coverage"), name
        assert ("mode" in options) == (name != "coverage"), name


def test_topk_option_is_the_cutoff() -> None:
    """RePlay's ``topk`` (one value: MAP(topk=3)) is the key's cutoff."""
    assert _values(["map(topk=3)"]) == pytest.approx([0.35185], abs=ABS)
    with pytest.raises(MetricError, match="two cutoffs"):
        _values(["map@5(topk=3)"])
