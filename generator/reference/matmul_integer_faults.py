"""Fault models of ONNX MatMulInteger-10: plausible wrong implementations, each the reference
(generator/reference/matmul_integer.py) with one deviation (docs/design.md, "Fault models, witnesses, diagnosis";
generator/faults.py says what a fault module holds). Every fault has the reference node function's signature.

  zero points     a_zero_point / b_zero_point ignored; a per-row a_zero_point subtracted along K (numpy's
                  broadcasting of an [M] vector against [M, K]: onnx.reference); a per-column b_zero_point
                  subtracted along K (per row of B); only element 0 of a per-row / per-column zero point used;
                  the cross term K * a_zero_point * b_zero_point of the expanded product left out; a - zp
                  computed in the operand's 8-bit type (wraps)
  refusals        a per-row a_zero_point refused (onnxruntime); an a_zero_point left out by the empty name
                  before a given b_zero_point refused (OpenVINO); A int8 with B uint8 refused (onnxruntime
                  before PR #26744)
  types           B's bits read as A's type, or A's as B's (uint8 x int8 pairs: one signedness for both)
  arithmetic      raw u8 x s8 products added in pairs with int16 saturation (x86 VPMADDUBSW), zero points
                  applied after, and the same after shifting the other pairs into u8 x s8 by 128; each product
                  wrapped to int16 ("The production MUST never overflow"); the sum accumulated in int16 (wraps) or
                  wrapped to 8 bits; the sum accumulated in float32, products added in K order; the exact sum rounded
                  once to float32; the products added in K order in a saturating int32 accumulator
  vector tails    the last K % W products of each dot product left out (all of them when K < W), W = 4, 8, 16
  1-D operands    a 1-D A's prepended dimension kept in Y ([..., 1, N] for [..., N]); a 1-D B refused (tract)

Groups (group_key): "<A type> <B type> a_zp=<absent|tensor|row> b_zp=<absent|tensor|column>", from case.json
"params" (a_type, b_type, a_zp, b_zp; a zero point's form "one" (shape [1]) is per tensor, "row_nd" / "column_nd"
(the N-D forms) are per row / per column): 4 type pairs x 3 x 3 = 36 groups. Those are exactly the parameters
that decide whether a fault can differ at all (equivalent() proves where not); shapes, ranks and batch dimensions
are data of the group. Every group has a witness case (generator/witness/matmul_integer.py), and a case of a 1-D
A / a 1-D B where its zero points allow one.
"""

from __future__ import annotations

import numpy as np

from generator.faults import Fault, Refusal
from generator.reference import matmul_integer as ref

TYPES = ("uint8", "int8")
A_FORMS = {"absent": "absent", "tensor": "tensor", "one": "tensor", "row": "row", "row_nd": "row"}
B_FORMS = {"absent": "absent", "tensor": "tensor", "one": "tensor", "column": "column", "column_nd": "column"}
TAIL_WIDTHS = (4, 8, 16)  # int8 dot products of 4 (VNNI / SDOT), 8 and 16 K steps per vector
_NOT_SEEN = "not seen; modelled as "


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def parts(p: dict) -> tuple[str, str, str, str]:
    """(A type, B type, a_zero_point form, b_zero_point form) of a case's params."""
    return (p.get("a_type", "uint8"), p.get("b_type", "uint8"), A_FORMS[p.get("a_zp", "absent")],
            B_FORMS[p.get("b_zp", "absent")])


def key_of(a_type: str, b_type: str, a_zp: str, b_zp: str) -> str:
    return f"{a_type} {b_type} a_zp={a_zp} b_zp={b_zp}"


def group_key(meta: dict) -> str:
    """The group of a case (module docstring)."""
    return key_of(*parts(meta.get("params") or {}))


def all_groups() -> list[tuple[str, str, str, str]]:
    return [(a, b, az, bz) for a in TYPES for b in TYPES for az in ("absent", "tensor", "row")
            for bz in ("absent", "tensor", "column")]


# ---------------------------------------------------------------------------------------
# the reference with one deviation
# ---------------------------------------------------------------------------------------
def _operands(inputs: list) -> tuple:
    a, b = np.asarray(inputs[0]), np.asarray(inputs[1])
    az = None if len(inputs) < 3 or inputs[2] is None else np.asarray(inputs[2])
    bz = None if len(inputs) < 4 or inputs[3] is None else np.asarray(inputs[3])
    ref.check_shapes(a.shape, b.shape, None if az is None else az.shape, None if bz is None else bz.shape)
    return a, b, az, bz


