"""Tensors into and out of IREE's runtime, bit for bit (the IREE backend, runners/backends/iree_backend.py).

IREE's ABI is signless: an integer tensor crosses it as "so many bits" (a uint8 result comes back INT_8, and
int8 / uint8 inputs are taken whatever sign their buffer view says), so each tensor goes in and comes back as its
raw bytes, read in the element type the model declares. A float8 / bfloat16 tensor is its bit pattern; bool is
one byte an element; int4 / uint4 are packed two to a byte, the first element in the low nibble (what the
runtime's INT_4 buffer views hold). A result whose buffer view says another width or kind than the declared type
comes back in the type it has (compare names the wrong type), never converted.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.dtypes import DType

# element type name -> (HalElementType member, kind the result's element type must have)
_HAL = {
    "float": "FLOAT_32", "double": "FLOAT_64", "float16": "FLOAT_16", "bfloat16": "BFLOAT_16",
    "float8e4m3fn": "FLOAT_8_E4M3_FN", "float8e4m3fnuz": "FLOAT_8_E4M3_FNUZ", "float8e5m2": "FLOAT_8_E5M2",
    "float8e5m2fnuz": "FLOAT_8_E5M2_FNUZ", "float8e8m0": "FLOAT_8_E8M0_FNU",
    "int8": "INT_8", "uint8": "INT_8", "int16": "INT_16", "uint16": "INT_16", "int32": "INT_32", "uint32": "INT_32",
    "int64": "INT_64", "uint64": "INT_64", "int4": "INT_4", "uint4": "INT_4", "bool": "BOOL_8",
}
_FLOAT_NAMES = {v: k for k, v in _HAL.items() if k in ("float", "double", "float16", "bfloat16") or "8" in v
                and v.startswith("FLOAT")}


def hal_type(t: DType):
    """The HalElementType an input of type t goes in as; None where the runtime has none (strings ...)."""
    import iree.runtime as rt

    name = _HAL.get(t.name)
    return getattr(rt.HalElementType, name, None) if name else None


def to_device(device, x: np.ndarray, t: DType):
    """A buffer view holding array x of declared type t (its bytes as they are)."""
    import iree.runtime as rt

    x = np.asarray(x)
    shape = list(x.shape)
    if t.bits < 8:
        raw = _pack_nibbles(t.to_bits(x) if t.is_float else x.astype(np.int64).reshape(-1), t.bits)
    else:
        raw = np.ascontiguousarray(t.to_bits(x) if t.is_float else x.astype(t.np_dtype, copy=False)).reshape(-1)
        raw = raw.view(np.uint8)
    if raw.size == 0:
        raw = np.zeros(1, np.uint8)  # (the allocator takes no empty buffer; the view says 0 elements)
    buffer = device.allocator.allocate_buffer_copy(memory_type=rt.MemoryType.DEVICE_LOCAL,
                                                   allowed_usage=rt.BufferUsage.DEFAULT, device=device,
                                                   buffer=raw, element_type=None)
    return rt.HalBufferView(buffer, shape, hal_type(t))


def from_device(view, t: DType) -> np.ndarray:
    """A result buffer view as an array of declared type t, where its element type has t's kind and width;
    otherwise in the type it holds."""
    import iree.runtime as rt

    shape = tuple(view.shape)
    n = int(np.prod(shape)) if shape else 1
    size = view.byte_length
    raw = np.frombuffer(bytes(view.map().asarray([size], np.dtype(np.uint8))), np.uint8) if size else \
        np.zeros(0, np.uint8)
    said = rt.HalElementType(view.element_type).name if _known(view.element_type) else str(view.element_type)
    expected = _HAL.get(t.name)
    if expected is not None and _same_kind(said, expected):
        return _decode(raw, t, n, shape)
    natural = _natural(said)
    if natural is None:
        raise RuntimeError(f"iree returned a tensor of element type {said}, the model declares {t.name}")
    return _decode(raw, dtypes.get(natural), n, shape)


def _decode(raw: np.ndarray, t: DType, n: int, shape: tuple) -> np.ndarray:
    if t.bits < 8:
        bits = _unpack_nibbles(raw, n, t.bits)
        if t.is_float:
            return t.from_bits(bits).reshape(shape)
        signed = t.int_min < 0
        values = bits.astype(np.int64)
        if signed:
            values = np.where(values >= 1 << (t.bits - 1), values - (1 << t.bits), values)
        return values.astype(t.np_dtype).reshape(shape)
    if t.kind == "bool":
        if raw.size and raw.max() > 1:
            return raw.reshape(shape)  # not a bool: compare shows it, nothing is fixed
        return raw.astype(bool).reshape(shape)
    if t.is_float:
        return t.from_bits(raw.view(t.bits_dtype)).reshape(shape)
    return raw.view(t.np_dtype).reshape(shape)


def _known(value) -> bool:
    import iree.runtime as rt

    try:
        rt.HalElementType(value)
    except ValueError:
        return False
    return True


def _same_kind(said: str, expected: str) -> bool:
    """INT_8 / SINT_8 / UINT_8 are one signless width; float types and bool must match exactly."""
    if expected.startswith("INT_"):
        return said in (expected, "S" + expected, "U" + expected)
    return said == expected


def _natural(said: str) -> str | None:
    """The element type name (generator.dtypes) a HalElementType holds by itself."""
    if said in _FLOAT_NAMES:
        return _FLOAT_NAMES[said]
    for prefix, name in (("UINT_", "uint"), ("SINT_", "int"), ("INT_", "int")):
        if said.startswith(prefix):
            return f"{name}{said[len(prefix):]}"
    return "bool" if said == "BOOL_8" else None


def _pack_nibbles(values: np.ndarray, bits: int) -> np.ndarray:
    v = (np.asarray(values).reshape(-1).astype(np.int64) & ((1 << bits) - 1)).astype(np.uint8)
    per = 8 // bits
    v = np.concatenate([v, np.zeros((-v.size) % per, np.uint8)])
    out = np.zeros(v.size // per, np.uint8)
    for k in range(per):
        out |= v[k::per] << (k * bits)
    return out


def _unpack_nibbles(raw: np.ndarray, n: int, bits: int) -> np.ndarray:
    per = 8 // bits
    out = np.zeros(raw.size * per, np.uint8)
    for k in range(per):
        out[k::per] = (raw >> (k * bits)) & ((1 << bits) - 1)
    return out[:n]
