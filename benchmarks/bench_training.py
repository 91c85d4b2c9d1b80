"""Benchmark: evaluation inside a training loop, from torch tensors (needs torch; torchmetrics
for part A's comparison).

(A) ``--users`` users x ``--candidates`` scored candidates each (binary targets, at least one
    positive per user), the six standard metrics: receval's ``rv.Accumulator`` fed batch by
    batch against torchmetrics' retrieval metrics fed the same batches
    (``RetrievalNormalizedDCG(top_k=10)``, ``RetrievalMAP(top_k=100)``, ``RetrievalMRR()``,
    ``RetrievalPrecision(top_k=10)``, ``RetrievalRecall(top_k=100)``,
    ``RetrievalHitRate(top_k=10)``), receval under ``compat="torchmetrics"`` so that both
    compute the same quantities; the means must agree within 1e-6. receval's time is given
    without and with packing the truth (packed once per training run, not per epoch).
(B) Full-sort evaluation: a ``--fs-users`` x ``--fs-items`` score tensor with a boolean mask of
    training items, on ``--device``: ``acc.update_scores`` (mask, top-k on the device, only k
    ids per user to the host, metrics) batch by batch against ``torch.topk`` alone on the same
    batches (no masking, no metrics).

Every timing is the best of ``--repeat`` runs; the device is synchronised around each timing.

    python benchmarks/bench_training.py                              # A and B, CPU
    python benchmarks/bench_training.py --device cuda --part B       # B on a GPU
    python benchmarks/bench_training.py --users 20000 --fs-users 20000 --fs-items 5000  # quick
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import receval as rv

SIX_TM = ["retrievalnormalizeddcg@10", "retrievalmap@100", "retrievalmrr",
          "retrievalprecision@10", "retrievalrecall@100", "retrievalhitrate@10"]


def nothing() -> None:
    """No device to wait for (CPU tensors)."""


def best(fn: Callable[[], object], repeat: int, sync: Callable[[], None]) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        sync()
        t = time.perf_counter()
        out = fn()
        sync()
        times.append(time.perf_counter() - t)
    return min(times), out


def part_a(args, torch) -> None:
    import torchmetrics.retrieval as tr

    rng = np.random.default_rng(args.seed)
    n, c, b = args.users, args.candidates, args.batch
    items = np.empty((n, c), dtype=np.int64)
    for lo in range(0, n, 10_000):  # distinct candidates per user out of --items
        hi = min(n, lo + 10_000)
        items[lo:hi] = np.argsort(rng.random((hi - lo, args.items)), axis=1)[:, :c]
    preds = rng.random((n, c)).astype(np.float32)
    target = rng.random((n, c)) < 0.1
    target[np.arange(n), rng.integers(0, c, n)] = True  # at least one positive per user
    users = np.arange(n, dtype=np.int64)
    u_rows, c_cols = np.nonzero(target)
    truth = {"user": u_rows.astype(np.int64), "item": items[u_rows, c_cols]}
    t_preds, t_target = torch.from_numpy(preds), torch.from_numpy(target)
    t_items, t_users = torch.from_numpy(items), torch.from_numpy(users)

    def receval_epoch(ev):
        acc = rv.Accumulator(ev)
        for lo in range(0, n, b):
            acc.update(t_users[lo:lo + b], t_items[lo:lo + b], t_preds[lo:lo + b])
        return acc.compute()

    t_pack, ev = best(lambda: rv.Evaluator(truth, SIX_TM, compat="torchmetrics"), 1, nothing)
    t_rv, res = best(lambda: receval_epoch(ev), args.repeat, nothing)

    def torchmetrics_epoch():
        ms = [tr.RetrievalNormalizedDCG(top_k=10), tr.RetrievalMAP(top_k=100), tr.RetrievalMRR(),
              tr.RetrievalPrecision(top_k=10), tr.RetrievalRecall(top_k=100),
              tr.RetrievalHitRate(top_k=10)]
        idx = torch.arange(n).repeat_interleave(c).reshape(n, c)
        for lo in range(0, n, b):
            p, t, i = t_preds[lo:lo + b], t_target[lo:lo + b], idx[lo:lo + b]
            for m in ms:
                m.update(p.reshape(-1), t.reshape(-1), indexes=i.reshape(-1))
        return [float(m.compute()) for m in ms]

    t_tm, tm_values = best(torchmetrics_epoch, max(1, args.repeat // 3), nothing)
    diffs = [abs(res[k] - v) for k, v in zip(SIX_TM, tm_values, strict=True)]
    print(f"(A) {n} users x {c} candidates, batches of {b}, six metrics, CPU tensors")
    print(f"    receval Accumulator, per epoch   {t_rv:9.3f} s")
    print(f"    receval, truth packing (once)    {t_pack:9.3f} s")
    print(f"    torchmetrics retrieval           {t_tm:9.3f} s")
    print(f"    ratio torchmetrics / receval     {t_tm / t_rv:9.1f}x per epoch, "
          f"{t_tm / (t_rv + t_pack):.1f}x with the packing")
    print(f"    largest |difference| of the six  {max(diffs):.2e}")
    for key, v, d in zip(SIX_TM, tm_values, diffs, strict=True):
        print(f"      {key:28s} receval {res[key]:.9f}  torchmetrics {v:.9f}  diff {d:.1e}")


def part_b(args, torch) -> None:
    dev = torch.device(args.device)
    n, m, k, b = args.fs_users, args.fs_items, args.k, args.fs_batch
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    scores = torch.rand((n, m), generator=gen, device=dev)
    mask = torch.rand((n, m), generator=gen, device=dev) < args.train_share
    rng = np.random.default_rng(args.seed)
    test = rng.integers(0, m, size=(n, 10))
    truth = {"user": np.repeat(np.arange(n), 10), "item": test.ravel()}
    ev = rv.Evaluator(truth, [f"ndcg@{k}", f"recall@{k}", "mrr"], duplicates="first")
    sync = torch.cuda.synchronize if dev.type == "cuda" else nothing
    users = torch.arange(n, device=dev)

    def topk_only():
        for lo in range(0, n, b):
            torch.topk(scores[lo:lo + b], k, dim=1)

    def receval_full_sort():
        acc = rv.Accumulator(ev)
        for lo in range(0, n, b):
            acc.update_scores(users[lo:lo + b], scores[lo:lo + b], k, exclude=mask[lo:lo + b])
        return acc.compute()

    def receval_in_place():
        acc = rv.Accumulator(ev)
        for lo in range(0, n, b):
            acc.update_scores(users[lo:lo + b], scores[lo:lo + b], k, exclude=mask[lo:lo + b],
                              copy=False)
        return acc.compute()

    import scipy.sparse as sp

    history = sp.csr_matrix(mask.cpu().numpy())  # the training items as RecBole holds them

    def receval_in_place_sparse():
        acc = rv.Accumulator(ev)
        for lo in range(0, n, b):
            acc.update_scores(users[lo:lo + b], scores[lo:lo + b], k,
                              exclude=history[lo:lo + b], copy=False)
        return acc.compute()

    topk_only()
    receval_full_sort()  # warm-up (kernels, allocator)
    t_top, _ = best(topk_only, args.repeat, sync)
    t_rv, res = best(receval_full_sort, args.repeat, sync)
    # last: it writes -inf into the score tensor at the masked items (RecBole's way)
    t_ip, res_ip = best(receval_in_place, args.repeat, sync)
    assert res_ip.summary == res.summary
    t_sp, res_sp = best(receval_in_place_sparse, args.repeat, sync)
    assert res_sp.summary == res.summary
    print(f"(B) full sort: {n} users x {m} items on {dev}, k = {k}, batches of {b}, "
          f"{args.train_share:.0%} of the items masked")
    print(f"    torch.topk alone                 {t_top:9.3f} s")
    print(f"    receval update_scores + compute  {t_rv:9.3f} s")
    print(f"    ratio                            {t_rv / t_top:9.2f}x")
    print(f"    receval, copy=False (in place)   {t_ip:9.3f} s")
    print(f"    ratio                            {t_ip / t_top:9.2f}x")
    print(f"    the same, exclude a scipy.sparse {t_sp:9.3f} s")
    print(f"    ratio                            {t_sp / t_top:9.2f}x")
    print(f"    ({', '.join(f'{key} {v:.5f}' for key, v in res.summary.items())})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["A", "B", "AB"], default="AB")
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--candidates", type=int, default=100)
    ap.add_argument("--items", type=int, default=2_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--fs-users", type=int, default=100_000)
    ap.add_argument("--fs-items", type=int, default=20_000)
    ap.add_argument("--fs-batch", type=int, default=2_000)
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--train-share", type=float, default=0.01)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    import torch

    print(f"receval {rv.__version__}, torch {torch.__version__}, threads "
          f"{torch.get_num_threads()}"
          + (f", {torch.cuda.get_device_name()}" if args.device.startswith("cuda") else ""))
    if "A" in args.part:
        part_a(args, torch)
    if "B" in args.part:
        part_b(args, torch)


if __name__ == "__main__":
    main()
