#!/usr/bin/env bash
# Produce a real onnxruntime plugin execution-provider library, for testing the onnxruntime backend's
# ep_library.<name> / ep_devices options (set OPCONFORM_PLUGIN_EP to the path this prints).
#
#   scripts/build_plugin_ep.sh [ORT_SOURCE [OUT_DIR]]
#       Compiles onnxruntime's example plugin EP (onnxruntime/test/autoep/library/example_plugin_ep, release 1.24
#       or later; it claims float32 Mul of equal shapes only) with the machine's C++ compiler. ORT_SOURCE (or env
#       ORT_SOURCE_DIR) is an onnxruntime checkout, or a git directory without a work tree read at ORT_REF (default
#       HEAD). Needs g++ (or $CXX) and the GSL headers (Debian: libmsgsl-dev). Downloads nothing.
#   scripts/build_plugin_ep.sh --from-pypi [OUT_DIR]
#       Unpacks the onnxruntime-ggml wheel from PyPI (a plugin EP library claiming many float32 ops, leaving others,
#       e.g. Sign, Acos, Selu, Softplus, to the CPU provider), without its dependencies: it pins onnxruntime<1.31,
#       which would replace the installed one. Needs only pip; what CI can reach.
#
# OUT_DIR defaults to /work/build/plugin_ep. Prints the library's path on the last line.
set -euo pipefail

die() { echo "build_plugin_ep: $*" >&2; exit 1; }

GGML_VERSION=0.2.0

from_pypi() {
    local out=$1 python=${PYTHON:-python3} wheel
    "$python" -m pip --version >/dev/null 2>&1 || die "no pip for $python (set PYTHON to an interpreter with pip)"
    mkdir -p "$out/wheel"
    "$python" -m pip download --quiet --no-deps --only-binary :all: "onnxruntime-ggml==$GGML_VERSION" -d "$out/wheel" \
        || die "pip could not get onnxruntime-ggml==$GGML_VERSION"
    wheel=$(ls "$out"/wheel/onnxruntime_ggml-"$GGML_VERSION"-*.whl 2>/dev/null | head -1)
    [ -n "$wheel" ] || die "no onnxruntime-ggml wheel for this platform in $out/wheel"
    rm -rf "$out/ggml"
    "$python" -m zipfile -e "$wheel" "$out/ggml"  # the library finds its bundled libgomp beside it, so unpack whole
    [ -f "$out/ggml/onnxruntime_ggml/lib/libonnxruntime_ggml.so" ] || die "the wheel has no libonnxruntime_ggml.so"
    echo "$out/ggml/onnxruntime_ggml/lib/libonnxruntime_ggml.so"
}

# Copies the headers and the example's sources from ORT source $1 into $2.
extract_sources() {
    local src=$1 dest=$2 ex=onnxruntime/test/autoep/library
    local paths=(include/onnxruntime/core/session "$ex/example_plugin_ep" "$ex/plugin_ep_utils.h")
    rm -rf "$dest" && mkdir -p "$dest"
    if [ -f "$src/include/onnxruntime/core/session/onnxruntime_c_api.h" ]; then
        for p in "${paths[@]}"; do
            [ -e "$src/$p" ] || die "$src has no $p (the example plugin EP is there from onnxruntime 1.24 on)"
            mkdir -p "$dest/$(dirname "$p")" && cp -r "$src/$p" "$dest/$p"
        done
    elif git --git-dir="$src" rev-parse --verify --quiet "${ORT_REF:-HEAD}^{commit}" >/dev/null 2>&1; then
        for p in "${paths[@]}"; do
            git --git-dir="$src" cat-file -e "${ORT_REF:-HEAD}:$p" 2>/dev/null \
                || die "$src at ${ORT_REF:-HEAD} has no $p (the example plugin EP is there from onnxruntime 1.24 on)"
        done
        # a partial mirror may name blobs it lacks elsewhere in the tree: the files needed are checked below
        git --git-dir="$src" archive --format=tar "${ORT_REF:-HEAD}" "${paths[@]}" 2>/dev/null | tar -x -C "$dest"
    else
        die "$src is neither an onnxruntime checkout nor a git directory with ${ORT_REF:-HEAD}"
    fi
}

from_source() {
    local src=$1 out=$2 cxx=${CXX:-g++} lib ex
    command -v "$cxx" >/dev/null || die "no C++ compiler '$cxx' (install g++ or set CXX)"
    echo '#include <gsl/span>' | "$cxx" -std=c++17 -x c++ -fsyntax-only - 2>/dev/null \
        || die "no GSL headers for $cxx (Debian: apt-get install libmsgsl-dev)"
    extract_sources "$src" "$out/src"
    ex="$out/src/onnxruntime/test/autoep/library/example_plugin_ep"
    [ -f "$ex/example_plugin_ep.cc" ] && [ -f "$out/src/include/onnxruntime/core/session/onnxruntime_ep_c_api.h" ] \
        || die "the example plugin EP's sources or headers could not be read from $src"
    lib="$out/libexample_plugin_ep.so"
    # As onnxruntime's own CMake target example_plugin_ep, except that it is not linked against libonnxruntime:
    # ORT_API_MANUAL_INIT leaves the C++ API's table to CreateEpFactories (Ort::InitApi), so no OrtGetApiBase import.
    "$cxx" -std=c++17 -O2 -fPIC -shared -DORT_API_MANUAL_INIT= -I"$out/src/include/onnxruntime/core/session" \
        "$ex"/*.cc -o "$lib" -Wl,--version-script="$ex/example_plugin_ep_library.lds" \
        -Wl,--no-undefined -Wl,--gc-sections -z noexecstack || die "compiling the example plugin EP failed"
    echo "$lib"
}

if [ "${1:-}" = "--from-pypi" ]; then
    from_pypi "${2:-/work/build/plugin_ep}"
else
    src=${1:-${ORT_SOURCE_DIR:-}}
    [ -n "$src" ] || die "give the onnxruntime source (a checkout or git directory) as argument or ORT_SOURCE_DIR, or --from-pypi"
    [ -e "$src" ] || die "no onnxruntime source at $src"
    from_source "$src" "${2:-/work/build/plugin_ep}"
fi
