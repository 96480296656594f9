"""Fault models of com.microsoft MatMulIntegerToFloat-1 (docs/fault_models.md): the reference
(generator/reference/matmul_integer_to_float.py) with one deviation each, the reference node's signature.
DynamicQuantizeMatMul's faults (dynamic_quantize_matmul_faults.py) run the same deviations after quantizing A.

  zero points    a_zero_point / b_zero_point ignored; only element 0 of a per-column b_zero_point used
  scales         only element 0 of a per-column b_scale used (read as a scalar), of a per-k a_scale likewise; a per-k
                 a_scale read per column of Y, a per-k a_zero_point refused (onnxruntime); a_scale * b_scale rounded
                 to float16 (float32 T3)
  bias           ignored; added to the integer sum before the scaling; added before the per-column b_scale
                 multiplication (onnxruntime, B of rank 3)
  types          B's bits read as A's type (mixed uint8 / int8 pairs)
  arithmetic     raw u8 x s8 products in int16-saturating pairs (x86 VPMADDUBSW; matmul_integer_faults'); the
                 operands dequantized in float32 and summed in float32 in K order (float32 T3: the bound holds the
                 integer sum exact); the dequantized operands rounded to float16 and summed in float32; the
                 integer sum cast to float16 before the scaling (float16 T3: overflows beyond 65504)

A fault is killed where its outputs leave the case's dot-product bound (compare mode "dot", generator/dot_bound.py):
`run` hands `killed` the data set's inputs with the outputs.

Groups (group_key): "<T3> <A type> <B type> a=<absent|tensor|k> b_zp=<absent|tensor|column>
b_scale=<tensor|column> bias=<0|1>[ b_nd]" (b_nd: B of rank > 2), the A side's form the widest of a_scale's and a_zero_point's ("a=absent": no
a_zero_point, a per-tensor a_scale).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from generator import dot_bound, dtypes, faults
from generator.faults import Fault, Refusal
from generator.interpret import compile_model, run_program
from generator.reference import lookup as reference_lookup
from generator.reference import matmul_integer_faults as mif
from generator.reference import matmul_integer_to_float as ref

_NOT_SEEN = "not seen; modelled as "
A_FORMS = {"absent": "absent", "tensor": "tensor", "one": "tensor", "k": "k"}
B_FORMS = {"absent": "absent", "tensor": "tensor", "one": "tensor", "column": "column"}


def _batched_k_order(fa: np.ndarray, fb: np.ndarray, acc_type) -> np.ndarray:
    """sum_k fa[..., m, k] * fb[..., k, n] in acc_type, each product rounded and added in K order."""
    shape = np.broadcast_shapes(fa.shape[:-1] + (1,), fb.shape[:-2] + (1, fb.shape[-1]))
    acc = np.zeros(shape, acc_type)
    for k in range(fa.shape[-1]):
        acc = (acc + (fa[..., :, k:k + 1] * fb[..., k:k + 1, :]).astype(acc_type)).astype(acc_type)
    return acc


def compute(inputs: list, *, drop_a: bool = False, drop_b: bool = False, b_scale_first: bool = False,
            b_zp_first: bool = False, a_scale_first: bool = False, k_refused: bool = False,
            bias_ignored: bool = False, bias_before: bool = False, scale16: bool = False, pairs16: bool = False,
            acc_f32: bool = False, deq16: bool = False, b_as_a: bool = False, sum16: bool = False,
            zp_k_refused: bool = False, a_scale_per_n: bool = False, bias_before_b: bool = False,
            nd_zp_refused: bool = False, s8u8_refused: bool = False) -> list:
    """Y of MatMulIntegerToFloat's inputs (reference order) with the named deviations (module docstring)."""
    a, b, a_s, b_s, a_zp, b_zp, bias = ref._inputs(inputs)
    a, b = np.asarray(a), np.asarray(b)
    t3 = np.asarray(a_s).dtype
    if k_refused and (ref.per_k(a_s) or ref.per_k(a_zp)):
        raise Refusal("a_scale / a_zero_point must be a scalar or a 1-D tensor of one element")
    if s8u8_refused and a.dtype == np.int8 and b.dtype == np.uint8:
        raise Refusal("no kernel for A int8 with B uint8")
    if nd_zp_refused and b.ndim > 2 and b_zp is not None and np.shape(b_zp) == (b.shape[-1],) and b.shape[-1] > 1:
        raise Refusal("MatmulInteger : b zero point is not valid")
    if zp_k_refused and ref.per_k(a_zp):
        raise Refusal("input a zero point must be a scalar or 1D tensor of size 1. Per-Channel is not supported yet")
    if a_scale_per_n and ref.per_k(a_s):  # a [K] a_scale multiplies Y's columns: broadcast error unless K == N
        if np.size(a_s) != b.shape[-1]:
            raise Refusal("Attempting to broadcast an axis by a dimension other than 1")
        y, _ = ref.scaled_terms(a, b, np.float32(1), b_s, a_zp, b_zp, None)
        y = y * ref.side(a_s) + (0 if bias is None else np.asarray(bias, np.float64))
        return [np.asarray(y).astype(t3)]
    if b_as_a and a.dtype != b.dtype:
        b, b_zp = b.view(a.dtype), None if b_zp is None else np.asarray(b_zp).view(a.dtype)
    a_zp = None if drop_a else a_zp
    b_zp = None if drop_b else b_zp
    first = (lambda x: None if x is None else np.asarray(x).reshape(-1)[:1])
    b_s = first(b_s) if b_scale_first else b_s
    b_zp = first(b_zp) if b_zp_first else b_zp
    a_s = first(a_s) if a_scale_first else a_s
    bias = None if bias_ignored else bias
    da = a.astype(np.int64) - ref.side(a_zp).astype(np.int64)
    db = b.astype(np.int64) - ref.side(b_zp).astype(np.int64)
    sa, sb = ref.side(a_s), ref.side(b_s)
    with np.errstate(over="ignore", invalid="ignore"):
        if acc_f32 or deq16:  # the operands dequantized (float32 / float16), summed in float32 in K order
            lo = np.float16 if deq16 else np.float32
            fa = (da * sa).astype(np.float32).astype(lo).astype(np.float32)
            fb = (db * sb).astype(np.float32).astype(lo).astype(np.float32)
            y = _batched_k_order(fa, fb, np.float32).astype(np.float64)
            if bias is not None:
                y = (y + np.asarray(bias).astype(np.float32)).astype(np.float32)
            return [np.asarray(y).astype(t3)]
        if sa.ndim:  # per column k of A: no integer sum to deviate in
            y, _ = ref.scaled_terms(a, b, a_s, b_s, a_zp, b_zp, None)
        else:
            if pairs16:
                bz = None if b_zp is None else np.broadcast_to(np.asarray(b_zp).reshape(1, -1),
                                                               b.shape[:-2] + (1, b.shape[-1])).copy()
                raw = mif._compute([a, b, None if a_zp is None else np.asarray(a_zp).reshape(()), bz],
                                   pairs16=True)[0].astype(np.float64)
            else:
                raw = np.matmul(da, db).astype(np.float64)
            if sum16:
                raw = raw.astype(np.float16).astype(np.float64)
            if bias_before and bias is not None:
                raw, bias = raw + np.asarray(bias).astype(np.float64), None
            if bias_before_b and bias is not None:  # (sum * a_scale + bias) * b_scale
                return [np.asarray((raw * sa + np.asarray(bias, np.float64)) * sb).astype(t3)]
            s = sa * sb
            if scale16:
                s = np.asarray(s).astype(np.float16).astype(np.float64)
            y = raw * s
        if bias is not None:
            y = y + np.asarray(bias).astype(np.float64)
        return [np.asarray(y).astype(t3)]


