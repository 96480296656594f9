"""OpenVINO releases from 2023.3 LTS on (issue 20, item 6): their refusal texts, quoted verbatim from what each
release said on the committed suite (captured with that release installed), are unsupported; an error that reads
alike stays an error. These run with whatever OpenVINO is installed: the texts, not the release, are under test."""

from __future__ import annotations

import pytest
from onnx import TensorProto, helper

from generator import dtypes
from generator.case import finish_model, node_model, value_info

pytest.importorskip("openvino")
from runners.backends.openvino_refusals import TAKEN_2023, UNSUPPORTED, refusal  # noqa: E402

F32 = dtypes.get("float")


def _cast_to(name: str):
    t = dtypes.get(name)
    return node_model("Cast", [("x", F32, (2,))], [("y", t, (2,))], {"to": t.onnx}, 25)


def _cast_to_999():
    """An invalid model: Cast to an element type ONNX does not have."""
    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=999)], "g", [value_info("x", F32, (2,))],
                              [value_info("y", F32, (2,))])
    return finish_model(graph, 21)


_LIST = ("BOOL, BFLOAT16, FLOAT8E4M3FN, FLOAT8E5M2, FLOAT, FLOAT16, DOUBLE, INT4, INT8, INT16, INT32, INT64, UINT4, "
         "UINT8, UINT16, UINT32, UINT64, STRING, UNDEFINED")
# 2024.6.0 (core.cpp:94, frontend.cpp:161), 2025.0.0 (core.cpp:99, frontend.cpp:164) and 2025.3.0 (core.cpp:99,
# frontend.cpp:184) say it alike, for Cast float -> FLOAT4E2M1, FLOAT8E8M0 or UINT2
UNNAMED_2025_3 = RuntimeError(
    "Exception from src/inference/src/cpp/core.cpp:99:\nCheck 'false' failed at src/frontends/onnx/frontend/src/"
    "frontend.cpp:184:\nFrontEnd API failed with GeneralFailure:\nErrors during ONNX translation:\nWhile validating "
    "ONNX node '<Node(Cast): y>': Exception from src/frontends/onnx/frontend/src/utils/common.cpp:76:\nUnsupported "
    f"data type  expected: {_LIST}\n\n")
UNNAMED_2024_6 = RuntimeError(
    "Exception from src/inference/src/cpp/core.cpp:94:\nCheck 'false' failed at src/frontends/onnx/frontend/src/"
    "frontend.cpp:161:\nFrontEnd API failed with GeneralFailure:\nErrors during ONNX translation:\nWhile validating "
    "ONNX node '<Node(Cast): y>': Exception from src/frontends/onnx/frontend/src/utils/common.cpp:76:\nUnsupported "
    f"data type  expected: {_LIST}\n\n")
# 2023.3.0, for Cast bfloat16 -> INT4 (and every type outside TAKEN_2023)
UNNAMED_2023_3 = RuntimeError(
    "Exception from src/inference/src/core.cpp:89:\nCheck 'error_message.empty()' failed at src/frontends/onnx/"
    "frontend/src/frontend.cpp:124:\nErrors during ONNX translation: \nWhile validating ONNX node '<Node(Cast): "
    "output>':\nException from src/frontends/onnx/frontend/src/utils/common.cpp:49:\nunsupported element type\n\n")
# 2023.3.0, test_dequantizelinear_every_pattern_int8_bfloat16_opset19
SCALE_TYPE_2023_3 = RuntimeError(
    "Exception from src/inference/src/core.cpp:89:\nCheck 'error_message.empty()' failed at src/frontends/onnx/"
    "frontend/src/frontend.cpp:124:\nErrors during ONNX translation: \nWhile validating ONNX node "
    "'<Node(DequantizeLinear): y>':\nCheck 'data_type_ok' failed at src/frontends/onnx/frontend/src/utils/"
    "common.cpp:81:\nIncorrect data type of the Dequantization scale input: bf16\n\n")
# 2023.3.0, test_dequantizelinear_blocked_int16_float32_axis0_block4_no_zero_point_opset21: an error (its
# translator refuses DequantizeLinear-21's blocked scales by a shape check, naming no type or op it lacks)
BLOCKED_2023_3 = RuntimeError(
    "Exception from src/inference/src/core.cpp:89:\nCheck 'error_message.empty()' failed at src/frontends/onnx/"
    "frontend/src/frontend.cpp:124:\nErrors during ONNX translation: \nWhile validating ONNX node "
    "'<Node(DequantizeLinear): y>':\nCheck 'scale_shape.rank().get_length() == 0 || scale_shape.rank().get_length()"
    " == 1' failed at src/frontends/onnx/frontend/src/op/dequantize_linear.cpp:68:\nDequantization scale needs to be "
    "a scalar or a vector.\n\n")