def _wrap32(y: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(y).astype(np.int64).astype(np.uint32).view(np.int32)]


def _as2(a: np.ndarray, b: np.ndarray, az, bz) -> tuple:
    """A as [..., M, K] and B as [..., K, N] (a 1-D A a row, a 1-D B a column), their zero points as
    [..., M, 1] / [..., 1, N] (int64), and Y's shape."""
    y_shape = np.matmul(np.zeros(a.shape, np.int8), np.zeros(b.shape, np.int8)).shape
    a2 = a.astype(np.int64).reshape((1,) + a.shape) if a.ndim == 1 else a.astype(np.int64)
    b2 = b.astype(np.int64).reshape(b.shape + (1,)) if b.ndim == 1 else b.astype(np.int64)
    za = ref._zero_point(az, per_row=True)
    zb = ref._zero_point(bz, per_row=False)
    za = za.reshape(za.shape + (1,)) if za.ndim == 1 else za  # a per-row [M] is [M, 1]; scalars stay
    return a2, b2, np.asarray(za, np.int64), np.asarray(zb, np.int64), y_shape


def _products(a2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    """Every product a[..., m, k] * b[..., k, n] as [..., M, K, N]."""
    return a2[..., :, :, None] * b2[..., None, :, :]


def _zero_points_after(raw: np.ndarray, a2, b2, za, zb) -> np.ndarray:
    """sum (a - za)(b - zb) from raw = sum a b: raw - zb sum_k a - za sum_k b + K za zb."""
    k = a2.shape[-1]
    return raw - zb * a2.sum(-1, keepdims=True) - za * b2.sum(-2, keepdims=True) + k * za * zb


def _compute(inputs: list, *, drop_a: bool = False, drop_b: bool = False, a_along_k: bool = False,
             b_along_k: bool = False, a_first: bool = False, b_first: bool = False, cross_dropped: bool = False,
             b_as_a: bool = False, a_as_b: bool = False, pairs16: bool = False, product16: bool = False,
             acc16: bool = False, acc_f32: bool = False, k_tail: int = 0, a_refused: bool = False,
             empty_refused: bool = False, diff8: bool = False, f32_once: bool = False, s8u8_refused: bool = False,
             acc8: bool = False, a_row_kept: bool = False, b_1d_refused: bool = False) -> list[np.ndarray]:
    a, b, az, bz = _operands(inputs)
    if b_1d_refused and b.ndim == 1:
        raise Refusal("a 1-D B: its appended axis is not removed (the output's shape mismatches)")
    if a_refused and az is not None and not (az.ndim == 0 or az.shape == (1,)):
        raise Refusal("a_zero_point must be a scalar or a 1-D tensor of one element")
    if s8u8_refused and a.dtype == np.int8 and b.dtype == np.uint8:
        raise Refusal("no kernel for A int8 with B uint8")
    if empty_refused and az is None and bz is not None:
        raise Refusal("an optional input left out by the empty name before a present one")
    if b_as_a and a.dtype != b.dtype:  # B's bits (and its zero point's) read as A's type
        b, bz = b.view(a.dtype), None if bz is None else bz.view(a.dtype)
    if a_as_b and a.dtype != b.dtype:
        a, az = a.view(b.dtype), None if az is None else az.view(b.dtype)
    az = None if drop_a else az
    bz = None if drop_b else bz
    if a_first and az is not None:
        az = az.reshape(-1)[:1].reshape(())
    if b_first and bz is not None:
        bz = bz.reshape(-1)[:1].reshape(())
    if a_along_k and az is not None and az.ndim == 1:  # A - a_zero_point as numpy broadcasts it: along K
        try:
            da = a.astype(np.int64) - az.astype(np.int64)
        except ValueError as exc:
            raise Refusal(str(exc)) from None
        if da.shape != a.shape:
            raise Refusal("a_zero_point does not broadcast against A")
        return _wrap32(np.matmul(da, b.astype(np.int64) - ref._zero_point(bz, per_row=False)))
    if b_along_k and bz is not None and bz.ndim == 1 and bz.size > 1:  # per row of B (along K)
        if b.ndim < 2 or bz.size != b.shape[-2]:
            raise Refusal("b_zero_point has no element per row of B")
        db = b.astype(np.int64) - bz.astype(np.int64).reshape(-1, 1)
        return _wrap32(np.matmul(a.astype(np.int64) - ref._zero_point(az, per_row=True), db))
    a2, b2, za, zb, y_shape = _as2(a, b, az, bz)
    if a_row_kept and a.ndim == 1:  # A promoted to [1, K], the added axis left in Y
        y_shape = np.matmul(np.zeros((1,) + a.shape, np.int8), np.zeros(b.shape, np.int8)).shape
    k = a2.shape[-1]
    if pairs16 and a.dtype == np.int8:  # into the u8 x s8 kernel's ranges: the differences stay the same
        a2, za = a2 + 128, za + 128
    if pairs16 and b.dtype == np.uint8:
        b2, zb = b2 - 128, zb - 128
    if diff8:  # a - za and b - zb in the operands' own types
        da8 = (a2 - za).astype(a.dtype).astype(np.int64)
        db8 = (b2 - zb).astype(b.dtype).astype(np.int64)
        return _wrap32(np.matmul(da8, db8).reshape(y_shape))
    if pairs16:  # raw u8 x s8 products of K indices 2j, 2j + 1 added with int16 saturation; zero points after.
        # MLAS's AVX2 U8S8 path packs 4 consecutive K per 32-bit lane (MlasGemmU8S8CopyPackAAvx2 copies A's rows,
        # MlasGemmU8S8CopyPackBAvx2 interleaves 4 rows of B; K zero padded to a multiple of 4, K slices of 128 / 384
        # start at multiples of 4; MlasGemvU8S8KernelAvx2 for M = 1 alike), and VPMADDUBSW adds bytes 2j and 2j + 1
        p = _products(a2, b2)
        if k % 2:
            p = np.concatenate([p, np.zeros(p.shape[:-2] + (1, p.shape[-1]), np.int64)], axis=-2)
        raw = np.clip(p[..., 0::2, :] + p[..., 1::2, :], -(2**15), 2**15 - 1).sum(-2)
        y = _zero_points_after(raw, a2, b2, za, zb)
    else:
        da, db = a2 - za, b2 - zb
        if k_tail:  # the last K % W products left out (all of them when K < W)
            keep = k - k % k_tail
            da, db = da[..., :keep], db[..., :keep, :]
        if product16 or acc_f32:
            p = _products(da, db)
            if product16:
                y = ((p + 2**15) % 2**16 - 2**15).sum(-2)
            else:
                acc = np.zeros(p.shape[:-2] + p.shape[-1:], np.float32)
                for i in range(p.shape[-2]):
                    acc = (acc + p[..., i, :].astype(np.float32)).astype(np.float32)
                y = np.clip(acc.astype(np.float64), ref.INT32_MIN, ref.INT32_MAX).astype(np.int64)
        else:
            y = np.matmul(da, db)
        if f32_once:  # exact, then one rounding to float32 (|y| < 2**53: the float64 step is exact)
            y = np.clip(np.asarray(y, np.float64).astype(np.float32).astype(np.float64), ref.INT32_MIN,
                        ref.INT32_MAX).astype(np.int64)
        if cross_dropped:
            y = y - k * za * zb
        if acc16:
            y = (y + 2**15) % 2**16 - 2**15
        if acc8:
            y = (y + 2**7) % 2**8 - 2**7
    return _wrap32(np.asarray(y).reshape(y_shape))


def saturating_int32(inputs: list) -> list[np.ndarray]:
    """Y with the products (a - za)(b - zb) added in K order in an int32 accumulator that saturates at each step
    (a saturating add: ARM SQADD, x86 VPDPBUSDS): the exact sum wherever no partial sum leaves int32."""
    a, b, az, bz = _operands(inputs)
    a2, b2, za, zb, y_shape = _as2(a, b, az, bz)
    da, db = a2 - za, b2 - zb
    k = a2.shape[-1]
    if k * int(np.abs(da).max(initial=0)) * int(np.abs(db).max(initial=0)) <= ref.INT32_MAX:
        return _wrap32(np.matmul(da, db).reshape(y_shape))  # no partial sum can leave int32
    shape = np.broadcast_shapes(da.shape[:-1] + (1,), db.shape[:-2] + (1, db.shape[-1]))
    da, db = np.broadcast_to(da, shape[:-1] + (k,)), np.broadcast_to(db, shape[:-2] + (k, shape[-1]))
    acc = np.zeros(shape, np.int64)
    for idx in np.ndindex(*shape):
        acc[idx] = _saturating_sum(da[idx[:-1]] * db[idx[:-2] + (slice(None), idx[-1])])
    return _wrap32(acc.reshape(y_shape))


def _saturating_sum(p: np.ndarray) -> int:
    """sum of the products p (int64, in K order) in an int32 accumulator that saturates at each step: exact prefix
    sums up to the first that leaves int32, clamped there; a clamped accumulator stays at its end until a product of
    the other sign comes, and the prefix sums start again from there (the same as adding one product at a time)."""
    lo, hi = ref.INT32_MIN, ref.INT32_MAX
    acc, i, n = 0, 0, len(p)
    while i < n:
        s = acc + np.cumsum(p[i:])
        out = np.flatnonzero((s > hi) | (s < lo))
        if not out.size:
            return int(s[-1])
        j = i + int(out[0])
        acc = hi if s[out[0]] > hi else lo
        rest = p[j + 1:]
        back = np.flatnonzero(rest < 0) if acc == hi else np.flatnonzero(rest > 0)
        if not back.size:
            return acc
        i = j + 1 + int(back[0])
    return acc


def _node(**deviation):
    def fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list) -> list[np.ndarray]:
        return _compute(inputs, **deviation)
    fn.__doc__ = f"MatMulInteger with the deviation {deviation} (generator.reference.matmul_integer_faults)."
    return fn


