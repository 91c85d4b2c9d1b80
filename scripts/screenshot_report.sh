#!/usr/bin/env bash
# Render an HTML report (default: a fresh `receval demo` report) to a PNG with headless Chromium.
#   scripts/screenshot_report.sh [REPORT.html] [OUT.png] [WIDTHxHEIGHT]
# Needs the Debian package `chromium` (apt-get install chromium) or google-chrome on PATH.
set -euo pipefail
report="${1:-}"
out="${2:-receval-report.png}"
size="${3:-1200x3000}"
if [[ -z "$report" ]]; then
  report="receval-report.html"
  python -m receval demo -o "$report" >/dev/null
fi
browser=""
for b in chromium chromium-browser google-chrome google-chrome-stable; do
  if command -v "$b" >/dev/null 2>&1; then browser="$b"; break; fi
done
if [[ -z "$browser" ]]; then
  echo "no chromium found: apt-get install chromium" >&2
  exit 1
fi
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
abs="$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
"$browser" --headless --disable-gpu --no-sandbox --hide-scrollbars --no-first-run \
  --user-data-dir="$profile" --window-size="${size/x/,}" --screenshot="$out" "file://$abs" \
  2>/dev/null
echo "wrote $out"
