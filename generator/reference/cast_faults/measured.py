"""Issue 21's faults: the axes' (present attributes, NaN payloads, opset boundaries, uint64) and the causes the
baseline's unexplained failures show (onnxruntime 1.32.0, onnx-reference 1.23.2: measured here)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.reference import cast as ref
from generator.reference.cast_rounding import round_fraction
from generator.reference.cast_faults.common import _cast, _is_rounding_float, _params
from generator.reference.cast_faults.ranges import _no_overflow, _values


def _fnuz_sat_inf(p) -> bool:
    """FNUZ target, saturate=1, from a source that holds +-Inf: the row Cast-24 changed."""
    src, to, saturate, *_ = _params(p)
    return to.nan_style == dtypes.FNUZ and saturate and (src.kind == "string" or src.is_float and src.has_inf)


def _fnuz_inf_rule_from(first: int):
    """The Cast-24 row (+-Inf -> +-FLT_MAX for FNUZ, saturate=1) applied from opset `first` on."""
    def kernel(x, src, to, saturate, round_mode, opset):
        moved = to.nan_style == dtypes.FNUZ and saturate and first <= opset < 24
        return _cast(x, src, to, saturate, round_mode, 24 if moved else opset)
    return kernel


def _at_24(p) -> str | None:
    return "from Cast-24 on the row is the reference's" if int(p["opset"]) >= 24 else None


def _present_attributes(misread):
    """A node function that reads the attributes the node *writes* through misread(name, value, opset) and
    leaves the absent ones at their defaults: a model that omits them is converted right."""
    def fn(inputs, attrs, opset, input_types):
        a = ref.node_attributes(attrs, opset)
        for name in ("saturate", "round_mode"):
            if name in attrs and (opset >= 19 if name == "saturate" else opset >= 24):
                a[name] = misread(name, a[name])
        to = dtypes.get(int(attrs["to"]))
        return [_cast(np.asarray(inputs[0]), dtypes.get(input_types[0]), to, a["saturate"], a["round_mode"], opset)]
    return fn


def _saturate_misread(name, value):
    return False if name == "saturate" else value


def _round_mode_misread(name, value):
    return "nearest" if name == "round_mode" else value


def _saturate_beyond_float8(inputs, attrs, opset, input_types):
    """A present saturate=1 applied to a float16 / bfloat16 / float32 target too: overflow -> +-FLT_MAX."""
    src, to = dtypes.get(input_types[0]), dtypes.get(int(attrs["to"]))
    a = ref.node_attributes(attrs, opset)
    x = np.asarray(inputs[0])
    y = _cast(x, src, to, a["saturate"], a["round_mode"], opset)
    if "saturate" not in attrs or not a["saturate"] or opset < 19 or not _ieee_wide(to) or src.kind == "string":
        return [y]
    with np.errstate(invalid="ignore"):
        big = np.isinf(y.astype(np.float64)) & ~np.isinf(_values(x, src))
    if big.any():
        y = y.copy()
        y[big] = np.copysign(to.finite_max, y[big].astype(np.float64)).astype(to.np_dtype)
    return [y]


def _ieee_wide(t: DType) -> bool:
    return t.name in ("float16", "bfloat16", "float")


def _present_saturate_applies(p) -> bool:
    to = dtypes.get(p["to"])
    return "saturate" in p and bool(p["saturate"]) and p["from"] not in ("bool",)


def _nan_bits_kind(x, src: DType):
    """(is a NaN, is a signalling NaN) per element, from the bits (IEEE formats: the quiet bit clear)."""
    if not src.is_float:
        z = np.zeros(np.shape(x), dtype=bool)
        return z, z
    nan = src.isnan(np.asarray(x, dtype=src.np_dtype))
    if src.nan_style != dtypes.IEEE:
        return nan, np.zeros_like(nan)
    quiet = np.uint64(1 << (src.mantissa_bits - 1))
    bits = src.to_bits(x).astype(np.uint64)
    return nan, nan & ((bits & quiet) == 0)


def _bf16_round_bias(x, src, to, saturate, round_mode, opset):
    """float32 -> bfloat16 as (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 with no NaN test: RNE for every number,
    but a NaN whose payload sits in the low 16 bits carries into the exponent's neighbour (0x7F800001 -> Inf,
    0x7FFFFFFF -> -0)."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if src.name != "float" or to.name != "bfloat16":
        return y
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    out = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
    nan, _ = _nan_bits_kind(x, src)
    y = y.copy()
    y[nan] = to.from_bits(out[nan].astype(np.uint16))
    return y


