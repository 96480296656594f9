"""Fault models of ConvertPromoteTypes-14: plausible wrong implementations of
generator.reference.convert_promote_types (docs/design.md, "Fault models, witnesses, diagnosis").

Each fault is a node function with the reference's signature (and a `validate`, the prepare-time check that
refuses a pair in safe mode), made of a decision (the common type, or a refusal) and a value conversion.
Two kinds:

  decision faults   the common type is decided wrongly: the output ELEMENT TYPE differs (or the fault
                    refuses a valid pair, or accepts one safe mode must refuse). Any data set of a group where
                    the decision differs kills them; where the reference refuses and the fault accepts, only the
                    group's negative case can (`refuses`).
  value faults      the common type is right, the values are converted wrongly (rounded through an
                    intermediate type, held in fewer bits, saturated). Only particular values kill them.

A parameter group (`group_key`) is the pair of element types, the attributes (promote_unsafe,
pytorch_scalar_promotion, u64_integer_promotion_target) and the ranks (each input dimensioned or a scalar):
case.json params input_0, input_1, shapes, promote_unsafe, pytorch_scalar_promotion,
u64_integer_promotion_target. The opset of the function body is not part of it (it changes nothing the op
decides).

`equivalent(params)` proves, per group, that a fault cannot differ there: for decision faults by running both
decision procedures on the group's types, ranks and attributes (for the element-count fault, with every
dimensioned input either one-element or not); for value faults by exhaustive enumeration of every value of
an input type of <= 16 bits, and by the analytic rules of `_analytic` for the wider types.

A fault that refuses a model returns no outputs from `run` (a backend that raises where the spec requires a
result fails); `killed` also counts a different output element type as a kill (the strict comparison
`generator.faults.differs` casts to the expected type first).

By concern: decisions.py, conversions.py (the node function), groups.py, values.py (where a value fault can
differ); this module lists the faults (FAULTS) and runs and judges them.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.faults import Fault, differs
from generator.interpret import compile_model, decode_attribute, domain_of, run_program, static_shapes
from generator.reference import convert_promote_types as ref
from generator.reference import lookup as reference_lookup
from generator.serialize import graph_io_types
from generator.reference.convert_promote_types_faults.conversions import convert_reference, make_node, VALUE_CONVERTS
from generator.reference.convert_promote_types_faults.decisions import (Decide, decide_float8_pair_bf16,
                                                                        decide_mixed_sign_max_width,
                                                                        decide_pytorch_safe_bit_width, decide_reference,
                                                                        decide_scalar_by_element_count,
                                                                        decide_scalar_rule_across_priorities,
                                                                        decide_scalar_rule_ignored,
                                                                        decide_u64_exception_first,
                                                                        decide_u64_target_ignored, FAMILY, OPENVINO)
from generator.reference.convert_promote_types_faults.groups import _decision_equivalent, group_key
from generator.reference.convert_promote_types_faults.values import _value_equivalent

IREE = "IREE 3.13.0 llvm-cpu (measured here on the committed suite)"


def _decision_fault(short: str, what: str, decide: Decide, seen_in: str = "") -> Fault:
    return Fault(f"{FAMILY}.{short}", what, make_node(decide, convert_reference), seen_in,
                 _decision_equivalent(decide))


def _value_fault(short: str, what: str, seen_in: str = "") -> Fault:
    return Fault(f"{FAMILY}.{short}", what, make_node(decide_reference, VALUE_CONVERTS[short]), seen_in,
                 _value_equivalent(short))


FAULTS: tuple[Fault, ...] = (
    _decision_fault("pytorch_safe_bit_width",
                    "pytorch_scalar_promotion, safe mode: bit widths checked instead of ranges (accepts S(u8), D(i8) "
                    "and S(bf16), D(f16))", decide_pytorch_safe_bit_width,
                    f"{OPENVINO} (convert_promote_types.cpp: 22 negative cases accepted)"),
    _decision_fault("mixed_sign_max_width",
                    "signed + unsigned integers: the signed type of the wider bit width (u8 + i8 -> i8), not one "
                    "holding the unsigned range", decide_mixed_sign_max_width,
                    "not seen; modelled as numpy-style promotion by bit width alone (the signed type of the wider "
                    "input), the spec's 'bit-width of at least double' left out"),
    _decision_fault("scalar_rule_ignored", "pytorch_scalar_promotion ignored", decide_scalar_rule_ignored,
                    "not seen; modelled as an attribute never read (the rules of the default, false)"),
    _decision_fault("scalar_by_element_count",
                    "a one-element tensor of any rank taken for a scalar (pytorch_scalar_promotion)",
                    decide_scalar_by_element_count,
                    "not seen; modelled as a scalar test written on the element count (shape_size == 1) instead "
                    "of the rank, as in frontends that squeeze one-element tensors"),
    _decision_fault("u64_target_ignored",
                    "u64_integer_promotion_target ignored: u64 + signed integer always f32",
                    decide_u64_target_ignored,
                    "not seen; modelled as an attribute never read (its default, f32, hard-coded)"),
    _decision_fault("scalar_rule_across_priorities",
                    "pytorch_scalar_promotion applied across type priorities (S(f16), D(i8) -> i8)",
                    decide_scalar_rule_across_priorities,
                    "not seen; modelled as PyTorch's own rule for a 0-dim tensor of the same category taken for "
                    "every category (the spec limits it to the same type priority)"),
    _decision_fault("u64_exception_first",
                    "u64 + signed integer -> u64_integer_promotion_target even where pytorch_scalar_promotion "
                    "applies (S(u64), D(i8) -> f32)", decide_u64_exception_first,
                    "not seen; modelled as the u64 exception tested before the scalar rule (the order of two "
                    "if-branches)"),
    _decision_fault("float8_pair_bf16", "(f8e4m3, f8e5m2) -> bf16 instead of the spec's f16", decide_float8_pair_bf16,
                    "not seen; modelled as the general float rule's other choice, which the spec says it 'could' "
                    "make (bf16 and f16 both hold both float8 types)"),
    _value_fault("via_float64", "values rounded to f64 first (u64 / i64 -> f32 or bf16 double-rounded)",
                 "onnxruntime 1.32.0 and onnx-reference 1.23.2 (the function body's Cast: 24 failing items each in "
                 "the baseline of issue 21, measured here; the same items match via_float32)"),
    _value_fault("via_float32", "values rounded to f32 first (int32 / int64 / f64 -> bf16, f16, f8 double-rounded)",
                 "onnxruntime 1.32.0 (130 failing items) and onnx-reference 1.23.2 (126) in the function body's Cast, "
                 "baseline of issue 21, measured here; OpenVINO 2026.4.1 CPU"),
    _value_fault("via_float16", "values rounded to f16 first (-> f8e5m2 / f8e4m3 double-rounded: i32 61439 -> Inf)",
                 f"{OPENVINO} CPU (conversions to f8e5m2)"),
    _value_fault("f64_held_in_f32", "f64 results held in f32 (rounded; +-Inf and beyond FLT_MAX -> +-FLT_MAX)",
                 f"{OPENVINO} CPU"),
    _value_fault("int64_held_in_32_bits", "i64 / u64 results held in 32 bits (low 32 bits, sign-extended)",
                 f"{OPENVINO} CPU"),
    _value_fault("float8_saturated", "conversions to float8 saturate (+-Inf -> +-57344 for f8e5m2)",
                 "not seen; modelled as ONNX Cast's default saturate=1 used for the conversion (the model's function "
                 "body writes saturate=0)"),
    _value_fault("float8_decoded_as_normals", "f8e4m3 / f8e5m2 inputs decoded as normal numbers whatever the exponent "
                 "(0 -> 2**-bias, subnormals gain the implicit 1, f8e5m2 Inf -> 65536, NaN -> 480 / 98304)",
                 "TVM 0.27 (the function body's Cast from float8, measured here: the baseline of issue 21's "
                 "ConvertPromoteTypes failures with a float8 input: 0 -> 0.0078125, NaN 0x7f -> 480, Inf -> 65536)"),
    _value_fault("float8e4m3fn_negative_nan_as_number", "f8e4m3fn's negative NaN 0xFF decoded as -480 (0x7F stays "
                 "NaN)", f"{IREE}: f8e4m3fn 0xFF -> -480.0 in f32 / bf16, as in its Cast"),
    _value_fault("denormals_flushed_to_f64", "f32 / bf16 inputs below float32's smallest normal (subnormals) -> +-0 "
                 "in an f64 common type", f"{IREE}: f32 / bf16 with f64 (1.401298464324817e-45 -> 0, "
                 "9.183549615799121e-41 -> 0)"),
)

BY_NAME = {f.name: f for f in FAULTS}
REFERENCE = Fault(f"{FAMILY}.reference", "the reference (no fault): for tests and diagnosis baselines",
                  make_node(decide_reference, convert_reference))
DECISION_FAULTS = tuple(f for f in FAULTS if f.fn.convert is convert_reference)
VALUE_FAULTS = tuple(f for f in FAULTS if f not in DECISION_FAULTS)


def short_name(fault: Fault) -> str:
    return fault.name.split(".", 1)[1]


# ---------------------------------------------------------------------------------------
# running and judging
# ---------------------------------------------------------------------------------------
def _lookup(fault: Fault):
    def lookup(d: str, o: str):
        return fault.fn if (domain_of(d), o) == (ref.DOMAIN, ref.OP_TYPE) else reference_lookup(d, o)
    return lookup


def run(fault: Fault, model, inputs: list[np.ndarray], meta: dict) -> list[np.ndarray]:
    """The fault's outputs on one data set; [] where the fault refuses the model (a backend that raises where
    the spec requires a result fails the case)."""
    try:
        return run_program(compile_model(model, _lookup(fault)), inputs)
    except ref.PromotionError:
        return []


def refuses(fault: Fault, model, meta: dict | None = None) -> bool:
    """Does the fault refuse the model before any data (what a negative case requires)? Decided from the
    graph inputs' element types and static shapes and the node's attributes. A negative case kills a fault
    that accepts it."""
    ins, _ = graph_io_types(model)
    shapes = static_shapes(model)
    for node in model.graph.node:
        if (domain_of(node.domain), node.op_type) != (ref.DOMAIN, ref.OP_TYPE):
            continue
        types = dict(ins)
        attrs = ref.node_attributes({a.name: decode_attribute(a) for a in node.attribute})
        t0, t1 = types[node.input[0]], types[node.input[1]]
        d = fault.fn.decide(t0, t1, shapes[node.input[0]], shapes[node.input[1]], attrs)
        if d.common is None:
            return True
    return False


def killed(fault: Fault, case_meta: dict, expected_outputs: list[np.ndarray],
           fault_outputs: list[np.ndarray]) -> bool:
    """Would a backend with this fault fail the data set? No outputs (a refusal), a different element type,
    shape or value (strict comparison of the case)."""
    if len(fault_outputs) != len(expected_outputs):
        return True
    for e, f in zip(expected_outputs, fault_outputs):
        if np.asarray(e).dtype != np.asarray(f).dtype:
            return True
    types = [dtypes.from_numpy(np.asarray(e).dtype) for e in expected_outputs]
    return differs(expected_outputs, fault_outputs, types, case_meta.get("compare"))

__all__ = ["FAULTS", "BY_NAME", "DECISION_FAULTS", "VALUE_FAULTS", "REFERENCE", "group_key", "killed", "refuses", "run",
           "short_name"]
