#!/usr/bin/env bash
# Take a screenshot of an HTML report in headless Chromium: bash scripts/screenshot.sh PAGE.html OUT.png [WIDTHxHEIGHT]
# The report is one self-contained file without scripts: Chromium opens it with background networking off.
set -euo pipefail
page="$1"; out="$2"; size="${3:-1400x2400}"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
    echo "screenshot: no Chromium found (Debian: apt-get install chromium)" >&2
    exit 3
fi
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" \
    --window-size="${size/x/,}" --screenshot="$(realpath -m "$out")" "file://$(realpath "$page")" >/dev/null 2>&1
test -s "$out"
echo "screenshot: wrote $out"