# ---------------------------------------------------------------------------------------
# equivalence proofs, per group
# ---------------------------------------------------------------------------------------
def _unless(index: int, form: str, proof: str):
    return lambda p: None if parts(p)[index] == form else proof


def _unless_present(index: int, name: str):
    return lambda p: None if parts(p)[index] != "absent" else f"there is no {name}: it is 0 either way"


def _unless_both(p: dict) -> str | None:
    _, _, az, bz = parts(p)
    return None if "absent" not in (az, bz) else "a zero point is absent (0): K * a_zero_point * b_zero_point is 0"


def _unless_mixed(p: dict) -> str | None:
    a, b, _, _ = parts(p)
    return None if a != b else "A and B have one type: reading one's bits as the other's type changes nothing"


def _magnitude(t: str, zp: str) -> int:
    """The largest |x - zero point|: 255 for uint8 (0..255) or with a zero point (-128 - 127), else 128."""
    return 255 if t == "uint8" or zp != "absent" else 128


def _unless_signs_mix(p: dict) -> str | None:
    a, b, az, bz = parts(p)
    if (a, b, az, bz) != ("uint8", "uint8", "absent", "absent"):
        return None
    return ("uint8 operands without zero points: every product is >= 0, so every partial sum lies between 0 and the "
            "total, in int32 wherever the total is")


