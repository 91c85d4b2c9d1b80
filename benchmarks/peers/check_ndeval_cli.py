"""``receval trec --ndeval`` against the compiled ndeval 4.5: the whole CSV, byte for byte.

ndeval's C source ships in pyndeval's source distribution (``src/ndeval.c``); build it with::

    pip download --no-deps --no-binary :all: pyndeval==0.0.8 -d /tmp/pynd-src
    tar xzf /tmp/pynd-src/pyndeval-0.0.8.tar.gz -C /tmp/pynd-src
    gcc -O2 -o /tmp/ndeval /tmp/pynd-src/pyndeval-0.0.8/src/ndeval.c -lm
    NDEVAL=/tmp/ndeval python benchmarks/peers/check_ndeval_cli.py

Seeded subtopic qrels (graded 0..2, one-subtopic topics, a topic with no relevant document)
and runs (tied scores, ranks that disagree with the scores, a run topic without judgments, a
judged topic without a run), under every option ndeval takes: the default (rank order),
``-traditional``, ``-c``, ``-M``, ``-alpha`` / ``-beta``. ``PASS``: identical output. The exit
status is 1 on any FAIL.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

OPTIONS = ([], ["-traditional"], ["-c"], ["-M", "5"], ["-alpha", "0.3", "-beta", "0.8"],
           ["-traditional", "-c", "-M", "12", "-alpha", "0.9"])


def _ours(options: list[str]) -> list[str]:
    """The receval command line for ndeval's options."""
    out, i = [], 0
    while i < len(options):
        o = options[i]
        if o in ("-alpha", "-beta"):
            out += [f"-{o}", options[i + 1]]
            i += 2
            continue
        if o == "-traditional":
            out.append("--traditional")
        else:
            out.append(o)
        i += 1
    return out


def _files(seed: int, folder: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(1, 41):
        n_sub = 1 if t % 5 == 0 else int(rng.integers(2, 7))
        for d in range(60):
            for s in range(1, n_sub + 1):
                if rng.random() < 0.15:
                    grade = 0 if t == 13 else int(rng.integers(0, 3))
                    qrels.append(f"{t} {s} doc-{d:03d} {grade}")
        if t == 37:
            continue  # judged, not retrieved
        docs = rng.choice(80, size=int(rng.integers(1, 40)), replace=False)
        ranks = rng.permutation(len(docs)) + 1  # ranks disagree with the scores
        for d, r in zip(docs, ranks, strict=True):
            run.append(f"{t} Q0 doc-{d:03d} {r} {float(rng.integers(0, 6)) / 4} run{seed}")
    run.append(f"99 Q0 doc-001 1 1.0 run{seed}")  # retrieved, not judged
    q, r = folder / f"qrels{seed}.txt", folder / f"run{seed}.txt"
    q.write_text("\n".join(qrels) + "\n")
    r.write_text("\n".join(run) + "\n")
    return q, r


def main() -> int:
    binary = os.environ.get("NDEVAL")
    if not binary or not Path(binary).is_file():
        print("set NDEVAL to the compiled ndeval (see this file's docstring)")
        return 2
    version = subprocess.run([binary, "-version"], capture_output=True, text=True).stdout
    print(f"ndeval: {version.strip()}")
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in (1, 2, 3):
            qrels, run = _files(seed, Path(tmp))
            for options in OPTIONS:
                want = subprocess.run([binary, *options, str(qrels), str(run)],
                                      capture_output=True, text=True, check=True).stdout
                got = subprocess.run(
                    [sys.executable, "-m", "receval", "trec", "--ndeval", *_ours(options),
                     str(qrels), str(run)], capture_output=True, text=True, check=True).stdout
                same = got == want
                fails += not same
                lines = want.count("\n")
                print(f"{'PASS' if same else 'FAIL'}  seed {seed}  ndeval "
                      f"{' '.join(options) or '(defaults)':40s} {lines} lines")
    print(f"SUMMARY  {3 * len(OPTIONS) - fails} pass, {fails} fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
