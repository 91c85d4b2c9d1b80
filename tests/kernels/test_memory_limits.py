"""The compiled kernels under an address-space limit: memory exhaustion is a ``MemoryError``.

Each case runs in a fresh interpreter that builds its inputs, then evaluates them under an
address-space limit (``RLIMIT_AS``, as ``ulimit -v`` sets it) raised step by step above what the
process already holds, until the evaluation succeeds. At every step the child must either
succeed or catch a ``MemoryError``; a crash inside compiled code (an allocation used without a
check) kills it with a signal, which the parent sees as a negative return code. Where the
kernel's own working memory is the largest allocation of the step, the error is the kernel's
(its message names what was being allocated), so the steps are sized to land there.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

resource = pytest.importorskip("resource", reason="no resource module (not a POSIX system)")

if not sys.platform.startswith("linux"):
    pytest.skip("RLIMIT_AS is enforced and /proc/self/status read on Linux only",
                allow_module_level=True)

CHILD = textwrap.dedent("""
    import json, resource, sys
    import numpy as np, pandas as pd
    import receval as rv
    from receval.kernels import group_truth, nonfinite, pack_lists

    case, n, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) << 20
    rng = np.random.default_rng(0)

    def table(n_users, per_user, kind):
        users = np.repeat(np.arange(n_users, dtype=np.int64), per_user)
        items = np.tile(np.arange(per_user, dtype=np.int64), n_users)
        if kind == "str":
            items = np.array([f"i{i}" for i in range(per_user)], dtype=object)[
                np.tile(np.arange(per_user), n_users)]
        return users, items

    if case == "one_long_list":          # join_lists, one user (the reported crash)
        u, i = table(1, n, "int")
        run = pd.DataFrame({"user": u, "item": i, "score": rng.random(n)})
        truth = pd.DataFrame({"user": [0, 0], "item": i[:2]})
    elif case == "str_lists":            # join_lists on str ids, in parallel over users
        u, i = table(4, n // 4, "str")
        run = pd.DataFrame({"user": u, "item": i, "score": rng.random(len(u))})
        truth = pd.DataFrame({"user": u[::97], "item": i[::97]})
    elif case == "packers":  # the code packers, called as the evaluator calls them on codes
        u, i = table(3, n // 3, "int")  # (its factorization is pandas', outside these kernels)
        u, i = u.astype(np.intc), i.astype(np.intc)
        users3, none = np.arange(3, dtype=np.int64), np.zeros(0, dtype=np.int64)
        keys, ones = np.arange(n // 3, dtype=np.int64), np.ones(len(u))

        def evaluate_codes():
            pack_lists(u, users3, 3, rng.random(len(u)), i, keys, -keys - 1,
                       np.zeros(4, dtype=np.int64), none, np.zeros(0), 0, 1, 0, 0)
            group_truth(u, 3, i, ones, 1)
    elif case == "long_truth":           # group_truth_raw, one user with a long truth
        u, i = table(1, n, "int")
        run = pd.DataFrame({"user": [0, 0], "item": i[:2], "score": [1.0, 0.5]})
        truth = pd.DataFrame({"user": u, "item": i, "rel": rng.integers(1, 4, n)})
    else:                                # many users: column_states over a tall table
        u, i = table(n // 2, 2, "int")
        run = pd.DataFrame({"user": u, "item": i, "score": rng.random(len(u))})
        truth = pd.DataFrame({"user": u, "item": i})
    metrics = ["ndcg@10", "recall@10", "map"]
    if case != "packers":
        def evaluate_codes():
            rv.evaluate(run, truth, metrics)
        rv.evaluate(run.head(100), truth.head(100), metrics)  # modules loaded before the limit
    nonfinite(np.zeros(1 << 16))  # OpenMP's thread pool started before the limit

    def held():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) << 10 for line in f if line.startswith("VmSize"))

    base, hard = held(), resource.getrlimit(resource.RLIMIT_AS)[1]
    errors = []
    for k in range(1, 200):
        limit = base + k * step
        if hard != resource.RLIM_INFINITY and limit > hard:
            print(json.dumps({"skip": f"the hard address-space limit ({hard} bytes) is too low"}))
            sys.exit(0)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        try:
            evaluate_codes()
        except MemoryError as e:
            errors.append(str(e))
            continue
        print(json.dumps({"errors": errors, "done": True}))
        break
    else:
        print(json.dumps({"errors": errors, "done": False}))
""")

# (case, rows, MiB per step): a step well below the kernel's working memory for these rows
CASES = [
    ("one_long_list", 1_000_000, 24, "joining a list of 1,000,000 run rows"),
    ("str_lists", 400_000, 8, "joining a list of 100,000 run rows"),
    ("packers", 1_200_000, 4, "packing a list of 400,000 rows"),
    ("long_truth", 1_000_000, 16, "grouping a truth list of 1,000,000 rows"),
    ("many_users", 400_000, 8, None),
]


@pytest.mark.parametrize(("case", "n", "step", "kernel_message"), CASES,
                         ids=[c[0] for c in CASES])
def test_kernels_raise_memory_error_under_an_address_space_limit(
        case: str, n: int, step: int, kernel_message: str | None) -> None:
    proc = subprocess.run([sys.executable, "-c", CHILD, case, str(n), str(step)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode >= 0, f"killed by signal {-proc.returncode}:\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if "skip" in out:
        pytest.skip(out["skip"])
    assert out["done"], "never succeeded: the limits tried are too low"
    assert out["errors"], "no limit was low enough to fail"
    assert all(e for e in out["errors"])
    if kernel_message is not None:
        assert any(e.startswith(f"out of memory: {kernel_message}") for e in out["errors"]), \
            out["errors"]
