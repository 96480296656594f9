"""DequantizeLinear models a version rules out (negative/): (x type, scale type, zero point type or None, shapes,
attrs, output, opset, error). A catalogue entry, registered after axes_entries.py's."""

from __future__ import annotations

from generator.families.dequantize_linear.spec import CATALOGUE, READING_SCALAR_SCALE_10, _neg

NEGATIVES = {
    "zero_point_type_differs": _neg(13, "int8", "float", "uint8", ((4,), (), ()),
                                    "`x_zero_point` and `x` must have the same type"),
    "zero_point_shape_differs": _neg(13, "int8", "float", "int8", ((2, 3), (3,), ()),
                                     "`x_scale` and `x_zero_point` must have same shape", phase="run"),
    "per_axis_length_differs": _neg(13, "uint8", "float", "uint8", ((2, 3), (2,), (2,)),
                                    "a 1-D tensor for per-axis quantization (of the axis' length)", axis=1,
                                    phase="run"),
    "axis_out_of_range": _neg(13, "uint8", "float", "uint8", ((2, 3), (3,), (3,)),
                              "Accepted range is [-r, r-1] where r = rank(input)", axis=2, phase="run"),
    "axis_below_range": _neg(21, "uint8", "float", "uint8", ((2, 3), (2,), (2,)),
                             "Accepted range is [-r, r-1] where r = rank(input)", axis=-3, phase="run"),
    "per_axis_scale_opset10": _neg(10, "uint8", "float", "uint8", ((2, 3), (3,), (3,)),
                                   "'x_scale' and 'x_zero_point' are both scalars", phase="run",
                                   reading=READING_SCALAR_SCALE_10),
    "rank2_scale_without_block_size": _neg(21, "int8", "float", "int8", ((2, 6), (2, 3), (2, 3)),
                                           "a scalar, a 1-D tensor, or rank identical to the input for blocked "
                                           "quantization (block_size is 0)", axis=1, phase="run"),
    "block_size_too_small": _neg(21, "int8", "float", "int8", ((2, 6), (2, 2), (2, 2)),
                                 "the accepted range is [ceil(Di/Si), ceil(Di/(Si-1))-1]", axis=1, block_size=2,
                                 phase="run"),
    "block_size_too_large": _neg(21, "int8", "float", "int8", ((2, 6), (2, 3), (2, 3)),
                                 "the accepted range is [ceil(Di/Si), ceil(Di/(Si-1))-1]", axis=1, block_size=3,
                                 phase="run"),
    "blocked_shape_differs_off_axis": _neg(21, "int8", "float", "int8", ((2, 6), (3, 3), (3, 3)),
                                           "the same shape as the input, except for one dimension", axis=1,
                                           block_size=2, phase="run"),
    "blocked_rank_differs": _neg(21, "int4", "float", "int4", ((2, 6), (2, 3, 1), (2, 3, 1)),
                                 "a rank identical to the input for blocked quantization", axis=1, block_size=2,
                                 phase="run"),
    "block_size_opset19": _neg(19, "int8", "float", "int8", ((2, 6), (2, 3), (2, 3)),
                               "DequantizeLinear-19 has no attribute block_size", axis=1, block_size=2),
    "output_dtype_opset21": _neg(21, "int8", "float", "int8", ((4,), (), ()),
                                 "DequantizeLinear-21 has no attribute output_dtype", output_dtype="float16"),
    "output_dtype_double": _neg(23, "int8", "float", "int8", ((4,), (), ()),
                                "T3: tensor(float), tensor(float16), tensor(bfloat16)", output_dtype="double"),
    "output_dtype_int8": _neg(23, "int8", "float", "int8", ((4,), (), ()),
                              "T3: tensor(float), tensor(float16), tensor(bfloat16)", output_dtype="int8"),
    "e8m0_scale_without_output_dtype": _neg(24, "int8", "float8e8m0", "int8", ((4,), (), ()),
                                            "the output type is the same as `x_scale` (T3 has no float8e8m0)"),
    "float8e4m3fn_opset13": _neg(13, "float8e4m3fn", "float", "float8e4m3fn", ((4,), (), ()), "T: int8, uint8, int32"),
    "int16_opset19": _neg(19, "int16", "float", "int16", ((4,), (), ()), "T1 of DequantizeLinear-19"),
    "int4_opset19": _neg(19, "int4", "float", "int4", ((4,), (), ()), "T1 of DequantizeLinear-19"),
    "float4e2m1_opset21": _neg(21, "float4e2m1", "float", "float4e2m1", ((4,), (), ()), "T1 of DequantizeLinear-21"),
    "int2_opset24": _neg(24, "int2", "float", "int2", ((4,), (), ()), "T1 of DequantizeLinear-24"),
    "float6e2m3_opset25": _neg(25, "float6e2m3", "float", "float6e2m3", ((4,), (), ()), "T1 of DequantizeLinear-25"),
    "uint32_input": _neg(25, "uint32", "float", "uint32", ((4,), (), ()), "T1 of DequantizeLinear-25"),
    "float_input": _neg(21, "float", "float", "float", ((4,), (), ()), "T1 of DequantizeLinear-21"),
    "float16_scale_opset13": _neg(13, "int8", "float16", "int8", ((4,), (), ()), "x_scale: tensor(float)"),
    "double_scale": _neg(21, "int8", "double", "int8", ((4,), (), ()), "T2: float, float16, bfloat16"),
    "int8_scale": _neg(21, "int8", "int8", "int8", ((4,), (), ()), "T2: float, float16, bfloat16"),
    "e8m0_scale_opset23": _neg(23, "int8", "float8e8m0", "int8", ((4,), (), ()), "T2 of DequantizeLinear-23",
                               output_dtype="float"),
}


@CATALOGUE
def negative():
    """Models a version rules out (negative/: the backend must refuse them at prepare)."""
    yield from NEGATIVES.items()
