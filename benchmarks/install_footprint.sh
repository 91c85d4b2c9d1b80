#!/usr/bin/env bash
# Disk footprint of a fresh install of receval, alone and with each extra: a new virtual
# environment per case; size of site-packages minus that of an empty environment (pip only).
#
#   bash benchmarks/install_footprint.sh WHEEL_OR_SPEC [EXTRA ...]
#   bash benchmarks/install_footprint.sh dist/receval-0.1.0-*.whl arrow polars plot rich all
set -euo pipefail
SPEC=$1; shift
WORK=$(mktemp -d "${TMPDIR:-/tmp}/receval-footprint.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
size() { du -sk "$1"/lib/python3*/site-packages | cut -f1; }
python3 -m venv "$WORK/empty"
EMPTY=$(size "$WORK/empty")
printf '%-10s %10s %9s  %s\n' install "MB" packages "added distributions"
for extra in "" "$@"; do
  name=${extra:-base}
  python3 -m venv "$WORK/$name"
  "$WORK/$name/bin/pip" install -q "$SPEC${extra:+[$extra]}" 2>/dev/null
  mb=$(( ($(size "$WORK/$name") - EMPTY) / 1024 ))
  pkgs=$("$WORK/$name/bin/pip" list --format=freeze 2>/dev/null | grep -v -E '^(pip|setuptools)==' | cut -d= -f1 | sort)
  printf '%-10s %10s %9s  %s\n' "$name" "$mb" "$(echo "$pkgs" | wc -l)" "$(echo "$pkgs" | tr '\n' ' ')"
  rm -rf "${WORK:?}/$name"
done
