"""The catalogue of the QLinear operators: per operator, one configuration per thing checked (types uint8 / int8,
zero points given / omitted, broadcasting, every value of T, each attribute's meaning), each with the data-set kinds
of generator/families/qlinear_ops/config.py. A new operator of this shape adds its rows here."""

from __future__ import annotations

from dataclasses import replace

from generator.families.qlinear_ops.config import KINDS, Config
from generator.family import Catalogue

CATALOGUE = Catalogue()
TYPES = ("uint8", "int8")
EVERY = ("every",) + KINDS  # unary operators: the whole function on T's 256 values first
# more exact data sets where few elements can tie (scalar operands; pools whose windows are mostly not a power of two)
TIES = ("pow2", "pow2")
BINARY_ZPS = ("A_zero_point", "B_zero_point", "C_zero_point")


def _binary(op: str) -> list[Config]:
    """QLinearAdd / QLinearMul: 'numpy-style broadcasting', per-tensor scales, both types."""
    out = []
    for t in TYPES:
        out += [Config(f"{t}_same_shape", op, t, ((2, 3, 4), (2, 3, 4))),
                Config(f"{t}_broadcast_last_axis", op, t, ((2, 3, 4), (4,))),
                Config(f"{t}_broadcast_both", op, t, ((2, 1, 4), (1, 3, 1))),
                Config(f"{t}_scalar_b", op, t, ((3, 5), ())),
                Config(f"{t}_no_zero_points", op, t, ((4, 8), (4, 8)), omit=BINARY_ZPS),
                Config(f"{t}_every_value", op, t, ((256,), (256,)), kinds=EVERY)]
    out += [Config("scales_one_element", op, "uint8", ((2, 5), (2, 5)), scale_shape=(1,)),
            Config("a_zero_point_only", op, "int8", ((3, 4), (3, 4)), omit=("B_zero_point",)),
            Config("empty", op, "uint8", ((0, 3), (3,)), kinds=("random",))]
    return out


def _unary(op: str, extra: list[Config]) -> list[Config]:
    out = []
    for t in TYPES:
        out += [Config(f"{t}_every_value", op, t, ((256,),), kinds=EVERY),
                Config(f"{t}_4d", op, t, ((1, 3, 4, 5),))]
    return out + extra


def _sigmoid() -> list[Config]:
    return _unary("QLinearSigmoid", [
        Config("no_zero_points", "QLinearSigmoid", "int8", ((64,),), omit=("X_zero_point", "Y_zero_point")),
        Config("scales_one_element", "QLinearSigmoid", "uint8", ((2, 8),), scale_shape=(1,))])


def _leaky_relu() -> list[Config]:
    op = "QLinearLeakyRelu"
    return _unary(op, [
        Config(f"alpha_{name}", op, t, ((256,),), {"alpha": alpha}, kinds=EVERY)
        for name, alpha, t in (("quarter", 0.25, "uint8"), ("0_1", 0.1, "int8"), ("negative", -0.5, "uint8"),
                               ("2", 2.0, "int8"), ("zero", 0.0, "int8"))] + [
        Config("no_zero_points", op, "int8", ((64,),), omit=("X_zero_point", "Y_zero_point"))])


def _softmax() -> list[Config]:
    op = "QLinearSoftmax"
    return [replace(c, kinds=c.kinds + ("frac_reciprocal", "frac_reciprocal")) for c in _softmax_rows(op)]


