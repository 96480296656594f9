"""The axes of generation over QuantizeLinear (generator/axes.py): explicit defaults, vector tails, NaN payloads,
opset boundaries; and the probes of what the texts leave open. Catalogue entries, registered after entries.py's."""

from __future__ import annotations

from functools import partial

import numpy as np

from generator import axes, dtypes
from generator.catalogue.quantize_linear import as_type
from generator.families.quantize_linear.spec import (CATALOGUE, CLAUSE_AXIS, CLAUSE_BLOCKED, CLAUSE_FLOAT8, FAMILY,
                                                     Spec, _float_sets, _int_sets)
from generator.families.quantize_linear.entries import _axis_sets, _fnuz_inf


def _defaults(opset: int, attrs: dict | None = None) -> dict:
    """Every attribute the version has, the schema's default where `attrs` leaves it out."""
    return dict(axes.attribute_defaults(FAMILY.op, opset), **(attrs or {}))


def _explicit_per_axis(opset: int) -> Spec:
    """axis=1 written (with every other default): a per-axis x of (2, 3, 4) whose axis 0 is another length."""
    return Spec(opset, _axis_sets((2, 3, 4), 1)[:1], attrs=_defaults(opset),
                clause=CLAUSE_AXIS + "; explicit defaults")


def _explicit_float8(opset: int) -> Spec:
    """saturate=1 written (with every other default): values beyond float8e4m3fn's range saturate."""
    return Spec(opset, _float_sets("float8e4m3fn")[:1], zp_type="float8e4m3fn", attrs=_defaults(opset),
                clause=CLAUSE_FLOAT8 + "; explicit defaults")


for _op in (13, 19, 21, 23, 24, 25, 28):
    CATALOGUE.add(f"explicit_defaults_per_axis_opset{_op}", partial(_explicit_per_axis, _op))
for _op in (19, 21, 23, 24, 25, 28):
    CATALOGUE.add(f"explicit_defaults_float8e4m3fn_opset{_op}", partial(_explicit_float8, _op))


def _tail(out: str, opset: int, filler, decisive, zp, short: bool = False) -> Spec:
    """The vector-tail axis: per-tensor x of every length of axes.tail_lengths, the decisive elements (a tie, a
    value that saturates) last, in the partial last vector; one model with a symbolic length."""
    lengths = axes.tail_lengths(short=short, limit=257)  # 1023 / 1025 add bytes, not remainders
    xs = axes.tail_datasets(as_type(filler, "float"), as_type(decisive, "float"), lengths)
    return Spec(opset, [(x, as_type(0.5, "float"), as_type(zp, out)) for x in xs], zp_type=out,
                attrs={"saturate": 1} if out in dtypes.FLOAT8_SATURATE_TYPES else {},
                flags=("edge", "vector_tail"))


CATALOGUE.add("vector_tail_uint8_tie_opset10", partial(_tail, "uint8", 10, [1.0, 2.0, -3.0], [1.25, 300.0, 1.25], 128))
CATALOGUE.add("vector_tail_int8_saturate_opset13", partial(_tail, "int8", 13, [1.0, -2.0, 3.0], [0.75, -1000.0], 1,
                                                          short=True))
CATALOGUE.add("vector_tail_int4_tie_opset21", partial(_tail, "int4", 21, [1.0, -2.0, 0.5], [-0.25, 100.0], -1,
                                                     short=True))
CATALOGUE.add("vector_tail_float8e4m3fn_saturate_opset19", partial(_tail, "float8e4m3fn", 19, [1.0, -2.0, 0.5],
                                                                  [0.5625, 1e4], 0.0, short=True))


