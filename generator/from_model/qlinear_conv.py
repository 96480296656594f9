"""A model's QLinearConv node as a case (generator/from_model/plan.py), as onnxruntime's quantize_static (QOperator
format) writes it: x uint8 / int8 with its x_scale / x_zero_point, a constant w (int8 or uint8; w_scale /
w_zero_point per tensor or per output channel), y_scale / y_zero_point, an optional int32 B, the attributes as
written. Expected outputs from generator/reference/qlinear_conv.py; params, clause and compare the family's
(generator/families/qlinear_conv: Conv.params(), CLAUSE, COMPARE).

x's edge data sets, for THIS node's weights, scales and zero points:
  whole      x = x_zero_point everywhere (acc = B: the zero point and the bias clause; a padded position holds
             x_zero_point), x at its type's minimum and at its maximum everywhere (the ends; raw u8 x s8 pairs
             beyond int16 where the weights are large)
  targeted   x solved, on the taps of one output position, for an exact accumulator of one output channel
             (the model's w, greedy over the largest weights, the remainder by extended Euclid): for every
             requantization fault model (generator/reference/requantize_variants.py) accumulators where it
             rounds otherwise than the reference (the reachable unsaturated accumulators scanned for those near a
             tie, exact ties acc * c = j + 1/2 where the multiplier c = x_scale * w_scale / y_scale makes them
             reachable), the largest and smallest accumulator and those at the saturation boundary (y at the
             type's end and one past it) of the channel tail's last channel and of the two that saturate most,
             then the accumulators nearest a tie. Each target sits at its own output position (receptive fields
             disjoint), the last output column first (the vector-tail faults' scalar remainder), x_zero_point
             elsewhere; MAX_TARGET_SETS data sets at most.
The draw (nodes of at most SEARCH_MACS multiply-adds): x uniform over the type, within 3 of its zero point or at
its ends, with one to four targets (or other accumulators near a tie) at random positions; where another node
computes a scale, zero point, w or B, new plausible values of them half the time (no targets then). The random
data: x uniform over its calibration range (--calibration, in x's own quantized values), else over its whole
type, as the family draws its inputs. Inputs that another node computes get plausible values: scales positive
float32 (powers of two in the edges, so that ties exist; y_scale, else x_scale, else w_scale set from the
accumulators so that y spreads over its type), zero points inside their type (its middle in the edges), w
uniform over its type, B within +-4096.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import isfinite

import numpy as np

from generator import dtypes
from generator.families.qlinear_conv.conv import CLAUSE, COMPARE, FAMILY, NAMES, OPSET
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.interpret import decode_attribute
from generator.reference import qlinear_conv as ref
from generator.reference.requantize import multiplier
from generator.reference.requantize_variants import REQUANT_FAULTS, _requantize
from generator.sampling import Stream, case_seed

OPS = (("", "QLinearConv"),)
_X, _XS, _XZ, _W, _WS, _WZ, _YS, _YZ, _B = range(9)
_INT8 = ("int8", "uint8")
SCAN_BUDGET = 1 << 23  # accumulators scanned per node for the requantization faults, over all channels
NEAR = 2.0**-12  # distance to a tie within which a scanned accumulator is looked at (float32 errs by < 2**-14)
_CHUNK = 1 << 20
MAX_CHANNELS = 24  # distinct multipliers scanned at most (the channel tail's, and others evenly spread)
MAX_TARGET_SETS = 4  # targeted edge data sets at most
PER_HOW = 2  # targets kept per requantization fault model
NEAR_TARGETS = 8  # the accumulators nearest a tie among the targets (the draws pick from the rest)
# the witness search (node_cases.SEARCH_DRAWS candidates, each run by every fault still untold) is given a draw
# only where one convolution costs at most this many multiply-adds: on a larger node the faults left untold by the
# edges are those that cannot differ there, and 64 draws of them would take minutes per node
SEARCH_MACS = 1 << 23
_HOWS = tuple(how for _, how, _ in REQUANT_FAULTS)


@dataclass
class Conv:
    """One configuration of the node: its attributes resolved and every input but x as numbers."""
    xt: dtypes.DType
    wt: dtypes.DType
    yt: dtypes.DType
    x_shape: tuple
    w: np.ndarray  # int64
    xs: float
    xz: int
    ws: np.ndarray  # float32, M values
    wz: np.ndarray  # int64, M values
    ys: float
    yz: int
    b: np.ndarray  # int64, M values (zeros where B is omitted)
    group: int
    begin: list
    out: list
    strides: list
    dilations: list

    @property
    def m(self) -> int:
        return self.w.shape[0]

    def coef(self, m: int) -> np.ndarray:
        """w[m] - w_zero_point[m]: channel m's weights as the accumulator sees them (C / group, *kernel)."""
        return self.w[m] - self.wz[m]

    def mult(self, m: int) -> tuple[int, int]:
        return multiplier(self.xs, float(self.ws[m]), self.ys)


