"""Witnesses of the QuantizeLinear fault models (generator/reference/quantize_linear_faults.py).

Groups are those of the family's cases (generator/families/quantize_linear/: every catalogue case and the
random ones), keyed by quantize_linear_faults.group_key. For each group and each fault that can differ there, a
witness is built by construction and enumeration, in the group's own configuration (opset = its version; x and
y_scale of the types that give its division precision; y_zero_point of its output type; saturate as the group
says), and kept where the fault's output differs from the reference's on elements the reference defines:
  per-tensor    y_scale 3, 0.3, 7 or 1, zero point odd or 0: x is every value of P near the quotients j / 2
                (ties and integers) over the output's whole range and just beyond, and their neighbours a few
                ulps off (rounding, truncation, wrapping, the zero point's place, the reciprocal, the precision;
                from 23 also with a float16 / bfloat16 x, whose own type a kernel may divide in);
                for float outputs the output's values and midpoints times y_scale, just beyond its largest,
                +-Inf (saturate, the FNUZ Inf row, the zero point left out), NaN (a clamp before the conversion)
  per-axis      x of shape (3, 3), axis 0, three scales and zero points (an ignored axis reads them by column)
  blocked       x of shape (2, 5), axis 1, block_size 2 (blocks counted from the end shift every scale)
Witness data (JSON): generator/catalogue/quantize_linear.py's form.
"""

from __future__ import annotations

import itertools

import numpy as np

from generator import dtypes, sampling
from generator.catalogue.quantize_linear import KEEP, as_type, decode, encode
from generator.faults import Refusal, same_elements
from generator.witness import group_faults
from generator.reference import quantize_linear as ref
from generator.reference import quantize_linear_faults as F

PER_TENSOR_SCALES = (3.0, 0.3, 7.0, 1.0)


def config_types(params: dict) -> tuple[str, str, dict]:
    """(x type, y_scale type, extra attrs) giving the group's division precision at its version."""
    v, p = int(params["version"]), params["precision"]
    if v < 19:
        return "float", "float", {}
    if v < 23:
        return p, p, {}
    return "float", p, {}


def _neighbours(v: np.ndarray, t: str, n: int) -> np.ndarray:
    """Values of type t within n encodings of each value of v (rounded to t), as float64."""
    d = dtypes.get(t)
    base = d.to_bits(as_type(v, t)).astype(np.int64)
    out = [base + k for k in range(-n, n + 1)]
    bits = np.clip(np.concatenate(out), 0, (1 << d.bits) - 1).astype(d.bits_dtype)
    vals = d.from_bits(bits).astype(np.float64)
    return sampling.distinct(vals[np.isfinite(vals)])  # np.unique's zero depends on the CPU


def _run(fn, w: dict, x, s, z):
    types = [dtypes.get(w["x_type"]), dtypes.get(w["scale_type"])]
    if z is None:
        return fn([x, s], dict(w["attrs"]), int(w["opset"]), types)[0]
    return fn([x, s, z], dict(w["attrs"]), int(w["opset"]), [*types, dtypes.get(w["zp_type"])])[0]


def differing(fault, w: dict, x, s, z) -> np.ndarray:
    """Where the fault's y differs from the reference's on elements the reference defines."""
    r = ref.quantize_linear(x, s, z, x_type=w["x_type"], scale_type=w["scale_type"], zero_point_type=w["zp_type"],
                            opset=int(w["opset"]), **ref._attrs(w["attrs"], int(w["opset"])))
    try:
        fy = _run(fault.fn, w, x, s, z)
    except Refusal:  # it raises where a result is due: every defined element is missing
        return ~r.mask()
    except ValueError:
        return np.zeros(np.shape(x), bool)
    out = dtypes.get(w["zp_type"] or int(w["attrs"]["output_dtype"]))
    if np.asarray(fy).dtype != np.asarray(r.outputs[0]).dtype:  # another element type: every element differs
        return ~r.mask()
    return ~r.mask() & ~same_elements(r.outputs[0], fy, out)


