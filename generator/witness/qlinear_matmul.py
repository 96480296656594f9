"""Witnesses of the QLinearMatMul fault models (generator/reference/qlinear_matmul_faults.py), per class.

For each configuration class (qlinear_matmul_faults.all_groups) one small configuration of that class (M = K = 3 so
that a per-row zero point read along the columns broadcasts; a uint8, b int8, y uint8, the types onnxruntime runs):
  1d        a [3, 3] per row with b [3], else a [3] with b [3, 3];  2d  [3, 3] x [3, 3]
  batched   [2, 3, 3] x [2, 3, 3];  broadcast  [3, 3, 3] x [2, 1, 3, 3] (b's batch axis of 1 trails)
and for each fault that can differ there, data sets built by construction and checked against the reference
(`how: "construction"`): neutral data (a = a_zero_point, b = b_zero_point, every acc 0; zero points at the bottom of
their types, distinct per row / column where the class has vectors), a_scale 2**-7, b_scale 2**-8, then
  requantization (float32, float64, scale type, fixed point, half away, zero point before rounding)   exact ties
        with y_zero_point = type min + 1 (odd: round(t + zp) differs from round(t) + zp): y_scale = 2b 2**-15
        (c = 1 / (2b), b odd) and acc = 509 b / 507 b, the ties 254.5 / 253.5, where fl(1 / (2b)) may round the
        product off the tie; and c = 1/2, acc = 5, the tie 2.5: a greedy cover of these found once (_tie_choices);
        each fault takes the first that kills it, those that kill the most first (one data set serves several); the
        same data
        serve int16_pair_saturation and accumulator_wrap16 where they kill them (acc = 509 b > 2**15 for b >= 65;
        raw products 253 x 125 in pairs leave int16), else the constructions below
  saturate_before_zero_point / requant_unsaturated   c = 1, acc = 255, y_zero_point = type min + 1
  int16_pair_saturation   a = a_zero_point = 255 and b = b_zero_point = -128 everywhere: every exact term 0, every
        pair of raw products -65280 (saturates)
  accumulator_wrap16   acc = 40035 (157 x 255), c = 2**-10
  a_zero_point_per_column   b[0, 0] one above its zero point: the misread zero points give acc[m, 0] = zp[m] - zp[0]
  a_zero_point_per_column_zero_point_before_rounding   zero_point_before_rounding's tie
  per_row_first / per_column_first   a_scale / b_scale doubled on row / column 1, acc = 10 there
  as_stored_stepwise_in_scale_type   a_scale = fl32(0.1), b_scale = y_scale = 1, acc = 25: exact 2.5000000372 (3),
        25 * fl32(0.1) in float32 the tie 2.5 (2)
  batch_broadcast_modulo   a[..., 0, 0] one above its zero point, b's batch 1 likewise: y[0, 1] reads b's batch 0
  column_tail<W>_round_half_away   the tie 2.5 (every class's y is at most 3 wide: every column is in the tail)
  one_d_axis_kept, per_row_refused, per_column_refused, one_d_refused   a tie's data (y's shape differs, or the
        model is refused, whatever the data)
  k_0_zero   the class's shapes with K = 0 and y_zero_point type min + 1: a configuration of its own, which the
        witness carries ("config": "k_0", "params"); its case is test_qlinearmatmul_witness_<class>_k_0
"""

from __future__ import annotations

import functools

import numpy as np

from generator.catalogue.qlinear_matmul import NAMES, encode
from generator.families.qlinear_matmul.mm import MatMul
from generator.reference import qlinear_matmul as ref
from generator.reference import qlinear_matmul_faults as F
from generator.witness import group_faults

XS, WS = 2.0**-7, 2.0**-8
TYPES = ("uint8", "int8", "uint8")