def plan(site: Site, ctx: Context) -> Plan | str:
    """The case of one QLinearConv node, or why the family cannot take it."""
    if site.opset is None or site.opset < OPSET:
        return f"QLinearConv needs ai.onnx opset >= {OPSET}; the model imports {site.opset}"
    ins = list(site.inputs) + [None] * (9 - len(site.inputs))
    if len(site.inputs) > 9 or any(op is None or op.origin == "absent" for op in ins[:8]):
        return "the model's node is invalid: QLinearConv takes 8 inputs and an optional B"
    present = [j for j in range(9) if ins[j] is not None and ins[j].origin != "absent"]
    why = _types(ins, present)
    if why:
        return why
    for j in present:
        if ins[j].shape is None and (not ins[j].constant or j == _X):
            return f"{NAMES[j]} ({ins[j].name!r}): the model leaves its shape unknown"
    values = {j: ins[j].value() for j in present if ins[j].constant}
    shapes = [tuple(values[j].shape) if j in values else tuple(ins[j].shape) if j in present else None
              for j in range(9)]
    attrs = {a.name: decode_attribute(a) for a in site.node.attribute}
    try:
        ref.qlinear_conv_check(shapes, attrs, site.opset)
        geom = _geometry(shapes[_X], shapes[_W], attrs)
    except (ValueError, TypeError) as exc:
        return f"the model's node is invalid: {exc}"
    generated = [j for j in present if j not in values]
    others = [j for j in generated if j != _X]
    seed = case_seed(0, f"from_model {site.name}")
    fixed = _fill(values, others, shapes, ins, geom, Stream(seed), exact=True)
    cfg = _conv(fixed, ins, shapes[_X], geom)
    params = _params(cfg, shapes, attrs, _B in present)
    kw = dict(y_type=cfg.yt, auto_pad=attrs.get("auto_pad", "NOTSET"), dilations=attrs.get("dilations"),
              group=cfg.group, kernel_shape=attrs.get("kernel_shape"), pads=attrs.get("pads"),
              strides=attrs.get("strides"))
    readings = tuple(ref.readings(kw["auto_pad"], kw["dilations"]))

    def outcome(args):
        return ref.qlinear_conv(*args[:8], args[8] if len(args) > 8 else None, **kw), readings

    def as_set(vals: dict, x: np.ndarray | None) -> list:
        return [x if j == _X else vals[j] for j in generated]

    if _X not in generated:  # x held by the model: the other computed inputs are all there is to vary
        if not generated:
            return Plan(FAMILY.name, params, CLAUSE, COMPARE, [], [[]], None, None, outcome)
        def redraw(stream: Stream) -> list:
            return as_set(_fill(values, others, shapes, ins, geom, stream, exact=False), None)
        return Plan(FAMILY.name, params, CLAUSE, COMPARE, generated, [as_set(fixed, None)], redraw, redraw, outcome)
    lo, hi, note = _range(ctx, ins[_X].name, cfg.xt)
    scales = [cfg.xs, cfg.ys] + cfg.ws.tolist()
    # a scale that is no positive number leaves y undefined (the probe): no accumulator to aim at
    pool, targets = _targets(cfg) if all(v > 0 and isfinite(v) for v in scales) else ([], [])
    whole = [np.full(cfg.x_shape, v, cfg.xt.np_dtype) for v in (cfg.xz, cfg.xt.int_min, cfg.xt.int_max)]
    edges = [as_set(fixed, x) for x in whole + _targeted(cfg, targets)]

    def random(stream: Stream) -> list:
        vals = _fill(values, others, shapes, ins, geom, stream, exact=False) if others else fixed
        x = stream.integers(lo, hi, cfg.x_shape, dtype=cfg.xt.np_dtype)
        return as_set(vals, x)

    def draw(stream: Stream) -> list:
        if others and stream.booleans():
            return random(stream)
        x = _background(cfg, stream)
        chosen = [pool[i] for i in stream.integers(0, len(pool) - 1, stream.integers(1, 4)).tolist()] if pool else []
        _place(cfg, x, chosen, np.zeros(cfg.x_shape, bool), stream)
        return as_set(fixed, x.astype(cfg.xt.np_dtype))

    macs = cfg.x_shape[0] * int(np.prod(cfg.out)) * cfg.w.size
    return Plan(FAMILY.name, params, CLAUSE, COMPARE, generated, edges, draw if macs <= SEARCH_MACS else None, random,
                outcome, range_note=note)


