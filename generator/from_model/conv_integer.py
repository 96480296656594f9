"""A model's ConvInteger node as a case (generator/from_model/plan.py), as onnxruntime's quantize_dynamic writes it
for a Conv: x uint8 computed by DynamicQuantizeLinear with its x_zero_point computed there too (a uint8 scalar, so
generated), w the model's int8 / uint8 weights, w_zero_point the model's (a scalar, or per output channel); either
zero point may be omitted; the attributes as written. Expected outputs from generator/reference/conv_integer.py;
params, clause and compare the family's (generator/families/conv_integer: CI.params(), CLAUSE, COMPARE).

x's edge data sets, for THIS node's weights and zero points (after the family's own data, data.py):
  zero point  x = x_zero_point everywhere: every sum 0, and a padded tap adds nothing only if the padding holds
              x_zero_point (conv_integer.padding_zero: READING_PADDING)
  type ends   x at the bottom, then the top of its type (raw u8 x s8 pairs beyond int16 where the weights are large;
              the padding's value at the borders); a computed x_zero_point at each end of its type, x at the far end
  far         the receptive field of the first output position of the channel with the largest sum of |w - w_zp|
              set tap by tap to the end of x's range that makes the product greatest, then least, x_zero_point
              elsewhere: the greatest and least sums the weights reach (beyond int16; the products beyond int16 where
              the weights allow)
The draw mixes x's ends, values next to its zero point and uniform ones (and a computed x_zero_point drawn); the
random data sets are uniform over x's range (--calibration's range of x's tensor, else the whole type). A w another
node computes is uniform over its type; a computed w_zero_point at the middle of its type, then drawn.
"""

from __future__ import annotations

import itertools
from math import ceil, floor

import numpy as np

from generator.families.conv_integer.spec import CI, CLAUSE, COMPARE, FAMILY
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.interpret import decode_attribute
from generator.reference import conv_integer as ref
from generator.sampling import Stream, case_seed

OPS = (("", "ConvInteger"),)
NAMES = ref.NAMES
_X, _W, _XZ, _WZ = range(4)


def _form(shape: tuple | None, m: int, w: bool) -> str:
    """A zero point's form as the family's params name it (CI.x_zp / CI.w_zp)."""
    if shape is None:
        return "absent"
    if shape == ():
        return "tensor"
    if shape == (1,) and (not w or m != 1):
        return "one"
    return "channel"


def plan(site: Site, ctx: Context) -> Plan | str:
    """The case of one ConvInteger node, or why the node is not covered (an invalid node, an unknown type)."""
    if site.opset is None or site.opset < ref.OPSET:
        return f"ConvInteger needs ai.onnx opset >= {ref.OPSET}; the model imports {site.opset}"
    ins = site.inputs
    if not 2 <= len(ins) <= 4 or any(op.origin == "absent" for op in ins[:2]):
        return "the model's node is invalid: ConvInteger takes x, w and up to two zero points"
    present = [j for j, op in enumerate(ins) if op.origin != "absent"]
    for j in present:
        if ins[j].type is None or ins[j].shape is None:
            return f"{NAMES[j]} ({ins[j].name!r}): the model leaves its element type or shape unknown"
    types = [ins[j].type if j in present else None for j in range(4)]
    consts = {j: ins[j].value() for j in present if ins[j].constant}
    shapes = [(tuple(consts[j].shape) if j in consts else tuple(ins[j].shape)) if j in present else None
              for j in range(4)]
    attrs = {a.name: decode_attribute(a) for a in site.node.attribute}
    attrs = {k: v for k, v in ((k, attrs.get(k)) for k in ("auto_pad", "pads", "strides", "dilations", "group",
                                                           "kernel_shape")) if v is not None}
    try:
        ref.validate(attrs, site.opset, types[:len(ins)], [None if s is None else len(s) for s in shapes])
        ref.check_shapes(shapes[_X], shapes[_W], shapes[_XZ], shapes[_WZ], attrs)
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    m = shapes[_W][0]
    ci = CI("model", shapes[_X], shapes[_W][2:], m, attrs, (types[_X].name, types[_W].name),
            _form(shapes[_XZ], m, False), _form(shapes[_WZ], m, True), "model", site.opset)
    readings = tuple(ref.readings(attrs, shapes[_X], shapes[_W], (ci.x_zp, ci.w_zp)))

    def outcome(args):
        full = list(args) + [None] * (4 - len(args))
        return ref.conv_integer(*full[:4], **attrs), readings

    gen = _Inputs(site, ctx, types, shapes, consts, attrs)
    if not gen.generated:
        return Plan(FAMILY.name, ci.params(), CLAUSE, COMPARE, [], [[]], None, None, outcome)
    draw = gen.draw if _X in gen.generated else None
    return Plan(FAMILY.name, ci.params(), CLAUSE, COMPARE, gen.generated, gen.edges(), draw, gen.random, outcome,
                range_note=gen.note)