def _node(**deviation):
    def fn(inputs: list, attrs: dict, opset: int, input_types: list) -> list:
        return compute(inputs, **deviation)
    fn.__doc__ = f"MatMulIntegerToFloat with the deviation {deviation}."
    return fn


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def parts(p: dict) -> tuple:
    """(T3, A type, B type, A side form, b_zero_point form, b_scale form, bias, B batched) of a case's params."""
    a_zp, a_s = A_FORMS[p.get("a_zp", "absent")], A_FORMS[p.get("a_scale", "tensor")]
    a_side = "k" if "k" in (a_zp, a_s) else a_zp
    return (p.get("t3", "float"), p.get("a_type", "uint8"), p.get("b_type", "uint8"), a_side,
            B_FORMS[p.get("b_zp", "absent")], B_FORMS[p.get("b_scale", "tensor")], bool(p.get("bias")),
            len(p.get("b_shape", ())) > 2)


def group_key(meta: dict) -> str:
    t3, at, bt, a_side, bz, bs, bias, nd = parts(meta.get("params") or {})
    return f"{t3} {at} {bt} a={a_side} b_zp={bz} b_scale={bs} bias={int(bias)}" + (" b_nd" if nd else "")


def _unless(index: int, *forms, why: str):
    return lambda p: None if parts(p)[index] in forms else why