def _types(ins: list, present: list[int]) -> str | None:
    """Why the element types are none the family implements (T1 / T2 / T3 8-bit, scales float, B int32)."""
    want = {_XS: ("float",), _WS: ("float",), _YS: ("float",), _B: ("int32",)}
    for j in present:
        t = ins[j].type
        if t is None:
            return f"{NAMES[j]} ({ins[j].name!r}): the model leaves its element type unknown"
        if t.name not in want.get(j, _INT8):
            return f"{NAMES[j]} is {t.name}: QLinearConv-10 takes {' or '.join(want.get(j, _INT8))}"
    for a, b in ((_X, _XZ), (_W, _WZ)):
        if ins[a].type.name != ins[b].type.name:
            return f"the model's node is invalid: {NAMES[a]} is {ins[a].type.name}, {NAMES[b]} {ins[b].type.name}"
    return None


def _geometry(x_shape: tuple, w_shape: tuple, attrs: dict) -> tuple:
    """(group, begin pads, end pads, output spatial shape, strides, dilations) of the node (ValueError: invalid)."""
    nd = len(w_shape) - 2
    strides = [int(s) for s in attrs.get("strides") or [1] * nd]
    dilations = [int(d) for d in attrs.get("dilations") or [1] * nd]
    if min(strides + dilations, default=1) < 1:
        raise ValueError(f"strides {strides} and dilations {dilations} must be >= 1")
    begin, end, out = ref.resolve_padding(x_shape[2:], tuple(w_shape[2:]), strides, dilations,
                                          attrs.get("auto_pad", "NOTSET"), attrs.get("pads"))
    if min(out, default=1) < 1:
        raise ValueError(f"the dilated kernel is larger than the padded input (output {out})")
    return int(attrs.get("group", 1)), begin, end, out, strides, dilations


def _conv(vals: dict, ins: list, x_shape: tuple, geom: tuple) -> Conv:
    group, begin, _, out, strides, dilations = geom
    w = np.asarray(vals[_W]).astype(np.int64)
    m = w.shape[0]
    b = np.asarray(vals[_B]).astype(np.int64).reshape(-1) if _B in vals else np.zeros(m, np.int64)
    return Conv(ins[_X].type, ins[_W].type, ins[_YZ].type, tuple(x_shape), w, _scalar(vals[_XS], float),
                _scalar(vals[_XZ], int), np.broadcast_to(np.asarray(vals[_WS], np.float32).reshape(-1), (m,)),
                np.broadcast_to(np.asarray(vals[_WZ]).astype(np.int64).reshape(-1), (m,)),
                _scalar(vals[_YS], float), _scalar(vals[_YZ], int), b, group, begin, out, strides, dilations)


def _scalar(v, kind):
    return kind(np.asarray(v).reshape(-1)[0])


