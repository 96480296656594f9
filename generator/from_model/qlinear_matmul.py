"""A model's QLinearMatMul node as a case (generator/from_model/plan.py), as quantize_static's QOperator format writes
it: a uint8 / int8 activation a ([batch, seq, K] and the like) against the model's weights b ([K, N]), the model's
scales and zero points (b per tensor or per column; a per tensor, or per row where the model says so).

a's data is made for this configuration (the weights and scales are the model's, so the edges are reached through a:
generator/from_model/matmul_rows.py solves a row of a for a chosen sum of one output column):
  zero point      a = a_zero_point everywhere (every acc 0: y = y_zero_point)
  type ends       a at the bottom, then the top of its type everywhere
  saturation      rows whose sum is the greatest and the least any a gives in a column; rows whose acc requantizes
                  to one past each end of y's type (saturated) and to each end itself
  ties            rows whose exact acc * a_scale * b_scale / y_scale lies nearest a half-integer inside y's range at
                  the model's scales (an exact tie first where the scales allow one, else the nearest ones): where
                  float32, float64, fixed-point and scale-type multipliers, ties away from zero and y_zero_point
                  added before rounding part from the reference; the last output column first (every vector tail)
  int16 pairs     a uint8 a at its top on the adjacent K pair whose int8 weights have the largest same-sign sum, the
                  rest of the row solved for an unsaturated sum (x86 VPMADDUBSW saturates that pair in int16)
  int32           where K is long enough, sums at int32's ends and one beyond each (undefined: the probe)
The draw mixes the same kinds over random rows and columns; the random data sets are uniform over a's range
(--calibration's range of a's tensor, else the whole type). An input another node computes (b of an activation
product, a scale, a zero point) is given plausible values of its type: zero points at the middle of the type (y's
odd), then drawn; b uniform over its type; scales powers of two (then drawn), one of them fitted so that the greatest
sum requantizes to twice y's span. float8 operands (opset 21) get the type's values and no targeted rows (every fault
model but the refusals gives the reference there).
"""

from __future__ import annotations

from math import ceil, floor

import numpy as np

from generator.families.qlinear_matmul.mm import CLAUSE, COMPARE, MatMul, spec_file
from generator.from_model.matmul_rows import Rows, columns, pack, rows_of
from generator.from_model.model_source import Site
from generator.from_model.plan import EDGE_ELEMENTS, MAX_EDGE_SETS, Context, Plan, edge_sets
from generator.reference import qlinear_matmul as ref
from generator.reference.qlinear_matmul_faults import _in_scale_type
from generator.reference.requantize import INT32_MAX, INT32_MIN, multiplier
from generator.reference.requantize_variants import REQUANT_FAULTS, _requantize
from generator.sampling import Stream, case_seed

OPS = (("", "QLinearMatMul"),)
NAMES = ref.NAMES
TIES = 48  # tie targets kept per (row, column), nearest first
RANKED = 160  # nearest ties per (row, column) that the requantization variants are run on
TIE_ROWS = 16  # edge rows aimed at ties (over the first columns), before the rows that fill the last data set
MIN_EDGE_SETS = 8  # edge data sets kept however long K is (a few rows of a each)
# a computed a_scale / b_scale / y_scale before _fit: powers of two, so ties are exact
SCALES = {1: 2.0**-7, 4: 2.0**-8, 6: 2.0**-10}
INT32_EDGES = (INT32_MAX, INT32_MAX + 1, INT32_MIN, INT32_MIN - 1)  # acc beyond int32 is undefined: the probe


