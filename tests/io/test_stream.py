"""Block-wise evaluation of large grouped files equals the in-memory evaluation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import receval as rv
from receval import evaluate_blocks
from receval.errors import InputError
from receval.io.files import iter_blocks

pa = pytest.importorskip("pyarrow", reason="streaming Parquet needs the arrow extra")
pq = pytest.importorskip("pyarrow.parquet")


def _data(n_users=300, k=20, seed=0):
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), k)
    items = np.concatenate([rng.choice(200, k, replace=False) for _ in range(n_users)])
    run = pd.DataFrame({"user": users, "item": items, "score": rng.random(len(users))})
    t_users = np.repeat(np.arange(-20, n_users), 5)  # users -20..-1 have no list
    t_items = rng.integers(0, 200, len(t_users))
    truth = pd.DataFrame({"user": t_users, "item": t_items,
                          "relevance": rng.integers(0, 3, len(t_users)).astype(float)})
    truth = truth.drop_duplicates(["user", "item"])
    return run, truth


METRICS = ["ndcg@10", "map", "mrr@5", "hit_rate@10(level=recommended)",
           "hit_rate@5(level=truth)", "first_hit_rank", "precision@3"]


@pytest.mark.parametrize("fmt", ["parquet", "csv", "tsv"])
@pytest.mark.parametrize("users", ["truth", "intersection", "union", "run"])
def test_blocks_equal_whole(tmp_path, fmt, users):
    run, truth = _data()
    path = tmp_path / f"run.{fmt}"
    if fmt == "parquet":
        run.to_parquet(path, index=False, row_group_size=700)
    else:
        run.to_csv(path, index=False, sep="," if fmt == "csv" else "\t")
    ref = rv.evaluate(run, truth, METRICS, users=users)
    done = []
    got = evaluate_blocks(path, truth, METRICS, block_rows=1000, users=users,
                          progress=done.append)
    assert done[-1] == len(run) and len(done) > 3
    a = ref.per_user.sort_index()
    b = got.per_user.sort_index()
    assert list(a.index) == list(b.index)
    np.testing.assert_allclose(b.to_numpy(), a.to_numpy(), rtol=1e-12, equal_nan=True)
    for r, g in zip(ref.stats, got.stats, strict=True):
        assert g["metric"] == r["metric"]
        assert g["n"] == r["n"] and g["skipped"] == r["skipped"], r["metric"]
        assert g["mean"] == pytest.approx(r["mean"], rel=1e-12, nan_ok=True), r["metric"]
        assert g["std"] == pytest.approx(r["std"], rel=1e-9, nan_ok=True)
    assert got.counts["evaluated"] == ref.counts["evaluated"]


def test_blocks_hold_whole_users(tmp_path):
    run, _ = _data(50, 7)
    path = tmp_path / "r.parquet"
    pq.write_table(pa.Table.from_pandas(run, preserve_index=False), path, row_group_size=100)
    blocks = list(iter_blocks(path, block_rows=60))
    seen = [set(b.column("user").to_pylist()) for b in blocks]
    for i in range(len(seen)):
        for j in range(i + 1, len(seen)):
            assert not seen[i] & seen[j]
    assert sum(b.num_rows for b in blocks) == len(run)


def test_ungrouped_file_is_refused(tmp_path):
    run, truth = _data(40, 5)
    path = tmp_path / "shuffled.csv"
    run.sample(frac=1.0, random_state=1).to_csv(path, index=False)
    with pytest.raises(InputError, match="not contiguous"):
        evaluate_blocks(path, truth, ["ndcg@5"], block_rows=30)


@pytest.mark.parametrize("block_rows", [1, 7, 1000])
def test_stream_reads_jsonl_files_as_in_memory(tmp_path, block_rows):
    run, truth = _data(n_users=40, k=5)
    p = tmp_path / "r.jsonl"
    run.to_json(p, orient="records", lines=True)
    metrics = ["ndcg@5", "mrr", "recall@3"]
    streamed = evaluate_blocks(p, truth, metrics, block_rows=block_rows)
    whole = rv.evaluate(rv.read_run(p), truth, metrics)
    assert streamed.summary == whole.summary


def test_stream_reads_trec_runs(tmp_path):
    p = tmp_path / "r.run"
    p.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n2 Q0 a 1 2.0 t\n")
    truth = {"1": {"b": 1}, "2": {"a": 1}}
    got = evaluate_blocks(p, truth, ["mrr"], block_rows=1)
    assert got.summary["mrr"] == (1 / 2 + 1) / 2


@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("block_rows", [2, 3, 4, 100])
def test_user_coming_back_is_refused_at_its_row(tmp_path, ids, block_rows):
    users = [1, 1, 2, 2, 3, 3, 1, 1]
    col = users if ids == "int" else [f"u{u}" for u in users]
    path = tmp_path / "r.parquet"
    pq.write_table(pa.table({"user": col, "item": list(range(8)), "score": [1.0] * 8}), path,
                   row_group_size=2)
    with pytest.raises(InputError, match=r"not contiguous: it comes back at data row 7"):
        list(iter_blocks(path, block_rows=block_rows))
    ok = tmp_path / "ok.parquet"
    pq.write_table(pa.table({"user": col[:6], "item": list(range(6)), "score": [1.0] * 6}), ok,
                   row_group_size=2)
    blocks = list(iter_blocks(ok, block_rows=block_rows))
    assert [u for b in blocks for u in b.column("user").to_pylist()] == col[:6]