def _snan_as_overflow(x, src, to, saturate, round_mode, opset):
    """A signalling NaN (quiet bit clear) taken for a finite value past the target's range (its exponent field
    is all ones, and the NaN test looks at the quiet bit only): +-FLT_MAX with saturation, else what overflow
    gives (Inf, or NaN)."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    _, snan = _nan_bits_kind(x, src)
    if not snan.any() or not to.is_float or to.nan_style == dtypes.E8M0:
        return y
    with np.errstate(invalid="ignore"):
        neg = np.signbit(np.asarray(x, dtype=src.np_dtype).astype(np.float64))
    big = np.where(neg, -1.0, 1.0) * (to.finite_max * 2 if math.isfinite(to.finite_max * 2) else math.inf)
    z = _cast(big.astype(np.float64), dtypes.get("double"), to, saturate, round_mode, opset)
    y = y.copy()
    y[snan] = z[snan]
    return y


def _snan_applies(p) -> bool:
    src, to = dtypes.get(p["from"]), dtypes.get(p["to"])
    return src.is_float and src.nan_style == dtypes.IEEE and to.is_float and to.has_nan \
        and to.nan_style != dtypes.E8M0 and src.name != to.name


def _snan_equivalent(p) -> str | None:
    src, to, saturate, *_ = _params(p)
    if to.nan_style in (dtypes.FN, dtypes.FNUZ) and not saturate:
        return f"{to.name} with saturate=0 gives NaN for overflow too"
    return None


_EXACT_IN_FLOAT32 = ("exact in float32, and onnxruntime's float 8 code departs from the table only in the "
                     "saturate=0 E4M3FN / E5M2 top band and the FNUZ +-Inf row before Cast-24, neither of which "
                     "this group reaches (values float32 rounds past the target's range overflow either way; strings "
                     "that round differently through float32 are undefined)")


def _ort_float8_equivalent(p) -> str | None:
    src, to, saturate, _, opset = _params(p)
    if not saturate and to.name in ("float8e4m3fn", "float8e5m2") and _no_overflow(p) is None:
        return None
    if to.nan_style == dtypes.FNUZ and saturate and opset < 24 and (src.kind == "string" or src.is_float and src.has_inf):
        return None
    if src.name == "double":
        return None
    return f"every {src.name} value below the target's range is " + _EXACT_IN_FLOAT32


def _via_float_fnuz_equivalent(p) -> str | None:
    src, to, saturate, _, opset = _params(p)
    if src.name == "double" or saturate and opset < 24 and src.is_float and src.has_inf:
        return None
    return (f"every {src.name} value below {to.name}'s range is exact in float32 (larger integers overflow either "
            f"way), and the +-Inf row is the reference's here")


def _input_nan_sign_lost(x, src, to, saturate, round_mode, opset):
    """A NaN input gives +NaN (a 16-bit float widened to float32 by a ToFloat that returns the canonical quiet
    NaN); NaN made from -Inf keeps its sign."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    nan, _ = _nan_bits_kind(x, src)
    if not nan.any() or not to.is_float or to.negative_nan_bits is None:
        return y
    bits = to.to_bits(y).copy()
    bits[nan & to.isnan(y)] = to.nan_bits
    return to.from_bits(bits)


def _u64_sticky_lost(x, src, to, saturate, round_mode, opset):
    """uint64 >= 2**63 converted as 2 * float(x >> 1): the halving drops the low bit instead of or-ing it back
    in as a sticky bit, so a value just above a tie is rounded as the tie."""
    if src.name != "uint64":
        return _cast(x, src, to, saturate, round_mode, opset)
    a = np.asarray(x, dtype=np.uint64)
    high = a >= np.uint64(1 << 63)
    return _cast(np.where(high, a & ~np.uint64(1), a), src, to, saturate, round_mode, opset)