def _unless_product_leaves_int16(p: dict) -> str | None:
    a, b, az, bz = parts(p)
    if _magnitude(a, az) * _magnitude(b, bz) > 2**15 - 1:
        return None
    return ("|a - a_zero_point| * |b - b_zero_point| <= 255 * 128 = 32640 here (an int8 operand without a zero "
            "point is within 128 of 0): every product fits int16")


def _unless_a_can_be_1d(p: dict) -> str | None:
    return "a per-row a_zero_point needs an A of rank 2 or more: no 1-D A here" if parts(p)[2] == "row" else None


def _unless_b_can_be_1d(p: dict) -> str | None:
    return "a per-column b_zero_point needs a B of rank 2 or more: no 1-D B here" if parts(p)[3] == "column" else None


FAULTS: tuple[Fault, ...] = (
    Fault("matmul_integer.a_zero_point_ignored", "leaves a_zero_point out (A - 0)", _node(drop_a=True),
          equivalent=_unless_present(2, "a_zero_point"),
          seen_in="IREE (iree-org/iree#24583: MatMulInteger computes A * B, both zero points ignored)"),
    Fault("matmul_integer.b_zero_point_ignored", "leaves b_zero_point out (B - 0)", _node(drop_b=True),
          equivalent=_unless_present(3, "b_zero_point"),
          seen_in="IREE (iree-org/iree#24583: MatMulInteger computes A * B, both zero points ignored)"),
    Fault("matmul_integer.a_zero_point_along_k",
          "subtracts a per-row a_zero_point [M] along K (numpy broadcasting of [M] against [M, K]); refuses "
          "when M != K", _node(a_along_k=True), equivalent=_unless(2, "row", "a_zero_point is not an [M] vector"),
          may_refuse=True,
          seen_in="onnx-reference 1.23.2 (onnx/reference/ops/op_matmul_integer.py: A32 -= a_zero_point; measured "
                  "here); onnx-mlir#2147 review (\"[MxK] - [M] cannot be expressed by sub\")"),
    Fault("matmul_integer.b_zero_point_along_k",
          "subtracts a per-column b_zero_point [N] per row of B (along K); refuses when N != K",
          _node(b_along_k=True), equivalent=_unless(3, "column", "b_zero_point is not per column"),
          may_refuse=True, seen_in=_NOT_SEEN + "a per-column zero point applied per row (the axis swapped)"),
    Fault("matmul_integer.a_zero_point_per_row_refused",
          "refuses a per-row a_zero_point (anything but a scalar or a [1] vector), though the text defines it",
          _node(a_refused=True), equivalent=_unless(2, "row", "a_zero_point is per tensor: nothing to refuse"),
          may_refuse=True,
          seen_in="onnxruntime 1.32.0 CPU (matmul_integer.cc: \"MatmulInteger : input1 zero point must be a scalar "
                  "or 1D tensor of size 1\"; measured here; onnxruntime#27897, and PR #3070's CUDA kernel)"),
    Fault("matmul_integer.omitted_a_zero_point_refused",
          "refuses a model whose a_zero_point is left out by the empty name while b_zero_point is given",
          _node(empty_refused=True), may_refuse=True,
          equivalent=lambda p: None if parts(p)[2:] != ("absent", "absent") and parts(p)[2] == "absent" else
          "a_zero_point is given, or both zero points are left out (no empty name before a present input)",
          seen_in="OpenVINO 2026.4.1 CPU (measured here: compile_model raises \"CPU plug-in doesn't support NullNode "
                  "operation\")"),
    Fault("matmul_integer.int8_uint8_refused",
          "refuses A int8 with B uint8 (no kernel for that pair), though T1 and T2 allow it", _node(s8u8_refused=True),
          may_refuse=True, equivalent=lambda p: None if parts(p)[:2] == ("int8", "uint8") else
          "the pair is not int8 x uint8: nothing to refuse",
          seen_in="onnxruntime before PR #26744 (onnxruntime#26743: NOT_IMPLEMENTED; measured here: 1.18.1, 1.20 and "
                  "1.22.1 report every int8 x uint8 item unsupported)"),
    Fault("matmul_integer.a_zero_point_first", "uses a_zero_point[0] for every row", _node(a_first=True),
          equivalent=_unless(2, "row", "a_zero_point is per tensor: one value"),
          seen_in=_NOT_SEEN + "a kernel that reads the per-tensor zero point slot of a per-row model"),
    Fault("matmul_integer.b_zero_point_first", "uses b_zero_point[0] for every column", _node(b_first=True),
          equivalent=_unless(3, "column", "b_zero_point is per tensor: one value"),
          seen_in=_NOT_SEEN + "a kernel that reads the per-tensor zero point slot of a per-column model"),
    Fault("matmul_integer.cross_term_dropped",
          "expands sum (a - za)(b - zb) as sum ab - zb sum a - za sum b, leaving out + K za zb",
          _node(cross_dropped=True), equivalent=_unless_both,
          seen_in=_NOT_SEEN + "zero points applied after the product (the expanded form) with a term lost"),
    Fault("matmul_integer.b_read_as_a_type", "reads B's bits (and b_zero_point's) as A's type (uint8 x int8: one "
          "signedness for both)", _node(b_as_a=True), equivalent=_unless_mixed,
          seen_in=_NOT_SEEN + "a kernel written for one signedness given a mixed pair"),
    Fault("matmul_integer.a_read_as_b_type", "reads A's bits (and a_zero_point's) as B's type",
          _node(a_as_b=True), equivalent=_unless_mixed,
          seen_in=_NOT_SEEN + "a kernel written for one signedness given a mixed pair"),
    Fault("matmul_integer.int16_pair_saturation",
          "adds the raw a * b products in adjacent K pairs with int16 saturation (x86 VPMADDUBSW), zero points "
          "applied after", _node(pairs16=True), applies=lambda p: parts(p)[:2] == ("uint8", "int8"),
          seen_in="onnxruntime#16105 (MLAS QgemmU8X8KernelAvx2 on x86-64 without VNNI); oneDNN#518 (MKL "
                  "cblas_gemm_s8u8s32: a = [255, 255], b = [127, 127] gives 32767)", cpu="x86-64 without VNNI"),
    Fault("matmul_integer.int16_pair_saturation_shifted",
          "shifts the other type pairs into u8 x s8 (int8 A + 128, uint8 B - 128, zero points alike), then adds the "
          "raw products in adjacent K pairs with int16 saturation, zero points applied after", _node(pairs16=True),
          applies=lambda p: parts(p)[:2] != ("uint8", "int8"),
          seen_in="rten#1208 (every pair shifted by 128 into the u8 x s8 kernel; saturates on x86 without VNNI, "
                  "as its docs say; rten#596)", cpu="x86-64 without VNNI"),
    Fault("matmul_integer.difference_in_8_bits",
          "subtracts each zero point in the operand's 8-bit type (a - a_zero_point wraps modulo 256)",
          _node(diff8=True), equivalent=lambda p: None if parts(p)[2:] != ("absent", "absent") else
          "no zero point: nothing is subtracted",
          seen_in="AMDMIGraphX#2903 review (\"sub between two uint8_t types which would result in incorrect "
                  "results\")"),
    Fault("matmul_integer.product_int16",
          "wraps each product (a - za)(b - zb) to int16 before adding (\"The production MUST never overflow\")",
          _node(product16=True), equivalent=_unless_product_leaves_int16,
          seen_in=_NOT_SEEN + "a 16-bit multiply (PMULLW / int16 SIMD lanes) of two 8-bit differences"),
    Fault("matmul_integer.accumulate_int32_saturating",
          "adds the products in K order in int32 with saturation at each step: a partial sum beyond int32 sticks "
          "at its end, though the exact total fits", lambda inputs, attrs, opset, input_types: saturating_int32(inputs),
          equivalent=_unless_signs_mix,
          seen_in=_NOT_SEEN + "a saturating int32 accumulator (ARM SQADD, x86 VPDPBUSDS): READING_EXACT's "
                              "wrapping accumulator is the one the text's 'may overflow' leaves exact"),
    Fault("matmul_integer.accumulate_int16", "accumulates the sum in int16 (wraps modulo 2**16)",
          _node(acc16=True), seen_in=_NOT_SEEN + "an int16 accumulator (the issue's 'accumulation in int16')"),
    Fault("matmul_integer.result_int8", "wraps the sum to 8 bits (the operands' width) before widening to int32",
          _node(acc8=True),
          seen_in="int8 matmuls of compilers: iree-org/iree#8491 (an i8 dot_general wrapped to int8), "
                  "triton-lang/triton#2296 (an int8 matmul's output typed int8)"),
    Fault("matmul_integer.a_1d_axis_kept",
          "promotes a 1-D A to a row [1, K] as numpy.matmul does but keeps the added axis: Y is [..., 1, N] for "
          "[..., N], its values right", _node(a_row_kept=True), equivalent=_unless_a_can_be_1d,
          seen_in="tract 0.23.9 (measured here: A [4] by B [4, 3] gives Y [1, 3], by B [2, 4, 3] Y [2, 1, 3])"),
    Fault("matmul_integer.b_1d_refused", "refuses a 1-D B (and a 1-D A with a 1-D B), though numpy.matmul's "
          "promotion defines it", _node(b_1d_refused=True), equivalent=_unless_b_can_be_1d, may_refuse=True,
          seen_in="tract 0.23.9 (measured here: into_runnable raises \"Output mismatch after rewiring expansion ... "
                  "expected 3,1,I32 got 3,4,I32\", both 1-D \"Axis (In(0), 18446744073709551615) not found\")"),
    Fault("matmul_integer.accumulate_float32",
          "adds the exact products in float32, in K order, then converts to int32 (|sum| > 2**24 rounds)",
          _node(acc_f32=True),
          seen_in="openvinotoolkit/openvino#37956 (CPU: int32 MatMul computed in float32, inexact beyond 2**24); "
                  "onnx2tf#634 (MatMulInteger's inputs cast to float32)"),
    Fault("matmul_integer.float32_result",
          "gives the exact sum rounded once to float32 (half to even), then converted to int32: a float32 GEMM whose "
          "blocked partial sums stay exact", _node(f32_once=True),
          seen_in="OpenVINO 2026.4.1 CPU (measured here: every float32 witness data set of the default suite; "
                  "openvinotoolkit/openvino#37956)"),
) + tuple(
    Fault(f"matmul_integer.k_tail{w}_dropped",
          f"leaves out the last K % {w} products of each dot product (all of them when K < {w}): a {w}-step K "
          "loop without its remainder", _node(k_tail=w),
          seen_in=_NOT_SEEN + f"a {w}-wide K loop whose scalar remainder is missing (issue 21's vector-tail axis)")
    for w in TAIL_WIDTHS
)
