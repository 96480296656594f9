"""ONNX DynamicQuantizeLinear-11, written from the ONNX DynamicQuantizeLinear-11 specification
(DynamicQuantizeLinear-11.txt, docs/specs.md).

The spec's function body is normative for the order of the float32 operations, so every step below
is one float32 operation of that body, in its order ([DQL body] below):

    X_Min_Adjusted = Min(ReduceMin(x), 0)          X_Max_Adjusted = Max(ReduceMax(x), 0)
    Scale          = Div(Sub(X_Max_Adjusted, X_Min_Adjusted), 255)        one float32 division
    Zeropoint      = Cast<uint8>(Round(Clip(Sub(0, Div(X_Min_Adjusted, Scale)), 0, 255)))
    y              = QuantizeLinear(x, Scale, Zeropoint)
                   = saturate(round(x / Scale) + Zeropoint)                [DQL summary, "Data quantization"]

Round and QuantizeLinear round to nearest, ties to even ([DQL summary]). numpy's float32 arithmetic
is IEEE 754 binary32 with round-to-nearest-even and gradual underflow, so each step is exact to the spec.

The spec leaves a result undefined where a step has no value: ReduceMin / ReduceMax of no element, a
NaN reaching the Cast of the zero point or the rounding of y (0 / 0, inf / inf, NaN in x), and a
Scale of 0 (all-zero x, or a range that underflows), which QuantizeLinear would divide by. The
reference's Outcome (generator/outcome.py) names the reason such an input is undefined as a whole, and the
family sends it to a probe case.
"""

from __future__ import annotations

import numpy as np

from generator.outcome import Outcome

F32 = np.float32
Q_MIN, Q_MAX = F32(0), F32(255)

SPEC_FILE = "DynamicQuantizeLinear-11.txt"

# Reasons an input's result is undefined; each names the step of the spec that has no value.
UNDEF_EMPTY = "x is empty: ReduceMin / ReduceMax of no element [DynamicQuantizeLinear-11 function body]"
UNDEF_X_NAN = "x holds NaN: the min / max and every later step are NaN [DynamicQuantizeLinear-11 function body]"
UNDEF_SCALE_ZERO = ("y_scale = range / 255 is 0 (x all zeros, or a range that underflows): min / y_scale and "
                    "QuantizeLinear's x / y_scale divide by zero [DynamicQuantizeLinear-11 function body]")
UNDEF_ZP_NAN = ("the zero point is NaN (X_Min_Adjusted / Scale is -inf / inf): Cast to uint8 of NaN "
                "[DynamicQuantizeLinear-11 function body]")
UNDEF_Y_NAN = ("x / y_scale is NaN for an infinite element (inf / inf): QuantizeLinear rounds NaN "
               "[DynamicQuantizeLinear-11 function body]")

# Readings (docs/readings.md): results the function body gives only when its float32 steps are read as IEEE 754
# arithmetic, which the text names nowhere; an implementation that flushes subnormals or traps on overflow reads
# it otherwise. case.json "reading" carries each that a judged data set rests on.
READING_RANGE_OVERFLOW = ("dql-range-overflow: X_Max - X_Min overflowing float32 gives +inf, so y_scale = +inf, the "
                          "zero point 0 - (X_Min / inf) = 0 and y = x / inf = 0: the body's Sub and Div read as IEEE 754 "
                          "float32 arithmetic (overflow to infinity); the text states no overflow rule")
READING_SUBNORMAL_SCALE = ("dql-subnormal-scale: a y_scale below 2**-126 is the subnormal IEEE 754 gradual underflow "
                           "gives (not flushed to 0, which would make the input undefined), and the later divisions "
                           "by it are IEEE too: the body's Div read as IEEE 754 float32 arithmetic")


