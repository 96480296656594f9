"""A model's QuantizeLinear node as a case (generator/from_model/plan.py): the model's y_scale, y_zero_point and
attributes; x's data from the family's own values (families/quantize_linear/spec.py) put at each element's scale and
zero point: the ties j + 0.5 and integers over the whole output range and beyond it, and for float outputs every
value, midpoint and overflow of the type (Cast's tables)."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.catalogue.quantize_linear import as_type
from generator.families.quantize_linear.cases import params_of
from generator.families.quantize_linear.spec import (CLAUSE_AXIS, CLAUSE_BLOCKED, CLAUSE_FORMULA, COMPARE_FLOAT,
                                                     COMPARE_INT, Spec, float_values, int_values)
from generator.from_model.plan import Context, Plan, tile, edge_sets
from generator.from_model.model_source import Site
from generator.reference import quantize_linear as ref
from generator.reference.quant_axes import expand
from generator.sampling import Stream

OPS = (("", "QuantizeLinear"),)
# the default range of x's random data, where no calibration gives one: the output's range at each element's scale
# and zero point, widened by this share of it on both sides (values that saturate)
WIDEN = 0.1


def plan(site: Site, ctx: Context) -> Plan | str:
    x, s = site.inputs[0], site.inputs[1]
    z = site.inputs[2] if len(site.inputs) > 2 and site.inputs[2].origin != "absent" else None
    for what, op in (("y_scale", s), ("y_zero_point", z)):
        if op is not None and not op.constant:
            return f"{what} is computed by another node (the family takes a constant {what})"
    if x.type is None or x.shape is None:
        return "x's element type or shape is unknown"
    scale, zp = s.value(), (z.value() if z is not None else None)
    attrs = {a.name: _attr(a) for a in site.node.attribute}
    spec = Spec(site.opset, [(np.zeros(x.shape, x.type.np_dtype), scale, zp)], x_type=x.type.name,
                scale_type=s.type.name, zp_type=z.type.name if z is not None else None, attrs=attrs)
    out = spec.out
    try:
        kind = ref.check_shapes(site.opset, x.shape, scale.shape, None if zp is None else zp.shape,
                                int(attrs.get("axis", 1)), int(attrs.get("block_size", 0)))
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    axis, block = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    s_full = expand(scale, x.shape, axis, block).astype(np.float64)
    z_full = (expand(zp, x.shape, axis, block).astype(np.float64) if zp is not None
              else np.zeros(x.shape))
    kw = dict(x_type=x.type.name, scale_type=s.type.name, zero_point_type=spec.zp_type, opset=site.opset,
              axis=axis, saturate=int(attrs.get("saturate", 1)), block_size=block,
              output_dtype=int(attrs.get("output_dtype", 0)), precision=int(attrs.get("precision", 0)))
    generated = [] if x.constant else [0]

    def outcome(args):
        return ref.quantize_linear_explained(args[0], args[1], args[2] if len(args) > 2 else None, **kw)

    if not generated:
        return Plan("quantize_linear", params_of(spec, "model"), _clause(kind), COMPARE_FLOAT if out.is_float
                    else COMPARE_INT, generated, [[]], None, None, outcome)
    quotients = _quotients(out, z_full)
    edges = [[as_type(q * s_full, x.type.name)] for q in (edge_sets(quotients, x.shape) if quotients.ndim == 1
                                                           else _edge_grid(quotients, x.shape))]
    lo, hi, note = _range(ctx, x.name, out, s_full, z_full)

    def random(stream: Stream) -> list:
        u = stream.random(int(np.prod(x.shape, dtype=np.int64))).reshape(x.shape)
        return [as_type(lo + (hi - lo) * u, x.type.name)]

    def draw(stream: Stream) -> list:
        n = int(np.prod(x.shape, dtype=np.int64))
        q = _near(out, z_full.ravel(), stream, n).reshape(x.shape)
        v = as_type(q * s_full, x.type.name)
        nudge = stream.integers(0, 3, size=n).reshape(x.shape)  # some elements one bit pattern off the tie
        return [_nudged(v, nudge, x.type)]

    return Plan("quantize_linear", params_of(spec, "model"), _clause(kind),
                COMPARE_FLOAT if out.is_float else COMPARE_INT, generated, edges, draw, random, outcome,
                range_note=note)


def _attr(a):
    from generator.interpret import decode_attribute
    return decode_attribute(a)


def _clause(kind: str) -> str:
    return {"per-axis": CLAUSE_AXIS, "blocked": CLAUSE_BLOCKED}.get(kind, CLAUSE_FORMULA)


def _quotients(out: dtypes.DType, z_full: np.ndarray) -> np.ndarray:
    """x / y_scale values to test: one list for a single zero point (1-D), else one row per element (2-D)."""
    if out.is_float:
        return float_values(out, 1.0)
    zps = np.unique(z_full)
    if zps.size == 1:
        return int_values(out, int(zps[0]), 1.0)
    rows = {int(zp): int_values(out, int(zp), 1.0) for zp in zps}
    width = max(r.size for r in rows.values())
    table = {zp: np.resize(r, width) for zp, r in rows.items()}
    return np.stack([table[int(zp)] for zp in z_full.ravel()])


def _edge_grid(rows: np.ndarray, shape: tuple, max_sets: int = 4) -> list[np.ndarray]:
    """Per-element lists (zero points that differ by element): data set i takes value (p + i) of element p's."""
    n, width = rows.shape
    count = min(max_sets, max(1, -(-width // max(1, n)) + 1))
    idx = np.arange(n)
    return [rows[idx, (idx + i * n) % width].reshape(shape) for i in range(count)]


def _range(ctx: Context, name: str, out: dtypes.DType, s_full, z_full):
    given = ctx.range(name)
    if given is not None:
        return float(given[0]), float(given[1]), "calibration"
    if out.is_float:
        top = float(out.finite_max) * s_full * (1 + WIDEN)
        return -top, top, "the output type's range at the model's scale, widened by 10%"
    lo = (out.int_min - z_full) * s_full
    hi = (out.int_max - z_full) * s_full
    pad = (hi - lo) * WIDEN
    return lo - pad, hi + pad, "the output type's range at the model's scale and zero point, widened by 10%"


def _near(out: dtypes.DType, z: np.ndarray, stream: Stream, n: int) -> np.ndarray:
    """Quotients where the fault models part from the reference: ties j + 0.5, integers, quarter points, beyond the
    range (saturation, wrapping), and for float outputs midpoints of the type's values and overflow."""
    kind = stream.integers(0, 3, size=n)
    far = np.array([1e10, -1e10, 3e38, -3e38, 3e9, -3e9])[stream.integers(0, 5, size=n)]
    if out.is_float:
        vals = np.unique(out.all_values().astype(np.float64))
        vals = vals[np.isfinite(vals)]
        i = stream.integers(0, vals.size - 2, size=n)
        mids = (vals[i] + vals[i + 1]) / 2
        beyond = float(out.finite_max) * np.array([1.01, 1.1, 4.0])[stream.integers(0, 2, size=n)]
        sign = np.where(stream.booleans(size=n), 1.0, -1.0)
        return np.select([kind == 0, kind == 1, kind == 2], [mids, vals[i], beyond * sign], far)
    lo, hi = out.int_min - z, out.int_max - z
    j = np.array([stream.integers(int(a) - 3, int(b) + 3) for a, b in zip(lo, hi)], dtype=np.float64) \
        if np.unique(z).size > 1 else stream.integers(int(lo[0]) - 3, int(hi[0]) + 3, size=n).astype(np.float64)
    return np.select([kind == 0, kind == 1, kind == 2], [j + 0.5, j, j + 0.25], far)


def _nudged(v: np.ndarray, nudge: np.ndarray, t: dtypes.DType) -> np.ndarray:
    """v with the elements where nudge is 1 or 2 moved one bit pattern down or up (a tie's neighbours)."""
    if not t.is_float:
        return v
    bits = t.to_bits(v).astype(np.int64)
    bits = np.where(nudge == 1, bits - 1, np.where(nudge == 2, bits + 1, bits))
    bits = np.clip(bits, 0, (1 << t.bits) - 1).astype(t.bits_dtype)
    return np.where(nudge == 0, v, t.from_bits(bits)).astype(t.np_dtype)