@pytest.mark.parametrize("said", [UNNAMED_2025_3, UNNAMED_2024_6], ids=["2025.3", "2024.6"])
@pytest.mark.parametrize("name, left_out", [("float4e2m1", "FLOAT4E2M1"), ("float8e8m0", "FLOAT8E8M0"),
                                            ("uint2", "UINT2")])
def test_an_unnamed_type_the_model_holds_is_unsupported(said, name, left_out):
    assert not UNSUPPORTED.matches(said)  # the text alone does not say which type
    assert refusal(said, _cast_to(name)).startswith(f"the ONNX frontend does not take {left_out} (it takes BFLOAT16")


@pytest.mark.parametrize("said", [UNNAMED_2025_3, UNNAMED_2023_3], ids=["2025.3", "2023.3"])
def test_an_unnamed_type_refusal_of_a_model_whose_types_are_all_taken_is_an_error(said):
    assert refusal(said, _cast_to_999()) is None  # an invalid type: the message is all there is
    assert refusal(said, _cast_to("float16")) is None  # every type it holds is taken: not a type it lacks
    assert refusal(said) is None  # no model to look at


@pytest.mark.parametrize("name", ["int4", "uint4", "float8e4m3fn", "float8e5m2", "float4e2m1"])
def test_the_2023_3_refusal_names_the_types_outside_what_it_takes(name):
    left_out = TensorProto.DataType.Name(dtypes.get(name).onnx)
    assert left_out not in TAKEN_2023
    assert refusal(UNNAMED_2023_3, _cast_to(name)).startswith(f"the ONNX frontend does not take {left_out} (")


def test_2023_3_refuses_float16_and_bfloat16_dequantization_scales_as_unsupported():
    assert refusal(SCALE_TYPE_2023_3) == ""
    assert refusal(RuntimeError(str(SCALE_TYPE_2023_3).replace("bf16", "i8"))) is None


def test_2023_3_refusing_blocked_scales_by_a_shape_check_is_an_error():
    assert refusal(BLOCKED_2023_3, _cast_to("float")) is None


_FE_2024_6 = ("Exception from src/inference/src/cpp/core.cpp:94:\nCheck 'false' failed at src/frontends/onnx/frontend/src/"
              "frontend.cpp:161:\nFrontEnd API failed with GeneralFailure:\nErrors during ONNX translation:\n")
# 2024.6.0, verbatim: test_dequantizelinear_blocked_float8e4m3fn_float32_axis1_block4_no_zero_point_opset21,
# test_dequantizelinear_blocked_uint4_float32_axis_minus2_block2_no_zero_point_opset21,
# test_quantizelinear_blocked_negative_axis_int4_opset21
SAID_2024_6 = [
    RuntimeError(_FE_2024_6 + "While validating ONNX node '<Node(DequantizeLinear): y>': Check 'axis == 0' failed at "
                 "src/frontends/onnx/frontend/src/op/dequantize_linear.cpp:228:\nFrontEnd API failed with "
                 "GeneralFailure:\nAxis != 0 isn't supported\n\n"),
    RuntimeError(_FE_2024_6 + "While validating ONNX node '<Node(DequantizeLinear): y>': Check 'scale_shape.rank()."
                 "get_length() == 2' failed at src/frontends/onnx/frontend/src/op/dequantize_linear.cpp:220:\nFrontEnd "
                 "API failed with GeneralFailure:\nDequantizeLinear cannot operate with more than 2D scales\n\n"),
    RuntimeError(_FE_2024_6 + "Check '(y_zero_point_et.is_static() && (y_zero_point_et == ov::element::u8 || "
                 "y_zero_point_et == ov::element::i8 || y_zero_point_et == ov::element::u16 || y_zero_point_et == "
                 "ov::element::i16))' failed at src/frontends/onnx/frontend/src/op/quantize_linear.cpp:35:\nWhile "
                 "validating ONNX node '<Node(QuantizeLinear): y>':\n\"y_zero_point\" input data for QuantizeLinear "
                 "operator must be one of the supported types: u8, i8, u16 or i16integer type.\n\n"),
]
# 2024.6.0, test_dequantizelinear_per_axis_int16_bfloat16_axis0_opset21: an error (the translator multiplies an f32
# tensor by a bf16 scale; node validation refuses what it built)
MERGE_2024_6 = RuntimeError(
    _FE_2024_6 + "While validating ONNX node '<Node(DequantizeLinear): y>': Check 'element::Type::merge(result_et, "
    "node->get_input_element_type(0), node->get_input_element_type(1))' failed at src/core/src/op/util/"
    "elementwise_args.cpp:18:\nWhile validating node 'opset1::Multiply Multiply_22521842 (opset1::Subtract "
    "Subtract_22521841[0]:f32[2,3,5], opset1::Reshape Reshape_22521837[0]:bf16[2,1,1]) -> (dynamic[...])' with "
    "friendly_name 'Multiply_22521842': Arguments do not have the same element type (arg0 element type: f32, arg1 "
    "element type: bf16).\n\n")


