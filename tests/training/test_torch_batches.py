"""The accumulator on torch tensors (CPU, and CUDA where there is one): the same bits as the
numpy path, ranking on the tensor's device, and merging across torch.distributed processes."""

from __future__ import annotations

import socket
import subprocess
import sys

import numpy as np
import pytest

import receval as rv

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
METRICS = ["ndcg@5", "recall@5", "map@5", "mrr", "precision@3"]


def _data(n_users: int = 40, n_items: int = 30, seed: int = 0):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 6, size=(n_users, n_items)).astype(np.float32)  # ties
    train = rng.random((n_users, n_items)) < 0.2
    truth = {u: {int(i): int(rng.integers(1, 3)) for i in rng.choice(n_items, 4, replace=False)}
             for u in range(n_users)}
    return scores, train, truth


@pytest.mark.parametrize("device", DEVICES)
def test_tensor_ids_give_the_numpy_bits(device):
    scores, train, truth = _data()
    items = np.argsort(-scores, axis=1, kind="stable")[:, :5]
    a = rv.Accumulator(truth, METRICS)
    a.update(np.arange(40), items)
    b = rv.Accumulator(truth, METRICS)
    b.update(torch.arange(40, device=device), torch.from_numpy(items).to(device))
    ra, rb = a.compute(), b.compute()
    assert ra.summary == rb.summary
    np.testing.assert_array_equal(ra.values, rb.values)


@pytest.mark.parametrize("device", DEVICES)
def test_score_tensors_are_ranked_on_their_device(device):
    scores, train, truth = _data()
    a = rv.Accumulator(truth, METRICS)
    for lo in range(0, 40, 16):
        a.update_scores(np.arange(lo, min(lo + 16, 40)), scores[lo:lo + 16], 5,
                        exclude=train[lo:lo + 16])
    b = rv.Accumulator(truth, METRICS)
    t_scores = torch.from_numpy(scores).to(device)
    t_mask = torch.from_numpy(train).to(device)
    for lo in range(0, 40, 16):
        b.update_scores(torch.arange(lo, min(lo + 16, 40)), t_scores[lo:lo + 16], 5,
                        exclude=t_mask[lo:lo + 16])
    ra, rb = a.compute(), b.compute()
    assert ra.summary == rb.summary
    np.testing.assert_array_equal(ra.values, rb.values)


WORKER = """
import os, sys
import numpy as np
import torch.distributed as dist
import receval as rv

rank, world, port, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
dist.init_process_group("gloo", rank=rank, world_size=world)
rng = np.random.default_rng(0)
scores = np.load(os.path.join(out, "scores.npy"))
train = np.load(os.path.join(out, "train.npy"))
truth = {"user": np.repeat(np.arange(len(scores)), 2), "item": np.load(os.path.join(out, "test.npy")).ravel()}
acc = rv.Accumulator(truth, METRICS)
rows = np.arange(rank, len(scores), world)
acc.update_scores(rows, scores[rows], 5, exclude=train[rows])
res = rv.training.all_gather(acc).compute()
np.save(os.path.join(out, f"rank{rank}.npy"), np.array([res[m] for m in METRICS]))
dist.destroy_process_group()
"""


def test_all_gather_merges_every_process(tmp_path):
    """Two processes (gloo), each evaluating every other user: after all_gather both hold the
    result of the whole evaluation."""
    scores, train, _ = _data()
    test = np.stack([np.arange(40) % 30, (np.arange(40) + 7) % 30], axis=1)  # distinct pairs
    np.save(tmp_path / "scores.npy", scores)
    np.save(tmp_path / "train.npy", train)
    np.save(tmp_path / "test.npy", test)
    script = tmp_path / "worker.py"
    script.write_text(WORKER.replace("METRICS", repr(METRICS)))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    procs = [subprocess.Popen([sys.executable, str(script), str(r), "2", port, str(tmp_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for r in range(2)]
    outs = [p.communicate(timeout=120)[0].decode() for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    truth = {"user": np.repeat(np.arange(40), 2), "item": test.ravel()}
    whole = rv.Accumulator(truth, METRICS)
    whole.update_scores(np.arange(40), scores, 5, exclude=train)
    expect = np.array([whole.compute()[m] for m in METRICS])
    for rank in range(2):
        np.testing.assert_array_equal(np.load(tmp_path / f"rank{rank}.npy"), expect)


def test_all_gather_needs_a_process_group():
    acc = rv.Accumulator({0: {1: 1}}, ["ndcg@2"])
    with pytest.raises(RuntimeError, match="init_process_group"):
        rv.training.all_gather(acc)


def test_pair_rows_reproduce_torchmetrics():
    """torchmetrics' own retrieval classes on the same (preds, target, indexes) batches."""
    tr = pytest.importorskip("torchmetrics.retrieval")
    gen = torch.Generator().manual_seed(3)
    q = torch.arange(50).repeat_interleave(8)
    p = torch.rand(len(q), generator=gen)  # distinct scores
    t = torch.rand(len(q), generator=gen) < 0.3
    t[torch.arange(0, len(q), 8)] = True  # a relevant candidate in every query
    ours = rv.training.PairAccumulator(
        ["retrievalmap@5", "retrievalmrr", "retrievalnormalizeddcg@3", "retrievalrecall@4"],
        compat="torchmetrics")
    theirs = [tr.RetrievalMAP(top_k=5), tr.RetrievalMRR(), tr.RetrievalNormalizedDCG(top_k=3),
              tr.RetrievalRecall(top_k=4)]
    for lo in range(0, len(q), 96):
        ours.update(p[lo:lo + 96], t[lo:lo + 96], q[lo:lo + 96])
        for m in theirs:
            m.update(p[lo:lo + 96], t[lo:lo + 96], indexes=q[lo:lo + 96])
    res = ours.compute()
    for key, m in zip(["retrievalmap@5", "retrievalmrr", "retrievalnormalizeddcg@3",
                       "retrievalrecall@4"], theirs, strict=True):
        assert res[key] == pytest.approx(float(m.compute()), abs=1e-6), key