def _softmax_rows(op: str) -> list[Config]:
    """Each with two frac_reciprocal data sets (config.py): a floored reciprocal of y_scale shows only where a
    probability near 1 does not saturate."""
    out = []
    for t in TYPES:
        out += [Config(f"{t}_opset13_last_axis", op, t, ((3, 16),), {"opset": 13}),
                Config(f"{t}_opset13_axis1_3d", op, t, ((2, 5, 4),), {"opset": 13, "axis": 1}),
                Config(f"{t}_opset12_coerced", op, t, ((2, 3, 4),), {"opset": 12}),
                Config(f"{t}_row_of_every_value", op, t, ((1, 256),), {"opset": 13}, kinds=EVERY)]
    return out + [Config("opset12_axis1_coerced", op, "uint8", ((2, 3, 4),), {"opset": 12, "axis": 1}),
                  Config("opset11_axis0_coerced", op, "int8", ((2, 3, 4),), {"opset": 11, "axis": 0}),
                  Config("opset13_axis_negative", op, "int8", ((2, 3, 4),), {"opset": 13, "axis": -2}),
                  Config("one_element_rows", op, "uint8", ((5, 1),), {"opset": 13}),
                  Config("x_zero_point_omitted", op, "uint8", ((3, 8),), {"opset": 13}, omit=("x_zero_point",))]