@pytest.mark.parametrize("said", SAID_2024_6, ids=["axis", "scale-rank", "zero-point-type"])
def test_2024_6_refusals_of_blocked_and_typed_quantization_are_unsupported(said):
    assert refusal(said) == ""


def test_2024_6_a_node_validation_failure_is_an_error():
    assert refusal(MERGE_2024_6, _cast_to("float")) is None


# 2025.3.0, verbatim: test_quantizelinear_float8_zero_point_added_opset19 (QuantizeLinear to float8e4m3fn)
ZERO_POINT_TYPE_2025_3 = RuntimeError(
    "Exception from src/inference/src/cpp/core.cpp:99:\nCheck 'false' failed at src/frontends/onnx/frontend/src/"
    "frontend.cpp:184:\nFrontEnd API failed with GeneralFailure:\nErrors during ONNX translation:\nCheck '("
    "y_zero_point_et.is_static() && (y_zero_point_et == ov::element::u4 || y_zero_point_et == ov::element::i4 || "
    "y_zero_point_et == ov::element::u8 || y_zero_point_et == ov::element::i8 || y_zero_point_et == ov::element::u16 "
    "|| y_zero_point_et == ov::element::i16))' failed at src/frontends/onnx/frontend/src/op/quantize_linear.cpp:35:\n"
    "While validating ONNX node '<Node(QuantizeLinear): y>':\n\"y_zero_point\" input data for QuantizeLinear operator "
    "must be one of the supported types: u4, i4, u8, i8, u16 or i16 integer type.\n\n")
# 2025.3.0 on test_dequantizelinear_blocked_float8e4m3fn_float32_axis1_block4_no_zero_point_opset21 (2026.4.1 says
# it alike): kept an error, as the project's documents decide for a translator's check refusing a valid model
PARTIAL_BLOCK_2025_3 = RuntimeError(
    "Exception from src/inference/src/cpp/core.cpp:99:\nCheck 'false' failed at src/frontends/onnx/frontend/src/"
    "frontend.cpp:184:\nFrontEnd API failed with GeneralFailure:\nErrors during ONNX translation:\nWhile validating "
    "ONNX node '<Node(DequantizeLinear): y>': Check '(axis == 0 && src_x.get_shape()[0] % block_size == 0) || (axis "
    "== 1 && src_x.get_shape()[1] % block_size == 0)' failed at src/frontends/onnx/frontend/src/op/"
    "dequantize_linear.cpp:241:\nFrontEnd API failed with GeneralFailure:\nDequantizeLinear doesn't support case when "
    "dimension of X cannot be divided by block_size\n\n")


def test_2025_3_refusing_quantize_linear_to_float8_is_unsupported():
    assert refusal(ZERO_POINT_TYPE_2025_3) == ""


def test_a_partial_last_block_refused_by_a_check_stays_an_error():
    assert refusal(PARTIAL_BLOCK_2025_3, _cast_to("float")) is None


# 2025.0.0, verbatim: test_cast_float8e4m3fn_to_bool_edge (at compile_model)
ELTWISE_2025_0 = RuntimeError(
    "Exception from src/inference/src/cpp/core.cpp:109:\nException from src/inference/src/dev/plugin.cpp:53:\n"
    "Exception from src/plugins/intel_cpu/src/nodes/eltwise.cpp:2521:\nEltwise node with name `Abs_2625` doesn't "
    "support f8e4m3 precision.\n\n\n")


def test_2025_0_a_cpu_kernel_without_float8_is_unsupported():
    assert refusal(ELTWISE_2025_0) == ""
