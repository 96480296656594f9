"""generator/reference/float8_bitwise.py and cast.float8_bitwise: TVM 0.27's float 8 conversions as measured (issue 21).

The values below are TVM 0.27.0.post1's outputs (llvm target), measured through the tvm backend on Cast models; the
fault model must reproduce them bit for bit, as it did on every float 8 encoding and 2,016 float32 values per target."""

import ml_dtypes
import numpy as np

from generator import dtypes
from generator.faults import by_name
from generator.reference import float8_bitwise as fb

F32 = np.float32


def bits32(*words):
    return np.array(words, dtype=np.uint32).view(np.float32)


def test_encode_as_measured_on_tvm():
    x = bits32(0x3F800000, 0x7F7FFFFF, 0x80000000, 0xBBFD71BD, 0xBC2A44D6, 0x7FC00000)
    assert fb.encode(x, "float8e4m3fn").tolist() == [0x38, 0x38, 0x00, 0x80, 0x83, 0x3C]
    assert fb.encode(x[:1], "float8e4m3fnuz").tolist() == [0x38]  # FNUZ given the FN bias: 1.0 -> 0.5's code
    # e8m0: the exponent field to nearest even; FLT_MAX and Inf -> 0xFF, NaN -> 0x00
    e = bits32(0x40400000, 0x40200000, 0x3F8CCCCD, 0x7F7FFFFF, 0x7F800000, 0x7FC00000, 0x00A00000, 0x3FC00000)
    assert fb.encode(e, "float8e8m0").tolist() == [0x80, 0x80, 0x7F, 0xFF, 0xFF, 0x00, 0x01, 0x80]


def test_nan_rounding_out_of_exponent_255_is_plus_zero():
    bf = np.array([0x7F81, 0x7F8F, 0x7FF8, 0xFFFE], np.uint16).view(ml_dtypes.bfloat16).astype(F32)
    assert fb.encode(bf, "float8e4m3fn").tolist() == [0x38, 0x39, 0x00, 0x00]


def test_decode_reads_every_encoding_as_normal():
    assert fb.decode(np.array([0x00, 0x38, 0x7F]), "float8e4m3fn").tolist() == [2.0**-7, 1.0, 480.0]
    assert fb.decode(np.array([0x00, 0x28, 0xFF]), "float8e8m0").tolist() == [0.0, 2.0**-87, np.inf]


def test_cast_fault_reproduces_tvm_across_types():
    f = by_name("cast")["cast.float8_bitwise"]
    assert f.seen_in.startswith("TVM 0.27")
    e5m2 = dtypes.get("float8e5m2")
    x = e5m2.from_bits(np.array([0x7B, 0x60], np.uint8))  # 57344 and 512 -> float8e4m3fn
    (y,) = f.fn([x], {"to": dtypes.get("float8e4m3fn").onnx, "saturate": 1}, 19, [e5m2])
    assert dtypes.get("float8e4m3fn").to_bits(y).tolist() == [0xB6, 0x80]  # the exponent wraps into the sign
    # the reference saturates both to 448
    assert not f.applies({"from": "float8e5m2", "to": "float8e5m2", "saturate": 1, "round_mode": "up", "opset": 19})
    assert f.equivalent({"from": "uint8", "to": "float8e4m3fn", "saturate": 1, "round_mode": "up", "opset": 19})
    assert f.equivalent({"from": "uint8", "to": "float8e5m2fnuz", "saturate": 1, "round_mode": "up",
                         "opset": 19}) is None
