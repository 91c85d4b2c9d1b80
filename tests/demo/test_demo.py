from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from receval.baselines import EASE, ItemKNN, MostPopular, RandomRecommender, interaction_matrix
from receval.datasets import (
    example_path,
    load_example,
    synthetic_interactions,
    temporal_split,
)
from receval.errors import InputError


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    from receval.demo import run_demo

    html = tmp_path_factory.mktemp("demo") / "report.html"
    return run_demo(n_users=700, n_items=400, n_resamples=300, html=str(html))


def test_demo_ordering(demo):
    cmp = demo.comparison
    for m in ["ndcg@10", "recall@10", "map@10", "hit_rate@10"]:
        s = {name: cmp.summary[name][m] for name in cmp.systems}
        assert s["random"] < 0.5 * s["popular"], m
        assert s["popular"] < s["item_knn"], m
        assert "random" in cmp.beats(m, "popular")
    if "coverage@10" in cmp.metrics:  # beyond-accuracy metrics available
        cov = {name: cmp.summary[name]["coverage@10"] for name in cmp.systems}
        nov = {name: cmp.summary[name]["novelty@10"] for name in cmp.systems}
        assert cov["random"] > cov["item_knn"] > cov["popular"]
        assert nov["random"] > nov["item_knn"] > nov["popular"]


def test_demo_report_written(demo):
    pytest.importorskip("matplotlib", reason="the report's plots need the plot extra")
    html = Path(demo.html_path).read_text(encoding="utf-8")
    assert 'id="metrics-table"' in html and 'data-kind="at-k"' in html
    assert 'data-kind="distribution"' in html
    if "coverage@10" in demo.comparison.metrics:
        assert 'data-kind="long-tail"' in html


def test_demo_no_leakage(demo):
    train = set(map(tuple, demo.train[["user", "item"]].to_numpy()))
    for run in demo.runs.values():
        assert not any((u, i) in train for u, i in run[["user", "item"]].to_numpy())
    assert demo.train["timestamp"].max() <= demo.test["timestamp"].min()