def _params(cfg: Conv, shapes: list, attrs: dict, bias: bool) -> dict:
    """case.json "params" in the family's form (Conv.params(): qlinear_conv_faults.group_key reads it)."""
    sizes = [int(np.prod(shapes[j], dtype=np.int64)) for j in (_WS, _WZ)]
    per = "no" if max(sizes) <= 1 else "zero_point" if np.unique(cfg.wz).size > 1 else "scale"
    p = {"x_shape": list(shapes[_X]), "w_shape": list(shapes[_W]), "x_type": cfg.xt.name, "w_type": cfg.wt.name,
         "y_type": cfg.yt.name, "bias": "model" if bias else "absent", "per_channel": per, "scales": "model"}
    p.update({k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in attrs.items()
              if k in ("auto_pad", "pads", "strides", "dilations", "group", "kernel_shape")})
    return p


def _range(ctx: Context, name: str, t: dtypes.DType) -> tuple[int, int, str]:
    given = ctx.range(name)
    if given is not None:
        lo, hi = max(t.int_min, int(np.ceil(given[0]))), min(t.int_max, int(np.floor(given[1])))
        if lo <= hi:
            return lo, hi, "calibration"
    return t.int_min, t.int_max, f"x's whole type ({t.name}), as the family draws its inputs"


