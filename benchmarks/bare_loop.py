"""The hand-written loop a vendor would write over EVERY case of a suite on onnxruntime (runner_overhead.py
--whole): the same work as `opconform run`, without its checks, records and diagnosis.

Per case: read case.json (kind, compare spec, a negative's phase) and model.onnx, build one session with
the plugin's own settings, then per data set read the .pb files (onnx.numpy_helper: ml_dtypes arrays for
bfloat16 / float8 / int4, object arrays for strings), run, and judge in the strict tier:
  node / graph  every output compared under the case's compare spec (exact: bit-exact, NaN equal to NaN;
                ulp, abs, allclose, parsed: the case's tolerance), per-output overrides applied
  probe         run, nothing compared
  negative      the load (phase "prepare") or the load or a run (phase "run") must fail
Types the binding cannot take from numpy (bfloat16, float8, int4, ...) travel as OrtValues holding the .pb's
raw bytes; a string input among them comes from a one-Constant helper session (the binding makes no string
OrtValue); outputs of those types are read back through a TensorProto (numpy_helper again).
"""

from __future__ import annotations

import ctypes
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

NUMPY_TYPES = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16, onnx.TensorProto.BOOL,
               onnx.TensorProto.INT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32, onnx.TensorProto.INT64,
               onnx.TensorProto.UINT8, onnx.TensorProto.UINT16, onnx.TensorProto.UINT32, onnx.TensorProto.UINT64}


def _pb(path: Path) -> onnx.TensorProto:
    t = onnx.TensorProto()
    t.ParseFromString(path.read_bytes())
    return t


def _numbered(ds: Path, prefix: str) -> list[Path]:
    return sorted(ds.glob(f"{prefix}_*.pb"), key=lambda p: int(p.stem.split("_")[1]))


def _datasets(case: Path) -> list[tuple[list, list]]:
    sets = sorted((p for p in case.iterdir() if p.name.startswith("test_data_set_")),
                  key=lambda p: int(p.name.rsplit("_", 1)[1]))
    return [([_pb(p) for p in _numbered(ds, "input")], [_pb(p) for p in _numbered(ds, "output")]) for ds in sets]


# ---- feeding and reading back -------------------------------------------------------------------------------
def _string_ortvalue(t: onnx.TensorProto, options) -> ort.OrtValue:
    graph = helper.make_graph([helper.make_node("Constant", [], ["s"], value=t)], "s", [],
                              [helper.make_tensor_value_info("s", t.data_type, t.dims)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
    return ort.InferenceSession(model.SerializeToString(), options).run_with_ort_values(["s"], {})[0]


def _ortvalue(t: onnx.TensorProto, options) -> ort.OrtValue:
    if t.data_type == onnx.TensorProto.STRING:
        return _string_ortvalue(t, options)
    if t.data_type in NUMPY_TYPES:
        return ort.OrtValue.ortvalue_from_numpy(numpy_helper.to_array(t))
    value = ort.OrtValue.ortvalue_from_shape_and_type(list(t.dims), t.data_type)
    if t.raw_data:
        ctypes.memmove(value.data_ptr(), t.raw_data, len(t.raw_data))
    return value


def _from_ortvalue(value: ort.OrtValue, elem_type: int) -> np.ndarray:
    if elem_type in NUMPY_TYPES or elem_type == onnx.TensorProto.STRING:
        return value.numpy()
    t = onnx.TensorProto(data_type=elem_type, dims=value.shape())
    size = value.tensor_size_in_bytes()
    t.raw_data = ctypes.string_at(value.data_ptr(), size) if size else b""
    return numpy_helper.to_array(t)


def _run(session, names: list[str], in_types: list[int], out_types: list[int], ins: list, options) -> list:
    if all(t in NUMPY_TYPES or t == onnx.TensorProto.STRING for t in in_types + out_types):
        return session.run(None, {n: numpy_helper.to_array(t) for n, t in zip(names, ins)})
    values = session.run_with_ort_values(None, {n: _ortvalue(t, options) for n, t in zip(names, ins)})
    return [_from_ortvalue(v, t) for v, t in zip(values, out_types)]


# ---- judging (strict tier) ----------------------------------------------------------------------------------
def _spec(compare: dict, name: str) -> dict:
    spec = {k: v for k, v in compare.items() if k not in ("outputs", "tolerant", "reason")}
    spec.update({k: v for k, v in compare.get("outputs", {}).get(name, {}).items() if k not in ("tolerant", "reason")})
    return spec


def _is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or "float" in a.dtype.name


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _ordered(a: np.ndarray) -> np.ndarray:
    """Float encodings on one ordered integer line (-0 and +0 one point)."""
    bits = _bits(a).astype(np.int64)
    sign = 1 << (a.dtype.itemsize * 8 - 1)
    return np.where(bits & sign, -(bits & (sign - 1)), bits)


def _text(a: np.ndarray) -> list[str]:
    return [x.decode() if isinstance(x, bytes) else str(x) for x in a.ravel().tolist()]


def _same(got, want: np.ndarray, spec: dict) -> bool:
    got = np.asarray(got)
    if got.shape != want.shape:
        return False
    mode = spec.get("mode", "exact")
    if want.dtype == object:
        if mode == "parsed":
            source = helper.tensor_dtype_to_np_dtype(onnx.TensorProto.DataType.Value(spec["source_type"].upper()))
            return all(g == w or _parsed_equal(g, w, source) for g, w in zip(_text(got), _text(want)))
        return _text(got) == _text(want)
    if got.dtype != want.dtype:
        return False
    if not _is_float(want):
        if mode in ("ulp", "abs"):
            k = spec.get("ulp", spec.get("abs", 0))
            return bool(np.all(np.abs(got.astype(object) - want.astype(object)) <= k)) if got.size else True
        return bool(np.array_equal(got, want))
    nan_g, nan_w = np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64))
    if mode == "exact":
        same = _bits(got) == _bits(want)
        both = nan_g & nan_w
        if spec.get("nan_sign"):
            both &= np.signbit(got.astype(np.float64)) == np.signbit(want.astype(np.float64))
        return bool(np.all(same | both))
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    inf = np.isinf(g64) | np.isinf(w64)
    if mode == "ulp":
        close = np.abs(_ordered(got) - _ordered(want)) <= spec["ulp"]
    elif mode == "abs":
        close = np.abs(g64 - w64) <= spec["abs"]
    else:  # allclose
        close = np.abs(g64 - w64) <= spec.get("atol", 0.0) + spec.get("rtol", 0.0) * np.abs(w64)
    close = np.where(inf, g64 == w64, close)
    return bool(np.all(close | (nan_g & nan_w)))