def test_synthetic_seeded_and_shaped():
    a = synthetic_interactions(300, 200, seed=3)
    b = synthetic_interactions(300, 200, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(synthetic_interactions(300, 200, seed=4))
    assert list(a.columns) == ["user", "item", "timestamp", "rating"]
    assert not a.duplicated(["user", "item"]).any()
    assert a["rating"].between(1, 5).all() and a["rating"].nunique() >= 4
    pop = a.groupby("item").size().sort_values(ascending=False).to_numpy()
    assert pop[:20].sum() > 0.15 * pop.sum()  # a popular head
    act = a.groupby("user").size()
    assert act.max() > 3 * act.median()  # varied activity


def test_temporal_split():
    log = synthetic_interactions(300, 200, seed=1)
    s = temporal_split(log, test_share=0.25)
    assert s.train["timestamp"].max() <= s.cutoff < s.test["timestamp"].min()
    assert s.test["user"].isin(s.train["user"]).all()
    assert s.test["item"].isin(s.train["item"]).all()
    with pytest.raises(InputError, match="test_share"):
        temporal_split(log, test_share=1.5)


def test_baselines_by_hand():
    # users x items: u0 {0, 1}, u1 {1, 2}, u2 {0}
    X = sp.csr_matrix(np.array([[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 0, 0]], dtype=float))
    pop = MostPopular().fit(X)
    assert pop.popularity.tolist() == [2, 2, 1, 0]
    assert pop.recommend([2], 2).items.tolist() == [[1, 2]]  # seen item 0 removed
    knn = ItemKNN(neighbors=3).fit(X)
    S = knn.similarity.toarray()
    assert S[0, 1] == pytest.approx(1 / (np.sqrt(2) * np.sqrt(2)))
    assert S[1, 2] == pytest.approx(1 / (np.sqrt(2) * 1))
    assert S[0, 0] == 0
    # u2 saw item 0: score(i) = sim(0, i) -> item 1 (1/2) before item 2 (0)
    assert knn.recommend([2], 1).items.tolist() == [[1]]
    ease = EASE(lam=1.0).fit(X)
    G = X.T @ X + np.eye(4)
    P = np.linalg.inv(np.asarray(G))
    B = np.eye(4) - P / np.diag(P)
    np.testing.assert_allclose(ease.B, B - np.diag(np.diag(B)), atol=1e-12)
    r1 = RandomRecommender(seed=5).fit(X)
    np.testing.assert_array_equal(r1.score(np.array([2, 0]))[0], r1.score(np.array([2]))[0])
    with pytest.raises(InputError, match="sparse"):
        MostPopular().fit(np.ones((2, 2)))


@pytest.mark.parametrize("seed", range(5))
def test_item_knn_neighbours_tied_at_the_cut_are_the_lowest_items(seed):
    """The kept neighbours are the top ones by (similarity descending, item index ascending),
    checked against a sort: the model does not depend on how numpy partitions ties."""
    rng = np.random.default_rng(seed)
    X = sp.csr_matrix((rng.random((30, 12)) < 0.3).astype(np.float64))
    k = int(rng.integers(1, 11))
    knn = ItemKNN(neighbors=k).fit(X)
    full = ItemKNN(neighbors=100).fit(X).similarity.toarray()
    want = np.zeros_like(full)
    for j in range(full.shape[1]):
        order = sorted(range(full.shape[0]), key=lambda i: (-full[i, j], i))[:k]
        want[order, j] = full[order, j]
    np.testing.assert_array_equal(knn.similarity.toarray(), want)


def test_interaction_matrix():
    rows = pd.DataFrame({"user": ["a", "b", "a", "a"], "item": [3, 3, 5, 3]})
    X, u, i = interaction_matrix(rows)
    assert list(u) == ["a", "b"] and list(i) == [3, 5]
    assert X.toarray().tolist() == [[1, 1], [1, 0]]


def test_examples_ship():
    assert example_path("truth").exists()
    run, truth = load_example("run"), load_example("truth")
    assert {"user", "item", "score"} <= set(run.columns)
    assert {"user", "item", "relevance"} <= set(truth.columns)


def _parser(module):
    parser = argparse.ArgumentParser(prog="receval")
    module.register(parser.add_subparsers(dest="command"))
    return parser


def test_cli_demo(tmp_path, capsys):
    from receval.cli import demo_cmd

    args = _parser(demo_cmd).parse_args(["demo", "--users", "300", "--items", "200",
                                         "--resamples", "200", "--no-html",
                                         "--format", "plain"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "(a) random" in text and "ndcg@10" in text and "finished in" in text
    assert not (tmp_path / "receval-report.html").exists()


def test_cli_compare(tmp_path, capsys):
    from receval.cli import compare_cmd

    parser = _parser(compare_cmd)
    args = parser.parse_args(["compare", str(example_path("run")), str(example_path("run_b")),
                              "--name", "knn", "--name", "pop", "--truth",
                              str(example_path("truth")), "-m", "ndcg@10,recall@10",
                              "--format", "csv", "--test", "permutation", "--resamples", "500"])
    assert args.func(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("ndcg@10,knn,pop,")
    out = tmp_path / "c.html"
    args = parser.parse_args(["compare", str(example_path("run")), str(example_path("run_b")),
                              "--truth", str(example_path("truth")), "-m", "ndcg@10",
                              "--format", "html", "-o", str(out)])
    assert args.func(args) == 0 and "metrics-table" in out.read_text(encoding="utf-8")
    args = parser.parse_args(["compare", str(example_path("run")), "--truth",
                              str(example_path("truth")), "-m", "ndcg@10"])
    with pytest.raises(InputError, match="at least two runs"):
        args.func(args)
