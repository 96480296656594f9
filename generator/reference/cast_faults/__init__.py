"""Fault models of ONNX Cast: plausible wrong implementations, each the reference with one deviation
(docs/design.md, "Fault models, witnesses, diagnosis"; generator/faults.py says what a fault module holds).

Every fault has the signature of generator.reference.cast.cast_node and is built from the reference
itself (generator.reference.cast), changed in one place:
  - a value rounded through a wider intermediate type first (double rounding);
  - another tie rule, or truncation, in place of round-to-nearest-even (float targets, and the int4 / int2
    targets whose notes state it); rounding in place of truncation for the wider integer targets;
  - saturate ignored or always applied; overflow decided on x instead of [x] (and the reverse for
    float8e8m0, whose table decides on x);
  - the sign of -0 or of NaN lost; subnormals flushed, in the source or the result;
  - integer -> integer saturating instead of wrapping;
  - float8e8m0's power of two chosen from log2(x), from the exponent field, or with ties to even;
  - strings parsed through float32 / float64 first.

`applies(params)` says where a fault is a plausible implementation at all (double rounding needs an
intermediate type wider than the target; the tie rules need a rounding target); elsewhere it is "not
applicable" in the kill matrix. `equivalent(params)` gives the analytic proof where it cannot differ.

Group of a case: (from, to, saturate, round_mode, opset), from case.json "params" and "opset".

The fault models by kind: common.py (the group key, node functions, type facts), rounding.py, ranges.py,
float8e8m0.py, strings.py, measured.py (issue 21), openvino.py; this module lists them (FAULTS).
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.faults import Fault, same_elements
from generator.reference import float8_bitwise as f8bits
from generator.reference.cast_faults.common import (_cast, INTERMEDIATES, _is_rounding_float, _node, _outcome, _params,
                                                    _wider, group_key)
from generator.reference.cast_faults.iree import (IREE, _e4m3fn_negative_nan, _float8_applies, _ftz_after_rounding,
                                                  _ftz_after_rounding_via_float, _ftz_applies, _iree_float8,
                                                  _uint32_via_int32, _uint32_via_int32_equivalent)
from generator.reference.cast_faults.float8e8m0 import (_e8m0, _e8m0_kernel, _exponent_up_choice, _log2_choice,
                                                        _ties_even_choice)
from generator.reference.cast_faults.measured import (_at_24, _bf16_round_bias, _bool_from_bits,
                                                      _double_to_string_8_digits, _e4m3fn_band, _e5m2_carry_nan,
                                                      _e8m0_onnx_applies, _float4_int_equivalent,
                                                      _float4_max_to_int_max, _fnuz_inf_rule_from, _fnuz_sat_inf,
                                                      _ieee_wide, _input_nan_sign_lost, _onnx_e8m0,
                                                      _onnx_e8m0_string_equivalent, _ort_float8, _ort_float8_equivalent,
                                                      _present_attributes, _present_saturate_applies,
                                                      _round_mode_misread, _saturate_beyond_float8, _saturate_misread,
                                                      _snan_applies, _snan_as_overflow, _snan_equivalent, _u64_applies,
                                                      _u64_equivalent, _u64_sticky_lost, _u64_via_int64, _via_float32,
                                                      _via_float_fnuz_equivalent, _via_float_fnuz_inf_24)
from generator.reference.cast_faults.openvino import _OV, _ov_bf16, _ov_e8m0, _ov_f64, _ov_float8, _ov_int32
from generator.reference.cast_faults.ranges import (_e8m0_range_on_rounded_kernel, _fits, _ftz_result,
                                                    _ftz_result_equivalent, _ftz_source, _ftz_source_equivalent,
                                                    _int_saturating, _nan_sign_lost, _neg_zero_lost, _no_overflow,
                                                    _overflow_on_x_equivalent, _overflow_on_x_kernel, _overflow_to_nan,
                                                    _saturate_flipped)
from generator.reference.cast_faults.rounding import (_int_round_nearest_even, _subbyte_add_half_float32,
                                                      _subbyte_from_float, _tie_rule, _truncating_pair, _via)
from generator.reference.cast_faults.strings import _string_via


def _numeric(p) -> bool:
    return p["from"] != "string" and p["to"] != "string"


def _float_source(p) -> bool:
    return dtypes.get(p["from"]).is_float and p["to"] != "string"


def _as_float32_bits_kept(x, src: DType) -> np.ndarray:
    """The source as float32: float types of <= 32 bits exactly, NaN payloads kept (a widening keeps the bits
    a converter shifts); the others as the reference rounds them (_via_float32)."""
    if src.is_float and src.bits <= 32 and src.name not in f8bits.TYPES:
        return np.asarray(x).astype(np.float32)
    return _via_float32(x, src)


def _float8_bitwise(x, src, to, saturate, round_mode, opset):
    """float 8 conversions by bit arithmetic without special cases (generator/reference/float8_bitwise.py): the
    source as float32 (a float 8 source decoded as a normal number), encoded into a float 8 target with the FN /
    IEEE layout and bias for the FNUZ types too, saturate and round_mode ignored (e8m0 rounds its exponent field
    to nearest even); other targets from that float32 as the reference converts it."""
    f = f8bits.decode(src.to_bits(x), src.name) if src.name in f8bits.TYPES else _as_float32_bits_kept(x, src)
    if to.name in f8bits.TYPES:
        return to.from_bits(f8bits.encode(f, to.name))
    return _cast(f, dtypes.get("float"), to, saturate, round_mode, opset)


def _float8_bitwise_applies(p) -> bool:
    return p["from"] != p["to"] and "string" not in (p["from"], p["to"]) and (
        p["from"] in f8bits.TYPES or p["to"] in f8bits.TYPES)


def _float8_bitwise_equivalent(p) -> str | None:
    """Every value of a source of <= 16 bits enumerated: the fault's defined results are the reference's."""
    src, to, saturate, round_mode, opset = _params(p)
    if src.bits > 16 or not src.is_numeric:
        return None
    x = src.all_values()
    o = _outcome(x, src, to, saturate, round_mode, opset)
    same = same_elements(o.outputs[0], _float8_bitwise(x, src, to, saturate, round_mode, opset), to) | o.mask()
    return f"every {src.name} value enumerated: the defined results agree" if same.all() else None


FAULTS: tuple[Fault, ...] = (
    *(_via(t) for t in INTERMEDIATES),
    _tie_rule("half_away", "rounds ties away from zero instead of to even",
              "OpenVINO (integer and f8 paths), onnxruntime 1.32.0 (float -> int4 / uint4 / int2 / uint2)"),
    _tie_rule("half_up", "rounds ties toward +inf instead of to even",
              "onnxruntime 1.32.0: 67 failing items consistent with it (float -> int4 / uint4, where it is "
              "indistinguishable from half away on the positive ties; baseline of issue 21, measured here)"),
    _tie_rule("toward_zero", "truncates toward zero instead of rounding to nearest even",
              "onnx-reference 1.23.2 (float -> int4 / uint4 / int2 / uint2 through ml_dtypes)"),
    Fault("cast.subbyte_add_half_float32", "float -> int4 / uint4 / int2 / uint2 as trunc(x +- 0.5) in float32 "
          "(half away from zero, and 0.49999997 -> 1; a double rounded to float32 first)",
          _node(_subbyte_add_half_float32), seen_in="OpenVINO 2026.4.1 (float -> int4 / uint4)",
          applies=lambda p: _subbyte_from_float(dtypes.get(p["from"]), dtypes.get(p["to"]))),
    Fault("cast.int_round_nearest_even", "float -> int8..uint64 rounds to nearest even instead of truncating toward "
          "zero (cvtps2dq for cvttps2dq; the int4 / int2 notes' rule taken for every integer)",
          _node(_int_round_nearest_even), applies=_truncating_pair,
          seen_in="not seen; modelled as x86's cvtps2dq (current rounding mode) used where cvttps2dq (truncation) "
                  "was meant, and as the int4 notes' rule applied to every integer type"),
    _saturate_flipped(always=False),
    _saturate_flipped(always=True),
    Fault("cast.overflow_on_x", "decides overflow on x instead of the rounded [x] (FLT_MAX < x < FLT_MAX + ulp/2 "
          "overflows)", _node(_overflow_on_x_kernel), equivalent=_overflow_on_x_equivalent,
          seen_in="not seen; modelled as a range check on the source value before rounding (x > FLT_MAX), the "
                  "order Cast's float 8 tables warn against by writing [x]",
          applies=lambda p: _numeric(p) and _is_rounding_float(dtypes.get(p["to"])) and p["to"] != "double"
          and not dtypes.get(p["from"]).kind == "bool"),
    Fault("cast.e5m2_overflow_nan", "float8e5m2, saturate=0: a finite value beyond FLT_MAX gives NaN instead of "
          "Inf", _node(_overflow_to_nan), seen_in="onnxruntime 1.31",
          applies=lambda p: p["to"] == "float8e5m2" and p.get("saturate") == 0, equivalent=_no_overflow),
    Fault("cast.e8m0_range_on_rounded", "float8e8m0, nearest, saturate=0: decides out of range on [x] instead of x "
          "as the table does", _node(_e8m0_range_on_rounded_kernel),
          seen_in="not seen; modelled as the range test done after rounding, as every other float 8 row is",
          applies=lambda p: _e8m0(p) and p.get("saturate") == 0 and p.get("round_mode") == "nearest",
          equivalent=lambda p: "an integer is 0 or lies in [1, 2**64): never just outside E8M0's range"
          if dtypes.get(p["from"]).is_integer or p["from"] == "bool" else None),
    Fault("cast.negative_zero_lost", "gives +0 where the result is -0", _node(_neg_zero_lost),
          seen_in="not seen; modelled as a conversion through an integer or a sign-magnitude split that drops "
                  "the sign of a zero result",
          applies=lambda p: _float_source(p) and dtypes.get(p["to"]).is_float
          and dtypes.get(p["to"]).has_negative_zero),
    Fault("cast.nan_sign_lost", "gives +NaN where the result is -NaN", _node(_nan_sign_lost),
          seen_in="onnxruntime 1.32.0: 1 failing item consistent with it (baseline of issue 21, measured here)",
          applies=lambda p: _float_source(p) and dtypes.get(p["to"]).negative_nan_bits is not None,
          equivalent=lambda p: None if (p.get("saturate") == 0 and dtypes.get(p["to"]).is_float8
                                        and dtypes.get(p["from"]).negative_nan_bits is not None) else
          "the spec states the sign of NaN only in the saturate=0 float8 rows; elsewhere it is not compared"),
    Fault("cast.ftz_source", "flushes subnormal inputs to zero before converting", _node(_ftz_source),
          seen_in="onnx-reference 1.23.2: 1 failing item consistent with it (baseline of issue 21, measured "
                  "here); also x86 DAZ / ARM FZ modes left on by a library",
          applies=lambda p: _float_source(p) and p["from"] not in ("float8e8m0",), equivalent=_ftz_source_equivalent),
    Fault("cast.ftz_result", "flushes subnormal results to zero", _node(_ftz_result),
          seen_in="not seen; modelled as x86 FTZ / ARM FZ left on by a library (results below the smallest normal "
                  "become 0)",
          applies=lambda p: p["from"] != "string" and _is_rounding_float(dtypes.get(p["to"])),
          equivalent=_ftz_result_equivalent),
    Fault("cast.int_saturate", "integer -> narrower integer saturates instead of wrapping (two's complement)",
          _node(_int_saturating),
          seen_in="not seen; modelled as a saturating narrowing instruction (x86 packsswb / ARM sqxtn) used for "
                  "a wrapping conversion",
          applies=lambda p: (dtypes.get(p["from"]).is_integer or p["from"] == "bool") and dtypes.get(p["to"]).is_integer,
          equivalent=lambda p: f"every {p['from']} value fits {p['to']}"
          if _fits(dtypes.get(p["from"]), dtypes.get(p["to"])) else None),
    Fault("cast.e8m0_log2", "float8e8m0: the power of two chosen from log2(x) computed in float32 (float64 for "
          "64-bit sources), not from the value", _node(_e8m0_kernel(_log2_choice)), applies=_e8m0,
          seen_in="onnxruntime 1.32.0 (29 failing items) and onnx-reference 1.23.2 (18) consistent with it "
                  "(baseline of issue 21, measured here)"),
    Fault("cast.e8m0_up_exponent", "float8e8m0, round_mode up: 2**(exponent + 1) even for an exact power of two",
          _node(_e8m0_kernel(_exponent_up_choice)), applies=lambda p: _e8m0(p) and p.get("round_mode") == "up",
          seen_in="onnx-reference 1.23.2: 2 failing items consistent with it (baseline of issue 21, measured here)"),
    Fault("cast.e8m0_nearest_ties_even", "float8e8m0, round_mode nearest: ties (1.5 * 2**k) to the even exponent "
          "instead of up", _node(_e8m0_kernel(_ties_even_choice)),
          seen_in="not seen; modelled as the IEEE default (ties to even) used where the table says ties up",
          applies=lambda p: _e8m0(p) and p.get("round_mode") == "nearest"),
    _string_via("float"),
    _string_via("double"),
    # opset boundaries: the FNUZ +-Inf row of Cast-24
    Fault("cast.fnuz_inf_saturates_before_24", "FNUZ, saturate=1: +-Inf -> +-FLT_MAX (the Cast-24 row) at "
          "Cast-19..23 too, where the row is NaN", _node(_fnuz_inf_rule_from(19)), applies=_fnuz_sat_inf,
          equivalent=_at_24, seen_in="onnxruntime 1.32.0 and onnx-reference 1.23.2: every inf_opset19 case "
          "(baseline of issue 21, measured here)"),
    Fault("cast.fnuz_inf_rule_at_23", "FNUZ, saturate=1: the Cast-24 +-Inf row switched on one opset early "
          "(Cast-23)", _node(_fnuz_inf_rule_from(23)), applies=_fnuz_sat_inf, equivalent=_at_24,
          seen_in="not seen; modelled as a version check written `opset >= 23` for the rule of Cast-24 (an "
                  "off-by-one at the opset boundary; float4e2m1 came at 23)"),
    # explicit defaults: attributes the model writes
    Fault("cast.present_saturate_read_as_0", "a saturate attribute the model writes is read as 0 (a model that "
          "leaves it out gets the default 1)", _present_attributes(_saturate_misread),
          applies=lambda p: _present_saturate_applies(p) and (dtypes.get(p["to"]).is_float8
                                                              or dtypes.get(p["to"]).nan_style == dtypes.E8M0),
          seen_in="not seen; modelled as an attribute read through the wrong accessor (its value dropped, 0 "
                  "kept) only when present, the code path no model without the attribute reaches"),
    Fault("cast.present_round_mode_as_nearest", "a round_mode attribute the model writes is read as 'nearest' "
          "whatever it says (a model that leaves it out gets up)", _present_attributes(_round_mode_misread),
          applies=lambda p: _e8m0(p) and p.get("round_mode") != "nearest",
          seen_in="not seen; modelled as a string attribute mapped to an enum by a table that misses its value and "
                  "falls back to round-to-nearest"),
    Fault("cast.present_saturate_beyond_float8", "a saturate=1 the model writes is applied to a float16 / "
          "bfloat16 / float32 target too: overflow gives +-FLT_MAX instead of +-Inf",
          _saturate_beyond_float8, applies=lambda p: _ieee_wide(dtypes.get(p["to"])) and p["from"] not in ("bool", "string")
          and int(p["opset"]) >= 13, equivalent=_no_overflow,
          seen_in="not seen; modelled as one saturating conversion routine shared by every float target once the "
                  "attribute is present (saturate 'only applies for float 8 conversion')"),
    # NaN payloads
    Fault("cast.bf16_round_bias_nan", "float32 -> bfloat16 by add-and-shift ((bits + 0x7FFF + lsb) >> 16) with no "
          "NaN test: a NaN whose payload is in the low 16 bits becomes Inf (or -0)", _node(_bf16_round_bias),
          applies=lambda p: p["from"] == "float" and p["to"] == "bfloat16",
          seen_in="not seen in a backend measured here; modelled on the common float32 -> bfloat16 rounding "
                  "snippet (round-bias add, then truncation) whose NaN test is left out, as in hand-written "
                  "kernels that assume finite inputs"),
    Fault("cast.snan_as_overflow", "a signalling NaN (quiet bit clear) converts as a finite value beyond the "
          "target's range: +-FLT_MAX with saturation, else Inf / NaN", _node(_snan_as_overflow),
          applies=_snan_applies, equivalent=_snan_equivalent,
          seen_in="not seen in a backend measured here; modelled on float 8 conversion code whose NaN test is "
                  "(b & 0x7FC00000) == 0x7FC00000 (quiet NaNs only): a signalling NaN falls to the overflow "
                  "branch (an onnxruntime float8.h review, onnxruntime#16940, noted that signalling NaNs need the "
                  "full test)"),
    Fault("cast.input_nan_sign_lost", "a NaN input gives +NaN (a NaN made from -Inf keeps its sign)",
          _node(_input_nan_sign_lost),
          applies=lambda p: _float_source(p) and dtypes.get(p["from"]).negative_nan_bits is not None
          and dtypes.get(p["to"]).negative_nan_bits is not None,
          equivalent=lambda p: None if (p.get("saturate") == 0 and dtypes.get(p["to"]).is_float8) else
          "the spec states the sign of NaN only in the saturate=0 float8 rows; elsewhere it is not compared",
          seen_in="onnxruntime 1.32.0 (bfloat16 -> float8e4m3fn, saturate=0: -NaN -> +NaN, -Inf -> -NaN; its "
                  "BFloat16::ToFloat returns the canonical quiet NaN; measured here)"),
    # uint64 double rounding
    Fault("cast.u64_sticky_lost", "uint64 >= 2**63 converted as 2 * float(x >> 1) without or-ing the low bit back "
          "(double rounding)", _node(_u64_sticky_lost), applies=_u64_applies, equivalent=_u64_equivalent,
          seen_in="not seen; modelled as the textbook unsigned-to-float sequence (shift right, convert signed, "
                  "add to itself) written without its `| (x & 1)` sticky bit"),
    Fault("cast.u64_via_int64", "uint64 >= 2**63 converted as double(int64(x)) + 2**64 in double (two roundings)",
          _node(_u64_via_int64), applies=_u64_applies, equivalent=_u64_equivalent,
          seen_in="not seen; modelled as the signed-conversion-plus-bias sequence for unsigned 64-bit inputs on "
                  "targets without an unsigned convert instruction"),
    # causes of the baseline's unexplained failures
    Fault("cast.ort_float8", "onnxruntime's float 8 path: the source through float32 (16-bit NaN -> +NaN), the "
          "Cast-24 FNUZ +-Inf row at every opset, E4M3FN saturate=0 |x| in [480, 496) -> +-448, E5M2 saturate=0 "
          "|x| in [61440, 65536) -> NaN", _node(_ort_float8),
          applies=lambda p: dtypes.get(p["to"]).is_float8 and p["from"] != "bool", equivalent=_ort_float8_equivalent,
          seen_in="onnxruntime 1.32.0 CPU (include/onnxruntime/core/framework/float8.h; measured here: the "
                  "float8 items of the issue 21 baseline that matched no fault)"),
    Fault("cast.e4m3fn_nosat_480", "float8e4m3fn, saturate=0: |x| in [480, 496) gives +-448 instead of NaN "
          "(saturate=0 treated as 1 there)", _node(_e4m3fn_band),
          applies=lambda p: p["to"] == "float8e4m3fn" and p.get("saturate") == 0 and p["from"] not in ("string", "bool"),
          equivalent=_no_overflow, seen_in="onnxruntime 1.32.0 (bfloat16 / float16 / float32 / integers -> "
          "float8e4m3fn: 480 -> 448; measured here)"),
    Fault("cast.e5m2_nosat_carry_nan", "float8e5m2, saturate=0: a value whose rounding carries past FLT_MAX "
          "(|x| in [61440, 65536)) gives NaN instead of Inf", _node(_e5m2_carry_nan),
          applies=lambda p: p["to"] == "float8e5m2" and p.get("saturate") == 0 and p["from"] not in ("string", "bool"),
          equivalent=_no_overflow, seen_in="onnxruntime 1.32.0 (bfloat16 / float32 / integers -> float8e5m2: "
          "61440 -> NaN; measured here)"),
    Fault("cast.via_float_fnuz_inf_24", "through float32, then the target with the Cast-24 FNUZ +-Inf row at "
          "every opset", _node(_via_float_fnuz_inf_24),
          applies=lambda p: dtypes.get(p["to"]).nan_style == dtypes.FNUZ and p["from"] not in ("string", "bool")
          and _wider(dtypes.get("float"), dtypes.get(p["to"])), equivalent=_via_float_fnuz_equivalent,
          seen_in="onnxruntime 1.32.0 and onnx-reference 1.23.2 (float64 -> float8e4m3fnuz / e5m2fnuz; measured "
                  "here)"),
    Fault("cast.e8m0_onnx_bits", "float8e8m0 from the float32 exponent field as onnx.numpy_helper.to_float8e8m0 "
          "does: a subnormal rounds up to 2**-126, Inf -> NaN, no NaN for 0 or out of range",
          _node(_onnx_e8m0), applies=_e8m0_onnx_applies, equivalent=_onnx_e8m0_string_equivalent,
          seen_in="onnx-reference 1.23.2 (reference/ops/op_cast.py -> numpy_helper.to_float8e8m0; measured here)"),
    Fault("cast.e8m0_up_mask_0x4fffff", "float8e8m0, round_mode up: the fraction tested with mask 0x4FFFFF, so "
          "1.125 and 1.25 stay 1 (and the rest of onnx's to_float8e8m0)",
          _node(lambda x, src, to, sat, mode, opset: _onnx_e8m0(x, src, to, sat, mode, opset, mask=0x4FFFFF)),
          applies=lambda p: _e8m0_onnx_applies(p) and p.get("round_mode") == "up",
          seen_in="onnx's numpy_helper.to_float8e8m0 before onnx#7784 (merged 2026-05-06), the reference "
                  "evaluator's Cast to float8e8m0"),
    Fault("cast.float8_bitwise", "float 8 by bit arithmetic without special cases: FNUZ types with the FN / IEEE "
          "layout's bias (1.0 -> 0x38), exponent overflow wrapping into the sign (FLT_MAX -> 1.0), -0 -> +0, float 8 "
          "sources read as normal numbers (0x00 -> 2**-bias), saturate and round_mode ignored (e8m0: exponent field "
          "to nearest even)", _node(_float8_bitwise), applies=_float8_bitwise_applies,
          equivalent=_float8_bitwise_equivalent,
          seen_in="TVM 0.27.0.post1 llvm (measured here: every float 8 encoding and 2,016 float32 values into each "
                  "float 8 type reproduced bit for bit; chains.float8_bitwise_normal_only and "
                  "convert_promote_types.float8_decoded_as_normals are its parts in those families)"),
    Fault("cast.bool_from_bits", "float -> bool as 'any bit set': -0 -> True, float8e8m0 0x00 (2**-127) -> False",
          _node(_bool_from_bits), applies=lambda p: dtypes.get(p["from"]).is_float and p["to"] == "bool",
          seen_in="onnxruntime 1.32.0 (float8e4m3fn / float8e5m2 -0 -> True, float8e8m0 0x00 -> False; "
                  "measured here)"),
    Fault("cast.double_to_string_8_digits", "double -> string with 8 significant digits ('%.8g'): the text does "
          "not read back to the value", _node(_double_to_string_8_digits),
          applies=lambda p: p["from"] == "double" and p["to"] == "string",
          seen_in="onnxruntime 1.32.0 (1.7976931348623157e308 -> '1.7976931e+308'; measured here)"),
    Fault("cast.ov_e8m0_nearest_even_field", "float8e8m0 from the float32 exponent field rounded to nearest, "
          "ties to an even field, whatever round_mode / saturate say (0 -> 0x00, Inf -> 0xFE)", _node(_ov_e8m0),
          applies=lambda p: _e8m0_onnx_applies(p) and p["from"] != "string", seen_in=_OV),
    Fault("cast.ov_float8_via_f16_saturate_ignored", "float8e4m3fn / e5m2 through float16, saturate ignored "
          "(overflow -> NaN / Inf)", _node(_ov_float8),
          applies=lambda p: p["to"] in ("float8e4m3fn", "float8e5m2") and p["from"] not in ("string", "bool"),
          equivalent=lambda p: "integers below 2048 are exact in float16 and every larger one overflows "
          "float8e4m3fn (NaN with saturate=0) either way" if p["to"] == "float8e4m3fn" and p.get("saturate") == 0
          and dtypes.get(p["from"]).is_integer else None, seen_in=_OV),
    Fault("cast.ov_bf16_truncate", "float -> bfloat16 by truncating the float32 bits (NaN -> Inf, subnormals -> "
          "0, doubles clamped to FLT_MAX)", _node(_ov_bf16),
          applies=lambda p: p["to"] == "bfloat16" and dtypes.get(p["from"]).is_float and p["from"] != "bfloat16",
          seen_in=_OV),
    Fault("cast.ov_f64_via_f32", "-> double through float32, +-Inf -> +-FLT_MAX of float32", _node(_ov_f64),
          applies=lambda p: p["to"] == "double" and p["from"] not in ("string", "bool"),
          seen_in=_OV + "; the issue's 'OpenVINO bf16 -> f64'"),
    Fault("cast.ov_int64_as_int32", "64-bit integers handled as int32 (low 32 bits, signed); float -> 64-bit / "
          "uint32 through int32", _node(_ov_int32),
          applies=lambda p: dtypes.get(p["to"]).is_integer and p["from"] not in ("string", "bool") and (
              dtypes.get(p["to"]).bits == 64 or dtypes.get(p["from"]).is_float and p["to"] == "uint32"),
          equivalent=lambda p: f"every {p['from']} value is its own int32" if dtypes.get(p["from"]).is_integer
          and -(2**31) <= dtypes.get(p["from"]).int_min and dtypes.get(p["from"]).int_max < 2**31 else None,
          seen_in=_OV),
    Fault("cast.float4_max_to_int_max", "float4e2m1 -> integer: +-6 gives the integer type's max / min (taken "
          "for +-Inf)", _node(_float4_max_to_int_max),
          applies=lambda p: p["from"] == "float4e2m1" and dtypes.get(p["to"]).is_integer,
          equivalent=_float4_int_equivalent,
          seen_in="XLA CPU (jax), as the issue 21 brief names it; not reproduced here"),
    Fault("cast.e4m3fn_negative_nan_as_number", "float8e4m3fn's negative NaN 0xFF decodes as -480 (0x7F stays "
          "NaN)", _node(_e4m3fn_negative_nan),
          applies=lambda p: p["from"] == "float8e4m3fn" and dtypes.get(p["to"]).is_float and p["to"] != p["from"],
          seen_in=IREE + ": 0xFF -> -480.0 in Cast / CastLike to float32, bfloat16, ..."),
    Fault("cast.ftz_after_rounding", "flushes to zero with tininess detected after rounding: a value whose "
          "rounding to the target's precision (exponent unbounded) is below the smallest normal gives 0 (subnormal "
          "results, and 0x1.fffffep-127 -> 0 in float32 where RNE gives FLT_MIN)",
          _node(_ftz_after_rounding), applies=_ftz_applies, equivalent=_ftz_result_equivalent,
          seen_in=IREE + ": float64 -> float32 (1.1754942807573643e-38 -> 0 where the reference gives FLT_MIN, "
          "1.1754943508222874e-38 -> FLT_MIN, 1.401298464324817e-45 -> 0); x86 FTZ's tininess rule"),
    Fault("cast.ftz_after_rounding_via_float", "float64 -> float16 / bfloat16 through float32, each step flushing "
          "to zero with tininess after rounding (double rounding, and subnormal results -> 0)",
          _node(_ftz_after_rounding_via_float),
          applies=lambda p: p["from"] == "double" and p["to"] in ("float16", "bfloat16"),
          seen_in=IREE + ": float64 -> float16 (65519.99999999999 -> Inf, 2.980232238769532e-08 -> 0) and "
          "float64 -> bfloat16 (9.183549615799121e-41 -> 0)"),
    Fault("cast.iree_float8", "float 8 as IREE converts: saturate ignored (overflow -> NaN / Inf), NaN results "
          "the positive NaN, and a value below the smallest normal that rounds up onto it -> 0 (the subnormal "
          "rounding's carry into the exponent lost)", _node(_iree_float8), applies=_float8_applies,
          seen_in=IREE + ": CastLike float32 / bfloat16 -> float8e4m3fn / e5m2 / e4m3fnuz / e5m2fnuz (float8e4m3fn: "
          "FLT_MAX -> NaN with saturate=1, -896 -> +NaN 0x7f with saturate=0, 0.0146484375 and 0.015624999 -> 0 "
          "instead of 0.015625, 0.013671875 -> 0x07 as specified)"),
    Fault("cast.uint32_via_int32", "float -> uint32 through int32 (x86 cvttss2si / cvttsd2si): 2**31 and above give "
          "0x80000000, the 'integer indefinite', from every float width", _node(_uint32_via_int32),
          applies=lambda p: dtypes.get(p["from"]).is_float and p["to"] == "uint32",
          equivalent=_uint32_via_int32_equivalent,
          seen_in=IREE + ": CastLike float64 / float32 / bfloat16 -> uint32 (float64 4294967295.0 and 2147483649.0 -> "
          "2147483648, where OpenVINO's float64 clamps; its Cast to uint32 does not compile)"),
)

__all__ = ["FAULTS", "group_key"]