def _u64_via_int64(x, src, to, saturate, round_mode, opset):
    """uint64 >= 2**63 read as int64, converted to double, then 2**64 added in double (and the double cast to
    the target): two roundings where there should be one."""
    if src.name != "uint64":
        return _cast(x, src, to, saturate, round_mode, opset)
    a = np.asarray(x, dtype=np.uint64)
    high = a >= np.uint64(1 << 63)
    if not high.any():
        return _cast(x, src, to, saturate, round_mode, opset)
    signed = [round_fraction(Fraction(int(v) - (1 << 64)), dtypes.get("double")) for v in a[high].tolist()]
    d = a.astype(np.float64)
    d[high] = [float(round_fraction(s + (1 << 64), dtypes.get("double"))) for s in signed]
    y = _cast(x, src, to, saturate, round_mode, opset)
    y = y.copy()
    y[high] = _cast(d[high], dtypes.get("double"), to, saturate, round_mode, opset)
    return y


def _u64_applies(p) -> bool:
    return p["from"] == "uint64" and _is_rounding_float(dtypes.get(p["to"]))


def _u64_equivalent(p) -> str | None:
    to = dtypes.get(p["to"])
    if to.finite_max < 2.0**63:
        return f"every uint64 >= 2**63 overflows {to.name} either way"
    return None


def _bool_from_bits(x, src, to, saturate, round_mode, opset):
    """float -> bool as 'any bit set': -0 -> True; float8e8m0's 0x00 (2**-127) -> False."""
    if not src.is_float or to.kind != "bool":
        return _cast(x, src, to, saturate, round_mode, opset)
    return src.to_bits(x) != 0


def _float4_max_to_int_max(x, src, to, saturate, round_mode, opset):
    """float4e2m1 -> integer: +-6 (its largest magnitude, where +-Inf saturates to) taken for +-Inf and clamped
    to the integer type's max / min."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if src.name != "float4e2m1" or not to.is_integer:
        return y
    v = _values(x, src)
    top = np.abs(v) == 6.0
    if top.any():
        y = y.copy()
        ext = np.array([to.int_max if e > 0 else to.int_min for e in v[top]], dtype=object).astype(to.np_dtype)
        y[top] = ext
    return y


def _float4_int_equivalent(p) -> str | None:
    to = dtypes.get(p["to"])
    if to.is_integer and to.int_max == 6:
        return "6 is the integer type's max"
    return None


def _via_float32(x, src):
    """The source as float32 (RNE; a string parsed to double first), 16-bit NaNs as the canonical +NaN when
    plus_nan: what a backend that converts every source to float first feeds its float8 code."""
    t = dtypes.get("float")
    if src.kind == "string":
        return _cast(_cast(x, src, dtypes.get("double"), True, "up", 25), dtypes.get("double"), t, True, "up", 25)
    return _cast(x, src, t, True, "up", 25)


def _ort_float8(x, src, to, saturate, round_mode, opset):
    """onnxruntime's CPU Cast to a float 8 type: the source converted to float32 first (a 16-bit NaN as +NaN:
    MLFloat16 / BFloat16 ToFloat), then its float8.h constructors: the Cast-24 FNUZ +-Inf row at every opset,
    E4M3FN saturate=0 gives +-448 for |x| in [480, 496) (the truncated 0x7F is masked to 0x7E before the
    rounding test), E5M2 saturate=0 gives NaN where rounding carries past FLT_MAX (|x| in [61440, 65536))."""
    if not to.is_float8 or src.kind == "bool":
        return _cast(x, src, to, saturate, round_mode, opset)
    f = _via_float32(x, src)
    nan, _ = _nan_bits_kind(x, src)
    if src.bits == 16 and nan.any():
        f = f.copy()
        f[nan] = np.float32(np.nan)
    t = dtypes.get("float")
    y = _cast(f, t, to, saturate, round_mode, 24 if to.nan_style == dtypes.FNUZ else opset).copy()
    a = np.abs(f.astype(np.float64))
    neg = np.signbit(f.astype(np.float64))
    if not saturate and to.name == "float8e4m3fn":
        band = (a >= 480) & (a < 496)
        y[band] = to.from_bits(np.where(neg[band], 0xFE, 0x7E).astype(np.uint8))
    if not saturate and to.name == "float8e5m2":
        band = (a >= 61440) & (a < 65536)
        y[band] = to.from_bits(np.where(neg[band], 0xFF, 0x7F).astype(np.uint8))
    return y


def _e4m3fn_band(x, src, to, saturate, round_mode, opset):
    """float8e4m3fn, saturate=0: |x| in [480, 496) gives +-448 instead of NaN (the rest of the table kept)."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if to.name != "float8e4m3fn" or saturate or src.kind in ("string", "bool"):
        return y
    v = _values(x, src)
    band = (np.abs(v) >= 480) & (np.abs(v) < 496)
    y = y.copy()
    y[band] = to.from_bits(np.where(np.signbit(v[band]), 0xFE, 0x7E).astype(np.uint8))
    return y


