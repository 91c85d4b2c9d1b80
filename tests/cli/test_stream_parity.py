"""``receval evaluate --stream`` behaves like the in-memory path on the same files: same numbers
(CSV, TSV, Parquet, TREC, JSON Lines; plain or compressed), same BOM handling, same "no rows" error, and an ungrouped file is
refused at its first out-of-order user."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma

import numpy as np
import pandas as pd
import pytest

from receval.cli import main
from receval.errors import InputError
from receval.io.files import iter_blocks

METRICS = ["ndcg@10", "map", "mrr@5", "precision@3", "recall@10"]


def _data(n_users=60, k=12, seed=0):
    rng = np.random.default_rng(seed)
    users = np.repeat([f"u{i:03d}" for i in range(n_users)], k)
    items = np.concatenate([rng.choice(80, k, replace=False) for _ in range(n_users)])
    run = pd.DataFrame({"user": users, "item": [f"d{i}" for i in items],
                        "score": rng.random(len(users)).round(6)})
    t_users = np.repeat([f"u{i:03d}" for i in range(-5, n_users)], 4)
    truth = pd.DataFrame({"user": t_users, "item": [f"d{i}" for i in
                                                    rng.integers(0, 80, len(t_users))],
                          "relevance": rng.integers(0, 3, len(t_users))})
    return run, truth.drop_duplicates(["user", "item"])


def _write(tmp_path, fmt, run, truth):
    if fmt == "trec":
        rp, tp = tmp_path / "run.run", tmp_path / "truth.qrels"
        rp.write_text("".join(f"{u} Q0 {i} {r + 1} {s!r} tag\n" for r, (u, i, s) in
                              enumerate(zip(run["user"], run["item"], run["score"],
                                            strict=True))))
        tp.write_text("".join(f"{u} 0 {i} {r}\n" for u, i, r in
                              zip(truth["user"], truth["item"], truth["relevance"], strict=True)))
        return rp, tp
    rp, tp = tmp_path / f"run.{fmt}", tmp_path / "truth.csv"
    truth.to_csv(tp, index=False)
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
        run.to_parquet(rp, index=False, row_group_size=50)
    elif fmt == "jsonl":
        run.to_json(rp, orient="records", lines=True)
    else:
        run.to_csv(rp, index=False, sep="," if fmt == "csv" else "\t")
    return rp, tp


def _evaluate(capsys, rp, tp, *extra):
    args = ["evaluate", "--run", str(rp), "--truth", str(tp), *sum((["-m", m] for m in METRICS),
                                                                    []), *extra]
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def _rows(text):
    return sorted(tuple(r) for r in csv.reader(io.StringIO(text)))


COMPRESS = {None: None, "gzip": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}


@pytest.mark.parametrize("comp", list(COMPRESS))
@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "trec", "jsonl"])
def test_stream_equals_in_memory(tmp_path, capsys, fmt, comp):
    run, truth = _data()
    rp, tp = _write(tmp_path, fmt, run, truth)
    if comp is not None:  # compressed under the same name: recognised by its magic bytes
        rp.write_bytes(COMPRESS[comp](rp.read_bytes()))
    for extra in (["--format", "csv"], ["--format", "csv", "--per-user"]):
        code_a, whole, err_a = _evaluate(capsys, rp, tp, "--no-stream", *extra)
        code_b, streamed, err_b = _evaluate(capsys, rp, tp, "--stream", "--block-rows", "25",
                                            *extra)
        assert code_a == code_b == 0, (err_a, err_b)
        assert _rows(streamed) == _rows(whole)
        assert len(_rows(whole)) > 1


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_bom_in_csv_header(tmp_path, capsys, stream):
    run, truth = _data(10, 5)
    rp, tp = _write(tmp_path, "csv", run, truth)
    rp.write_bytes(b"\xef\xbb\xbf" + rp.read_bytes())
    code, out, err = _evaluate(capsys, rp, tp, stream, "--format", "csv")
    assert code == 0, err
    plain = tmp_path / "plain.csv"
    run.to_csv(plain, index=False)
    assert _rows(out) == _rows(_evaluate(capsys, plain, tp, "--format", "csv")[1])


@pytest.mark.parametrize("fmt", ["csv", "tsv", "trec"])
@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_run_without_rows_is_an_error(tmp_path, capsys, fmt, stream):
    run, truth = _data(5, 3)
    rp, tp = _write(tmp_path, fmt, run.iloc[:0], truth)
    code, out, err = _evaluate(capsys, rp, tp, stream)
    assert code == 1 and out == ""
    assert "no rows" in err and "Traceback" not in err


@pytest.mark.parametrize("fmt", ["csv", "trec"])
def test_ungrouped_run_refused_at_first_out_of_order_user(tmp_path, capsys, fmt):
    run, truth = _data(30, 4)
    # data rows 1-4 u000, 5-6 u001, 7-10 u002, then u001 again at row 11
    rows = pd.concat([run.iloc[0:4], run.iloc[4:6], run.iloc[8:12], run.iloc[6:8],
                      run.iloc[12:]])
    rp, tp = _write(tmp_path, fmt, rows.reset_index(drop=True), truth)
    code, out, err = _evaluate(capsys, rp, tp, "--stream", "--block-rows", "1000000")
    assert code == 1 and out == ""
    assert "not contiguous" in err and "data row 11" in err, err
    # detected while reading, before any block is evaluated
    with pytest.raises(InputError, match="data row 11"):
        next(iter_blocks(rp, block_rows=10**6))


def test_stream_block_rows_must_be_positive(tmp_path, capsys):
    run, truth = _data(5, 3)
    rp, tp = _write(tmp_path, "csv", run, truth)
    code, _, err = _evaluate(capsys, rp, tp, "--stream", "--block-rows", "0")
    assert code == 2 and "--block-rows" in err and "Traceback" not in err


def test_stream_with_a_truth_of_many_row_groups_equals_in_memory(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    run, truth = _data()
    rp, _ = _write(tmp_path, "trec", run, truth)
    tp = tmp_path / "truth.parquet"
    truth.to_parquet(tp, index=False, row_group_size=7)  # packed from one chunk per column
    for extra in (["--format", "csv"], ["--format", "csv", "--per-user"]):
        _, whole, _ = _evaluate(capsys, rp, tp, "--no-stream", *extra)
        code, streamed, err = _evaluate(capsys, rp, tp, "--stream", "--block-rows", "25",
                                        *extra)
        assert code == 0, err
        assert _rows(streamed) == _rows(whole)


def test_one_chunk_keeps_the_table_and_leaves_other_frames_alone():
    pa = pytest.importorskip("pyarrow")
    from receval.cli.evaluate_cmd import _one_chunk

    batch = pa.record_batch({"user": [1, 2], "item": ["a", "b"], "relevance": [1.0, 2.0]})
    table = pa.Table.from_batches([batch] * 3).replace_schema_metadata({b"k": b"v"})
    out = _one_chunk(table)
    assert [c.num_chunks for c in out.columns] == [1, 1, 1]
    assert out.equals(table) and out.schema.metadata == {b"k": b"v"}
    frame = pd.DataFrame({"user": [1]})
    assert _one_chunk(frame) is frame


def test_stream_blocks_with_a_built_evaluator_equals_evaluate_blocks(tmp_path):
    import receval as rv
    from receval.evaluate import stream_blocks

    run, truth = _data()
    rp, _ = _write(tmp_path, "csv", run, truth)
    want = rv.evaluate_blocks(str(rp), truth, METRICS, block_rows=25)
    got = stream_blocks(rv.Evaluator(truth, METRICS), str(rp), block_rows=25)
    assert got.user_ids.tolist() == want.user_ids.tolist()
    assert np.array_equal(got.values, want.values, equal_nan=True)
    assert got.provenance["streamed"] and got.provenance["block_rows"] == 25
