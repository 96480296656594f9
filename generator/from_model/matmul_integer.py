"""A model's MatMulInteger node as a case (generator/from_model/plan.py), as quantize_dynamic writes it: A uint8 (or
int8) computed by DynamicQuantizeLinear with its a_zero_point computed there too (a uint8 scalar, so generated), B
the model's int8 / uint8 weights, b_zero_point the model's (a scalar or per column); either zero point may be
omitted.

A's data is made for this configuration (the weights are the model's: generator/from_model/matmul_rows.py solves a
row of A for a chosen sum of one output column), after the family's own data (families/matmul_integer/data.py):
  zero point    A = a_zero_point everywhere (every sum 0)
  type ends     A at the bottom, then the top of its type; a computed a_zero_point at the middle of its type, then
                at each end (the family's "ends"), A at the far end from it
  far           rows whose sum is the greatest and the least any A gives in a column (the largest products, of one
                sign: sums beyond int16, products beyond int16 where the weights allow)
  sum edges     rows whose sum is exactly each edge the fault models part at, where the weights reach it:
                +-127 / 128 (an 8-bit result), +-32767 / 32768 (int16), 2**24 + 1 (float32: an odd sum beyond
                2**24), int32's ends, and one beyond each (undefined: the probe)
  int16 pairs   A at its top on the adjacent K pair whose weights (shifted into int8 where B is uint8) have the
                largest same-sign sum: x86 VPMADDUBSW saturates that pair sum in int16
  partial sums  where half of K can leave int32: that half at its greatest, the rest solved for a sum inside int32
                (a saturating int32 accumulator sticks at the end)
The draw mixes the same kinds over random rows and columns (and a computed a_zero_point drawn); the random data sets
are uniform over A's range (--calibration's range of A's tensor, else the whole type). A B another node computes is
uniform over its type; a computed b_zero_point at the middle of its type, then drawn.
"""

from __future__ import annotations

from math import ceil, floor

import numpy as np

from generator.families.matmul_integer.spec import CLAUSE, COMPARE, MM, reading
from generator.from_model.matmul_rows import Rows, columns, pack, rows_of
from generator.from_model.model_source import Site
from generator.from_model.plan import EDGE_ELEMENTS, MAX_EDGE_SETS, Context, Plan
from generator.reference import matmul_integer as ref
from generator.reference.requantize import INT32_MAX, INT32_MIN
from generator.sampling import Stream, case_seed

OPS = (("", "MatMulInteger"),)
NAMES = ref.NAMES
# the sums the fault models part at, the most telling first: int32's ends and one beyond each (those two undefined:
# the probe), float32 (an odd sum beyond 2**24), int16 (accumulate_int16, product_int16), an 8-bit result
EDGE_SUMS = (INT32_MAX, INT32_MAX + 1, INT32_MIN, INT32_MIN - 1, 2**24 + 1, -(2**24 + 1), 32767, 32768, -32768, -32769,
             127, 128, -128, -129)
MIN_EDGE_SETS = 8  # edge data sets kept however long K is (a few rows of A each)


def plan(site: Site, ctx: Context) -> Plan | str:
    """The case of one MatMulInteger node, or why the node is not covered (an invalid node, an unknown type)."""
    ins = site.inputs
    if not 2 <= len(ins) <= 4 or any(op.origin == "absent" for op in ins[:2]):
        return "the model's node is invalid: MatMulInteger takes A, B and up to two zero points"
    present = [j for j, op in enumerate(ins) if op.origin != "absent"]
    for j in present:
        if ins[j].type is None or ins[j].shape is None:
            return f"{NAMES[j]}'s element type or shape is unknown"
    types = [ins[j].type if j < len(ins) and ins[j].origin != "absent" else None for j in range(4)]
    shapes = [tuple(ins[j].shape) if types[j] is not None else None for j in range(4)]
    try:
        ref.validate({}, site.opset or 1, types[:len(ins)], [len(s) if s is not None else None for s in shapes])
        ref.check_shapes(shapes[0], shapes[1], shapes[2], shapes[3])
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    mm = MM("model", shapes[0], shapes[1], (types[0].name, types[1].name), _a_form(shapes[0], shapes[2]),
            _b_form(shapes[1], shapes[3]), "model", site.opset or 1)
    said = reading(mm)
    readings = (said,) if said else ()

    def outcome(args):
        full = list(args) + [None] * (4 - len(args))
        return ref.matmul_integer_outcome(*full[:4]), readings

    gen = _Inputs(site, ctx, types, shapes)
    if not gen.generated:
        return Plan("matmul_integer", mm.params(), CLAUSE, COMPARE, [], [[]], None, None, outcome)
    draw = gen.draw if 0 in gen.generated else None
    return Plan("matmul_integer", mm.params(), CLAUSE, COMPARE, gen.generated, gen.edges(), draw, gen.random,
                outcome, range_note=gen.note)


