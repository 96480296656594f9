"""Live hunting over QuantizeLinear (generator/hunting.py): one model and one data set per example, drawn toward the
fault models' boundaries (reference/quantize_linear_faults.py): ties j + 0.5 and their neighbours (rounding, the
zero point's place, the division's precision, the reciprocal), quotients beyond the output's range (saturation,
wrapping, int32 overflow), per-axis / blocked scales on every axis (an ignored axis, blocks from the end), float
outputs' values, midpoints and overflow with saturate on / off (Cast's tables), non-zero float zero points."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.catalogue.quantize_linear import as_type, decode
from generator.families.quantize_linear.cases import spec_cases
from generator.families.quantize_linear.spec import MIN_OPSET, Spec
from generator.reference import quantize_linear as ref
from generator.reference.quant_axes import expand


HUNT_SCALES = ("pow2", "simple", "bits", "tiny")
HUNT_ELEMENTS = ("tie", "near_tie", "integer", "beyond", "bits", "special")
_SIMPLE_SCALES = (1.0, 0.5, 3.0, 0.3, 7.0, 0.1, 1.5, 2.0, 0.25, 10.0)


def _hunt_types(draw, v: int) -> tuple[str, str, dict]:
    """(x type, y_scale type, attrs) a version allows, float types only (int32 is a probe at 19+)."""
    from hypothesis import strategies as st

    floats = ("float", "float16", "bfloat16")
    if v < 19:
        return "float", "float", {}
    if v < 23:
        t = draw(st.sampled_from(floats))
        return t, t, {}
    s_t = draw(st.sampled_from(floats))
    x_t = s_t if draw(st.booleans()) else draw(st.sampled_from(floats))  # often one type: fewer open elements
    p = draw(st.sampled_from((None, None, "float", "float16", "bfloat16")))
    return x_t, s_t, ({"precision": dtypes.get(p).onnx} if p else {})


def _hunt_layout(draw, v: int) -> tuple[tuple, tuple, dict]:
    """(x shape, scale shape, attrs): per-tensor 0-d / 1-d, per-axis (13+), blocked (21+)."""
    from hypothesis import strategies as st

    kinds = ["per-tensor"] + (["per-axis"] if v >= 13 else []) + (["blocked"] if v >= 21 else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "per-tensor":
        n = draw(st.integers(1, 8))
        return (n,), (), {}
    rank = draw(st.integers(1, 3)) if kind == "per-axis" else draw(st.integers(2, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    axis = draw(st.integers(-rank, rank - 1))
    a = axis % rank
    if kind == "per-axis":
        return shape, (shape[a],), {"axis": axis}
    d = shape[a] + draw(st.integers(0, 3))  # blocked: a longer axis, a block size in the schema's range
    shape = tuple(d if i == a else s for i, s in enumerate(shape))
    block = draw(st.integers(1, d))
    s_a = -(-d // block)
    return shape, tuple(s_a if i == a else s for i, s in enumerate(shape)), {"axis": axis, "block_size": block}


def _hunt_scale(draw, t: str) -> float:
    from hypothesis import strategies as st

    kind = draw(st.sampled_from(HUNT_SCALES))
    d = dtypes.get(t)
    if kind == "pow2":
        v = 2.0 ** draw(st.integers(-8, 8))
    elif kind == "simple":
        v = draw(st.sampled_from(_SIMPLE_SCALES))
    elif kind == "tiny":
        v = draw(st.sampled_from((d.smallest_normal, d.smallest_subnormal, d.smallest_normal * 3)))
    else:
        v = float(np.ldexp(1.0 + draw(st.integers(0, (1 << 23) - 1)) / 2.0**23, draw(st.integers(-10, 10))))
    return float(as_type(v, t).astype(np.float64))


def _hunt_element(draw, out: dtypes.DType, s: float, z: float, x_t: str) -> float:
    from hypothesis import strategies as st

    kind = draw(st.sampled_from(HUNT_ELEMENTS))
    xd = dtypes.get(x_t)
    if out.is_float:
        vals = np.unique(out.all_values().astype(np.float64))
        vals = vals[np.isfinite(vals)]
        i = draw(st.integers(0, vals.size - 2))
        q = {"tie": (vals[i] + vals[i + 1]) / 2, "near_tie": (vals[i] + vals[i + 1]) / 2, "integer": vals[i],
             "beyond": out.finite_max * draw(st.sampled_from((1.03, 1.1, 2.0, 100.0)))}.get(kind, vals[i])
        if kind == "beyond" and draw(st.booleans()):
            q = -q
    else:
        j = draw(st.integers(int(out.int_min - z) - 3, int(out.int_max - z) + 3))
        q = {"tie": j + 0.5, "near_tie": j + 0.5, "integer": float(j), "beyond": draw(st.sampled_from(
            (1e10, -1e10, 3e9, -3e9, float(out.int_max - z) + 40, float(out.int_min - z) - 40)))}.get(kind, j + 0.25)
    if kind == "special":
        return draw(st.sampled_from((0.0, -0.0, np.nan, np.inf, -np.inf, xd.finite_max, -xd.finite_max)))
    if kind == "bits":
        b = draw(st.integers(0, (1 << xd.bits) - 1))
        return float(xd.from_bits(np.array([b], dtype=xd.bits_dtype)).astype(np.float64)[0])
    x = float(as_type(q * s, x_t).astype(np.float64))
    if kind == "near_tie":
        bits = xd.to_bits(as_type([x], x_t)).astype(np.int64) + draw(st.sampled_from((-1, 1, -2, 2)))
        x = float(xd.from_bits(np.clip(bits, 0, (1 << xd.bits) - 1).astype(xd.bits_dtype)).astype(np.float64)[0])
    return x


def _hunt_zero_point(draw, out: dtypes.DType) -> float:
    from hypothesis import strategies as st

    if out.is_float:
        vals = np.unique(out.all_values().astype(np.float64))
        vals = vals[np.isfinite(vals) & (np.abs(vals) <= 8)]
        return 0.0 if draw(st.booleans()) else float(draw(st.sampled_from(vals.tolist())))
    lo, hi = out.int_min, out.int_max
    return float(draw(st.sampled_from((0, 1, lo, hi, lo + 1, hi - 1)) | st.integers(lo, hi)))


def hunt_args(draw, kind: str, max_opset: int) -> dict:
    """One example's args (the witness format, generator/catalogue/quantize_linear.py, zero point optional)."""
    from hypothesis import strategies as st

    versions = [v for v in ref.VERSIONS if v <= max_opset and (kind == "integer" or v >= 19)]
    v = draw(st.sampled_from(versions))
    outs = [t for t in ref.output_types(v) if dtypes.get(t).is_float == (kind == "float")]
    out = dtypes.get(draw(st.sampled_from(outs)))
    x_t, s_t, attrs = _hunt_types(draw, v)
    shape, s_shape, layout = _hunt_layout(draw, v)
    attrs = dict(attrs, **layout)
    if out.name in dtypes.FLOAT8_SATURATE_TYPES:
        attrs["saturate"] = draw(st.sampled_from((1, 0)))
    # the zero point: required before 21 but for uint8 (the default); from 21 optional, output_dtype then says y
    with_zp = draw(st.booleans()) if (v >= 21 or out.name == "uint8") else True
    if v >= 21 and (not with_zp and out.name != "uint8" or draw(st.booleans())):
        attrs["output_dtype"] = out.onnx
    n_s = int(np.prod(s_shape, dtype=np.int64))
    scales = [_hunt_scale(draw, s_t) for _ in range(n_s)]
    zps = [_hunt_zero_point(draw, out) if with_zp else 0.0 for _ in range(n_s)]
    axis, block = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    s_full = expand(np.array(scales).reshape(s_shape), shape, axis, block)
    z_full = expand(np.array(zps).reshape(s_shape), shape, axis, block)
    x = [_hunt_element(draw, out, float(s), float(z), x_t) for s, z in zip(s_full.ravel(), z_full.ravel())]
    return {"opset": v, "x_type": x_t, "scale_type": s_t, "zp_type": out.name if with_zp else None, "attrs": attrs,
            "shape": list(shape), "x": [repr(float(e)) for e in x], "scale_shape": list(s_shape),
            "scale": [repr(s) for s in scales], "zp": [repr(z) for z in zps] if with_zp else None}