def _average_pool() -> list[Config]:
    op = "QLinearAveragePool"
    nchw = ((1, 2, 5, 5),)
    out = []
    for t in TYPES:
        out += [Config(f"{t}_3x3_pads_exclude", op, t, nchw, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
                       kinds=KINDS + TIES),
                Config(f"{t}_3x3_pads_include", op, t, nchw,
                       {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1})]
    out += [
        Config("2x2_stride2_exact", op, "uint8", ((1, 3, 4, 6),), {"kernel_shape": [2, 2], "strides": [2, 2]}),
        Config("ceil_mode", op, "int8", nchw, {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1}),
        Config("ceil_mode_pads_include", op, "uint8", nchw,
               {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1,
                "count_include_pad": 1}),
        Config("same_upper_odd", op, "uint8", ((1, 2, 6, 7),), {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER"}),
        Config("same_lower_odd", op, "uint8", ((1, 2, 6, 7),), {"kernel_shape": [2, 3], "auto_pad": "SAME_LOWER"}),
        Config("same_upper_include", op, "int8", ((1, 2, 6, 7),),
               {"kernel_shape": [2, 3], "auto_pad": "SAME_UPPER", "count_include_pad": 1}),
        # SAME's total padding below 0 (the stride beyond the kernel): pads 0 (the text's max(..., 0))
        Config("same_upper_stride_over_kernel", op, "uint8", ((1, 2, 9, 5),),
               {"kernel_shape": [1, 2], "strides": [3, 3], "auto_pad": "SAME_UPPER"}),
        Config("same_lower_stride_over_kernel", op, "int8", ((1, 2, 8, 5),),
               {"kernel_shape": [1, 2], "strides": [4, 3], "auto_pad": "SAME_LOWER", "count_include_pad": 1}),
        Config("ceil_window_past_the_end", op, "uint8", ((1, 1, 2, 3),),
               {"kernel_shape": [1, 1], "strides": [3, 1], "ceil_mode": 1, "count_include_pad": 1},
               kinds=("random",)),
        Config("valid_strided", op, "int8", ((1, 2, 7, 6),),
               {"kernel_shape": [3, 2], "strides": [2, 3], "auto_pad": "VALID"}),
        Config("asymmetric_pads", op, "uint8", nchw, {"kernel_shape": [3, 3], "pads": [0, 2, 1, 0]}),
        Config("channels_last", op, "uint8", ((1, 5, 5, 3),),
               {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "channels_last": 1}),
        Config("channels_last_include", op, "int8", ((2, 4, 5, 2),),
               {"kernel_shape": [2, 2], "pads": [1, 0, 0, 1], "channels_last": 1, "count_include_pad": 1}),
        Config("1d", op, "uint8", ((2, 3, 9),), {"kernel_shape": [4], "strides": [2], "pads": [1, 2]}),
        Config("3d", op, "int8", ((1, 2, 4, 4, 3),), {"kernel_shape": [2, 2, 2], "pads": [1, 0, 1, 0, 1, 0]}),
        Config("no_zero_points", op, "int8", nchw, {"kernel_shape": [3, 3]}, omit=("x_zero_point", "y_zero_point")),
        Config("window_on_pads_only", op, "uint8", ((1, 1, 3, 3),),
               {"kernel_shape": [2, 2], "pads": [2, 2, 0, 0], "strides": [2, 2]}, kinds=("random", "pow2")),
    ]
    return out


def _global_average_pool() -> list[Config]:
    op = "QLinearGlobalAveragePool"
    out = []
    for t in TYPES:
        out += [Config(f"{t}_4x4", op, t, ((2, 3, 4, 4),)),
                Config(f"{t}_5x5", op, t, ((1, 4, 5, 5),))]
    return out + [Config("channels_last", op, "uint8", ((2, 4, 4, 3),), {"channels_last": 1}),
                  Config("channels_last_3d", op, "int8", ((1, 3, 2, 5, 2),), {"channels_last": 1}),
                  Config("1d", op, "uint8", ((3, 2, 16),)),
                  Config("large_window", op, "uint8", ((1, 8, 32, 32),), kinds=KINDS + TIES)]


def _concat() -> list[Config]:
    op = "QLinearConcat"
    out = []
    for t in TYPES:
        out += [Config(f"{t}_two_axis0", op, t, ((2, 3), (4, 3)), {"axis": 0}),
                Config(f"{t}_three_axis1", op, t, ((2, 3, 2), (2, 1, 2), (2, 4, 2)), {"axis": 1})]
    return out + [Config("axis_negative", op, "uint8", ((2, 3), (2, 5)), {"axis": -1}),
                  Config("one_input", op, "int8", ((3, 4),), {"axis": 0}),
                  Config("four_inputs_4d", op, "uint8", ((1, 2, 2, 2),) * 4, {"axis": 1}),
                  Config("empty_input", op, "uint8", ((2, 0), (2, 3)), {"axis": 1}),
                  Config("every_value", op, "uint8", ((256,), (8,)), {"axis": 0}, kinds=EVERY)]


def _where() -> list[Config]:
    op = "QLinearWhere"
    out = []
    for t in TYPES:
        out += [Config(f"{t}_same_shape", op, t, ((3, 4), (3, 4), (3, 4))),
                Config(f"{t}_broadcast", op, t, ((3, 1), (1, 4), (3, 4)))]
    return out + [Config("scalar_x", op, "uint8", ((2, 5), (), (2, 5))),
                  Config("scalar_tensors", op, "uint8", ((2, 5), (), ()), kinds=KINDS + TIES + TIES),
                  Config("broadcast_condition", op, "int8", ((4,), (2, 3, 4), (3, 1))),
                  Config("every_value", op, "uint8", ((256,), (256,), (256,)), kinds=EVERY)]


def _probes() -> list[Config]:
    """y_scale 0: quantize() divides by it and the texts say nothing of it (UNDEF_Y_SCALE): probes."""
    return [Config("zero_y_scale", "QLinearAdd", "uint8", ((2, 3), (2, 3)), kinds=("zero_y_scale",)),
            Config("zero_y_scale", "QLinearSigmoid", "int8", ((8,),), kinds=("zero_y_scale",)),
            Config("zero_y_scale", "QLinearAveragePool", "uint8", ((1, 1, 4, 4),), {"kernel_shape": [2, 2]},
                   kinds=("zero_y_scale",))]


CONFIGS: dict[str, list[Config]] = {}
for _cfg in (_binary("QLinearAdd") + _binary("QLinearMul") + _sigmoid() + _leaky_relu() + _softmax()
             + _average_pool() + _global_average_pool() + _concat() + _where() + _probes()):
    CONFIGS.setdefault(_cfg.op, []).append(_cfg)


def configs() -> list[Config]:
    return [c for row in CONFIGS.values() for c in row]


for _cfg in configs():
    CATALOGUE.add(f"{_cfg.op.lower()}_{_cfg.what}", lambda c=_cfg: c)
