#!/usr/bin/env bash
# Hunt onnxruntime, onnx-reference and openvino, every family, BUDGET seconds each (default 600: the issue's
# 10 minutes per family), then say which findings the committed suite does not already fail on
# (scripts/hunt_novelty.py, against a run of cases/ on the same backend). Results under $TMPDIR/opconform-hunt.
#
#   BUDGET=600 bash scripts/hunt_measure.sh [backend ...]
set -euo pipefail
cd "$(dirname "$0")/.."
budget="${BUDGET:-600}"
work="${TMPDIR:-/tmp}/opconform-hunt"
mkdir -p "$work"
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(onnxruntime onnx-reference openvino)
for backend in "${backends[@]}"; do
    rc=0
    opconform hunt --backend "$backend" --budget "$budget" --seed 0 --out "$work/$backend" 2>"$work/$backend.log" || rc=$?
    if [ "$rc" -gt 1 ]; then  # 0: nothing found, 1: findings; anything else is a real error
        echo "opconform hunt --backend $backend exited $rc; see $work/$backend.log" >&2
        exit "$rc"
    fi
    if [ ! -f "$work/$backend-suite.json" ]; then
        pytest cases --backend "$backend" -q -n 2 -p no:cacheprovider --report "$work/$backend-suite.json" \
            >"$work/$backend-suite.log" || [ $? -le 1 ]
    fi
    echo "== $backend"
    grep -E '^hunt [a-z_]+: [0-9]+ examples in|^hunt: ' "$work/$backend.log"
    python scripts/hunt_novelty.py "$work/$backend" cases "$work/$backend-suite.json" | tee "$work/$backend-novelty.txt" | tail -n 1
done
