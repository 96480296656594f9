"""numpy / ml_dtypes arrays <-> openvino.Tensor, bit-exact in the declared element type.

Why raw bytes: `Tensor.data` shows bfloat16 as float16 (the wrong reading of the same bits), float8 as uint8,
and 4- / 2-bit types as their packed bytes. So every numeric tensor is moved as its raw buffer: element bits
from generator.dtypes, sub-byte elements PACKED with the first element in the low bits (measured: u4 bytes
0x21 0x43 0x05 read back as 1, 2, 3, 4, 5; the unused high bits of the last byte are not data).
Strings go through `Tensor.str_data`.
"""

from __future__ import annotations

import numpy as np
import openvino as ov

from generator import dtypes
from generator.dtypes import DType
from generator.reference.convert_promote_types import element_name
from runners.compare import text_array
from runners.backends.packing import pack, unpack


def ov_type(t: DType | str) -> ov.Type | None:
    """OpenVINO's element type for one of ours, or None if it has none (FNUZ float8, float6, int2)."""
    name = element_name(t)
    return getattr(ov.Type, name, None) if name else None


def our_type(t: ov.Type) -> DType | None:
    """Our element type for one of OpenVINO's, or None (u1, u3, u6, nf4 ... have no ONNX type)."""
    name = t.get_type_name()
    return next((d for d in dtypes.all_dtypes() if element_name(d) == name), None)


def _buffer(tensor: ov.Tensor) -> np.ndarray:
    """The tensor's memory as a flat uint8 view."""
    return tensor.data.reshape(-1).view(np.uint8)


def to_tensor(x: np.ndarray, t: DType) -> ov.Tensor:
    """An openvino.Tensor of element type t holding x's elements bit for bit."""
    if t.kind == "string":
        return ov.Tensor(np.array(text_array(x).tolist(), dtype=str).reshape(np.shape(x)))
    et = ov_type(t)
    if et is None:
        raise ValueError(f"OpenVINO has no element type for {t.name}")
    tensor = ov.Tensor(et, ov.Shape(list(np.shape(x))))
    raw = pack(np.asarray(x, dtype=t.np_dtype), t)
    if tensor.byte_size != len(raw):
        raise RuntimeError(f"OpenVINO holds {tensor.byte_size} bytes for a {t.name}{list(np.shape(x))} tensor, "
                           f"packing gave {len(raw)}")
    if raw:
        _buffer(tensor)[:] = np.frombuffer(raw, dtype=np.uint8)
    return tensor


def from_tensor(tensor: ov.Tensor) -> np.ndarray:
    """A tensor's elements in the element type OpenVINO says it holds (compare checks it is the declared one)."""
    t = our_type(tensor.element_type)
    shape = tuple(tensor.shape)
    if t is None:
        raise RuntimeError(f"OpenVINO returned element type {tensor.element_type.get_type_name()}, "
                           "which no ONNX element type represents")
    if t.kind == "string":
        return text_array(np.array(tensor.str_data, dtype=object).reshape(shape))
    raw = _buffer(tensor).tobytes()[: tensor.byte_size] if tensor.byte_size else b""
    return unpack(raw, shape, t)
