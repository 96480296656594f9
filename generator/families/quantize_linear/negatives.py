"""QuantizeLinear models the schema rules out (negative/): each must be refused, citing the rule's sentence.
Catalogue entries, registered after axes_entries.py's."""

from __future__ import annotations

import numpy as np

from generator import dtypes

from generator.catalogue.quantize_linear import as_type
from generator.families.quantize_linear.spec import CATALOGUE, CLAUSE_FORMULA, READING_SCALAR_SCALE_10, Spec
from generator.reference import quantize_linear as ref

# a type rule is the graph's (refused at prepare); a shape rule may be checked when the shapes are seen: "run" is
# either phase (runners/execute.py)
SHAPE_PHASE = "run"


def _neg(opset, x, s, z, why, attrs=None, x_type="float", scale_type="float", zp_type="uint8", phase="prepare",
         clause=CLAUSE_FORMULA, flags=("negative",), reading=None):
    return Spec(opset, [(as_type(x, x_type), as_type(s, scale_type), None if z is None else as_type(z, zp_type))],
                x_type=x_type, scale_type=scale_type, zp_type=zp_type if z is not None else None, attrs=attrs or {},
                negative=why, phase=phase, flags=flags, clause=clause, reading=reading)


def _t3(opset: int) -> str:
    """The clause of the zero point's and y's type constraint at an opset (T2 before 23, T3 from it)."""
    return (f"{'T3' if ref.schema_version(opset) >= 23 else 'T2'} (QuantizeLinear-{ref.schema_version(opset)}): "
            f"{', '.join(ref.output_types(opset))}: The type of the input `y_zero_point` and the output `y`")