def readings(x: np.ndarray) -> list[str]:
    """The readings (READING_*) the defined result of x rests on; [] for an undefined x or a plain one."""
    x = np.asarray(x, dtype=F32)
    if x.size == 0 or np.isnan(x).any():
        return []
    if not dynamic_quantize_linear(x).defined:
        return []
    scale, _ = quantization_parameters(x)
    if np.isinf(scale):
        return [READING_RANGE_OVERFLOW]
    if 0 < scale < np.finfo(F32).tiny:
        return [READING_SUBNORMAL_SCALE]
    return []


def quantization_parameters(x: np.ndarray) -> tuple[np.float32, np.float32]:
    """(Scale, Initial_ZeroPoint_FP) of the function body, each step one float32 operation
    [DynamicQuantizeLinear-11, function body: ReduceMin .. Sub(Q_Min, Min_Scaled)].

    x must be non-empty. Infinities and NaN propagate as IEEE arithmetic says."""
    x = np.asarray(x, dtype=F32)
    with np.errstate(all="ignore"):
        x_min = np.minimum(np.min(x), Q_MIN)  # X_Min_Adjusted = Min(X_Min, Q_Min)
        x_max = np.maximum(np.max(x), Q_MIN)  # X_Max_Adjusted = Max(X_Max, Q_Min)
        x_range = F32(x_max - x_min)  # may overflow to +inf: IEEE defines it
        scale = F32(x_range / Q_MAX)  # one correctly rounded float32 division
        min_scaled = F32(x_min / scale)
        initial_zero_point = F32(Q_MIN - min_scaled)
    return scale, initial_zero_point


def dynamic_quantize_linear(x: np.ndarray) -> Outcome:
    """DynamicQuantizeLinear of a float32 tensor [DynamicQuantizeLinear-11: summary and function body].

    The Outcome's outputs are (y, y_scale, y_zero_point): y uint8 of x's shape, y_scale a 0-d float32,
    y_zero_point a 0-d uint8. Where a step of the function body has no value, the input is undefined as a
    whole for that reason (UNDEF_*) and the outputs are placeholders of the right type and shape."""
    x = np.asarray(x, dtype=F32)
    y = np.zeros(x.shape, dtype=np.uint8)
    no_zero_point = np.array(0, dtype=np.uint8)
    if x.size == 0:
        return Outcome.of((y, np.array(0, dtype=F32), no_zero_point), UNDEF_EMPTY)
    if np.isnan(x).any():
        return Outcome.of((y, np.array(0, dtype=F32), no_zero_point), UNDEF_X_NAN)
    scale, initial_zero_point = quantization_parameters(x)
    if scale == 0:
        return Outcome.of((y, np.array(scale), no_zero_point), UNDEF_SCALE_ZERO)
    # Clip then Round (ties to even); Clip keeps NaN, which only -inf / inf produces here
    rounded = np.rint(np.clip(initial_zero_point, Q_MIN, Q_MAX))
    if np.isnan(rounded):
        return Outcome.of((y, np.array(scale), no_zero_point), UNDEF_ZP_NAN)
    zero_point = np.array(rounded, dtype=np.uint8)
    with np.errstate(all="ignore"):
        q = np.rint(x / scale)  # float32 division, then ties-to-even
    if np.isnan(q).any():
        return Outcome.of((y, np.array(scale), zero_point), UNDEF_Y_NAN)
    # saturate(q + zero point): in float64, where q + zero point is exact for every |q| < 2**52
    # and larger |q| saturates the same whatever the rounding
    y = np.clip(q.astype(np.float64) + float(zero_point), 0.0, 255.0).astype(np.uint8)
    return Outcome.of((y, np.array(scale), zero_point))


def dynamic_quantize_linear_node(inputs: list[np.ndarray], attrs: dict, opset: int,
                                 input_types: list) -> list[np.ndarray]:
    """DynamicQuantizeLinear as a graph node, for the opconform backend [DynamicQuantizeLinear-11].

    An undefined input gives the placeholders (the suite has no expectation for it)."""
    return list(dynamic_quantize_linear(inputs[0]).outputs)


# (domain, op) -> node function: generator.reference.lookup finds it here
NODES = {("", "DynamicQuantizeLinear"): dynamic_quantize_linear_node}
