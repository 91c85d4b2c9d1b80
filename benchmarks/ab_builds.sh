#!/usr/bin/env bash
# Alternate two builds of receval in one sitting (a noisy, shared machine is compared fairly
# only within one run): each round times the OLD tree, then the NEW tree, with
# bench_core.py on the same cached data and the same Python environment.
#
#   bash benchmarks/ab_builds.sh OLD_TREE NEW_TREE USERS "IDS" [ROUNDS] [PYTHON]
#   e.g. bash benchmarks/ab_builds.sh /tmp/old . 1000000 "int str" 3 .venv/bin/python
#
# Each tree must hold built kernels in place (src/receval/kernels/*.so: `pip install -e .`,
# or `python setup.py build_ext --inplace` in a checkout of the older commit); the tree's
# src/ is put first on PYTHONPATH. Rows: side, round, then bench_core's result row.
set -euo pipefail
OLD=$(cd "$1" && pwd); NEW=$(cd "$2" && pwd); USERS=$3; IDS=$4; ROUNDS=${5:-3}
PY=${6:-python3}
CACHE=$(cd "$(dirname "$0")" && pwd)/.cache
for r in $(seq "$ROUNDS"); do
  for side in old new; do
    tree=$OLD; [ "$side" = new ] && tree=$NEW
    (cd "$tree" && PYTHONPATH="$tree/src" "$PY" benchmarks/bench_core.py --cache-dir "$CACHE" \
       --users "$USERS" --ids $IDS --tools receval --repeat 5 2>&1 \
       | grep -E "^ +[0-9]+ +[0-9]+ +(int|str|object) +receval " | sed "s/^/$side r$r /")
  done
done