def _per_tensor_a(p: dict) -> str | None:
    """Where the bound's roundings cover a K-order float32 sum of float32-dequantized products (at most K + 2 to the
    first order: two dequantizations and a product a term, K - 1 additions): a per-k A side (2 (K + 2 (+1))). K is
    no group parameter, so a short K proves nothing for the group."""
    if parts(p)[3] == "k":
        return ("A's side is per column k: the bound allows 2 (K + 2) float32 roundings there, more than a K-order "
                "float32 sum of float32-dequantized products makes")
    return None


def _unless_mixed(p: dict) -> str | None:
    return None if parts(p)[1] != parts(p)[2] else "A and B have one type: reading B's bits as A's changes nothing"


def _float32_t3(p: dict) -> bool:
    return parts(p)[0] == "float"


SHARED: tuple[Fault, ...] = (
    Fault("b_zero_point_ignored", "leaves b_zero_point out (B - 0)", _node(drop_b=True),
          equivalent=_unless(4, "tensor", "column", why="there is no b_zero_point: it is 0 either way"),
          seen_in="IREE (iree-org/iree#24583: MatMulInteger computes A * B, both zero points ignored)"),
    Fault("b_zero_point_first", "uses b_zero_point[0] for every column", _node(b_zp_first=True),
          equivalent=_unless(4, "column", why="b_zero_point is per tensor: one value"),
          seen_in=_NOT_SEEN + "a kernel that reads the per-tensor zero point slot of a per-column model"),
    Fault("b_scale_first", "reads a per-column b_scale as a scalar (b_scale[0] for every column)",
          _node(b_scale_first=True), equivalent=_unless(5, "column", why="b_scale is per tensor: one value"),
          seen_in=_NOT_SEEN + "a per-tensor scale multiply given a per-column model (QGemm's / QAttention's "
                              "per-column weight scales are read per column by onnxruntime)"),
    Fault("bias_ignored", "ignores the bias input", _node(bias_ignored=True),
          applies=lambda p: parts(p)[6],
          seen_in="onnxruntime PR #28742 (a MatMulNBits CPU path dropped the optional bias); modelled here"),
    Fault("bias_before_scaling", "adds the bias to the integer sum before the scaling ((sum + bias) * scales)",
          _node(bias_before=True), applies=lambda p: parts(p)[6] and parts(p)[3] != "k",
          seen_in=_NOT_SEEN + "QGemm's C input (an int32 bias quantized with a_scale * b_scale) read into a "
                              "float bias"),
    Fault("b_zero_point_per_column_nd_refused", "refuses a per-column b_zero_point [N] when B has batch "
          "dimensions (rank > 2), though the text's 1-D form holds for any B", _node(nd_zp_refused=True),
          may_refuse=True, applies=lambda p: parts(p)[4] == "column" and parts(p)[7],
          seen_in="onnxruntime 1.32.0 CPU (measured here: dynamic_quantize_matmul.cc IsBQuantParamSupported: "
                  "'MatmulInteger : b zero point is not valid' for B [3, 5, 4] with b_zero_point [4])"),
    Fault("bias_before_b_scale", "with a per-column b_scale, adds the bias before the b_scale multiplication "
          "((sum * a_scale + bias) * b_scale)", _node(bias_before_b=True),
          applies=lambda p: parts(p)[6] and parts(p)[5] == "column" and parts(p)[3] != "k",
          seen_in="onnxruntime 1.32.0 CPU (measured here: a B of rank 3 with a per-column b_scale and a bias, "
                  "test_matmulintegertofloat_batch_broadcast: every element off by bias * (b_scale - 1))"),
    Fault("scale_product_float16", "rounds a_scale * b_scale to float16 before scaling the sum",
          _node(scale16=True), applies=lambda p: _float32_t3(p) and parts(p)[3] != "k",
          seen_in=_NOT_SEEN + "a float16 epilogue (the fused graph's Mul in a float16 model) on float32 scales; "
                              "typical products (0.02 * 0.002) are float16 subnormals"),
    Fault("dequantized_float16", "dequantizes A and B to float16 ((q - zero point) * scale) and sums the products "
          "in float32", _node(deq16=True), applies=_float32_t3,
          seen_in=_NOT_SEEN + "a float16 GEMM fed dequantized weights (a DequantizeLinear -> MatMul decomposition "
                              "in half precision)"),
    Fault("int16_pair_saturation", "adds the raw uint8 x int8 products in adjacent K pairs with int16 saturation "
          "(x86 VPMADDUBSW), zero points applied after", _node(pairs16=True),
          applies=lambda p: parts(p)[1:3] == ("uint8", "int8") and parts(p)[3] != "k",
          seen_in="onnxruntime#16105 (MLAS QgemmU8X8KernelAvx2 on x86-64 without VNNI; MatMulIntegerToFloat runs "
                  "the same MLAS QGEMM)", cpu="x86-64 without VNNI"),
)