def _a_form(a: tuple, az: tuple | None) -> str:
    """a_zero_point's form as the family's params name it (MM.a_zp)."""
    if az is None:
        return "absent"
    if az == ():
        return "tensor"
    if az == (1,):
        return "one"
    return "row" if len(a) == 2 and az == (a[0],) else "row_nd"


def _b_form(b: tuple, bz: tuple | None) -> str:
    """b_zero_point's form as the family's params name it (MM.b_zp)."""
    if bz is None:
        return "absent"
    if bz == ():
        return "tensor"
    if bz == (1,):
        return "one"
    return "column" if len(b) == 2 and bz == (b[-1],) else "column_nd"


class _Inputs:
    """The data of the node's generated inputs: the model's constants, plausible values for the others, and A's rows
    built for the configuration's edges."""

    def __init__(self, site: Site, ctx: Context, types: list, shapes: list):
        ins = site.inputs
        self.types, self.shapes = types, shapes
        self.consts = {j: op.value() for j, op in enumerate(ins) if op.origin != "absent" and op.constant}
        self.generated = [j for j in range(len(ins)) if ins[j].origin != "absent" and j not in self.consts]
        self.edge_stream = Stream(case_seed(0, f"matmul_integer edges {site.name}"))
        at = types[0]
        self.lo, self.hi, self.note = at.int_min, at.int_max, f"the whole {at.name} range"
        given = ctx.range(ins[0].name)
        if given is not None and ceil(given[0]) <= floor(given[1]):
            self.lo = max(at.int_min, min(at.int_max, ceil(given[0])))
            self.hi = min(at.int_max, max(self.lo, floor(given[1])))
            self.note = "calibration"

    def values(self, stream: Stream | None, zp_end: int | None = None) -> list:
        """A (None), B and the zero points (None where absent): the model's constants, plausible values for the
        rest (stream None: the edges' own; zp_end 0 / 1: a computed a_zero_point at the bottom / top of its type)."""
        vals: list = [self.consts.get(j) for j in range(4)]
        s = stream or self.edge_stream
        for j in (1, 2, 3):
            if j in self.generated:
                t, shape = self.types[j], self.shapes[j]
                if j == 1:
                    vals[j] = s.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
                elif j == 2 and zp_end is not None:
                    vals[j] = np.full(shape, (t.int_min, t.int_max)[zp_end], t.np_dtype)
                elif stream is None:
                    vals[j] = np.full(shape, (t.int_min + t.int_max + 1) // 2, t.np_dtype)
                elif j == 2 and stream.integers(0, 3) == 0:  # the ends now and then
                    vals[j] = np.full(shape, (t.int_min, t.int_max)[stream.integers(0, 1)], t.np_dtype)
                else:
                    vals[j] = stream.integers(t.int_min, t.int_max, shape, dtype=t.np_dtype)
        return vals

    def data_set(self, a: np.ndarray | None, vals: list) -> list:
        return [a if j == 0 else vals[j] for j in self.generated]

    def rows(self, vals: list) -> Rows:
        az = ref._zero_point(vals[2], per_row=True)
        az = az.reshape(az.shape + (1,)) if az.ndim == 1 else az  # an [M] vector: one per row
        return rows_of(self.shapes[0], self.types[0], az, vals[1], ref._zero_point(vals[3], per_row=False))

    def random(self, stream: Stream) -> list:
        vals = self.values(stream)
        t = self.types[0]
        a = stream.integers(self.lo, self.hi, self.shapes[0], dtype=t.np_dtype) if 0 in self.generated else None
        return self.data_set(a, vals)

    def edges(self) -> list:
        if 0 not in self.generated:
            return [self.data_set(None, self.values(None))]
        groups = [(None, self._specs(self.rows(self.values(None))))]
        if 2 in self.generated:  # a computed a_zero_point at each end of its type, A far from it
            far = [("far", sign, n) for n in columns(self.shapes[1][-1] if len(self.shapes[1]) > 1 else 1, 2)
                   for sign in (1, -1)]
            groups += [(end, [("min",), ("max",)] + far) for end in (0, 1)]
        out = []
        for end, specs in groups:
            vals = self.values(None, end)
            rows = self.rows(vals)
            most = max(MIN_EDGE_SETS, min(MAX_EDGE_SETS, EDGE_ELEMENTS // max(1, rows.R * rows.K)))
            for group in pack(specs, rows.R, most if end is None else 1 + (len(specs) - 1) // max(1, rows.R)):
                d = np.stack([self._row(rows, r, spec, rows.zero()[r]) for r, spec in enumerate(group)])
                out.append(self.data_set(rows.array(d), vals))
        return out or [self.data_set(np.zeros(self.shapes[0], self.types[0].np_dtype), self.values(None))]

    def _specs(self, rows: Rows) -> list:
        """The edge rows, the most telling first (the last sets are dropped where K is long): the zero point, the
        far rows and the sums the first column reaches, the int16 pair and the partial sums, the type's ends, then
        the second column's."""
        cols = columns(rows.N, 2)
        if not cols or rows.R == 0:
            return [("zero",), ("min",), ("max",)]

        def sums(n: int) -> list:
            lo, hi = rows.reach(0, n)
            return [("sum", n, t) for t in EDGE_SUMS if lo <= t <= hi]
        specs: list = [("zero",), ("far", 1, cols[0]), ("far", -1, cols[0])] + sums(cols[0])
        specs += [("pairs", cols[0]), ("partial", cols[0]), ("min",), ("max",)]
        for n in cols[1:]:
            specs += [("far", 1, n), ("far", -1, n)] + sums(n)
        return specs

    def _b_shift(self) -> int:
        """What a kernel that shifts the other type pairs into u8 x s8 subtracts from B (a uint8 B: 128)."""
        return 128 if self.types[1].name == "uint8" else 0

    def _row(self, rows: Rows, r: int, spec, start: np.ndarray) -> np.ndarray:
        """Row r's d as spec says (None: start as it is)."""
        if spec is None or rows.K == 0 or rows.N == 0:
            return start
        kind = spec[0]
        if kind == "zero":
            return np.zeros(rows.K, np.int64)
        if kind in ("min", "max"):
            return np.full(rows.K, rows.bounds(r)[kind == "max"], np.int64)
        if kind == "far":
            return rows.extreme(r, spec[2], spec[1], start)
        n = spec[1]
        if kind == "pairs":
            got = rows.pair_start(r, n, start, self._b_shift())
            return start if got is None else got[0]
        if kind == "partial":  # the first half of K at its greatest, the rest solved for a sum inside int32
            half = -(-rows.K // 2)
            frozen = np.arange(rows.K) < half
            high = rows.extreme(r, n, 1, start)
            w = rows.column(r, n)
            if int(w[:half] @ high[:half]) <= INT32_MAX:
                return start
            d = np.where(frozen, high, start)
            for t in (INT32_MAX, INT32_MAX // 2, 0):
                got = rows.solve(r, n, t, d, frozen)
                if got is not None:
                    return got
            return start
        lo, hi = rows.reach(r, n)
        if not lo <= spec[2] <= hi:
            return start
        got = rows.solve(r, n, spec[2], start)
        return start if got is None else got

    def draw(self, stream: Stream) -> list:
        """One candidate: random rows, each aimed (or not) at a sum edge, an extreme, an int16 pair or a partial sum
        beyond int32 in a random column."""
        vals = self.values(stream)
        rows = self.rows(vals)
        start = rows.uniform(stream, self.lo, self.hi)
        d = []
        for r in range(rows.R):
            n = stream.integers(0, rows.N - 1) if rows.N else 0
            kind = stream.choice(("sum", "sum", "sum", "far", "pairs", "partial", None))
            spec = {"sum": ("sum", n, stream.choice(EDGE_SUMS)), "far": ("far", 1 if stream.booleans() else -1, n),
                    "pairs": ("pairs", n), "partial": ("partial", n), None: None}[kind]
            d.append(self._row(rows, r, spec, start[r]))
        return self.data_set(rows.array(np.stack(d) if d else rows.zero()), vals)