def hunt_example(args: dict):
    """The hunt Example of args: the node case test_quantizelinear_hunt of the defined elements (per-tensor 1-D
    x: element by element; else the data set as a whole) and the probe test_quantizelinear_hunt_probe of the
    others, built by spec_cases as every case here."""
    from generator.hunting import Example

    spec = Spec(int(args["opset"]), [decode(args)], x_type=args["x_type"], scale_type=args["scale_type"],
                zp_type=args["zp_type"], attrs=dict(args["attrs"]), flags=("hunt",))
    made = {c.kind: c for c in spec_cases("hunt", spec)}
    return Example(made.get("node"), made.get("probe"), args)


def rebuild(args: dict):
    """The hunt example `args` describes (hunt_example): the same inputs, expected outputs from the reference."""
    return hunt_example(args)


def hunt(max_opset: int):
    """The hunt strategy: slices "integer" and "float" (float outputs from 19), or None below opset 10."""
    if max_opset < MIN_OPSET:
        return None
    from hypothesis import strategies as st

    def slice_of(kind):
        @st.composite
        def examples(draw):
            return hunt_example(hunt_args(draw, kind, max_opset))
        return examples()

    return {"integer": slice_of("integer")} | ({"float": slice_of("float")} if max_opset >= 19 else {})