def _fill(values: dict, others: list[int], shapes: list, ins: list, geom: tuple, s: Stream, exact: bool) -> dict:
    """values, with each input in `others` given a plausible value of its declared type and shape (module
    docstring); exact: the edges' values (powers of two, middle zero points), else drawn. Of the computed scales,
    y_scale (else x_scale, else w_scale) is set from the accumulators, so that y spreads over its type."""
    vals = dict(values)
    for j in (_XZ, _W, _WZ, _YZ, _B):
        if j in others:
            t, shape = ins[j].type, tuple(shapes[j])
            if j == _B:
                vals[j] = s.integers(-4096, 4096, shape, dtype=np.int32)
            elif j == _W or not exact:
                vals[j] = s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
            else:
                vals[j] = np.full(shape, (t.int_min + t.int_max + 1) // 2, t.np_dtype)
    scales = [j for j in (_XS, _WS, _YS) if j in others]
    free = next((j for j in (_YS, _XS, _WS) if j in scales), None)
    for j in scales:
        if j != free:
            shape = tuple(shapes[j])
            lo, hi = (-9, -5) if j == _XS else (-10, -6) if j == _WS else (-8, -2)
            v = np.ldexp(1.0, s.integers(lo, hi, shape)) if exact else s.octaves(lo, hi, shape if shape else 1)
            vals[j] = np.asarray(v, np.float32).reshape(shape)
    if free is not None:
        vals[free] = _balanced(free, vals, ins, shapes, geom, s, exact)
    return vals


def _balanced(j: int, vals: dict, ins: list, shapes: list, geom: tuple, s: Stream, exact: bool) -> np.ndarray:
    """The scale j that makes x_scale * w_scale / y_scale = target / spread: spread the accumulators' typical
    size (95th percentile of |acc| on x uniform over its type), target 60 .. 250 output steps (128 and a power of
    two in the edges)."""
    group, begin, end, out, strides, dilations = geom
    xt = ins[_X].type
    x = vals[_X] if _X in vals else s.integers(xt.int_min, xt.int_max, tuple(ins[_X].shape), dtype=xt.np_dtype)
    acc, _ = ref.accumulate(np.asarray(x), _scalar(vals[_XZ], int), np.asarray(vals[_W]),
                            np.asarray(vals[_WZ]).reshape(-1), group, begin, end, out, strides, dilations)
    c = (128.0 if exact else s.uniform(60, 250)) / max(1.0, float(np.percentile(np.abs(acc), 95)))
    xs = _scalar(vals[_XS], float) if j != _XS else 1.0
    ws = float(np.max(vals[_WS])) if j != _WS else 1.0
    ys = _scalar(vals[_YS], float) if j != _YS else 1.0
    v = xs * ws / c if j == _YS else c * ys / (xs * ws)
    if exact:
        v = 2.0 ** round(np.log2(v))
    return np.full(tuple(shapes[j]), v, np.float32)


def _channels(cfg: Conv) -> list[int]:
    """The output channels enumerated: one per distinct multiplier (its last channel: the channel tail's), all
    of them or the channel tail (the last M % 8) and others spread, MAX_CHANNELS at most."""
    reps = sorted({cfg.mult(m): m for m in range(cfg.m)}.values())
    if len(reps) <= MAX_CHANNELS:
        return reps
    tail = [m for m in reps if m >= cfg.m - cfg.m % 8]
    rest = [reps[i] for i in np.linspace(0, len(reps) - 1, MAX_CHANNELS - len(tail)).round().astype(int).tolist()]
    return sorted(set(tail + rest))


def _reach(cfg: Conv, m: int) -> tuple[int, int]:
    """The smallest and largest accumulator (B included) of channel m over a full receptive field, in int32."""
    c = cfg.coef(m)
    dlo, dhi = cfg.xt.int_min - cfg.xz, cfg.xt.int_max - cfg.xz
    lo = int(np.where(c > 0, c * dlo, c * dhi).sum()) + int(cfg.b[m])
    hi = int(np.where(c > 0, c * dhi, c * dlo).sum()) + int(cfg.b[m])
    return max(lo, ref.INT32_MIN), min(hi, ref.INT32_MAX)


def _candidates(cfg: Conv, m: int, budget: int) -> np.ndarray:
    """Accumulators of channel m to look at: both ends, the saturation boundaries, exact ties, and of the reachable
    unsaturated ones (all, or the `budget` nearest the saturation boundaries) those within NEAR of a tie, where
    a float or fixed-point requantization can round otherwise."""
    a0, a1 = _reach(cfg, m)
    num, den = cfg.mult(m)
    c = num / den
    lo, hi = cfg.yt.int_min - cfg.yz, cfg.yt.int_max - cfg.yz
    # the first saturated accumulators (clamped: a tiny multiplier saturates nothing in int32)
    top = min(int(np.ceil((hi + 0.5) / c)), ref.INT32_MAX + 1)
    bottom = max(int(np.floor((lo - 0.5) / c)), ref.INT32_MIN - 1)
    i0, i1 = max(a0, bottom), min(a1, top)
    parts = [np.array([a0, a1, top - 1, top, top + 1, bottom - 1, bottom, bottom + 1], np.int64)]
    if i0 <= i1:
        spans = [(i0, i1)] if i1 - i0 < budget else [(i1 - budget // 2 + 1, i1), (i0, i0 + budget // 2 - 1)]
        for s0, s1 in spans:
            for start in range(s0, s1 + 1, _CHUNK):
                acc = np.arange(start, min(s1, start + _CHUNK - 1) + 1, dtype=np.int64)
                est = acc * c  # float64: within 2**-20 of the exact value for |v| < 2**30
                parts.append(acc[np.abs(est - np.floor(est) - 0.5) < NEAR])
        if den % 2 == 0:  # acc * num / den = j + 1/2 exactly where acc is an odd multiple of den / 2
            h = den // 2
            k0, k1 = -((h - i0) // (2 * h)), (i1 - h) // (2 * h)
            ks = np.arange(k0, k1 + 1, dtype=np.int64) if k1 - k0 < 256 else np.unique(np.concatenate(
                [np.arange(k0, k0 + 32), np.arange(k1 - 31, k1 + 1), np.arange(-32, 32)]).clip(k0, k1))
            parts.append((2 * ks + 1) * h)
    v = np.unique(np.concatenate(parts))
    return v[(v >= a0) & (v <= a1)]


def _targets(cfg: Conv) -> tuple[list, list]:
    """(pool, targets): (channel, accumulator) pairs; targets those the edges place (per requantization fault
    PER_HOW where it rounds otherwise, then each channel's ends and saturation boundary), pool those the draws
    pick from (those, and the enumerated accumulators nearest a tie)."""
    chans = _channels(cfg)
    budget = max(1024, SCAN_BUDGET // len(chans))
    tail = set(range(cfg.m - cfg.m % 8, cfg.m)) if cfg.m >= 8 else set(range(cfg.m))
    found: dict[str, list] = {how: [] for how in _HOWS}
    near, ends = [], []
    for m in chans:
        acc = _candidates(cfg, m, budget)
        if not acc.size:
            continue
        a = acc.reshape(1, 1, -1)
        bound = int(np.abs(acc).max())
        args = (bound, cfg.xs, [float(cfg.ws[m])], cfg.ys, cfg.yz, cfg.yt)
        exact = _requantize(a, *args, "exact").reshape(-1)
        for how in _HOWS:
            diff = np.flatnonzero(_requantize(a, *args, how).reshape(-1) != exact)
            found[how] += [(m in tail, m, int(acc[i])) for i in diff[:PER_HOW].tolist() + diff[-PER_HOW:].tolist()]
        num, den = cfg.mult(m)
        est = acc * (num / den)
        frac = np.abs(est - np.floor(est) - 0.5)  # float64: a ranking, not a proof
        near += [(float(frac[i]), m, int(acc[i])) for i in np.argsort(frac, kind="stable")[:4].tolist()]
        a0, a1 = _reach(cfg, m)
        top, bottom = int(np.ceil((cfg.yt.int_max - cfg.yz + 0.5) * den / num)), \
            int(np.floor((cfg.yt.int_min - cfg.yz - 0.5) * den / num))
        ends.append([(m, a1), (m, a0)] + [(m, v) for v in (top - 1, top, bottom, bottom + 1) if a0 <= v <= a1])
    targets = []
    for how in _HOWS:  # tail channels first (the channel-tail faults), distinct channels
        seen = set()
        for _, m, v in sorted(found[how], key=lambda t: (not t[0], t[1])):
            if m not in seen and len(seen) < PER_HOW:
                seen.add(m)
                targets.append((m, v))
    # the ends of the last channel (the channel tail's) and of the two that saturate most
    most = sorted(ends, key=lambda e: -max(abs(v) * cfg.mult(m)[0] / cfg.mult(m)[1] for m, v in e[:2]))
    targets += [t for e in ([ends[-1]] if ends else []) + most[:2] for t in e]
    near = [(m, v) for _, m, v in sorted(near)]  # the nearest a tie first: where an unmodelled arithmetic errs
    targets = list(dict.fromkeys(targets + near[:NEAR_TARGETS]))
    pool = list(dict.fromkeys(targets + near + [t for e in ends for t in e[:2]]))
    return pool, targets


def _targeted(cfg: Conv, targets: list) -> list[np.ndarray]:
    """Data sets holding the targets, each at its own output position; at most MAX_TARGET_SETS."""
    sets, left = [], list(targets)
    while left and len(sets) < MAX_TARGET_SETS:
        x = np.full(cfg.x_shape, cfg.xz, np.int64)
        placed = _place(cfg, x, left, np.zeros(cfg.x_shape, bool), None)
        if not placed:
            break
        sets.append(x.astype(cfg.xt.np_dtype))
        left = [t for i, t in enumerate(left) if i not in placed]
    return sets


def _place(cfg: Conv, x: np.ndarray, targets: list, used: np.ndarray, stream: Stream | None) -> set[int]:
    """Write into x, for each target (channel, acc) that fits, the taps of a free output position solved for that
    accumulator; stream None: positions in order, the last output column first; else random ones. Returns the
    indices of the targets placed."""
    positions = _positions(cfg)
    placed, unsolvable = set(), set()
    cg, lo, hi = cfg.w.shape[1], cfg.xt.int_min - cfg.xz, cfg.xt.int_max - cfg.xz
    for i, (m, acc) in enumerate(targets):
        g = m // (cfg.m // cfg.group)
        order = range(len(positions)) if stream is None else stream.integers(0, len(positions) - 1, 16).tolist()
        for k in order:
            n, p = positions[k]
            taps = _axis_taps(cfg, p)
            key = (m, tuple(tuple(offsets.tolist()) for offsets, _ in taps))
            if key in unsolvable:
                continue
            box = (np.full((1,) * (len(p) + 1), n),) + np.ix_(np.arange(g * cg, (g + 1) * cg), *[ix for _, ix in taps])
            if used[box].any():
                continue
            d = _solve(cfg.coef(m)[np.ix_(np.arange(cg), *[offsets for offsets, _ in taps])].reshape(-1), lo, hi,
                       acc - int(cfg.b[m]))
            if d is None:  # no x on these taps makes that accumulator
                unsolvable.add(key)
                continue
            x[box] = cfg.xz + d.reshape(x[box].shape)
            used[box] = True
            placed.add(i)
            break
    return placed


def _positions(cfg: Conv) -> list:
    """(batch, output position) pairs, the last output column first."""
    order = sorted(np.ndindex(*cfg.out), key=lambda p: p[-1] != cfg.out[-1] - 1)  # stable: raster order kept
    return [(n, p) for p in order for n in range(cfg.x_shape[0])]


def _axis_taps(cfg: Conv, p: tuple) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per spatial axis: (kernel offsets inside the input, the input indices they read) of output position p."""
    out = []
    for a, (pa, s, b, d) in enumerate(zip(p, cfg.strides, cfg.begin, cfg.dilations)):
        k = np.arange(cfg.w.shape[2 + a])
        idx = pa * s - b + k * d
        ok = (idx >= 0) & (idx < cfg.x_shape[2 + a])
        out.append((k[ok], idx[ok]))
    return out


def _solve(coef: np.ndarray, lo: int, hi: int, target: int) -> np.ndarray | None:
    """Integers d in [lo, hi] with sum(coef * d) == target, or None: greedy over the largest |coef| first, the
    remainder taken up by one tap or a pair (extended Euclid) among the smallest."""
    coef = [int(c) for c in coef]
    d = [0] * len(coef)
    res = int(target)
    order = sorted((t for t in range(len(coef)) if coef[t]), key=lambda t: -abs(coef[t]))
    for t in order:
        if res == 0:
            break
        v = min(hi, max(lo, round(res / coef[t])))
        d[t], res = v, res - v * coef[t]
    small = order[::-1][:24] if res else []
    for t in small:
        if res % coef[t] == 0 and lo <= d[t] + res // coef[t] <= hi:
            d[t] += res // coef[t]
            return np.array(d, np.int64)
    for i in small:
        for j in small:
            if j <= i:
                continue
            u = _pair(coef[i], coef[j], res, (lo - d[i], hi - d[i]), (lo - d[j], hi - d[j]))
            if u is not None:
                d[i] += u[0]
                d[j] += u[1]
                return np.array(d, np.int64)
    return np.array(d, np.int64) if res == 0 else None


def _pair(a: int, b: int, r: int, ru: tuple, rv: tuple) -> tuple[int, int] | None:
    """(u, v) with a u + b v = r, u in ru, v in rv (closed ranges), or None."""
    g, x0, y0 = _egcd(a, b)
    if r % g:
        return None
    u0, v0, bs, as_ = x0 * (r // g), y0 * (r // g), b // g, a // g
    # u = u0 + k bs in ru and v = v0 - k as_ in rv: an interval of k each
    k0, k1 = -(1 << 62), 1 << 62
    for base, step, (lo, hi) in ((u0, bs, ru), (v0, -as_, rv)):
        if step < 0:
            base, step, lo, hi = -base, -step, -hi, -lo
        k0, k1 = max(k0, -((base - lo) // step)), min(k1, (hi - base) // step)
    return (u0 + k0 * bs, v0 - k0 * as_) if k0 <= k1 else None


def _egcd(a: int, b: int) -> tuple[int, int, int]:
    """(g, x, y) with a x + b y = g = gcd(a, b) > 0."""
    x0, y0, x1, y1 = 1, 0, 0, 1
    while b:
        q = a // b
        a, b = b, a - q * b
        x0, x1 = x1, x0 - q * x1
        y0, y1 = y1, y0 - q * y1
    return (a, x0, y0) if a > 0 else (-a, -x0, -y0)


def _background(cfg: Conv, s: Stream) -> np.ndarray:
    """A draw's x before its targets: uniform over the type, within 3 of x_zero_point, or at the type's ends."""
    t = cfg.xt
    kind = s.integers(0, 2)
    if kind == 0:
        return s.integers(t.int_min, t.int_max, cfg.x_shape)
    if kind == 1:
        return np.clip(cfg.xz + s.integers(-3, 3, cfg.x_shape), t.int_min, t.int_max)
    return np.where(s.booleans(cfg.x_shape), t.int_max, t.int_min).astype(np.int64)