@CATALOGUE
def vector_tail_blocked_int4_block32_opset21():
    """Blocked along the last axis, blocks of 32, x (2, n) for every short tail length: the short last block's
    scale and a tie in its last element."""
    sets = []
    for n in axes.tail_lengths(short=True):
        m = -(-n // 32)
        scales = np.array([[2.0 ** -(j % 4) for j in range(m)], [2.0 ** (j % 3) for j in range(m)]])
        q = axes.with_tail(np.array([1.0, -2.0, 3.0]), [2.5], n)
        x = np.stack([q * np.repeat(row, 32)[:n] for row in scales])
        sets.append((as_type(x, "float"), as_type(scales, "float"), as_type(np.zeros((2, m)), "int4")))
    return Spec(21, sets, zp_type="int4", attrs={"axis": -1, "block_size": 32}, clause=CLAUSE_BLOCKED,
                flags=("edge", "vector_tail"))


@CATALOGUE
def vector_tail_per_axis_opset13():
    """Per-axis along the last axis of x (2, n): the last channel's scale and zero point in the tail."""
    sets = []
    for n in axes.tail_lengths(short=True):
        scales = np.array([[0.5, 2.0, 0.25][j % 3] for j in range(n)])
        zps = np.array([(7 * j) % 256 for j in range(n)])
        x = np.stack([np.full(n, 2.5), np.full(n, -1.5)]) * scales
        sets.append((as_type(x, "float"), as_type(scales, "float"), as_type(zps, "uint8")))
    return Spec(13, sets, attrs={"axis": 1}, clause=CLAUSE_AXIS, flags=("edge", "vector_tail"))


def _nan_payload(out: str, x_type: str, opset: int, scale_type: str | None = None) -> Spec:
    """Every NaN encoding of x's type (axes.nan_values: quiet, signalling, low and high payloads, both signs),
    built from bits: NaN for a float8 output (Cast's tables), open (probe) for an integer one."""
    _, nans = axes.nan_values(x_type)
    x = np.concatenate([nans, as_type([1.0, -2.0], x_type)]).astype(nans.dtype)
    s_t = scale_type or (x_type if 19 <= opset < 23 else "float")
    return Spec(opset, [(x, as_type(1.0, s_t), as_type(0, out))], x_type=x_type, scale_type=s_t, zp_type=out,
                attrs={"saturate": 1} if out in dtypes.FLOAT8_SATURATE_TYPES else {},
                flags=("edge", "nan_payload"))


for _t in dtypes.FLOAT8_SATURATE_TYPES:
    CATALOGUE.add(f"nan_payload_float32_to_{_t}_opset19", partial(_nan_payload, _t, "float", 19))
for _x in ("float16", "bfloat16"):
    CATALOGUE.add(f"nan_payload_{_x}_to_float8e4m3fn_opset19", partial(_nan_payload, "float8e4m3fn", _x, 19))
CATALOGUE.add("nan_payload_float32_to_uint8_opset13", partial(_nan_payload, "uint8", "float", 13))


# the opset-boundary axis: what each version added, one opset after it (the rule still in force) and one before
# it (refused); FNUZ +-Inf with saturate=1 (Cast-24's row) at 25 beside the 23 / 24 cases above
CATALOGUE.add("per_axis_opset14", lambda: Spec(14, _axis_sets((2, 3, 4), 1), clause=CLAUSE_AXIS,
                                              flags=("edge", "boundary")))
CATALOGUE.add("float8e4m3fn_saturate_opset20", lambda: Spec(20, _float_sets("float8e4m3fn"), zp_type="float8e4m3fn",
                                                           attrs={"saturate": 1}, clause=CLAUSE_FLOAT8,
                                                           flags=("edge", "boundary")))
CATALOGUE.add("blocked_int4_opset22", lambda: Spec(22, _axis_sets((2, 6), 1, "int4", block=2), zp_type="int4",
                                                  attrs={"axis": 1, "block_size": 2}, clause=CLAUSE_BLOCKED,
                                                  flags=("edge", "boundary")))
CATALOGUE.add("float4e2m1_opset24", lambda: Spec(24, _float_sets("float4e2m1"), zp_type="float4e2m1",
                                                clause=CLAUSE_FLOAT8, flags=("edge", "boundary")))
for _t in ("float8e4m3fnuz", "float8e5m2fnuz"):
    CATALOGUE.add(f"{_t}_inf_saturate_opset25", partial(_fnuz_inf, _t, 25))
CATALOGUE.add("int2_ties_saturation_opset26", lambda: Spec(26, _int_sets("int2"), zp_type="int2",
                                                          flags=("edge", "boundary")))


@CATALOGUE
def undefined_opset13():
    """NaN / Inf x to an integer type, a zero / infinite / NaN scale (probe)."""
    x = as_type([np.nan, np.inf, -np.inf, 1.0, 0.0, -1.0], "float")
    return Spec(13, [(x, as_type(s, "float"), as_type(3, "uint8")) for s in (1.0, 0.0, np.inf, np.nan)],
                flags=("probe",))


@CATALOGUE
def int32_scale_opset19():
    """int32 x with an int32 scale (T1 at opset 19): a division 'in int32' (probe)."""
    return Spec(19, [(as_type([7, -7, 5, 300, -300, 1], "int32"), as_type(2, "int32"), as_type(0, "int8"))],
                x_type="int32", scale_type="int32", zp_type="int8", flags=("probe",))