def _prefixed(family: str, f: Fault) -> Fault:
    return dataclasses.replace(f, name=f"{family}.{f.name}")


FAULTS: tuple[Fault, ...] = tuple(_prefixed("matmul_integer_to_float", f) for f in SHARED) + (
    Fault("matmul_integer_to_float.a_zero_point_ignored", "leaves a_zero_point out (A - 0)", _node(drop_a=True),
          equivalent=lambda p: None if A_FORMS[p.get("a_zp", "absent")] != "absent" else
          "there is no a_zero_point: it is 0 either way",
          seen_in="IREE (iree-org/iree#24583: MatMulInteger computes A * B, both zero points ignored)"),
    Fault("matmul_integer_to_float.a_scale_per_k_first", "reads a per-column-of-A a_scale ([K]) as a scalar "
          "(a_scale[0] for every k)", _node(a_scale_first=True),
          equivalent=lambda p: None if A_FORMS[p.get("a_scale", "tensor")] == "k" else "a_scale is per tensor",
          seen_in=_NOT_SEEN + "a per-tensor A scale given the text's per-column form"),
    Fault("matmul_integer_to_float.a_zero_point_per_k_refused", "refuses a per-column-of-A a_zero_point ([K]), "
          "though the text defines it", _node(zp_k_refused=True), may_refuse=True,
          equivalent=lambda p: None if A_FORMS[p.get("a_zp", "absent")] == "k" else "a_zero_point is not per k",
          seen_in="onnxruntime 1.32.0 CPU (measured here: dynamic_quantize_matmul.cc: 'input a zero point must be a "
                  "scalar or 1D tensor of size 1. Per-Channel is not supported yet')"),
    Fault("matmul_integer_to_float.a_scale_per_output_column", "multiplies Y's columns by a [K] a_scale (read per "
          "column of Y, not of A); a broadcast error where K != N", _node(a_scale_per_n=True), may_refuse=True,
          equivalent=lambda p: None if A_FORMS[p.get("a_scale", "tensor")] == "k" else "a_scale is per tensor",
          seen_in="onnxruntime 1.32.0 CPU (measured here: A [2, 3] one-hot rows, B of ones, a_scale [1, 2, 4] gives "
                  "every row [1, 2, 4]; K != N fails 'Attempting to broadcast an axis by a dimension other than 1', "
                  "and N = 1 < K crashes (SIGSEGV: A [1, 2], B [2, 1], a_scale [2], found by opconform hunt) or "
                  "gives garbage: modelled as a refusal)"),
    Fault("matmul_integer_to_float.int8_uint8_refused", "refuses A int8 with B uint8 (no kernel for that pair), "
          "though T1 and T2 allow it", _node(s8u8_refused=True), may_refuse=True,
          equivalent=lambda p: None if parts(p)[1:3] == ("int8", "uint8") else "the pair is not int8 x uint8",
          seen_in="onnxruntime 1.32.0 CPU (measured here: 'NOT_IMPLEMENTED : Could not find an implementation for "
                  "MatMulIntegerToFloat(1)' for float T3; the float16 kernel takes the pair)"),
    Fault("matmul_integer_to_float.b_read_as_a_type", "reads B's bits (and b_zero_point's) as A's type",
          _node(b_as_a=True), equivalent=_unless_mixed,
          seen_in=_NOT_SEEN + "a kernel written for one signedness given a mixed pair"),
    Fault("matmul_integer_to_float.accumulate_float32", "dequantizes A and B in float32 and sums the products in "
          "float32, in K order (sums beyond 2**24 units lose terms)", _node(acc_f32=True), applies=_float32_t3,
          equivalent=_per_tensor_a,
          seen_in="openvinotoolkit/openvino#37956 (CPU: integer MatMul computed in float32); onnx2tf#634 "
                  "(MatMulInteger's inputs cast to float32)"),
    Fault("matmul_integer_to_float.sum_cast_to_float16", "casts the integer sum to float16 before scaling (the "
          "fused graph's Cast in a float16 model): sums beyond 65504 overflow", _node(sum16=True),
          applies=lambda p: parts(p)[0] == "float16" and parts(p)[3] != "k",
          seen_in=_NOT_SEEN + "MatMulInteger -> Cast(float16) -> Mul, the graph this node replaces, in float16"),
)


