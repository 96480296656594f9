"""Cast from and to strings: decimal literals read exactly, "INF" / "NaN" in any case; numbers written in plain
floating-point representation."""

from __future__ import annotations

import decimal
import re
from fractions import Fraction

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.reference.cast_reasons import (READING_IEEE_RNE, READING_NUMBER_TO_STRING, READING_STRING_BEYOND_DOUBLE,
                                               READING_STRING_NEGATIVE_INF, READING_STRING_TO_INT, UNDEF_BOOL_TO_STRING,
                                               UNDEF_NONFINITE_TO_STRING, UNDEF_STRING_FRACTION_TO_INT,
                                               UNDEF_STRING_INT_OOR, UNDEF_STRING_ROUNDING, UNDEF_STRING_SYNTAX,
                                               UNDEF_STRING_TO_BOOL)
from generator.reference.cast_rounding import representative, round_fraction
from generator.reference.cast_targets import _to_float, _wrap


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # ASCII digits only
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_SPECIAL = {"+INF": float("inf"), "INF": float("inf"), "-INF": float("-inf"), "NAN": float("nan")}


def parse_number(s: str) -> Fraction | float | None:
    """A string as Cast reads it [Cast]: plain or scientific decimal -> exact Fraction;
    "+INF", "INF", "-INF", "NaN" matched case-insensitively -> float inf / nan; anything
    else -> None (undefined)."""
    if not isinstance(s, str):
        s = s.decode("utf-8", "replace")
    special = _SPECIAL.get(s.upper()) if s.isascii() else None  # "\u0131nf".upper() == "INF"
    if special is not None:
        return special
    if not _NUMBER.fullmatch(s):
        return None
    d = decimal.Decimal(s)
    if d.is_zero():
        return Fraction(0) if not d.is_signed() else -0.0  # keep the sign of "-0"
    # clamp absurd exponents: every target decides 1e1100 like 1e99999999 (and tiny alike)
    adj = d.adjusted()
    if adj > 1100 or adj < -1100:
        d = d.scaleb(max(min(adj, 1100), -1100) - adj)
    return Fraction(d)


def _from_strings(x: np.ndarray, to: DType, saturate: bool, round_mode: str, opset: int):
    flat = [s if isinstance(s, str) else s.decode("utf-8", "replace") for s in np.asarray(x, dtype=object).ravel()]
    shape = np.shape(x)
    why = np.full(len(flat), "", dtype=object)
    reading = np.full(len(flat), "", dtype=object)
    if to.kind == "string":
        return np.array(flat, dtype=object).reshape(shape), why.reshape(shape), reading.reshape(shape)
    if to.kind == "bool":
        why[:] = UNDEF_STRING_TO_BOOL
        return np.zeros(shape, dtype=bool), why.reshape(shape), reading.reshape(shape)
    parsed = [parse_number(s) for s in flat]
    if to.kind in ("int", "uint"):
        vals = []
        for i, (s, p) in enumerate(zip(flat, parsed)):
            if p is None:
                why[i] = UNDEF_STRING_SYNTAX
            elif not _INTEGER.fullmatch(s):
                why[i] = UNDEF_STRING_FRACTION_TO_INT
            elif not to.int_min <= int(s) <= to.int_max:
                why[i] = UNDEF_STRING_INT_OOR
            vals.append(int(s) if why[i] == "" else 0)
        reading[why == ""] = READING_STRING_TO_INT
        return _wrap(np.array(vals, dtype=object).reshape(shape), to), why.reshape(shape), reading.reshape(shape)
    # float targets: the exact decimal value rounded once; flag where parsing to float32 or
    # float64 first (what strtof / strtod based code does) would round differently.
    reps, via64, via32 = [], [], []
    for i, p in enumerate(parsed):
        if p is None:
            why[i] = UNDEF_STRING_SYNTAX
            reps.append(0.0), via64.append(0.0), via32.append(0.0)
        elif isinstance(p, float):
            reps.append(p), via64.append(p), via32.append(p)
        else:
            reps.append(representative(p, to, round_mode))
            via64.append(_parsed_as(p, dtypes.get("double")))
            via32.append(_parsed_as(p, dtypes.get("float")))
    y, why2, reading = _to_float(np.array(reps), to, saturate, round_mode, opset)
    why = np.where(why == "", why2, why)
    # a double target has one rounding path: parsing through float32 is a cast to another type
    for alt in (via64,) if to.name == "double" else (via64, via32):
        ya, _, _ = _to_float(np.array(alt), to, saturate, round_mode, opset)
        differ = ~to.same_values(y, ya) & (why == "")
        why[differ] = UNDEF_STRING_ROUNDING
    if to.nan_style == dtypes.IEEE and not to.is_float8:  # the representatives are rounded already
        inexact = [isinstance(p, Fraction) and round_fraction(p, to) != p for p in parsed]
        finite = np.isfinite(np.asarray(y, dtype=np.float64))
        reading = np.where(np.array(inexact, dtype=bool) & finite, READING_IEEE_RNE, "").astype(object)
    for i, (s, p) in enumerate(zip(flat, parsed)):  # readings of the parsing itself
        if s.isascii() and s.upper() == "-INF" and s != "-INF":
            reading[i] = READING_STRING_NEGATIVE_INF
        elif isinstance(p, Fraction) and p != 0 and not FLOAT64_MIN_NORMAL <= abs(p) <= FLOAT64_MAX:
            reading[i] = "; ".join(r for r in (reading[i], READING_STRING_BEYOND_DOUBLE) if r)
    reading[why != ""] = ""
    return y.reshape(shape), why.reshape(shape), reading.reshape(shape)


FLOAT64_MAX = Fraction(float(np.finfo(np.float64).max))
FLOAT64_MIN_NORMAL = Fraction(float(np.finfo(np.float64).tiny))


def _parsed_as(q: Fraction, t: DType) -> float:
    """What strtof / strtod (t float32 / float64) make of the decimal value q: RNE, +-Inf past t's range."""
    r = round_fraction(q, t)
    if abs(r) > Fraction(t.finite_max):
        return float("inf") if q > 0 else float("-inf")
    out = float(r)
    return -0.0 if out == 0 and q < 0 else out


def format_number(value, src: DType) -> str:
    """Number -> string: plain floating-point representation [Cast], shortest that reads back
    to the same value of the source type; integers in decimal."""
    if src.kind in ("int", "uint"):
        return str(int(value))
    if src.name in ("float16", "float", "double"):
        return np.format_float_positional(np.asarray(value, dtype=src.np_dtype)[()], unique=True, trim="-")
    # narrow formats: the exact decimal value. It is long for the extremes of float8e8m0 and
    # bfloat16, but a shorter decimal would read back differently under some round_mode.
    d = decimal.Decimal(float(value))
    s = format(d, "f")
    return s.rstrip("0").rstrip(".") if "." in s else s


def _to_strings(x: np.ndarray, src: DType):
    flat = np.asarray(x).ravel()
    why = np.full(flat.shape, "", dtype=object)
    reading = np.full(flat.shape, READING_NUMBER_TO_STRING, dtype=object)
    out = []
    for i, val in enumerate(flat):
        if src.kind == "bool":
            why[i] = UNDEF_BOOL_TO_STRING
            out.append("1" if val else "0")
        elif src.is_float and not np.isfinite(float(val)):
            why[i] = UNDEF_NONFINITE_TO_STRING
            out.append(str(float(val)))
        else:
            out.append(format_number(val, src))
    reading[why != ""] = ""
    return np.array(out, dtype=object).reshape(np.shape(x)), why.reshape(np.shape(x)), reading.reshape(np.shape(x))
