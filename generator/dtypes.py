"""The one registry of element types.

Every fact about an element type (ONNX enum, numpy / ml_dtypes dtype, width, kind, range,
NaN / Inf encodings, the first Cast opset that accepts it) lives here; every other module asks
this one. Numeric facts of the float formats are derived from their bit layout (exponent bits,
mantissa bits, bias, NaN style), which is what the ONNX technical notes on float8 / float4 /
float8e8m0 define; tests cross-check them against ml_dtypes.finfo.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto

# NaN styles of the float formats.
IEEE = "ieee"  # all-ones exponent: Inf when the mantissa is 0, NaN otherwise
FN = "fn"  # no Inf; only S.1111.111 (all ones) is NaN (float8e4m3fn)
FNUZ = "fnuz"  # no Inf, no -0; the -0 encoding 1.000...0 is the only NaN
E8M0 = "e8m0"  # unsigned, no zero, no Inf; 0xFF is NaN
NONE = "none"  # no NaN, no Inf (float4e2m1)


@dataclass(frozen=True)
class DType:
    """One element type. Float layout fields are None for non-float kinds."""

    name: str  # ONNX name in lower case, as in "tensor(float8e4m3fn)"
    onnx: int  # TensorProto.DataType value
    np_dtype: np.dtype
    bits: int
    kind: str  # "bool" | "int" | "uint" | "float" | "string"
    cast_since: int | None  # first Cast opset accepting the type; None if Cast does not
    exponent_bits: int | None = None
    mantissa_bits: int | None = None
    bias: int | None = None
    nan_style: str | None = None
    signed_float: bool = True  # False only for float8e8m0 (no sign bit)

    # ---- classification -------------------------------------------------------------
    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def is_float8(self) -> bool:
        """The four float8 types the `saturate` tables of Cast-19 cover."""
        return self.name in FLOAT8_SATURATE_TYPES

    @property
    def is_numeric(self) -> bool:
        return self.kind != "string"

    @property
    def is_numpy_native(self) -> bool:
        """A numeric type of numpy's own (not an ml_dtypes extension type): libraries that speak numpy
        (e.g. onnxruntime's InferenceSession.run) take and return its buffers as they are."""
        return self.is_numeric and self.np_dtype.type.__module__ == "numpy"

    @property
    def has_inf(self) -> bool:
        return self.nan_style == IEEE

    @property
    def has_nan(self) -> bool:
        return self.nan_style in (IEEE, FN, FNUZ, E8M0)

    @property
    def has_negative_zero(self) -> bool:
        return self.is_float and self.signed_float and self.nan_style not in (FNUZ,)

    @property
    def onnx_knows(self) -> bool:
        """The installed onnx names this type (TensorProto.<NAME>): onnx.helper, numpy_helper, the checker and
        the reference evaluator take it. False for the types of a newer onnx (int2 / uint2 / float6 before 1.23)."""
        return self.onnx in _ONNX_KNOWN

    def from_raw(self, raw: bytes, shape: tuple) -> np.ndarray:
        """The elements of ONNX raw_data of this type and shape: each element's bits little-endian; elements
        narrower than a byte one LSB-first bit stream, the first element in the lowest bits (ONNX's int4 /
        int2 notes; float6: 4 elements in 3 bytes). For the types the installed onnx cannot convert
        (numpy_helper.to_array needs it to know the type)."""
        n = int(np.prod(shape, dtype=np.int64))
        if len(raw) * 8 < n * self.bits:
            raise ValueError(f"{n} {self.name} elements need more than {len(raw)} bytes")
        data = np.frombuffer(raw, dtype=np.uint8)
        if self.bits >= 8:
            bits = data[:n * self.bits // 8].view(self.bits_dtype.newbyteorder("<")).astype(self.bits_dtype)
        else:
            stream = np.unpackbits(data, bitorder="little")[:n * self.bits].reshape(n, self.bits)
            bits = np.packbits(stream, axis=1, bitorder="little").ravel()
        return self.from_bits(bits).reshape(shape)

    def to_raw(self, a: np.ndarray) -> bytes:
        """Inverse of from_raw: the ONNX raw_data of these elements."""
        bits = self.to_bits(np.ascontiguousarray(a)).ravel()
        if self.bits >= 8:
            return bits.astype(self.bits_dtype.newbyteorder("<")).tobytes()
        stream = np.unpackbits(bits.astype(np.uint8)[:, None], axis=1, bitorder="little")[:, :self.bits]
        return np.packbits(stream.ravel(), bitorder="little").tobytes()

    # ---- integer range --------------------------------------------------------------
    @property
    def int_min(self) -> int:
        if self.kind == "bool":
            return 0
        return -(1 << (self.bits - 1)) if self.kind == "int" else 0

    @property
    def int_max(self) -> int:
        if self.kind == "bool":
            return 1
        return (1 << (self.bits - 1)) - 1 if self.kind == "int" else (1 << self.bits) - 1

    # ---- float range (exact, from the layout) ----------------------------------------
    @cached_property
    def max_exponent_field(self) -> int:
        """Largest exponent field that encodes finite values."""
        top = (1 << self.exponent_bits) - 1
        return top - 1 if self.nan_style == IEEE else top

    @cached_property
    def finite_max(self) -> float:
        """Largest finite value (FLT_MAX of the Cast tables; E8M0_MAX)."""
        m = self.mantissa_bits
        top_mantissa = (1 << m) - 1
        if self.nan_style == FN:  # S.1111.111 is NaN, so the top exponent stops one below
            top_mantissa -= 1
        if self.nan_style == E8M0:  # 0xFF is NaN
            return float(2.0 ** ((1 << self.exponent_bits) - 2 - self.bias))
        return float((1 + top_mantissa / (1 << m)) * 2.0 ** (self.max_exponent_field - self.bias))

    @cached_property
    def min_exponent(self) -> int:
        """Unbiased exponent of the smallest normal value."""
        if self.nan_style == E8M0:
            return -self.bias  # exponent field 0 is 2^-127, a normal value
        return 1 - self.bias

    @cached_property
    def smallest_normal(self) -> float:
        return float(2.0**self.min_exponent)

    @cached_property
    def smallest_subnormal(self) -> float:
        if self.nan_style == E8M0:
            return self.smallest_normal  # no subnormals
        return float(2.0 ** (self.min_exponent - self.mantissa_bits))

    # ---- encodings ------------------------------------------------------------------
    @cached_property
    def bits_dtype(self) -> np.dtype:
        """Unsigned integer dtype holding one element's bit pattern."""
        return np.dtype({1: np.uint8, 2: np.uint8, 4: np.uint8, 6: np.uint8, 8: np.uint8, 16: np.uint16,
                         32: np.uint32, 64: np.uint64}[self.bits])

    @property
    def sign_mask(self) -> int:
        return 1 << (self.bits - 1)

    @cached_property
    def nan_bits(self) -> int | None:
        """Canonical (positive, quiet) NaN encoding, or None."""
        e, m = self.exponent_bits, self.mantissa_bits
        if self.nan_style == IEEE:
            return (((1 << e) - 1) << m) | (1 << (m - 1))
        if self.nan_style == FN:
            return (1 << (self.bits - 1)) - 1
        if self.nan_style == FNUZ:
            return 1 << (self.bits - 1)
        if self.nan_style == E8M0:
            return 0xFF
        return None

    @cached_property
    def negative_nan_bits(self) -> int | None:
        """NaN with the sign bit set, where the format has a sign distinct from NaN-ness."""
        if self.nan_style in (IEEE, FN):
            return self.nan_bits | self.sign_mask
        return None

    @cached_property
    def nan_encodings(self) -> tuple[tuple[str, int], ...]:
        """Every kind of NaN encoding of the type, as (label, bits): for IEEE formats the quiet and the signalling
        NaN (quiet bit clear) with the smallest and the largest payload, and a quiet NaN whose payload is only its
        lowest mantissa bit, each with both signs; for the float 8 formats every NaN encoding there is (they are
        few). A conversion that handles the canonical NaN right can still turn these into Inf or a number (a
        float32 -> bfloat16 add-and-shift turns a NaN with a low-bit payload into Inf); () without NaN."""
        if self.nan_style == IEEE:
            e, m = self.exponent_bits, self.mantissa_bits
            top, quiet = ((1 << e) - 1) << m, 1 << (m - 1)
            kinds = [("qnan", top | quiet), ("qnan_low_payload", top | quiet | 1),
                     ("qnan_max_payload", top | ((1 << m) - 1)), ("snan_min_payload", top | 1),
                     ("snan_max_payload", top | (quiet - 1))]
            if m > 2:  # a signalling NaN whose payload sits in the low half only
                kinds.append(("snan_low_half", top | ((1 << (m // 2)) - 1)))
            out: dict[int, str] = {}  # bits -> the first label (narrow formats have few distinct NaNs)
            for label, bits in kinds:
                out.setdefault(bits, label)
                out.setdefault(bits | self.sign_mask, "neg_" + label)
            return tuple((label, bits) for bits, label in out.items())
        if self.nan_style in (FN, FNUZ, E8M0):
            every = self.all_values()
            return tuple((f"nan_0x{int(b):02x}", int(b)) for b in self.to_bits(every[self.isnan(every)]))
        return ()

    @cached_property
    def inf_bits(self) -> int | None:
        if self.nan_style != IEEE:
            return None
        return ((1 << self.exponent_bits) - 1) << self.mantissa_bits

    def to_bits(self, a: np.ndarray) -> np.ndarray:
        """The bit pattern of every element (sub-byte types live in the low bits)."""
        a = np.asarray(a, dtype=self.np_dtype)
        b = a.view(self.bits_dtype)
        if self.bits < 8:
            b = b & np.uint8((1 << self.bits) - 1)
        return b

    def from_bits(self, b: np.ndarray) -> np.ndarray:
        """Elements from bit patterns."""
        b = np.asarray(b).astype(self.bits_dtype)
        if self.bits < 8 and self.kind == "int":
            # convert from the values: ml_dtypes decides how a signed sub-byte value is stored
            v = (b & np.uint8((1 << self.bits) - 1)).astype(np.int8)
            return np.where(b & self.sign_mask, v - (1 << self.bits), v).astype(np.int8).astype(self.np_dtype)
        return b.view(self.np_dtype)

    def all_values(self) -> np.ndarray:
        """Every bit pattern of the type, in order (only for types of <= 16 bits)."""
        if self.bits > 16 or not self.is_numeric:
            raise ValueError(f"{self.name}: too wide to enumerate")
        return self.from_bits(np.arange(1 << self.bits, dtype=np.uint32))

    def same_values(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Element-wise: the same value of this type: identical bits (so -0 is not +0), or both NaN whatever
        their payloads and signs."""
        return (self.to_bits(a) == self.to_bits(b)) | (self.isnan(a) & self.isnan(b))

    def isnan(self, a: np.ndarray) -> np.ndarray:
        if not self.has_nan:
            return np.zeros(np.shape(a), dtype=bool)
        with np.errstate(invalid="ignore"):
            return np.isnan(np.asarray(a, dtype=self.np_dtype).astype(np.float64))


# TensorProto.DataType values, fixed by onnx.proto for good (an enum value is never renumbered). Written here
# rather than read from the installed onnx, which knows only the types of its release (onnx 1.19 has no INT2 /
# UINT2 / FLOAT6*): the registry, the case reader and the references work without them; what needs onnx's own
# support of a type asks `onnx_knows` (tests check every value against onnx where it has the name).
ONNX_ENUM = {
    "UNDEFINED": 0, "FLOAT": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6, "INT64": 7,
    "STRING": 8, "BOOL": 9, "FLOAT16": 10, "DOUBLE": 11, "UINT32": 12, "UINT64": 13, "COMPLEX64": 14,
    "COMPLEX128": 15, "BFLOAT16": 16, "FLOAT8E4M3FN": 17, "FLOAT8E4M3FNUZ": 18, "FLOAT8E5M2": 19,
    "FLOAT8E5M2FNUZ": 20, "UINT4": 21, "INT4": 22, "FLOAT4E2M1": 23, "FLOAT8E8M0": 24, "UINT2": 25, "INT2": 26,
    "FLOAT6E2M3": 27, "FLOAT6E3M2": 28,
}


def _ml_dtype(name: str):
    """An ml_dtypes type, or None where the installed ml_dtypes predates it."""
    return getattr(ml_dtypes, name, None)


def _d(name, onnx_name, np_dtype, bits, kind, since, **layout) -> DType | None:
    if np_dtype is None:  # ml_dtypes lacks it: the type is left out of the registry (unknown_types() names it)
        _UNKNOWN.append((name, ONNX_ENUM[onnx_name], f"this ml_dtypes ({ml_dtypes.__version__}) has no dtype for it"))
        return None
    return DType(name, ONNX_ENUM[onnx_name], np.dtype(np_dtype), bits, kind, since, **layout)


_UNKNOWN: list[tuple[str, int, str]] = []  # (name, enum, why) of the types this environment cannot hold


# The table. cast_since: first opset whose Cast schema lists the type (tests check it against
# onnx.defs). Float layouts: ONNX technical notes float8.md, float4.md, and IEEE 754.
_TABLE: tuple[DType, ...] = tuple(d for d in (
    _d("bool", "BOOL", np.bool_, 8, "bool", 6),
    _d("int2", "INT2", _ml_dtype("int2"), 2, "int", 25),
    _d("uint2", "UINT2", _ml_dtype("uint2"), 2, "uint", 25),
    _d("int4", "INT4", _ml_dtype("int4"), 4, "int", 21),
    _d("uint4", "UINT4", _ml_dtype("uint4"), 4, "uint", 21),
    _d("int8", "INT8", np.int8, 8, "int", 6),
    _d("uint8", "UINT8", np.uint8, 8, "uint", 6),
    _d("int16", "INT16", np.int16, 16, "int", 6),
    _d("uint16", "UINT16", np.uint16, 16, "uint", 6),
    _d("int32", "INT32", np.int32, 32, "int", 6),
    _d("uint32", "UINT32", np.uint32, 32, "uint", 6),
    _d("int64", "INT64", np.int64, 64, "int", 6),
    _d("uint64", "UINT64", np.uint64, 64, "uint", 6),
    _d("float16", "FLOAT16", np.float16, 16, "float", 6, exponent_bits=5, mantissa_bits=10, bias=15, nan_style=IEEE),
    _d("bfloat16", "BFLOAT16", _ml_dtype("bfloat16"), 16, "float", 13, exponent_bits=8, mantissa_bits=7, bias=127, nan_style=IEEE),
    _d("float", "FLOAT", np.float32, 32, "float", 6, exponent_bits=8, mantissa_bits=23, bias=127, nan_style=IEEE),
    _d("double", "DOUBLE", np.float64, 64, "float", 6, exponent_bits=11, mantissa_bits=52, bias=1023, nan_style=IEEE),
    _d("float8e4m3fn", "FLOAT8E4M3FN", _ml_dtype("float8_e4m3fn"), 8, "float", 19, exponent_bits=4, mantissa_bits=3, bias=7, nan_style=FN),
    _d("float8e4m3fnuz", "FLOAT8E4M3FNUZ", _ml_dtype("float8_e4m3fnuz"), 8, "float", 19, exponent_bits=4, mantissa_bits=3, bias=8, nan_style=FNUZ),
    _d("float8e5m2", "FLOAT8E5M2", _ml_dtype("float8_e5m2"), 8, "float", 19, exponent_bits=5, mantissa_bits=2, bias=15, nan_style=IEEE),
    _d("float8e5m2fnuz", "FLOAT8E5M2FNUZ", _ml_dtype("float8_e5m2fnuz"), 8, "float", 19, exponent_bits=5, mantissa_bits=2, bias=16, nan_style=FNUZ),
    _d("float8e8m0", "FLOAT8E8M0", _ml_dtype("float8_e8m0fnu"), 8, "float", 24, exponent_bits=8, mantissa_bits=0, bias=127, nan_style=E8M0, signed_float=False),
    _d("float4e2m1", "FLOAT4E2M1", _ml_dtype("float4_e2m1fn"), 4, "float", 23, exponent_bits=2, mantissa_bits=1, bias=1, nan_style=NONE),
    _d("float6e2m3", "FLOAT6E2M3", _ml_dtype("float6_e2m3fn"), 6, "float", 28, exponent_bits=2, mantissa_bits=3, bias=1, nan_style=NONE),
    _d("float6e3m2", "FLOAT6E3M2", _ml_dtype("float6_e3m2fn"), 6, "float", 28, exponent_bits=3, mantissa_bits=2, bias=3, nan_style=NONE),
    _d("string", "STRING", object, 0, "string", 9),
) if d is not None)

# The enum values the installed onnx names (a name it has must carry the value onnx.proto gives it).
_ONNX_KNOWN = frozenset(v for k, v in ONNX_ENUM.items() if getattr(TensorProto, k, None) == v)
ONNX_VERSION = getattr(onnx, "__version__", "unknown")

FLOAT8_SATURATE_TYPES = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")

_BY_NAME = {d.name: d for d in _TABLE}
_BY_ONNX = {d.onnx: d for d in _TABLE}
# Common aliases people type on the command line or that numpy uses.
_ALIASES = {"float32": "float", "float64": "double"}


def all_dtypes() -> tuple[DType, ...]:
    return _TABLE


def get(name_or_enum: str | int | DType) -> DType:
    """Look a type up by ONNX name ("float8e4m3fn"), alias ("float32") or TensorProto enum."""
    if isinstance(name_or_enum, DType):
        return name_or_enum
    if isinstance(name_or_enum, (int, np.integer)):
        try:
            return _BY_ONNX[int(name_or_enum)]
        except KeyError:
            raise KeyError(f"unknown ONNX element type {name_or_enum}") from None
    key = _ALIASES.get(name_or_enum.lower(), name_or_enum.lower())
    try:
        return _BY_NAME[key]
    except KeyError:
        raise KeyError(f"unknown element type {name_or_enum!r}") from None


def find(name_or_enum: str | int) -> DType | None:
    """get(), or None for a name or enum this table does not know (a file's field, checked by its reader)."""
    try:
        return get(name_or_enum)
    except KeyError:
        return None


def unknown_types() -> tuple[tuple[str, int, str], ...]:
    """(name, enum, why) of each ONNX type this environment leaves out of the registry (ml_dtypes too old)."""
    return tuple(_UNKNOWN)


def onnx_problem(elem_types) -> str | None:
    """One line saying why the installed onnx / ml_dtypes cannot handle these element types (enums or names),
    or None: what a runner says instead of running a case of a type its environment predates."""
    for t in elem_types:
        try:
            d = get(t)
        except KeyError:
            for name, enum, why in _UNKNOWN:
                if t in (name, enum):
                    return f"element type {name} ({enum}): {why}"
            continue  # not a type at all: the case reader's business
        if not d.onnx_knows:
            return f"this onnx ({ONNX_VERSION}) does not know element type {d.name} ({d.onnx})"
    return None


def cast_types(opset: int) -> tuple[DType, ...]:
    """Types Cast accepts at this opset, in table order."""
    return tuple(d for d in _TABLE if d.cast_since is not None and d.cast_since <= opset)


def short(d: DType) -> str:
    """Name used in case names: float32 / float64 rather than ONNX's float / double."""
    return {"float": "float32", "double": "float64"}.get(d.name, d.name)


def from_numpy(dt: np.dtype) -> DType:
    dt = np.dtype(dt)
    if dt.kind in ("U", "S", "O"):
        return _BY_NAME["string"]
    for d in _TABLE:
        if d.np_dtype == dt:
            return d
    raise KeyError(f"no element type for numpy dtype {dt}")
