"""A model's DequantizeLinear node as a case (generator/from_model/plan.py): the model's x_scale, x_zero_point and
attributes (axis, block_size, output_dtype), at the model's opset; expected values from
generator/reference/dequantize_linear.py; params, clause and compare the family's
(generator/families/dequantize_linear: _params, CLAUSE, _compare).

The data of the inputs the model does not hold:
  x (an activation a QuantizeLinear computes, or a graph input; a constant x, a weight initializer, is the model's
     and makes a case with no generated input)
     edges   the family's values of x's type: every bit pattern of a type of <= 8 bits (float8 NaN / Inf, int4 /
             int2 included), int16 / uint16 strided patterns and both ends (entries.wide_values) with the values
             next to each zero point, int32 values within and beyond 2**24; spread over x's shape so that each
             scale of a per-axis or blocked quantization meets them (plan.edge_sets). Elements the reference
             leaves undefined (a product overflowing in one intermediate precision only, an int32 x with a nonzero
             zero point) are moved to data sets of their own (the probe), the zero point in their place.
     draw    per element: any bit pattern, the element's zero point +-3, the type's ends, float8 specials
     random  uniform bit patterns of x's type (NaN patterns as 0), as the family's random cases draw; or uniform
             in x's calibration range (--calibration, in x's own quantized values)
  x_scale / x_zero_point computed by another node (DynamicQuantizeLinear's y_scale / y_zero_point): plausible values
     of their type: the family's edge scales (SCALES: 0.1, 3.0, a subnormal, a huge one; and +-0) and zero points
     (zero_points: 0, both ends, one inside) paired in turn in the edges; in the random data and half the draws a
     pool of POOL scales drawn as the family's random cases draw them (2**[-8, 8) * [1, 2)) and zero points uniform
     over the type (0 for float types; an int32 zero point is 0, the text's "supposed to be 0").

compare: the family's (exact, or within the ulps its intermediate-precision paths can part, `spread`). The spread
depends on the data, and the plan fixes compare before the data is drawn, so it is the largest spread over every
value x can take in this case (all patterns of a type of <= 16 bits, or the int32 pool the data draws from) at every
(scale, zero point) pair of the node (the model's, or the pools'): no data set of the case can exceed it. Past
SPREAD_ELEMENTS the pairs are evenly sampled.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from generator import dtypes
from generator.families.dequantize_linear.cases import _compare, _params, _special
from generator.families.dequantize_linear.entries import wide_values
from generator.families.dequantize_linear.spec import (CLAUSE, FAMILY, MIN_OPSET, READING_IEEE, SCALES, Spec, arr,
                                                       patterns, zero_points)
from generator.from_model.model_source import Site
from generator.from_model.plan import MAX_EDGE_SETS, Context, Plan, edge_sets, tile
from generator.interpret import decode_attribute
from generator.reference import dequantize_linear as ref
from generator.sampling import Stream, case_seed

OPS = (("", "DequantizeLinear"),)
NAMES = ("x", "x_scale", "x_zero_point")
POOL = 8  # random plausible values of a computed scale / zero point
INT32_POOL = 4096  # int32 values the random data and the draw take x from (the spread bound runs over them)
SPREAD_ELEMENTS = 1 << 20  # elements the spread bound enumerates at most
E8M0_SCALES = (1.0, 2.0**-7, 16.0, 2.0**-127)  # plausible float8e8m0 scales: powers of two (no family list)


def plan(site: Site, ctx: Context) -> Plan | str:
    """The case of one DequantizeLinear node, or why the family cannot take it."""
    if site.opset is None or site.opset < MIN_OPSET:
        return f"DequantizeLinear needs ai.onnx opset >= {MIN_OPSET}; the model imports {site.opset}"
    ins = list(site.inputs)
    if not 2 <= len(ins) <= 3 or any(op.origin == "absent" for op in ins[:2]):
        return "the model's node is invalid: DequantizeLinear takes x, x_scale and an optional x_zero_point"
    ops = [op for op in ins if op.origin != "absent"]
    if ops[0].type is None and len(ops) > 2 and ops[2].type is not None:
        # shape inference stops at a contrib operator; x and x_zero_point share one type by the text
        ops[0] = replace(ops[0], type=ops[2].type)
    for name, op in zip(NAMES, ops):
        if op.type is None:
            return f"{name} ({op.name!r}): the model leaves its element type unknown"
    xt, st = ops[0].type, ops[1].type
    zt = ops[2].type if len(ops) > 2 else None
    attrs = {a.name: decode_attribute(a) for a in site.node.attribute}
    try:
        out_t = ref.check_types(xt, st, zt, attrs, site.opset)
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    values = {j: op.value() for j, op in enumerate(ops) if op.constant}
    shapes = []
    for j, (name, op) in enumerate(zip(NAMES, ops)):
        shape = values[j].shape if j in values else op.shape
        if shape is None:
            return f"{name} ({op.name!r}): the model leaves its shape unknown"
        shapes.append(tuple(shape))
    axis, block = int(attrs.get("axis", 1)), int(attrs.get("block_size", 0))
    od = int(attrs["output_dtype"]) if attrs.get("output_dtype") else None
    try:
        ref.check_shapes(shapes[0], shapes[1], shapes[2] if zt else None, axis, block, site.opset)
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    spec = Spec(site.opset, xt.name, st.name, [], zero_point=zt is not None, axis=attrs.get("axis"),
                block_size=block, output_dtype=out_t.name if od else None, shapes=tuple(shapes))
    generated = [j for j in range(len(ops)) if j not in values]
    stream = Stream(case_seed(0, f"from_model dequantize_linear {site.name}"))
    pools = _pools(xt, st, stream, ctx.range(ops[0].name), 0 in generated)
    kw = dict(axis=axis, block_size=block, output_dtype=od, opset=site.opset, x_type=xt.name, scale_type=st.name)
    bound = _bound(values, generated, shapes, xt, st, zt is not None, pools, kw)
    readings = ((ref.READING_ONE_ROUNDING,) if bound else ())
    ieee = 1 in values and _nonpositive(values[1], st)

    def outcome(args):
        z = args[2] if len(args) > 2 else None
        out, _ = ref.dequantize_linear_explained(args[0], args[1], z, **kw)
        special = ieee or _special([a for a in args if a is not None], spec) or (1 in generated and
                                                                            _nonpositive(args[1], st))
        return out, readings + ((READING_IEEE,) if special else ())

    plan_of = dict(family=FAMILY.name, params=_params(spec, "model"), clause=CLAUSE, compare=_compare(bound),
                   spec_file=f"{FAMILY.spec_file}-{ref.version(site.opset)}")
    if not generated:
        return Plan(generated=[], edges=[[]], draw=None, random=None, outcome=outcome, **plan_of)
    combos = _combos(values, generated, shapes, xt, st, pools)
    edges = _edges(combos, generated, shapes, xt, pools, kw)

    def pick(stream: Stream, fresh: bool) -> dict:
        """The computed scale / zero point of one data set: the first edge pair, or fresh values of the pools."""
        got = dict(combos[0])
        if fresh:
            for j in generated:
                if j:
                    got[j] = _choose(pools["scale" if j == 1 else "zp"], shapes[j], stream)
        return got

    def random(stream: Stream) -> list:
        got = pick(stream, True)
        got[0] = values[0] if 0 in values else _random_x(xt, shapes[0], stream, pools)
        return [got[j] for j in generated]

    def draw(stream: Stream) -> list:
        got = pick(stream, stream.booleans())
        if 0 in generated:
            zp = got.get(2)
            got[0] = _draw_x(xt, shapes[0], stream, pools, None if zp is None else
                             ref._values(ref.expand(zp, shapes[0], axis, block), xt))
        return [got[j] for j in generated]

    note = "calibration" if pools["given"] else (
        "uniform over the int32 pool (seeded, within and beyond 2**24)" if xt.name == "int32" else
        "uniform over x's bit patterns (NaN patterns as 0), as the family's random cases")
    return Plan(generated=generated, edges=edges, draw=draw, random=random, outcome=outcome,
                range_note=note if 0 in generated else "", **plan_of)


def _nonpositive(scale: np.ndarray, t: dtypes.DType) -> bool:
    """A model's x_scale holding zero or a negative value: y rests on READING_IEEE (signs of zero), as the family's
    scale_specials (NaN / Inf anywhere: _special)."""
    with np.errstate(invalid="ignore"):
        return bool((ref._values(scale, t) <= 0).any())


# ---------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------
def _x_values(xt: dtypes.DType) -> np.ndarray:
    """The family's values of x's type (module docstring), in order."""
    if xt.bits <= 8:
        return patterns(xt.name)
    if xt.name == "int32":
        beyond = [2**24 + 1, -(2**24) - 3, 2**30 + 7, 123456789, -987654321, xt.int_max, xt.int_min]
        return np.concatenate([wide_values("int32"), arr(beyond, "int32")])
    return wide_values(xt.name)


def _pools(xt, st, stream: Stream, given, x_generated: bool) -> dict:
    """Plausible values: edge scales / zero points (the family's), random ones (POOL each), the int32 x pool."""
    # a computed scale may be +-0 too (the family's scale_specials): what x * 0 folding gets wrong
    scales = list(E8M0_SCALES) if st.name == "float8e8m0" else list(SCALES[st.name]) + [0.0, -0.0]
    zps = [0] if xt.name == "int32" else zero_points(xt.name)
    rand_s = stream.octaves(-8, 8, POOL) * (1 + stream.random(POOL))
    if st.name == "float8e8m0":
        rand_s = np.ldexp(1.0, stream.integers(-20, 20, POOL).astype(np.int32))
    rand_z = np.zeros(POOL) if xt.is_float or xt.name == "int32" else stream.integers(xt.int_min, xt.int_max, POOL)
    pool = {"edge_scale": arr(scales, st.name), "edge_zp": arr(zps, xt.name),
            "scale": arr(np.concatenate([scales, rand_s]), st.name),
            "zp": arr(np.concatenate([zps, rand_z]), xt.name), "given": given}
    if xt.name == "int32" and x_generated:
        lo, hi = (xt.int_min, xt.int_max) if given is None else (
            max(xt.int_min, int(np.ceil(given[0]))), min(xt.int_max, int(np.floor(given[1]))))
        rnd = stream.integers(lo, hi, INT32_POOL) if lo <= hi else np.zeros(0, np.int64)
        pool["int32"] = arr(rnd, "int32")
    return pool


def _choose(values: np.ndarray, shape: tuple, stream: Stream) -> np.ndarray:
    """Elements of shape each taken from values at random."""
    n = int(np.prod(shape, dtype=np.int64))
    return values[stream.integers(0, values.size - 1, n)].reshape(shape) if n else values[:0].reshape(shape)


def _combos(values, generated, shapes, xt, st, pools) -> list[dict]:
    """(scale, zero point) settings of the edges: the model's, or the edge pools paired in turn (cycling)."""
    computed = [j for j in generated if j]
    if not computed:
        return [{j: values[j] for j in values if j}]
    n = max(pools["edge_scale"].size if 1 in computed else 1, pools["edge_zp"].size if 2 in computed else 1)
    out = []
    for i in range(n):
        got = {j: values[j] for j in values if j}
        if 1 in computed:
            got[1] = tile(np.roll(pools["edge_scale"], -i), shapes[1])
        if 2 in computed:
            got[2] = tile(np.roll(pools["edge_zp"], -i), shapes[2])
        out.append(got)
    return out


def _edges(combos, generated, shapes, xt, pools, kw) -> list[list]:
    """The edge data sets: the family's x values at each (scale, zero point) setting, undefined elements apart."""
    x_shape = shapes[0]
    n = max(1, int(np.prod(x_shape, dtype=np.int64)))
    per = max(1, MAX_EDGE_SETS // len(combos))
    out = []
    for got in combos:
        if 0 not in generated:
            out.append([got[j] for j in generated])
            continue
        vals = _x_values(xt)
        if 2 in got and not xt.is_float and xt.bits > 8:  # the values next to each zero point
            z = np.unique(np.asarray(got[2]).astype(np.int64))[:64]
            near = np.clip((z[:, None] + np.arange(-2, 3)).ravel(), xt.int_min, xt.int_max)
            vals = np.concatenate([vals, arr(near, xt.name)])
        if vals.size > per * n and len(combos) > 1:
            vals = vals[np.unique(np.linspace(0, vals.size - 1, per * n).round().astype(np.int64))]
        for x in edge_sets(vals, x_shape)[:per]:
            for part in _apart(x, got, xt, kw):
                got_x = {**got, 0: part}
                out.append([got_x[j] for j in generated])
    return out


def _apart(x: np.ndarray, got: dict, xt, kw) -> list[np.ndarray]:
    """x as one data set, or two: its defined elements (the zero point where it had undefined ones) and its
    undefined ones (the zero point elsewhere), as the family sends a per-tensor x's undefined elements apart."""
    out, _ = ref.dequantize_linear_explained(x, got[1], got.get(2), **kw)
    if out.defined:
        return [x]
    bad = out.mask()
    if bad.all():
        return [x]
    z = got.get(2)
    filler = (np.zeros(x.shape, x.dtype) if z is None else
              np.asarray(ref.expand(z, x.shape, kw["axis"], kw["block_size"])).astype(x.dtype))
    good, rest = x.copy(), filler.copy()
    good[bad] = filler[bad]
    rest[bad] = x[bad]
    return [good, rest]


def _random_x(xt, shape: tuple, stream: Stream, pools: dict) -> np.ndarray:
    """x's random data (module docstring)."""
    n = int(np.prod(shape, dtype=np.int64))
    if "int32" in pools:
        return _choose(pools["int32"], shape, stream) if pools["int32"].size else np.zeros(shape, np.int32)
    given = pools["given"]
    if given is not None:
        lo, hi = float(given[0]), float(given[1])
        if xt.is_float:
            lim = float(xt.finite_max)
            lo, hi = max(lo, -lim), min(hi, lim)
            return arr(lo + (hi - lo) * stream.random(n), xt.name, shape) if lo <= hi else np.zeros(shape, xt.np_dtype)
        lo, hi = max(int(np.ceil(lo)), xt.int_min), min(int(np.floor(hi)), xt.int_max)
        if lo <= hi:
            return arr(stream.integers(lo, hi, n), xt.name, shape)
    x = xt.from_bits(stream.bits(xt.bits, n).astype(xt.bits_dtype)).reshape(shape)
    if xt.is_float:  # NaN patterns as 0, as the family's random cases
        x = np.where(xt.isnan(x), xt.from_bits(np.zeros((), xt.bits_dtype)), x).astype(xt.np_dtype)
    return x


def _draw_x(xt, shape: tuple, stream: Stream, pools: dict, zp: np.ndarray | None) -> np.ndarray:
    """A candidate x where the faults part: any pattern, zero point +-3 (wrap-around and signedness of the
    difference), the type's ends, float8 specials; int32 from its pool."""
    n = int(np.prod(shape, dtype=np.int64))
    if "int32" in pools:
        return _random_x(xt, shape, stream, pools)
    kind = stream.integers(0, 3, n)
    anybits = xt.from_bits(stream.bits(xt.bits, n).astype(xt.bits_dtype)).astype(np.float64) if not xt.is_float \
        else None
    if xt.is_float:
        v = xt.from_bits(stream.bits(xt.bits, n).astype(xt.bits_dtype))
        specials = xt.all_values()
        specials = specials[~np.isfinite(specials.astype(np.float64)) | (np.abs(specials.astype(np.float64)) <
                                                                           float(xt.smallest_normal))]
        s = specials[stream.integers(0, specials.size - 1, n)] if specials.size else v
        top = arr([xt.finite_max, -float(xt.finite_max)], xt.name)[stream.integers(0, 1, n)]
        return np.where(kind == 1, s, np.where(kind == 2, top, v)).astype(xt.np_dtype).reshape(shape)
    z = np.zeros(n) if zp is None else np.asarray(zp, dtype=np.float64).ravel()
    near = np.clip(z + stream.integers(-3, 3, n), xt.int_min, xt.int_max)
    ends = np.array([xt.int_min, xt.int_min + 1, xt.int_max - 1, xt.int_max], np.float64)[stream.integers(0, 3, n)]
    v = np.where(kind == 1, near, np.where(kind == 2, ends, anybits))
    return arr(v, xt.name, shape)


# ---------------------------------------------------------------------------------------
# the comparison's bound
# ---------------------------------------------------------------------------------------
def _bound(values, generated, shapes, xt, st, has_zp, pools, kw) -> int:
    """The largest spread (ulps of the output type) any data set of the case can have (module docstring)."""
    if 0 not in generated and not [j for j in generated if j]:
        out, sp = ref.dequantize_linear_explained(values[0], values[1], values.get(2), **kw)
        return int(sp.max(initial=0))
    if 0 in generated:
        xs = xt.all_values() if xt.bits <= 16 else np.concatenate([_x_values(xt), pools.get("int32", arr([], "int32"))])
    else:
        xs = np.unique(np.asarray(values[0]).ravel())
    scales = values[1].ravel() if 1 in values else pools["scale"]
    zps = (values[2].ravel() if 2 in values else pools["zp"]) if has_zp else None
    if 1 in values and (zps is None or 2 in values):  # the model's pairs, element by element
        keys = st.to_bits(scales).astype(np.int64)[:, None]
        if zps is not None:
            keys = np.concatenate([keys, xt.to_bits(zps).astype(np.int64)[:, None]], axis=1)
        _, first = np.unique(keys, axis=0, return_index=True)
        s_list, z_list = scales[first], None if zps is None else zps[first]
    else:  # every scale with every zero point of the pools (or the model's)
        zz = zps if zps is not None else np.zeros(1)
        s_list = np.repeat(scales, zz.size)
        z_list = None if zps is None else np.tile(zps, scales.size)
    most = max(1, SPREAD_ELEMENTS // max(1, xs.size))
    if s_list.size > most:
        keep = np.unique(np.linspace(0, s_list.size - 1, most).round().astype(np.int64))
        s_list, z_list = s_list[keep], None if z_list is None else z_list[keep]
    grid = np.broadcast_to(xs.reshape(1, -1), (s_list.size, xs.size))
    opts = dict(kw, axis=0, block_size=0, opset=max(kw["opset"], 13))
    _, sp = ref.dequantize_linear_explained(np.ascontiguousarray(grid), s_list.astype(st.np_dtype),
                                            None if z_list is None else z_list.astype(xt.np_dtype), **opts)
    return int(sp.max(initial=0))
