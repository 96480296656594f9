"""The raw storage of a tensor as runtimes hold it (ONNX raw_data, onnxruntime and OpenVINO buffers):
each element's bits in its byte order; elements narrower than a byte packed several to a byte, the
first element in the lowest bits (ONNX's int4 / int2 / float4 notes)."""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType


def _per_byte(t: DType) -> int:
    if 8 % t.bits:
        raise ValueError(f"{t.name}: {t.bits}-bit elements do not pack whole into bytes")
    return 8 // t.bits


def pack(x: np.ndarray, t: DType) -> bytes:
    """The raw bytes of a tensor of element type t."""
    bits = t.to_bits(np.ascontiguousarray(x)).ravel()
    if t.bits >= 8:
        return bits.astype(t.bits_dtype).tobytes()
    per = _per_byte(t)
    padded = np.zeros(-(-bits.size // per) * per, dtype=np.uint16)
    padded[:bits.size] = bits
    shifts = np.arange(per, dtype=np.uint16) * t.bits
    return (padded.reshape(-1, per) << shifts).sum(axis=1).astype(np.uint8).tobytes()


def unpack(raw: bytes, shape: tuple, t: DType) -> np.ndarray:
    """Inverse of pack: the elements of a tensor of this shape."""
    n = int(np.prod(shape, dtype=np.int64))
    data = np.frombuffer(raw, dtype=np.uint8)
    if t.bits >= 8:
        bits = data.view(t.bits_dtype)[:n]
    else:
        shifts = np.arange(_per_byte(t), dtype=np.uint8) * t.bits
        bits = ((data[:, None] >> shifts) & np.uint8((1 << t.bits) - 1)).ravel()[:n]
    return t.from_bits(bits).reshape(shape)