@CATALOGUE
def negative_zero_point_shape_differs_opset13():
    return _neg(13, np.ones((2, 3)), np.ones(3), np.zeros(()), "y_zero_point's shape is not y_scale's",
                {"axis": 1}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_per_axis_length_differs_opset13():
    return _neg(13, np.ones((2, 3)), np.ones(2), np.zeros(2), "a per-axis scale of length 2 on an axis of length 3",
                {"axis": 1}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_two_d_scale_opset13():
    return _neg(13, np.ones((2, 4)), np.ones((2, 2)), np.zeros((2, 2)), "a 2-D scale before blocked quantization",
                phase=SHAPE_PHASE)


@CATALOGUE
def negative_scale_not_x_type_opset19():
    return _neg(19, np.ones(4), 1.0, 0, "y_scale float16 for a float32 x (T1 at 19 / 21)", scale_type="float16")


@CATALOGUE
def negative_zero_point_int16_opset19():
    return _neg(19, np.ones(4), 1.0, 0, "an int16 zero point before opset 21", zp_type="int16")


@CATALOGUE
def negative_output_dtype_not_zero_point_type_opset21():
    return _neg(21, np.ones(4), 1.0, 0, "output_dtype int8 with a uint8 zero point",
                {"output_dtype": dtypes.get("int8").onnx})


@CATALOGUE
def negative_block_size_too_small_opset21():
    return _neg(21, np.ones((2, 6)), np.ones((2, 2)), np.zeros((2, 2)), "block_size 2 gives 3 blocks, y_scale has 2",
                {"axis": 1, "block_size": 2}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_block_size_too_large_opset21():
    return _neg(21, np.ones((2, 6)), np.ones((2, 3)), np.zeros((2, 3)), "block_size 3 gives 2 blocks, y_scale has 3",
                {"axis": 1, "block_size": 3}, phase=SHAPE_PHASE)


@CATALOGUE
def negative_block_size_attribute_opset19():
    return _neg(19, np.ones((2, 4)), np.ones((2, 2)), np.zeros((2, 2)), "block_size is no attribute of version 19",
                {"axis": 1, "block_size": 2})


@CATALOGUE
def negative_float4_zero_point_opset21():
    return _neg(21, np.ones(4), 1.0, 0.0, "float4e2m1 outputs start at opset 23", zp_type="float4e2m1")


@CATALOGUE
def negative_axis_out_of_range_opset13():
    return _neg(13, np.ones((2, 3)), np.ones(3), np.zeros(3), "axis 2 of a rank-2 x: accepted range is [-r, r-1]",
                {"axis": 2}, phase=SHAPE_PHASE,
                clause="axis: Negative value means counting dimensions from the back. Accepted range is [-r, r-1] "
                       "where r = rank(input)")


@CATALOGUE
def negative_blocked_zero_point_shape_differs_opset21():
    return _neg(21, np.ones((2, 6)), np.ones((2, 3)), np.zeros((3, 2)),
                "a blocked y_zero_point of shape (3, 2) for a y_scale of shape (2, 3): y_zero_point must have the "
                "same shape as y_scale", {"axis": 1, "block_size": 2}, phase=SHAPE_PHASE,
                clause="In all cases, `y_zero_point` must have the same shape as `y_scale`")


@CATALOGUE
def negative_blocked_scale_rank_differs_opset21():
    return _neg(21, np.ones((2, 6)), np.ones(3), np.zeros(3),
                "a 1-D y_scale with block_size 2 for a rank-2 x: a blocked scale's shape is x's except along axis",
                {"axis": 1, "block_size": 2}, phase=SHAPE_PHASE,
                clause="Blocked quantization: The scale's shape is identical to the input's shape, except for one "
                       "dimension, in which blocking is performed")


@CATALOGUE
def negative_scale_float8e8m0_opset23():
    """The model of scale_float8e8m0_precision_float32_opset24 one opset early: T2 gains float8e8m0 at 24."""
    return _neg(23, np.ones(4), 1.0, 0, "a float8e8m0 y_scale at opset 23 (T2: float, float16, bfloat16, int32)",
                {"precision": dtypes.get("float").onnx}, scale_type="float8e8m0",
                clause=f"T2 (QuantizeLinear-23): {', '.join(ref.scale_types(23))}: The type of the input 'y_scale'")


@CATALOGUE
def negative_int2_zero_point_opset24():
    return _neg(24, np.ones(4), 1.0, 0, "an int2 y_zero_point at opset 24 (T3 gains int2 / uint2 at 25)", zp_type="int2",
                clause=_t3(24))


@CATALOGUE
def negative_precision_attribute_opset21():
    return _neg(21, np.ones(4), 1.0, 0, "precision is no attribute of version 21 (it arrives at 23)",
                {"precision": dtypes.get("float").onnx},
                clause=f"QuantizeLinear-21 attributes: {', '.join(sorted(ref.attributes(21)))} (onnx.checker: "
                       "Unrecognized attribute)")


@CATALOGUE
def negative_zero_point_int32_opset25():
    return _neg(25, np.ones(4), 1.0, 0, "an int32 y_zero_point (T3 has no int32)", zp_type="int32",
                clause=_t3(25))


@CATALOGUE
def negative_per_axis_scale_opset12():
    """A 1-D y_scale one opset before per-axis quantization (QuantizeLinear-10: 'It's a scalar')."""
    return _neg(12, np.ones((2, 3)), np.ones(3), np.zeros(3), "a 1-D y_scale before QuantizeLinear-13",
                phase=SHAPE_PHASE, flags=("negative", "boundary"), reading=READING_SCALAR_SCALE_10)


@CATALOGUE
def negative_float8_zero_point_opset18():
    return _neg(18, np.ones(4), 1.0, 0.0, "a float8e4m3fn y_zero_point one opset before QuantizeLinear-19",
                zp_type="float8e4m3fn", clause=_t3(18), flags=("negative", "boundary"))


@CATALOGUE
def negative_block_size_attribute_opset20():
    return _neg(20, np.ones((2, 4)), np.ones((2, 2)), np.zeros((2, 2)), "block_size is no attribute of version 19 "
                "(opset 20)", {"axis": 1, "block_size": 2}, flags=("negative", "boundary"))


@CATALOGUE
def negative_int4_zero_point_opset20():
    return _neg(20, np.ones(4), 1.0, 0, "an int4 y_zero_point one opset before QuantizeLinear-21", zp_type="int4",
                clause=_t3(20), flags=("negative", "boundary"))


@CATALOGUE
def negative_precision_attribute_opset22():
    return _neg(22, np.ones(4), 1.0, 0, "precision is no attribute of version 21 (opset 22; it arrives at 23)",
                {"precision": dtypes.get("float").onnx}, flags=("negative", "boundary"),
                clause=f"QuantizeLinear-21 attributes: {', '.join(sorted(ref.attributes(22)))}")


@CATALOGUE
def negative_float4_zero_point_opset22():
    return _neg(22, np.ones(4), 1.0, 0.0, "a float4e2m1 y_zero_point one opset before QuantizeLinear-23",
                zp_type="float4e2m1", clause=_t3(22), flags=("negative", "boundary"))


@CATALOGUE
def negative_float6_zero_point_opset27():
    return _neg(27, np.ones(4), 1.0, 0.0, "a float6e2m3 y_zero_point one opset before QuantizeLinear-28",
                zp_type="float6e2m3", clause=_t3(27), flags=("negative", "boundary"))
