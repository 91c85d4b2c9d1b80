"""EPC and EFD (Vargas & Castells 2011) against Elliot's own metric classes, per user.

Elliot is not on PyPI; its classes load from a source tree (``ELLIOT_SRC``, default
/tmp/elliot-src, a checkout of sisinflab/elliot), as ``libs/elliot.py`` does. Elliot ships EPC,
EFD (binary relevance, logarithmic rank discount) and ExtendedEPC / ExtendedEFD (``relevance:
binary | discounted``); it has no EPD or EILD, which receval checks against a formula oracle
(tests/beyond/test_expected_novelty.py). Each class gets Elliot's own inputs as its Evaluator
builds them: ``recommendations`` {user: [(item, score), ...]} for the users with test rows,
``eval_objects`` with ``relevance`` (Relevance(test, threshold)), ``cutoff`` and ``data.train_dict``
{user: {item: rating}}.

The data: seeded random training rows, run items absent from training (Elliot's default
novelties: 1 for EPC, the largest training value for EFD), graded relevance 0..3 with users whose
judged items are all below the threshold (Elliot leaves them out; receval marks them skipped),
lists of 1..15 items against cutoffs 1, 3, 5, 10 and thresholds 1, 2. Scores are distinct, so
both sides rank the same way.

    python benchmarks/peers/check_rankys_novelty.py > benchmarks/peers/check_rankys_novelty.out

One line per (metric, cutoff, threshold): users compared, the largest per-user difference and
the difference of the means; the exit status is 1 when a difference exceeds 1e-12 or the sets of
users differ.
"""

from __future__ import annotations

import math
import os
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd

import receval as rv
import receval.beyond.expected  # noqa: F401 - registers epc / efd

TOL = 1e-12
SRC = os.environ.get("ELLIOT_SRC", "/tmp/elliot-src")


def make_data(seed: int = 36):
    rng = np.random.default_rng(seed)
    n_users, n_items = 80, 60
    train = {}
    for u in range(n_users + 20):  # 20 training users never evaluated
        items = rng.choice(n_items - 10, int(rng.integers(1, 12)), replace=False)  # 10 unseen
        train[u] = {int(i): 1.0 for i in items}
    run, truth = {}, {}
    for u in range(n_users):
        items = rng.choice(n_items, int(rng.integers(1, 16)), replace=False)
        scores = rng.permutation(len(items)) + rng.random()  # distinct
        run[u] = {int(i): float(s) for i, s in zip(items, scores, strict=True)}
        judged = rng.choice(n_items, int(rng.integers(1, 8)), replace=False)
        top = 1 if u % 9 == 0 else 4  # every ninth user: relevance 0 only
        truth[u] = {int(i): int(rng.integers(0, top)) for i in judged}
    return train, run, truth


def main() -> int:
    sys.path.insert(0, SRC)
    import elliot.evaluation.metrics as metrics
    import elliot.evaluation.relevance.relevance as relevance

    train, run, truth = make_data()
    train_df = pd.DataFrame([(u, i) for u, h in train.items() for i in h], columns=["user", "item"])
    truth_df = pd.DataFrame([(u, i, r) for u, d in truth.items() for i, r in d.items()],
                            columns=["user", "item", "relevance"])
    recs = {u: sorted(d.items(), key=lambda x: -x[1]) for u, d in run.items() if truth.get(u)}
    print(f"Elliot {metrics.__version__} from {SRC}; receval {rv.__version__}")
    print(f"{'receval key':<44} {'Elliot class':<28} {'users':>5} {'max |diff|':>11} "
          f"{'mean diff':>10}  status")
    bad = 0
    for t in (1, 2):
        rel = relevance.Relevance(truth, t)
        for k in (1, 3, 5, 10):
            objs = SimpleNamespace(relevance=rel, cutoff=k, num_items=60,
                                   data=SimpleNamespace(train_dict=train))
            cases = [
                ("epc", "EPC", lambda o: metrics.EPC(recs, None, None, o)),
                ("efd", "EFD", lambda o: metrics.EFD(recs, None, None, o)),
                ("epc", "ExtendedEPC(binary)",
                 lambda o: metrics.ExtendedEPC(recs, None, None, o, {"relevance": "binary"})),
                ("efd", "ExtendedEFD(binary)",
                 lambda o: metrics.ExtendedEFD(recs, None, None, o, {"relevance": "binary"})),
                ("epc(relevance=graded)", "ExtendedEPC(discounted)",
                 lambda o: metrics.ExtendedEPC(recs, None, None, o,
                                               {"relevance": "discounted"})),
                ("efd(relevance=graded)", "ExtendedEFD(discounted)",
                 lambda o: metrics.ExtendedEFD(recs, None, None, o,
                                               {"relevance": "discounted"})),
            ]
            for name, label, make in cases:
                base, _, params = name.partition("(")
                params = params.rstrip(")")
                extra = ",".join(p for p in (params, f"rel={t}" if t != 1 else "") if p)
                key = f"{base}@{k}" + (f"({extra})" if extra else "")
                theirs = make(objs).eval_user_metric()
                res = rv.evaluate(run, truth_df, [key], train=train_df)
                ours = dict(zip(res.user_ids.tolist(), res.user_values(key).tolist(),
                                strict=True))
                ours = {u: v for u, v in ours.items() if not math.isnan(v)}
                same_users = set(ours) == set(theirs)
                diff = max((abs(ours[u] - theirs[u]) for u in theirs if u in ours), default=0.0)
                mean_diff = abs(np.mean(list(ours.values())) - np.mean(list(theirs.values())))
                ok = same_users and diff <= TOL and mean_diff <= TOL
                bad += not ok
                status = "PASS" if ok else ("FAIL (users differ)" if not same_users else "FAIL")
                print(f"{key:<44} {label:<28} {len(theirs):>5} {diff:>11.3g} "
                      f"{mean_diff:>10.3g}  {status}")
    print(f"{'all PASS' if not bad else f'{bad} FAIL'} (tolerance {TOL:g})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