def configuration(shape: str, per_row: bool, per_column: bool, k: int = 3) -> MatMul:
    a, b = {"2d": ((3, k), (k, 3)), "batched": ((2, 3, k), (2, k, 3)), "broadcast": ((3, 3, k), (2, 1, k, 3)),
            "1d": ((3, k), (k,)) if per_row else ((k,), (k, 3))}[shape]
    a_quant = "per_tensor" if not per_row else "per_row" if len(a) == 2 else "per_row_nd"
    b_quant = "per_tensor" if not per_column else "per_column" if len(b) == 2 else "per_column_nd"
    return MatMul("witness", a, b, TYPES, "float", a_quant, b_quant, "construction")


class Data:
    """One data set of a configuration, built in place."""

    def __init__(self, mm: MatMul, what: str):
        self.mm, self.what = mm, what
        at, bt, yt = (np.dtype(t) for t in mm.types)
        na, nb = int(np.prod(mm.a_scale_shape)), int(np.prod(mm.b_scale_shape))
        lo_a, lo_b = np.iinfo(at).min, np.iinfo(bt).min
        self.az = (lo_a + np.arange(na)).reshape(mm.a_scale_shape).astype(at)
        self.bz = (lo_b + np.arange(nb)).reshape(mm.b_scale_shape).astype(bt)
        self.a = np.broadcast_to(self.az.reshape(_row_form(mm)), mm.a_shape).astype(at)
        self.b = np.broadcast_to(self.bz, mm.b_shape).astype(bt)
        self.xs = np.full(mm.a_scale_shape, XS, np.float32)
        self.ws = np.full(mm.b_scale_shape, WS, np.float32)
        self.ys = np.float32(2.0**-15)
        self.yz = np.array(np.iinfo(yt).min, yt)
        self.config = ""  # a configuration other than the class's (encode)

    def inputs(self) -> list[np.ndarray]:
        return [np.asarray(v) for v in (self.a, self.xs, self.az, self.b, self.ws, self.bz, self.ys, self.yz)]

    def encode(self) -> dict:
        """The witness's JSON; one on a configuration of its own (K = 0) carries it: "config" and "params"."""
        out = dict(encode(dict(zip(NAMES, self.inputs()))), what=self.what)
        if self.config:
            out.update(config=self.config, params=self.mm.params())
        return out

    def set_acc(self, target: int, row: int = 0, col: int = 0) -> None:
        """acc of y[first batch, row, col] = target (>= 0), through a's row and b's column."""
        a2 = self.a.reshape((-1,) + (self.a.shape[-2:] if self.a.ndim > 1 else (1,) + self.a.shape))
        b2 = self.b.reshape((-1,) + (self.b.shape[-2:] if self.b.ndim > 1 else self.b.shape + (1,)))
        # batch 0's zero points of that row / column come first in C order, whatever their form
        az = int(self.az.reshape(-1)[row if self.az.size > 1 else 0])
        bz = int(self.bz.reshape(-1)[col if self.bz.size > 1 else 0])
        for i in range(a2.shape[-1]):
            if target <= 0:
                break
            q = min(253, target)  # zero points are at most 2 above the type's bottom: values stay in range
            p = min(253, target // q)
            a2[0, row, i], b2[0, i, col] = az + p, bz + q
            target -= p * q
        assert target == 0, "K too small for the accumulator"
        self.a, self.b = a2.reshape(self.a.shape), b2.reshape(self.b.shape)


def _row_form(mm: MatMul) -> tuple:
    """a_zero_point's shape broadcasting against a (per row [M] -> [M, 1])."""
    return (-1, 1) if mm.a_quant == "per_row" else mm.a_scale_shape or ()


def _tie(mm: MatMul, acc: int, what: str, zp_offset: int = 0, scale: float = 2.0**-14) -> Data:
    d = Data(mm, what)
    d.set_acc(acc)
    d.ys, d.yz = np.float32(scale), np.array(int(d.yz) + zp_offset, d.yz.dtype)
    return d


_REQUANT = ("requant_float32", "requant_float64", "requant_scale_type", "requant_fixed_point", "round_half_away",
            "zero_point_before_rounding")
# what the ties (_tie_choices) may kill: the requantization faults and, where they do, these
_TIE_KILLS = _REQUANT + ("accumulator_wrap16", "int16_pair_saturation", "column_tail4_round_half_away",
                         "column_tail8_round_half_away", "column_tail16_round_half_away")


def _tie_data(mm: MatMul, b: int, target: int) -> Data:
    if b == 1:
        return _tie(mm, 5, "the tie 2.5, y_zero_point odd", 1)
    return _tie(mm, b * target, f"the tie {target / 2} with c = 1 / {2 * b}, y_zero_point odd", 1, 2 * b * 2.0**-15)


@functools.lru_cache(maxsize=None)
def _tie_choices() -> tuple[tuple[int, int], ...]:
    """(b, target) of the ties to try, (1, 5) the tie 2.5: a greedy cover of the requantization faults on the 2d
    configuration, scanning b upward until each one is killed (whether a float multiplier rounds a product off
    its tie depends on c and acc only, the same in every class)."""
    mm, by_name = configuration("2d", False, False), {f.name.split(".", 1)[1]: f for f in F.FAULTS}
    kills = {}
    for bt in [(1, 5)] + [(b, t) for b in range(3, 129, 2) for t in (509, 507)]:
        kills[bt] = frozenset(n for n in _TIE_KILLS if differs(by_name[n], _tie_data(mm, *bt)))
        if set(_TIE_KILLS) <= set().union(*kills.values()):
            break
    chosen, left = [], set().union(*kills.values())
    while left:
        best = max(kills, key=lambda bt: (len(kills[bt] & left), -bt[0]))
        chosen.append(best)
        left -= kills[best]
    return tuple(chosen)


@functools.lru_cache(maxsize=None)
def _ties(mm: MatMul) -> list[tuple[Data, frozenset]]:
    """The chosen ties (_tie_choices) on mm, y_zero_point odd, each with the faults of _TIE_KILLS it kills, those
    killing the most first (so that one data set serves several)."""
    by_name = {f.name.split(".", 1)[1]: f for f in F.FAULTS}
    found = [_tie_data(mm, b, t) for b, t in _tie_choices()]
    kills = [(d, frozenset(n for n in _TIE_KILLS if differs(by_name[n], d))) for d in found]
    return sorted(kills, key=lambda dk: -len(dk[1]))


def _tie_for(mm: MatMul, name: str) -> list[Data]:
    return next(([d] for d, kills in _ties(mm) if name in kills), [])


def _pairs16(mm: MatMul) -> list[Data]:
    d = Data(mm, "raw products 255 x -128 in pairs: -65280 saturates in int16")
    d.az, d.bz = np.full(d.az.shape, 255, np.uint8), np.full(d.bz.shape, -128, np.int8)
    d.a, d.b = np.full(mm.a_shape, 255, np.uint8), np.full(mm.b_shape, -128, np.int8)
    d.ys = np.float32(2.0**-14)
    return [d]


def _first(mm: MatMul, row: bool) -> list[Data]:
    d = Data(mm, "scale doubled on row / column 1, acc 10 there")
    if row:
        d.xs.reshape(-1)[1] = 2 * XS
        d.set_acc(10, row=1)
    else:
        d.ws.reshape(-1)[1] = 2 * WS
        d.set_acc(10, col=1)
    d.ys = np.float32(2.0**-14)
    return [d]


def _zp_columns(mm: MatMul) -> list[Data]:
    d = Data(mm, "b[0, 0] one above its zero point; a_zero_point distinct per row")
    d.set_acc(1)
    d.a = np.broadcast_to(d.az.reshape(_row_form(mm)), mm.a_shape).astype(d.a.dtype)  # a neutral again
    return [d]


def _batch(mm: MatMul) -> list[Data]:
    d = Data(mm, "a[..., 0, 0] + 1 in every batch; b's batch 1 one above its zero point")
    d.a = d.a.copy()
    d.a[..., 0, 0] += 1
    d.b = d.b.copy()
    d.b.reshape((-1,) + mm.b_shape[-2:])[1, 0, 0] += 1
    return [d]


def _stepwise(mm: MatMul) -> list[Data]:
    """a_scale = fl32(0.1) everywhere, b_scale = y_scale = 1, acc = 25: the exact 2.5000000372... rounds to 3; in
    float32 25 * fl32(0.1) rounds to the tie 2.5, which goes to 2. Where a per-row a_zero_point is read along the
    columns, the neutral a's misread zero points differ too."""
    d = Data(mm, "acc 25 with a_scale fl32(0.1), b_scale = y_scale = 1: 2.5000000372 exact, 2.5 in float32")
    d.set_acc(25)
    d.xs = np.full(mm.a_scale_shape, 0.1, np.float32)
    d.ws = np.full(mm.b_scale_shape, 1.0, np.float32)
    d.ys = np.float32(1.0)
    return [d]


def _k0(shape: str, per_row: bool, per_column: bool) -> list[Data]:
    """K = 0 in the class's shapes: acc is the empty sum, y is y_zero_point (type min + 1) everywhere."""
    d = Data(configuration(shape, per_row, per_column, k=0), "K = 0: y is y_zero_point everywhere")
    d.yz = np.array(int(d.yz) + 1, d.yz.dtype)
    d.config = "k_0"
    return [d]


def construct(fault, mm: MatMul, parts: tuple[str, bool, bool]) -> list[Data]:
    name = fault.name.split(".", 1)[1]
    if name == "k_0_zero":
        return _k0(*parts)
    if name in _REQUANT or name.startswith("column_tail"):
        return _tie_for(mm, name)
    if name in ("saturate_before_zero_point", "requant_unsaturated"):
        return [_tie(mm, 255, "acc 255 with c = 1, y_zero_point type min + 1", 1, 2.0**-15)]
    if name == "int16_pair_saturation":
        return _tie_for(mm, name) or _pairs16(mm)
    if name == "accumulator_wrap16":
        return _tie_for(mm, name) or [_tie(mm, 157 * 255, "acc 40035 leaves int16", 0, 2.0**-5)]
    if name == "a_zero_point_per_column":
        return _zp_columns(mm)
    if name == "a_zero_point_per_column_zero_point_before_rounding":
        return _tie_for(mm, "zero_point_before_rounding")
    if name in ("per_row_first", "per_column_first"):
        return _first(mm, name == "per_row_first")
    if name == "batch_broadcast_modulo":
        return _batch(mm)
    if name == "as_stored_stepwise_in_scale_type":
        return _stepwise(mm)
    return _tie_for(mm, "requant_fixed_point")  # one_d_axis_kept and the refusals: any data


def differs(fault, d: Data) -> bool:
    inputs = d.inputs()
    expect = ref.qlinear_matmul(*inputs)
    if not expect.defined:
        return False
    try:
        got = fault.fn(inputs, {}, d.mm.opset, [])[0]
    except F.Refusal:
        return True
    want = expect.outputs[0]
    return got.shape != want.shape or bool(np.any(got != want))


def find(max_opset: int, budget: int) -> dict:
    """The catalogue's "groups": every class, its configuration's params, each fault's witnesses (construction)."""
    groups = {}
    for shape, per_row, per_column in F.all_groups():
        mm = configuration(shape, per_row, per_column)
        params = mm.params()

        def witnesses_of(fault, mm=mm, parts=(shape, per_row, per_column)) -> tuple[str, list]:
            return "construction", [d.encode() for d in construct(fault, mm, parts) if differs(fault, d)]

        faults = group_faults(F.FAULTS, dict(params, opset=mm.opset), witnesses_of)
        groups[F.key_of(shape, per_row, per_column)] = {"params": params, "faults": faults}
    return groups