def plan(site: Site, ctx: Context) -> Plan | str:
    """The case of one QLinearMatMul node, or why the node is not covered (an invalid node, an unknown type)."""
    ins = site.inputs
    if len(ins) != 8 or any(op.origin == "absent" for op in ins):
        return "the model's node is invalid: QLinearMatMul takes 8 inputs, all required"
    for j, op in enumerate(ins):
        if op.type is None or op.shape is None:
            return f"{NAMES[j]}'s element type or shape is unknown"
    opset = site.opset or 1
    types = [op.type for op in ins]
    shapes = [tuple(op.shape) for op in ins]
    try:
        ref.validate({}, opset, types, [len(s) for s in shapes])
        ref.check_shapes(shapes, {}, opset)
        per_row = ref.quant_shape("a", shapes[0], shapes[1], shapes[2], True) is not None
        per_col = ref.quant_shape("b", shapes[3], shapes[4], shapes[5], False) is not None
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    float8 = any(types[j].name in ref.FLOAT8_TYPES for j in (0, 3, 7))
    mm = MatMul("model", shapes[0], shapes[3], (types[0].name, types[3].name, types[7].name), types[1].name,
                "per_row_nd" if per_row else "per_tensor", "per_column_nd" if per_col else "per_tensor", "model",
                opset=opset)
    params = dict(mm.params(), a_quant_shape=list(shapes[1]), b_quant_shape=list(shapes[4]))
    readings = tuple(ref.readings(per_row, per_col, float8))

    def outcome(args):
        return ref.qlinear_matmul(*args), readings

    gen = _Inputs(site, ctx)
    common = dict(spec_file=spec_file(opset))
    if not gen.generated:
        return Plan("qlinear_matmul", params, CLAUSE, COMPARE, [], [[]], None, None, outcome, **common)
    if float8 or 0 not in gen.generated:
        return Plan("qlinear_matmul", params, CLAUSE, COMPARE, gen.generated, gen.plain_edges(), None, gen.random,
                    outcome, range_note=gen.note, **common)
    return Plan("qlinear_matmul", params, CLAUSE, COMPARE, gen.generated, gen.edges(), gen.draw, gen.random, outcome,
                range_note=gen.note, **common)


