"""Witnesses of the MatMulInteger fault models (generator/reference/matmul_integer_faults.py), per group.

For each of the 36 groups (type pair x a_zero_point form x b_zero_point form) one configuration: A [M, K] and
B [K, N] with symbolic dims (data sets of several sizes in one model), the zero points of the group's forms; and
for each fault that can differ there, the first of these data sets on which it does (`how: "construction"`,
checked against the reference; a fault with none would be a hole, and find() raises):
  mixed     M = K = N = 3 (a per-row / per-column zero point subtracted along K runs and differs), A and B drawn
            from a PCG64 stream seeded by the group, zero points drawn non-zero and distinct per row / column:
            every zero-point, sign and tail fault differs here
  far       M = K = N = 3, zero points at one end, every element at the other: products of 255 * 255 (or 128 * 255,
            128 * 128 without a zero point), sums beyond int16 (product_int16, accumulate_int16)
  pairs     A at the top of its type, B's columns at the bottom / top: in u8 x s8 terms (int8 A + 128, uint8 B - 128)
            a = 255 and b = -128 / 127, so the raw pairs a0 b0 + a1 b1 leave int16
  float32   M = N = 1, K - 2 far products, one of +-1 and a last one of 0: an exact sum (K - 2) p +- 1 between 2**24
            and 2**25 that is odd, so no float32 holds it (K from the group's largest product p, a multiple of 16, so
            that no K-tail fault differs there: the diagnosis names float32 accumulation alone)
  wrap      zero points at the top of their types, elements at the bottom: a - za = -255 leaves the 8-bit type
            (difference_in_8_bits)
  a_1d      mixed's first row of A as a 1-D A [K] (no per-row a_zero_point): Y's shape tells a_1d_axis_kept apart,
            whatever the values
  b_1d      mixed's first column of B as a 1-D B [K] (no per-column b_zero_point): b_1d_refused refuses it
  saturating  M = N = 1, K from 33276 to 131073: a run of products of one sign whose partial sum leaves int32,
            then products of the other sign that bring the exact total back (accumulate_int32_saturating)
The 1-D data sets go into a case of their own (generator/families/matmul_integer/witnesses.py).

Witness data (JSON): generator/catalogue/matmul_integer.py's form. The family
(generator/families/matmul_integer/witnesses.py) turns them back into inputs.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes, sampling
from generator.catalogue.matmul_integer import encode
from generator.faults import Refusal
from generator.families.matmul_integer.spec import MM, OPSET
from generator.families.matmul_integer.witnesses import witness_dims
from generator.reference import matmul_integer as ref
from generator.reference import matmul_integer_faults as F
from generator.witness import group_faults

def configuration(a_type: str, b_type: str, a_zp: str, b_zp: str) -> MM:
    """The witness configuration of a group: 3 x 3 by 3 x 3, symbolic dims."""
    what = "witness_" + F.key_of(a_type, b_type, a_zp, b_zp).replace(" ", "_").replace("=", "_")
    return MM(what, (3, 3), (3, 3), (a_type, b_type), a_zp, b_zp, data="witness", dims=witness_dims(a_zp, b_zp))


def _zero_point(t: dtypes.DType, form: str, n: int, s: sampling.Stream, value: int | None = None):
    if form == "absent":
        return None
    n = 1 if form == "tensor" else n
    if value is not None:
        v = [value] * n
    else:
        v = s.sample([x for x in range(t.int_min, t.int_max + 1) if x != 0], n)
    arr = np.array(v, dtype=np.int64).astype(t.np_dtype)
    return arr.reshape(()) if form == "tensor" else arr


def _far_value(t: dtypes.DType, z: int) -> int:
    return t.int_max if t.int_max - z >= z - t.int_min else t.int_min


def candidates(mm: MM) -> list[tuple[str, list]]:
    """The data sets (what, [A, B, a_zero_point, b_zero_point]) tried for each fault, in order."""
    at, bt = (dtypes.get(t) for t in mm.types)
    s = sampling.Stream(sampling.case_seed(0, mm.name))
    out = []
    a = s.integers(at.int_min, at.int_max, (3, 3), dtype=at.np_dtype)
    b = s.integers(bt.int_min, bt.int_max, (3, 3), dtype=bt.np_dtype)
    mixed = [a, b, _zero_point(at, mm.a_zp, 3, s), _zero_point(bt, mm.b_zp, 3, s)]
    out.append(("mixed", mixed))
    # far: zero points at the bottom of their types, elements at the top (int8 without one: -128)
    za = None if mm.a_zp == "absent" else at.int_min
    zb = None if mm.b_zp == "absent" else bt.int_min
    fa, fb = _far_value(at, za or 0), _far_value(bt, zb or 0)
    far = [np.full((3, 3), fa, at.np_dtype), np.full((3, 3), fb, bt.np_dtype), _zero_point(at, mm.a_zp, 3, s, za),
           _zero_point(bt, mm.b_zp, 3, s, zb)]
    out.append(("far", far))
    # wrap: zero points at the top, elements at the bottom: a - za = -255 leaves the 8-bit types
    out.append(("wrap", [np.full((3, 3), at.int_min, at.np_dtype), np.full((3, 3), bt.int_min, bt.np_dtype),
                         _zero_point(at, mm.a_zp, 3, s, at.int_max), _zero_point(bt, mm.b_zp, 3, s, bt.int_max)]))
    # pairs: A at its top, B's columns at its bottom / top: after the shift into u8 x s8 (none for uint8 x int8)
    # a = 255 and b = -128 / 127, whose pairs a0 b0 + a1 b1 leave int16
    b = np.array([[bt.int_min, bt.int_max, bt.int_min]] * 3, bt.np_dtype)
    out.append(("pairs", [np.full((3, 3), at.int_max, at.np_dtype), b, far[2], far[3]]))
    p = abs((fa - (za or 0)) * (fb - (zb or 0)))
    k = -(-(2**24 // p + 3) // 16) * 16  # (k - 2) p > 2**24 and even; k a multiple of 16 (no K tail)
    a = np.full((1, k), fa, at.np_dtype)
    b = np.full((k, 1), fb, bt.np_dtype)
    a[0, -2] = (za or 0) + (1 if (za or 0) < at.int_max else -1)
    b[-2, 0] = (zb or 0) + (1 if (zb or 0) < bt.int_max else -1)
    a[0, -1] = za or 0  # the last product 0
    out.append(("float32", [a, b, _zero_point(at, mm.a_zp, 1, s, za), _zero_point(bt, mm.b_zp, 1, s, zb)]))
    # last, so that no other fault's witness moves: 1-D operands where the zero points' forms allow them
    if mm.a_zp != "row":
        out.append(("a_1d", [mixed[0][0]] + mixed[1:]))
    if mm.b_zp != "column":
        out.append(("b_1d", [mixed[0], mixed[1][:, 0]] + mixed[2:]))
    return out


def saturating(mm: MM) -> tuple[str, list] | None:
    """M = N = 1: a run of the largest products of one sign whose partial sum just leaves int32, then products of
    the other sign until the total is back inside (zero points one above the bottom of their types, so that a - za
    takes both signs): the exact total fits, a saturating accumulator sticks at the end. The shorter of the two
    directions; None where every product has one sign (uint8 operands without zero points)."""
    at, bt = (dtypes.get(t) for t in mm.types)
    za = None if mm.a_zp == "absent" else at.int_min + 1
    zb = None if mm.b_zp == "absent" else bt.int_min + 1
    da = (at.int_min - (za or 0), at.int_max - (za or 0))  # a - za at the type's two ends
    db = (bt.int_min - (zb or 0), bt.int_max - (zb or 0))
    best = None
    for ea, eb, ra, rb in [(ea, eb, ea ^ fa, eb ^ (1 - fa)) for ea in (0, 1) for eb in (0, 1) for fa in (0, 1)]:
        run, back = da[ea] * db[eb], da[ra] * db[rb]  # the run's ends, the return's (one operand's other end)
        if run == 0 or back == 0 or (run > 0) == (back > 0):
            continue
        limit = ref.INT32_MAX if run > 0 else -ref.INT32_MIN
        n_run = limit // abs(run) + 1
        n_back = -(-(n_run * abs(run) - limit) // abs(back))
        if best is None or n_run + n_back < best[0]:
            best = (n_run + n_back, n_run, (ea, eb, ra, rb))
    if best is None:
        return None
    k, n_run, (ea, eb, ra, rb) = best
    a = np.full((1, k), (at.int_min, at.int_max)[ea], at.np_dtype)
    b = np.full((k, 1), (bt.int_min, bt.int_max)[eb], bt.np_dtype)
    a[0, n_run:], b[n_run:, 0] = (at.int_min, at.int_max)[ra], (bt.int_min, bt.int_max)[rb]
    s = sampling.Stream(0)
    return "saturating", [a, b, _zero_point(at, mm.a_zp, 1, s, za), _zero_point(bt, mm.b_zp, 1, s, zb)]


def differs(fault, inputs: list) -> bool:
    """Does the fault's output differ from the reference's (every element defined), or refuse, on these inputs?"""
    outcome = ref.matmul_integer_outcome(*inputs)
    if not outcome.defined:
        return False
    try:
        got = fault.fn(inputs, {}, OPSET, [])[0]
    except Refusal:
        return True
    return not np.array_equal(got, outcome.outputs[0])


def find(max_opset: int, budget: int = 0) -> dict:
    """The catalogue's groups: every group, each fault's witness or its equivalence proof (budget: unused, every
    witness is built)."""
    if max_opset < OPSET:
        return {}
    groups = {}
    for parts in F.all_groups():
        mm = configuration(*parts)
        params = mm.params()
        tried = candidates(mm) + [t for t in [saturating(mm)] if t]  # last: no other fault's witness moves

        def witnesses_of(fault, tried=tried, key=F.key_of(*parts)) -> tuple[str, list]:
            if not fault.applies(params):
                return "construction", []
            for what, inputs in tried:
                if differs(fault, inputs):
                    return "construction", [encode(inputs, what)]
            raise ValueError(f"matmul_integer witness: no data set tells {fault.name} apart in {key!r}")

        groups[F.key_of(*parts)] = {"params": params,
                                    "faults": group_faults(F.FAULTS, dict(params, opset=OPSET), witnesses_of)}
    return groups

