#!/usr/bin/env bash
# Regenerate the example report in docs/ from real runs of the committed suite on onnxruntime,
# onnx-reference and openvino (about 10 minutes on 2 cores), and take a screenshot of the page in
# headless Chromium when it is installed (Debian: apt-get install chromium). Writes the known-discrepancies
# tables (failing items per backend and fault model, from the runs' diagnoses: scripts/discrepancies.py) to
# docs/example-discrepancies.md, for docs/discrepancies.md: one for the five older families,
# one for the three newer ones with a tvm column when apache-tvm is installed (TVM runs those three families
# only: its whole-suite run takes about 35 minutes here).
#
#   bash scripts/example_report.sh            # writes docs/example-report.{html,md,png}, docs/example-discrepancies.md
#   bash scripts/example_report.sh DIR        # the same from DIR/{onnxruntime,onnx-reference,openvino}.json, results
#                                             # of whole-suite runs of cases/ made before (nothing is run again)
set -euo pipefail
given="${1:-}"
cd "$(dirname "$0")/.."
work="${given:-${TMPDIR:-/tmp}/opconform-example-report}"
mkdir -p "$work"
results=()
for backend in onnxruntime onnx-reference openvino; do
    if [ -n "$given" ]; then
        results+=("$work/$backend.json")
        continue
    fi
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
older=(--family cast --family convert_promote_types --family dynamic_quantize_linear --family qlinear_conv --family layout)
newer=(--family cast_like --family quantize_linear --family dequantize_linear)
newer_results=("${results[@]}")
if [ -z "$given" ] && python -c "import tvm" 2>/dev/null; then
    rc=0
    pytest cases --backend tvm "${newer[@]}" -q -n 2 -p no:cacheprovider --report "$work/tvm.json" >"$work/tvm.log" || rc=$?
    if [ "$rc" -gt 1 ]; then
        echo "pytest --backend tvm exited $rc; see $work/tvm.log" >&2
        exit "$rc"
    fi
    newer_results+=("$work/tvm.json")
fi
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
{
    echo "The five older families: \`python scripts/discrepancies.py onnxruntime.json onnx-reference.json openvino.json ${older[*]}\` on whole-suite runs (\`pytest cases --backend B -n 2 -p no:cacheprovider --report B.json\`) of \`cases/\` at $commit (scripts/example_report.sh)."
    echo
    python scripts/discrepancies.py "${results[@]}" "${older[@]}"
    echo
    echo "The three newer families$([ ${#newer_results[@]} -gt ${#results[@]} ] && echo ", with TVM (run on these three families only, so its column and the totals cover them alone)"): the same runs, \`${newer[*]}\`."
    echo
    python scripts/discrepancies.py "${newer_results[@]}" "${newer[@]}"
} >docs/example-discrepancies.md
cat docs/example-discrepancies.md
bash scripts/screenshot.sh docs/example-report.html docs/example-report.png || echo "no screenshot (see above)" >&2