class _Inputs:
    """The data of the node's generated inputs: the constants the model holds, plausible values for the others, and
    a's rows built for the configuration's edges."""

    def __init__(self, site: Site, ctx: Context):
        ins = site.inputs
        self.types = [op.type for op in ins]
        self.shapes = [tuple(op.shape) for op in ins]
        self.consts = {j: op.value() for j, op in enumerate(ins) if op.constant}
        self.generated = [j for j in range(8) if j not in self.consts]
        self.float8 = any(self.types[j].name in ref.FLOAT8_TYPES for j in (0, 3, 7))
        self.edge_stream = Stream(case_seed(0, f"qlinear_matmul edges {site.name}"))
        at = self.types[0]
        self.lo, self.hi, self.note = 0, 0, f"finite {at.name} values, |a| <= 4"
        if not at.is_float:  # a's random range: calibration's (within the type), else the whole type
            self.lo, self.hi, self.note = at.int_min, at.int_max, f"the whole {at.name} range"
            given = ctx.range(ins[0].name)
            if given is not None and ceil(given[0]) <= floor(given[1]):
                self.lo = max(at.int_min, min(at.int_max, ceil(given[0])))
                self.hi = min(at.int_max, max(self.lo, floor(given[1])))
                self.note = "calibration"

    # ---- the inputs other than a -----------------------------------------------------------------------------
    def values(self, stream: Stream | None) -> list:
        """The 8 inputs but a (None): the model's constants, plausible values for the rest (stream None: the edges'
        fixed ones)."""
        vals: list = [self.consts.get(j) for j in range(8)]
        s = stream or self.edge_stream
        for j in (2, 5, 7, 3, 1, 4, 6):
            if vals[j] is None:
                vals[j] = self._plausible(j, stream, s)
        if any(j in self.generated for j in (1, 4, 6)) and not self.float8:
            self._fit(vals, stream)
        return vals

    def _plausible(self, j: int, stream: Stream | None, s: Stream) -> np.ndarray:
        t, shape = self.types[j], self.shapes[j]
        if j in (1, 4, 6):  # scales: fitted to the sums after (_fit)
            v = np.full(shape, SCALES[j]) if stream is None else stream.octaves(-9, -3, shape)
            return np.asarray(v, np.float32).astype(t.np_dtype)
        if t.name in ref.FLOAT8_TYPES:  # float8 zero points are "usually not used"; float8 b: finite, |b| <= 4
            v = np.zeros(shape) if j != 3 else s.integers(-64, 64, shape) / 16.0
            return np.asarray(v, np.float32).astype(t.np_dtype)
        if j == 3:
            return s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
        if stream is None:  # the type's middle; y_zero_point odd (adding it before rounding changes a tie)
            mid = (t.int_min + t.int_max + 1) // 2 + (1 if j == 7 else 0)
            return np.full(shape, mid, t.np_dtype)
        return stream.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)

    def _fit(self, vals: list, stream: Stream | None) -> None:
        """One computed scale (y_scale first, then a_scale, then b_scale) rescaled so that the greatest |acc| any a
        gives requantizes to twice y's span (every value of y reached, both ends saturated): a power of two in the
        edges (ties exact where the other scales are powers of two), within a factor 4 of it in the draws."""
        op = ref.operands(np.zeros(self.shapes[0], np.int64), *vals[1:])
        rows = rows_of(self.shapes[0], self.types[0], op.a_zero_point, vals[3], op.b_zero_point)
        top = 1
        for r in range(rows.R):
            w = rows.w[rows.b_of_row[r]]
            lo, hi = rows.bounds(r)
            top = max(top, int(np.abs(np.minimum(w * lo, w * hi).sum(0)).max(initial=0)),
                      int(np.abs(np.maximum(w * lo, w * hi).sum(0)).max(initial=0)))
        c = float(np.median(np.asarray(vals[1], np.float64))) * float(np.median(np.asarray(vals[4], np.float64))) \
            / float(np.asarray(vals[6], np.float64).reshape(-1)[0])
        factor = 2.0 * (op.y_type.int_max - op.y_type.int_min + 1) / top / c
        j = next(j for j in (6, 1, 4) if j in self.generated)
        v = np.asarray(vals[j], np.float64) * (1 / factor if j == 6 else factor)
        v = 2.0 ** np.round(np.log2(v)) if stream is None else v * stream.uniform(0.25, 4.0)
        vals[j] = np.asarray(v, np.float32).astype(self.types[j].np_dtype)

    def data_set(self, a: np.ndarray | None, vals: list) -> list:
        return [a if j == 0 else vals[j] for j in self.generated]

    # ---- a --------------------------------------------------------------------------------------------------------
    def random(self, stream: Stream) -> list:
        vals = self.values(stream)
        at = self.types[0]
        if at.is_float:
            a = np.asarray(stream.integers(-64, 64, self.shapes[0]) / 16.0, np.float32).astype(at.np_dtype)
        else:
            a = stream.integers(self.lo, self.hi, self.shapes[0], dtype=at.np_dtype)
        return self.data_set(a if 0 in self.generated else None, vals)

    def plain_edges(self) -> list:
        """The edges where no row is aimed (float8 operands, or a held by the model): a at its zero point, its
        type's ends (float8: the type's finite values)."""
        vals = self.values(None)
        if 0 not in self.generated:
            return [self.data_set(None, vals)]
        at, shape = self.types[0], self.shapes[0]
        op = ref.operands(np.zeros(shape, np.int64), *vals[1:])
        zero = np.broadcast_to(op.a_zp_values, _a2(shape)).reshape(shape).astype(at.np_dtype)  # a = a_zero_point
        if at.is_float:
            v = at.all_values().astype(np.float64)
            v = np.unique(v[np.isfinite(v)])
            return [self.data_set(zero, vals)] + [self.data_set(x.astype(at.np_dtype), vals)
                                                  for x in edge_sets(v, shape)]
        return [self.data_set(np.full(shape, x, at.np_dtype), vals) for x in (at.int_min, at.int_max)] + \
            [self.data_set(zero, vals)]

    def _setup(self, vals: list) -> "_Targets":
        op = ref.operands(np.zeros(self.shapes[0], np.int64), *vals[1:])
        rows = rows_of(self.shapes[0], self.types[0], op.a_zero_point, vals[3], op.b_zero_point)
        return _Targets(rows, op, (self.types[0].name, self.types[3].name) == ("uint8", "int8"),
                        np.asarray(vals[1]).dtype)

    def edges(self) -> list:
        """The edge data sets: the rows of _specs packed a's row count to a set, the last set filled with ties (more
        where K is short), at most MIN_EDGE_SETS sets where K is long."""
        vals = self.values(None)
        tg = self._setup(vals)
        rows = tg.rows
        cols = columns(rows.N)
        specs = self._specs(rows, cols, tg.uint8_int8)
        fill = max(len(specs), min(MAX_EDGE_SETS * rows.R, EDGE_ELEMENTS // max(1, rows.K)))
        fill = -(-fill // max(1, rows.R)) * rows.R  # whole data sets
        specs += _more_ties(cols, rows.N, 2 + TIE_ROWS // max(1, len(cols)), fill - len(specs))
        most = max(MIN_EDGE_SETS, min(MAX_EDGE_SETS, EDGE_ELEMENTS // max(1, rows.R * rows.K)))
        out = []
        for group in pack(specs, rows.R, most):
            d = np.stack([tg.row(r, spec, rows.zero()[r]) for r, spec in enumerate(group)])
            out.append(self.data_set(rows.array(d), vals))
        return out or [self.data_set(rows.array(rows.zero()), vals)]

    @staticmethod
    def _specs(rows: Rows, cols: list[int], uint8_int8: bool) -> list:
        """The edge rows, the most telling first (a one-row a with a long K keeps MIN_EDGE_SETS of them): the zero
        point, int32's ends where reached, two ties, the extremes and saturation edges of the first column, the
        int16 pair, the type's ends, then ties over the first columns and the other columns' extremes."""
        if not cols or rows.R == 0:
            return [("zero",), ("min",), ("max",)]
        c0 = cols[0]
        lo, hi = rows.reach(0, c0)
        specs: list = [("zero",)] + [("sum", c0, t) for t in INT32_EDGES if lo <= t <= hi]
        specs += [("tie", c0, 0), ("tie", c0, 1), ("extreme", c0, 1), ("extreme", c0, -1)]
        specs += [("sat", c0, i) for i in range(4)] + ([("pairs", c0)] if uint8_int8 else []) + [("min",), ("max",)]
        specs += [("tie", n, i) for i in range(2) for n in cols[1:]]
        specs += [("tie", n, i) for i in range(2, 2 + TIE_ROWS // len(cols)) for n in cols]
        return specs + [x for n in cols[1:] for x in (("extreme", n, 1), ("extreme", n, -1))]

    def draw(self, stream: Stream) -> list:
        """One candidate: random rows, each aimed (or not) at a tie, a saturation edge, an extreme or an int16 pair
        of a random column."""
        vals = self.values(stream)
        tg = self._setup(vals)
        rows = tg.rows
        start = rows.uniform(stream, self.lo, self.hi)
        kinds = ["tie"] * 5 + ["sat", "extreme", "random"] + (["pairs"] if tg.uint8_int8 else [])
        d = []
        for r in range(rows.R):
            kind = stream.choice(kinds)
            n = stream.integers(0, rows.N - 1) if rows.N else 0
            spec = {"tie": ("tie", n, stream.integers(0, 15)), "sat": ("sat", n, stream.integers(0, 3)),
                    "extreme": ("extreme", n, 1 if stream.booleans() else -1), "pairs": ("pairs", n),
                    "random": None}[kind]
            d.append(tg.row(r, spec, start[r]))
        return self.data_set(rows.array(np.stack(d) if d else rows.zero()), vals)


class _Targets:
    """The sums worth aiming at for each (row, column) of one data set's quantization: ties and saturation edges of
    the requantization (exact arithmetic: requantize.multiplier)."""

    def __init__(self, rows: Rows, op: ref.Operands, uint8_int8: bool, scale_dtype: np.dtype):
        self.rows, self.uint8_int8 = rows, uint8_int8
        a2 = _a2(rows.a_shape)
        self.xs = np.broadcast_to(op.a_scale, a2[:-1] + (1,)).reshape(-1)
        b_batch = rows.w.shape[0]
        self.ws = np.broadcast_to(op.b_scale, np.broadcast_shapes(np.shape(op.b_scale), (1, rows.N))
                                  ).reshape(-1, rows.N)
        self.ws = np.broadcast_to(self.ws, (b_batch, rows.N)) if self.ws.shape[0] == 1 else self.ws
        self.ys, self.yz, self.to = op.y_scale, op.y_zero_point, op.y_type
        self.scale_type = np.dtype(scale_dtype)  # TS: the multiplier in the scales' own type (requant_scale_type)
        self.cache: dict = {}

    def pool(self, r: int, n: int) -> tuple[list[int], list[int]]:
        """(ties, saturation edges): the sums of column n row r can reach whose exact acc * c is nearest a
        half-integer inside y's range (exact ties first), and those that requantize to one past each end of y's type
        and to each end."""
        ib = int(self.rows.b_of_row[r])
        key = (ib, n, int(self.rows.az[r]), float(self.xs[r]))
        if key not in self.cache:
            num, den = multiplier(float(self.xs[r]), float(self.ws[ib, n]), self.ys)
            lo, hi = self.rows.reach(r, n)
            to, yz = self.to, self.yz
            found = []
            for j in range(to.int_min - yz, to.int_max - yz):  # the ties j + 1/2 between two values of y
                t2 = (2 * j + 1) * den  # 2 acc num at the tie
                base = t2 // (2 * num)
                for acc in (base, base + 1):
                    if lo <= acc <= hi:  # nearest relative to the tie: float errors grow with |acc * c|
                        found.append((abs(2 * acc * num - t2) / abs(t2), acc))
            found.sort()
            ties = self._parting([acc for _, acc in found[:RANKED]], float(self.xs[r]), float(self.ws[ib, n]))
            sat = []
            for q in (to.int_max - yz + 1, to.int_min - yz - 1, to.int_max - yz, to.int_min - yz):
                acc = (2 * q * den + num) // (2 * num)  # the sum nearest q / c
                if lo <= acc <= hi:
                    sat.append(acc)
            self.cache[key] = (ties, sat)
        return self.cache[key]

    def _parting(self, accs: list[int], xs: float, ws: float) -> list[int]:
        """accs (nearest ties first) with, first, those where a requantization fault model of the family's table
        (requantize_variants.REQUANT_FAULTS, and the multiplier in the scales' type) parts from the reference: each
        variant's first two in turn."""
        if not accs:
            return []
        v = np.array(accs, np.int64).reshape(1, 1, -1)
        bound = min(2**31, int(np.abs(v).max()))
        exact = _requantize(v, bound, xs, [ws], self.ys, self.yz, self.to, "exact").reshape(-1)
        ys = [_requantize(v, bound, xs, [ws], self.ys, self.yz, self.to, how).reshape(-1)
              for _, how, _ in REQUANT_FAULTS if how != "exact"]
        ys.append(_in_scale_type(v.reshape(-1), xs, ws, self.ys, self.yz, self.to, self.scale_type))
        hits = [np.flatnonzero(y != exact)[:2].tolist() for y in ys]
        order = [h[i] for i in range(2) for h in hits if len(h) > i]
        seen: set = set()
        first = [i for i in order if not (i in seen or seen.add(i))]
        return [accs[i] for i in first] + [a for i, a in enumerate(accs) if i not in seen][:TIES]

    def row(self, r: int, spec, start: np.ndarray) -> np.ndarray:
        """Row r's d as spec says (None: start as it is)."""
        rows = self.rows
        if spec is None or rows.K == 0 or rows.N == 0:
            return start
        kind = spec[0]
        if kind == "zero":
            return np.zeros(rows.K, np.int64)
        if kind in ("min", "max"):
            return np.full(rows.K, rows.bounds(r)[kind == "max"], np.int64)
        n = spec[1]
        if kind == "extreme":
            return rows.extreme(r, n, spec[2], start)
        if kind == "sum":
            got = rows.solve(r, n, spec[2], start)
            return start if got is None else got
        ties, sat = self.pool(r, n)
        frozen = None
        if kind == "pairs":
            got = rows.pair_start(r, n, start)
            if got is None:
                return start
            start, frozen = got
            targets = (ties[:4] or [0]) + [0]
        else:
            targets = ties[spec[2]:] if kind == "tie" else sat[spec[2]:] + sat[:spec[2]]
        for t in targets[:8]:
            d = rows.solve(r, n, t, start, frozen)
            if d is not None:
                return d
        return start


def _more_ties(cols: list[int], n: int, taken: int, count: int) -> list:
    """count tie specs that fill the last edge sets: every column in turn (the first ones past the `taken` ties
    they have), each its next nearest tie."""
    if count <= 0 or n <= 0:
        return []
    order = cols + [c for c in range(n) if c not in cols]
    nxt = {c: (taken if c in cols else 0) for c in order}
    out = []
    while len(out) < count and len(out) < n * TIES:
        for c in order:
            if len(out) == count:
                break
            out.append(("tie", c, nxt[c]))
            nxt[c] += 1
    return out


def _a2(shape: tuple) -> tuple:
    """a's shape as numpy.matmul promotes it (a 1-D a is one row)."""
    return (1,) + tuple(shape) if len(shape) == 1 else tuple(shape)