def _per_tensor_candidates(params: dict, x_t: str | None = None):
    """(x values, scale, zero point, what) to enumerate, the likeliest first; x of type x_t where given (else the
    group's configuration's)."""
    y = dtypes.get(params["y"])
    x_conf, s_t, _ = config_types(params)
    x_t = x_t or x_conf
    p = params["precision"]
    for s in PER_TENSOR_SCALES:
        sv = float(as_type(s, s_t).astype(np.float64))
        if y.is_float:
            vals = sampling.distinct(y.all_values())
            vals = vals[np.isfinite(vals)]
            mids = (vals[1:] + vals[:-1]) / 2
            fmax = y.finite_max
            top = fmax + (fmax - vals[-2]) / 2  # the rounding boundary above the largest (e5m2_round_overflow_nan)
            base = np.concatenate([vals, mids, [top, fmax * 1.5, fmax * 4]]) * sv
            x = np.concatenate([_neighbours(base, p, 2), [np.inf, -np.inf, np.nan]])  # NaN: clamp_before_cast
            zps = (1.0, 0.0)
        else:
            j = np.arange(2 * (y.int_min - 12), 2 * (y.int_max + 12) + 1)
            if j.size > 1200:
                j = np.unique(np.concatenate([j[:80], j[-80:], np.arange(-40, 41), j[:: j.size // 400]]))
            x = _neighbours(j / 2 * sv, p, 3)
            zps = tuple(dict.fromkeys(z for z in (1, y.int_min + 1, 0) if y.int_min <= z <= y.int_max))
        x = x[np.isfinite(as_type(x, x_t).astype(np.float64)) | np.isinf(x) | np.isnan(x)]
        for z in zps:
            yield sampling.distinct(as_type(x, x_t)), sv, z, f"per-tensor, y_scale {s}, zero point {z}"
    # quotients far beyond every integer type (and beyond P: Inf, saturating): the largest x over a tiny scale
    xt, st = dtypes.get(x_t), dtypes.get(s_t)
    big = xt.finite_max if xt.is_float else float(xt.int_max)
    tiny = st.smallest_subnormal if st.is_float else 1.0
    yield np.array([big, -big, big / 2, -big / 2]), tiny, 0 if not y.is_float else 0.0, "per-tensor, huge quotients"


def _per_axis(params: dict, opset: int, x_t, s_t, z_t, attrs) -> dict:
    y = dtypes.get(params["y"])
    zps = [0.0, 1.0, 0.5] if y.is_float else [max(y.int_min, min(y.int_max, z)) for z in (0, 1, -1)]
    x = np.array([[0.0, 1.0, -1.0], [2.0, -2.0, 1.0], [4.0, -4.0, 3.0]])
    a = dict(attrs, axis=0)
    return encode(opset, x_t, s_t, z_t, a, as_type(x, x_t), as_type([1.0, 2.0, 4.0], s_t), as_type(zps, z_t),
                  "per-axis, axis 0 of a (3, 3) x")


def _blocked(params: dict, opset: int, x_t, s_t, z_t, attrs) -> dict:
    y = dtypes.get(params["y"])
    z = np.zeros((2, 3)) if y.is_float else np.clip(np.array([[0, 1, 0], [1, 0, 1]]), y.int_min, y.int_max)
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [-1.0, -2.0, 2.0, 3.0, -3.0]])
    a = dict(attrs, axis=1, block_size=2)
    return encode(opset, x_t, s_t, z_t, a, as_type(x, x_t), as_type([[1.0, 2.0, 4.0], [4.0, 0.5, 1.0]], s_t),
                  as_type(z, z_t), "blocked, axis 1, block_size 2 over 5")


def _no_zero_point(params: dict, opset: int, x_t, s_t, attrs) -> dict:
    """output_dtype naming y's type and no zero point (QuantizeLinear-21 on): y's type is the attribute's."""
    y = dtypes.get(params["y"])
    x = np.array([0.0, 1.0, -1.0, 2.0]) if y.is_float or y.int_min < 0 else np.array([0.0, 1.0, 2.0, 3.0])
    return encode(opset, x_t, s_t, None, dict(attrs, output_dtype=y.onnx), as_type(x, x_t), as_type(1.0, s_t), None,
                  "per-tensor, output_dtype without a zero point")


def group_witnesses(params: dict) -> dict:
    """{fault name: {"how", "witnesses"} | {"equivalent": proof}} for one group (generator.witness.group_faults):
    for each fault with no proof, the first structured witness (per-axis, blocked) that kills it, else the first
    per-tensor enumeration that does, cut to KEEP elements."""
    opset = int(params["version"])
    y = dtypes.get(params["y"])
    x_t, s_t, attrs = config_types(params)
    z_t = y.name
    if params.get("saturate") is not None:
        attrs = dict(attrs, saturate=int(params["saturate"]))
    structured = [_per_axis(params, opset, x_t, s_t, z_t, attrs)] if opset >= 13 else []
    if opset >= 21:
        structured.append(_blocked(params, opset, x_t, s_t, z_t, attrs))

    def witnesses_of(fault) -> tuple[str, list]:
        for w in structured:
            if differing(fault, w, *decode(w)).any():
                return "construction", [w]
        # from 23 x's type is its own (T1): a float16 / bfloat16 x over the group's y_scale, where the
        # configuration's float32 x cannot tell a division in x's type from the reference's
        x_types = [x_t] + ([t for t in ("float16", "bfloat16") if t != params["precision"]] if opset >= 23 else [])
        for xt, (xv, sv, z, what) in ((t, c) for t in x_types for c in _per_tensor_candidates(params, t)):
            what = what if xt == x_t else f"{what}, {xt} x"
            w = encode(opset, xt, s_t, z_t, attrs, as_type(xv, xt), as_type(sv, s_t), as_type(z, z_t), what)
            x, s, zz = decode(w)
            hit = differing(fault, w, x, s, zz)
            if hit.any():
                idx = np.flatnonzero(hit)
                keep = x[idx[np.linspace(0, idx.size - 1, min(KEEP, idx.size)).astype(int)]]
                w = encode(opset, xt, s_t, z_t, attrs, keep, s, zz, what)
                assert differing(fault, w, *decode(w)).any()
                return "exhaustive", [w]
        if opset >= 21 and y.name != "uint8":  # a fault of the type rule: the attribute without a zero point
            w = _no_zero_point(params, opset, x_t, s_t, attrs)
            if differing(fault, w, *decode(w)).any():
                return "construction", [w]
        return "exhaustive", []

    return group_faults(F.FAULTS, dict(params, opset=opset), witnesses_of)


def groups_of_suite(max_opset: int) -> dict[str, dict]:
    """Group key -> the params of the family's node cases (catalogue and random, default profile)."""
    from generator.families import quantize_linear as fam

    out = {}
    cases = itertools.chain(fam.catalogue_cases(max_opset),
                            fam.random_cases(fam.PROFILES["exhaustive"]["random"], 0, max_opset))
    for case in cases:
        if case.kind != "node":
            continue
        key = F.group_key(case.meta)
        p = case.meta["params"]
        out.setdefault(key, {"version": p["version"], "y": p["y"], "precision": p["precision"],
                             "saturate": p["saturate"]})
    return out


def find(max_opset: int, budget: float) -> dict:
    """The catalogue's groups: every group of the family's cases, each fault's witnesses or equivalence proof."""
    groups = {}
    for key, params in sorted(groups_of_suite(max_opset).items()):
        groups[key] = {"params": dict(params, opset=params["version"]), "faults": group_witnesses(params)}
    return groups
