#!/usr/bin/env bash
# Regenerate the example report in docs/ from real runs of the committed suite on onnxruntime,
# onnx-reference and openvino (about 5 minutes on 2 cores), and take a screenshot of the page in
# headless Chromium when it is installed (Debian: apt-get install chromium). Prints the known-discrepancies
# table (failing items per backend and fault model, from the runs' diagnoses: scripts/discrepancies.py) and
# writes it to docs/example-discrepancies.md, for the README's known-discrepancies section.
#
#   bash scripts/example_report.sh            # writes docs/example-report.{html,md,png}, docs/example-discrepancies.md
set -euo pipefail
cd "$(dirname "$0")/.."
work="${TMPDIR:-/tmp}/opconform-example-report"
mkdir -p "$work"
results=()
for backend in onnxruntime onnx-reference openvino; do
    rc=0
    pytest cases --backend "$backend" -q -n 2 -p no:cacheprovider --report "$work/$backend.json" >"$work/$backend.log" || rc=$?
    # 0: all pass, 1: some items fail (expected: these are the known discrepancies); anything else is a real error
    if [ "$rc" -gt 1 ]; then
        echo "pytest --backend $backend exited $rc; see $work/$backend.log" >&2
        exit "$rc"
    fi
    results+=("$work/$backend.json")
done
opconform report "${results[@]}" --suite cases -o docs/example-report.html
opconform report "${results[@]}" --suite cases -o docs/example-report.md
python scripts/discrepancies.py "${results[@]}" >docs/example-discrepancies.md
cat docs/example-discrepancies.md
bash scripts/screenshot.sh docs/example-report.html docs/example-report.png || echo "no screenshot (see above)" >&2