def _e5m2_carry_nan(x, src, to, saturate, round_mode, opset):
    """float8e5m2, saturate=0: a value whose rounding carries past FLT_MAX (|x| in [61440, 65536)) gives NaN;
    larger ones give Inf as the table says."""
    y = _cast(x, src, to, saturate, round_mode, opset)
    if to.name != "float8e5m2" or saturate or src.kind in ("string", "bool"):
        return y
    v = _values(x, src)
    band = (np.abs(v) >= 61440) & (np.abs(v) < 65536)
    y = y.copy()
    y[band] = to.from_bits(np.where(np.signbit(v[band]), 0xFF, 0x7F).astype(np.uint8))
    return y


def _via_float_fnuz_inf_24(x, src, to, saturate, round_mode, opset):
    """Through float32, then the target with the Cast-24 FNUZ +-Inf row at every opset."""
    if src.kind in ("string", "bool") or not to.is_float8:
        return _cast(x, src, to, saturate, round_mode, opset)
    t = dtypes.get("float")
    f = _cast(x, src, t, True, "nearest", opset)
    return _cast(f, t, to, saturate, round_mode, 24 if to.nan_style == dtypes.FNUZ else opset)


def _onnx_e8m0(x, src, to, saturate, round_mode, opset, mask=0x7FFFFF):
    """float8e8m0 as onnx.numpy_helper.to_float8e8m0 computes it (onnx 1.23.2): the source converted to float32,
    the result taken from its exponent field (Inf / NaN -> 0xFF; a subnormal float32 has field 0, and up /
    nearest add 1 to it for any fraction); up adds 1 when (bits & mask) != 0; nearest by guard / round / sticky
    bits; saturate only keeps 0xFE from rounding to 0xFF; no NaN for 0 or out of range."""
    if to.nan_style != dtypes.E8M0:
        return _cast(x, src, to, saturate, round_mode, opset)
    f = _via_float32(x, src).astype(np.float32)
    b = f.view(np.uint32).astype(np.int64)
    e = (b >> 23) & 0xFF
    special = e == 0xFF
    if round_mode == "nearest":
        g, r, s = (b & 0x400000) > 0, (b & 0x200000) > 0, (b & 0x1FFFFF) > 0
        up = g & (r | s | (e > 0)) & ~special
    elif round_mode == "up":
        up = ((b & mask) > 0) & ~special
    else:
        up = np.zeros_like(special)
    if saturate:
        up &= e != 0xFE
    out = np.where(special, 0xFF, (e + up) & 0xFF).astype(np.uint8)
    return to.from_bits(out)


def _onnx_e8m0_string_equivalent(p) -> str | None:
    if p["from"] == "string" and p.get("saturate") == 0 and p.get("round_mode") == "up":
        return ("string, saturate=0, up: in range, up on the float32 parse decides as up on the value wherever "
                "the two parses agree (elsewhere the string is undefined: UNDEF_STRING_ROUNDING); above E8M0_MAX "
                "both give NaN; below E8M0_MIN, 0 and negative values are undefined")
    return None


def _e8m0_onnx_applies(p) -> bool:
    return dtypes.get(p["to"]).nan_style == dtypes.E8M0


def _double_to_string_8_digits(x, src, to, saturate, round_mode, opset):
    """double -> string with 8 significant digits ('%.8g'), the precision of a float32 format."""
    if src.name != "double" or to.kind != "string":
        return _cast(x, src, to, saturate, round_mode, opset)
    out = ["%.8g" % float(v) for v in np.asarray(x, dtype=np.float64).ravel()]
    return np.array(out, dtype=object).reshape(np.shape(x))