class _Inputs:
    """The data of the node's generated inputs: the model's constants, plausible values for the others, and x built
    for the configuration's edges."""

    def __init__(self, site: Site, ctx: Context, types: list, shapes: list, consts: dict, attrs: dict):
        ins = site.inputs
        self.types, self.shapes, self.consts, self.attrs = types, shapes, consts, attrs
        self.generated = [j for j in range(len(ins)) if ins[j].origin != "absent" and j not in consts]
        self.edge_stream = Stream(case_seed(0, f"conv_integer edges {site.name}"))
        xt = types[_X]
        self.lo, self.hi, self.note = xt.int_min, xt.int_max, f"the whole {xt.name} range"
        given = ctx.range(ins[_X].name)
        if given is not None and ceil(given[0]) <= floor(given[1]):
            self.lo = max(xt.int_min, min(xt.int_max, ceil(given[0])))
            self.hi = min(xt.int_max, max(self.lo, floor(given[1])))
            self.note = "calibration"

    def values(self, stream: Stream | None, zp_end: int | None = None) -> list:
        """x (None), w and the zero points (None where absent): the model's constants, plausible values for the rest
        (stream None: the edges' own; zp_end 0 / 1: a computed x_zero_point at the bottom / top of its type)."""
        vals: list = [self.consts.get(j) for j in range(4)]
        s = stream or self.edge_stream
        for j in (_W, _XZ, _WZ):
            if j not in self.generated:
                continue
            t, shape = self.types[j], self.shapes[j]
            if j == _W:
                vals[j] = s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
            elif j == _XZ and zp_end is not None:
                vals[j] = np.full(shape, (t.int_min, t.int_max)[zp_end], t.np_dtype)
            elif stream is None:
                vals[j] = np.full(shape, (t.int_min + t.int_max + 1) // 2, t.np_dtype)
            else:
                vals[j] = stream.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
        return vals

    def data_set(self, x: np.ndarray | None, vals: list) -> list:
        return [x if j == _X else vals[j] for j in self.generated]

    def _xz(self, vals: list) -> int:
        return 0 if vals[_XZ] is None else int(np.asarray(vals[_XZ]).reshape(-1)[0])

    def random(self, stream: Stream) -> list:
        vals = self.values(stream)
        t = self.types[_X]
        x = stream.integers(self.lo, self.hi, self.shapes[_X], dtype=t.np_dtype) if _X in self.generated else None
        return self.data_set(x, vals)

    def edges(self) -> list:
        if _X not in self.generated:
            return [self.data_set(None, self.values(None))]
        t = self.types[_X]
        vals = self.values(None)
        shape = self.shapes[_X]
        out = [self.data_set(np.full(shape, self._xz(vals), t.np_dtype), vals)]
        out += [self.data_set(np.full(shape, v, t.np_dtype), vals) for v in (self.lo, self.hi)]
        out += [self.data_set(self._far(vals, sign), vals) for sign in (1, -1)]
        if _XZ in self.generated:  # a computed x_zero_point at each end of its type, x at the other
            for end in (0, 1):
                at = self.values(None, end)
                out.append(self.data_set(np.full(shape, (t.int_max, t.int_min)[end], t.np_dtype), at))
        return out

    def _far(self, vals: list, sign: int) -> np.ndarray:
        """x = x_zero_point but on the receptive field of output position 0 of the channel whose |w - w_zp| sums
        most, each tap at the end of x's range that gives the product sign * the greatest magnitude."""
        t = self.types[_X]
        xz = self._xz(vals)
        x = np.full(self.shapes[_X], xz, np.int64)
        w = np.asarray(vals[_W]).astype(np.int64)
        wz = np.zeros(w.shape[0], np.int64) if vals[_WZ] is None else \
            np.broadcast_to(np.asarray(vals[_WZ]).astype(np.int64).reshape(-1), (w.shape[0],))
        coef = w - wz.reshape((-1,) + (1,) * (w.ndim - 1))
        if coef.size == 0 or x.size == 0:
            return x.astype(t.np_dtype)
        m = int(np.abs(coef).reshape(coef.shape[0], -1).sum(1).argmax())
        begin, _, _, strides, dilations = ref.geometry(self.shapes[_X], w.shape, self.attrs)
        group = int(self.attrs.get("group", 1))
        cg = w.shape[1]
        c0 = (m // (w.shape[0] // group)) * cg
        for c in range(cg):
            for k in itertools.product(*(range(v) for v in w.shape[2:])):
                pos = tuple(ki * d - b for ki, d, b in zip(k, dilations, begin))
                if all(0 <= p < n for p, n in zip(pos, self.shapes[_X][2:])):
                    want = sign * coef[(m, c) + k]
                    x[(0, c0 + c) + pos] = self.hi if want > 0 else self.lo if want < 0 else xz
        return x.astype(t.np_dtype)

    def draw(self, stream: Stream) -> list:
        """One candidate: x mixing its ends, values next to its zero point and uniform ones."""
        vals = self.values(stream) if stream.booleans() else self.values(None)
        t, shape = self.types[_X], self.shapes[_X]
        xz = self._xz(vals)
        pool = np.array(sorted({self.lo, self.hi, xz, max(t.int_min, xz - 1), min(t.int_max, xz + 1)}), np.int64)
        picks = stream.integers(0, len(pool) - 1, shape)
        uniform = stream.integers(self.lo, self.hi, shape)
        keep = stream.integers(0, 2, shape) == 0
        x = np.where(keep, uniform, pool[picks]).astype(t.np_dtype)
        return self.data_set(x, vals)