# ---------------------------------------------------------------------------------------
# the dot-product kill (as matmul_nbits_faults): outputs with the data set's inputs
# ---------------------------------------------------------------------------------------
class Outputs(list):
    """A fault's outputs with the data set's inputs, which the dot-product bound of `killed` is computed from."""
    inputs: list


_compiled: list = [None, None]


def run(fault: Fault, model, inputs: list, meta: dict) -> list:
    """The fault's outputs on one data set (its node function in the reference interpreter); [] where the fault
    refuses the model."""
    if _compiled[0] is not model:
        _compiled[:] = [model, compile_model(model, reference_lookup)]
    program = _compiled[1]
    steps = [dataclasses.replace(st, fn=fault.fn) if st.node.op_type == meta["op"] else st for st in program.steps]
    try:
        out = Outputs(run_program(dataclasses.replace(program, steps=steps), inputs))
    except Refusal:
        return []
    out.inputs = dot_bound.operands(model, inputs)
    return out


def killed(fault: Fault, meta: dict, expected: list, actual: list) -> bool:
    """Would the case fail the fault's outputs? Outside the case's dot-product bound (matmul_nbits_faults.killed);
    a refusal ([] outputs) fails a node case."""
    compare = meta.get("compare") or {}
    if len(actual) != len(expected):
        return True
    inputs = getattr(actual, "inputs", None)
    types = [dtypes.from_numpy(np.asarray(y).dtype) for y in expected]
    if compare.get("mode") != "dot" or inputs is None:
        return faults.differs(expected, actual, types, compare)
    for y, z, t in zip(expected, actual, types):
        if np.shape(y) != np.shape(z) or np.asarray(y).dtype != np.asarray(z).dtype:
            return True
        if not dot_bound.check(compare, inputs, y, z, t).all():
            return True
    return False
