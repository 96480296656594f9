"""Why Cast leaves an element undefined (UNDEF_*: each names the spec sentence that leaves it open), the round
modes, and the readings (READING_*): results no sentence states, read from the texts as docs/readings.md says."""

from __future__ import annotations



ROUND_MODES = ("up", "down", "nearest")

# Reasons for undefined elements (they name the spec sentence that leaves the result open).
UNDEF_FLOAT_TO_INT_OOR = "float -> integer out of range [Cast: fixed point: undefined if OOR]"
UNDEF_NAN_TO_INT = "NaN / Inf -> integer [Cast: fixed point: undefined if OOR]"
UNDEF_FLOAT_TO_SUBBYTE_OOR = ("float -> int4/uint4/int2/uint2 out of range [Cast: fixed point: undefined if OOR; "
                              "the int4/int2 notes' 'and truncating' is read by ONNX itself both as clipping "
                              "(onnx 1.16's float32_to_4bit_unpacked) and as wrapping (its tests, through ml_dtypes)]")
UNDEF_E8M0_NEGATIVE = "negative or -0 -> float8e8m0 [Cast-24 table: Unspecified]"
UNDEF_E8M0_RANGE = ("out of range -> float8e8m0 with saturate=0, round_mode up (below E8M0_MIN) or down "
                    "(above E8M0_MAX) [Cast-24 table covers only nearest; x and [x] disagree]")
UNDEF_FLOAT4_NAN = ("NaN -> float4e2m1 [ONNX's float4 note gives 6; ONNX's own Cast tests expect -0; "
                    "the type has no NaN]")
UNDEF_FLOAT6_NAN = ("NaN -> float6e2m3 / float6e3m2 [float6 note: 'nan -> -0.0 (unspecified ...)'; "
                    "the type has no NaN]")
UNDEF_STRING_SYNTAX = "not a numeric literal of the spec [Cast: non-numerical-literal string is undefined]"
UNDEF_STRING_FRACTION_TO_INT = "fractional or scientific string -> integer [Cast: undefined]"
UNDEF_STRING_INT_OOR = "integer string out of the target's range [Cast: fixed point undefined if OOR]"
UNDEF_STRING_TO_BOOL = "string -> bool [Cast defines no string -> bool rule]"
UNDEF_STRING_ROUNDING = ("decimal string whose value rounds differently when parsed to float32 / "
                         "float64 first [Cast fixes no rounding path for strings]")
UNDEF_BOOL_TO_STRING = "bool -> string [Cast defines number -> string only]"
UNDEF_NONFINITE_TO_STRING = "NaN / Inf -> string [Cast: 'plain floating-point representation' has none]"

# Readings: results that no sentence of the texts states, read from them as each says (docs/readings.md
# gives the reasons at length). Node cases whose expected outputs rest on one name it in case.json "reading".
READING_TRUNCATION = ("float -> int8..uint64 truncates fractions toward zero: Cast states no rounding there; read as "
                      "C's conversion, which ONNX's reference and every backend tested do (docs/readings.md#truncation)")
READING_IEEE_RNE = ("float16 / bfloat16 / float32 / float64 targets round to nearest, ties to even, overflow decided on "
                    "the rounded value: Cast says only 'may be round'; read as IEEE 754's default rounding, the RNE of "
                    "Cast's float 8 tables (docs/readings.md#ieee-rne)")
READING_E8M0_SATURATE = ("float8e8m0, saturate=1: the Cast-24 table states only round_mode up, and 0 -> '0'; read as "
                         "E8M0_MIN / E8M0_MAX out of range for every round_mode, and '0' as 0x00 = E8M0_MIN "
                         "(docs/readings.md#e8m0-saturate)")
READING_E8M0_NOSAT = ("float8e8m0, saturate=0, round_mode up / down: the Cast-24 table states only nearest; its NaN "
                      "rows are read to hold where rounding cannot bring x back into range (docs/readings.md#e8m0-nosat)")
READING_STRING_TO_INT = ("integer string -> integer type gives its value: Cast states string -> float only, with "
                         "'100.5' -> 100 as an integer example (docs/readings.md#string-to-int)")
READING_NUMBER_TO_STRING = ("number -> string: any text that reads back to the source value; 'plain floating-point "
                            "representation' fixes no digits (docs/readings.md#number-to-string)")
READING_STRING_NEGATIVE_INF = ("'-inf' in any case but '-INF' -> -Inf: Cast states '-INF' and names the "
                               "case-insensitive rule for '+INF', 'INF' and 'NaN' only; read as the same rule for "
                               "'-INF' (its sign on 'INF', which matches case-insensitively) "
                               "(docs/readings.md#string-negative-inf)")
READING_STRING_BEYOND_DOUBLE = ("a decimal string beyond float64's normal range ('1e400', '1e-400') converts by the "
                                "value it denotes (overflow and underflow as for any value): Cast names no parsing "
                                "type; read as the text's value, not as a strtod range error "
                                "(docs/readings.md#string-beyond-double)")
READING_SAME_TYPE_SATURATE = ("float8e5m2 -> float8e5m2 with saturate=1: +-Inf -> +-FLT_MAX by the table's Inf row; "
                              "Cast does not exempt a cast to the same type, and its table is written for any float "
                              "x (docs/readings.md#same-type-saturate)")
READINGS = (READING_TRUNCATION, READING_IEEE_RNE, READING_E8M0_SATURATE, READING_E8M0_NOSAT,
            READING_STRING_TO_INT, READING_NUMBER_TO_STRING, READING_STRING_NEGATIVE_INF,
            READING_STRING_BEYOND_DOUBLE, READING_SAME_TYPE_SATURATE)