def _parsed_equal(a: str, b: str, source: np.dtype) -> bool:
    """Both texts read back as the same value of the source type (any NaN equal to NaN)."""
    try:
        if np.dtype(source).kind in "iub":
            return int(a) == int(b)
        x, y = np.array([float(a), float(b)]).astype(source)
    except (ValueError, OverflowError):
        return False
    return bool(_bits(np.array([x]))[0] == _bits(np.array([y]))[0] or (np.isnan(float(x)) and np.isnan(float(y))))


# ---- the loop -----------------------------------------------------------------------------------------------
def loop(cases: list[Path], options, providers, provider_options) -> dict[str, int]:
    """Counts: data sets run, compared, equal; probes run; negatives, refused as they must be."""
    n = {"data sets": 0, "compared": 0, "equal": 0, "probes": 0, "negatives": 0, "refused": 0}
    for case in cases:
        meta = json.loads((case / "case.json").read_text())
        kind, compare = meta.get("kind"), meta.get("compare", {})
        sets = _datasets(case)
        n["data sets"] += len(sets)
        try:
            session = ort.InferenceSession((case / "model.onnx").read_bytes(), options, providers=providers,
                                           provider_options=provider_options)
        except Exception:  # noqa: BLE001 - a refusal: what a negative wants, a failure otherwise
            if kind == "negative":
                n["negatives"] += 1
                n["refused"] += 1
            else:
                n["compared"] += len(sets) if kind != "probe" else 0
            continue
        model = onnx.load_model_from_string((case / "model.onnx").read_bytes()) if sets else None
        initializers = {i.name for i in model.graph.initializer} if model is not None else set()
        if model is not None:
            fed = [i for i in model.graph.input if i.name not in initializers]
            names = [i.name for i in fed]
            in_types = [i.type.tensor_type.elem_type for i in fed]
            out_types = [o.type.tensor_type.elem_type for o in model.graph.output]
            out_names = [o.name for o in model.graph.output]
        refused = False
        for ins, outs in sets:
            try:
                got = _run(session, names, in_types, out_types, ins, options)
            except Exception:  # noqa: BLE001
                refused = True
                n["compared"] += kind in ("node", "graph")
                continue
            if kind == "probe":
                n["probes"] += 1
            elif kind in ("node", "graph"):
                n["compared"] += 1
                n["equal"] += len(got) == len(outs) and all(
                    _same(g, numpy_helper.to_array(w), _spec(compare, name))
                    for g, w, name in zip(got, outs, out_names))
        if kind == "negative":
            n["negatives"] += 1
            n["refused"] += meta.get("phase") == "run" and refused
    return n
