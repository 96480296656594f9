"""Verdicts on values: expected vs actual outputs of one data set (docs/design.md, "Expected values and
comparison").

`compare_outputs` first checks the structure (number of outputs, element type, shape), then the values
of each output under its compare spec.

Compare spec: the "compare" object of case.json
    {"mode": M, <params of M>, "reason": str,
     "tolerant": {overrides applied in tier "tolerant"},
     "outputs": {"<output name>": {per-output spec, same format}}}
Resolution for one output: start from the top-level keys, update them with the per-output spec, then,
if tier == "tolerant", update the result with its "tolerant" object (the per-output one if it has one,
else the top-level one). `spec=None` means a plain ONNX node test without case.json (mode "default").

Modes (NaN below means NaN of the output's own type; types without NaN never have any):
  exact    numeric: identical bits in the declared type, except that a NaN matches any NaN whatever its
           payload; the sign of zero counts; the sign of NaN counts only with "nan_sign": true in tier
           "strict". Integers / bool: equal. Strings: equal text.
  ulp      param "ulp": n. Floats: NaN matches NaN, an infinity matches only itself, otherwise the distance
           on the ordered line of encodings (-0 and +0 are one point) is <= n. Integers: |a - e| <= n.
  abs      param "abs": k. Integers: |a - e| <= k in exact integer arithmetic (no wraparound).
           Floats: |a - e| <= k in float64, NaN matches NaN, an infinity only itself.
  allclose params "rtol", "atol". Floats: |a - e| <= atol + rtol * |e| in float64, NaN matches NaN, an
           infinity only itself (for results of float32 sums whose order the spec leaves to the backend).
           Integers / bool / strings: exact.
  parsed   number -> string outputs; param "source_type" (element type of the number that was formatted).
           Both texts are read back with the Cast reference (generator.reference.cast). Identical text
           matches. Float sources: strict tier: both parse to the same value of source_type (bits; any
           NaN matches NaN); with param "rel" (what the generator's "tolerant" override sets):
           |a - e| <= rel * |e|. Integer sources: the same integer value. Unparseable text never matches.
  dot      float outputs of dot products: generator/dot_bound.py's bound (TOSA's dot-product compliance mode),
           per element from the data set's inputs (params "operands", "node", "slots", "accumulation",
           "abs_bound", optional "a_int8_block"): |a - e| <= abs_bound * max(bnd * 2**-(1 + frac), normal_min)
           + qerr + ulp(e) / 2, bnd = sum |a_k w_k| in float64; NaN e needs NaN; a zero bound needs e; a
           bound that overflows the output type allows anything. Needs the inputs.
  range    DequantizeLinear -> Conv / MatMul -> QuantizeLinear: what any float32 order of sums gives (dq_op_q.py)
  none     values are not judged (probe cases); the structure still is.
  default  (spec None) what onnx's own backend-test runner accepts: non-float outputs exact, float
           outputs |a - e| <= atol + rtol * |e| (rtol 1e-3, atol 1e-7; bfloat16: rtol 2**-6), NaN == NaN.

String outputs: an object array of str (bytes decoded as UTF-8) or a numpy unicode / bytes array; an element of
another type (a float for a string: onnx 1.13's reference evaluator, onnx#4814) is a wrong output named by type.

The failure message names each failing output, its first mismatching elements (index, the input element of an
input of its shape, expected, actual, bits in hex) and "N of M elements differ": what a vendor reads first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from generator import dot_bound, dtypes
from generator.dtypes import DType
from generator.case_fields import COMPARE_MODES, merge_compare
import generator.reference.cast as cast_ref
from generator.reference import dq_op_q

TIERS = ("strict", "tolerant")
MODES = tuple(COMPARE_MODES)  # the case format's table: read_case checks a spec by it
DEFAULT_RTOL, DEFAULT_ATOL = 1e-3, 1e-7


@dataclass
class Mismatch:
    output: str
    index: tuple
    input: object  # the input element at `index`, or None when no input has the output's shape
    expected: object
    actual: object  # for parsed string outputs: the text the backend wrote
    expected_bits: str  # hex bit pattern ("" for text that has none)
    actual_bits: str


@dataclass
class Outcome:
    ok: bool
    n_mismatch: int
    n_total: int
    mismatches: list[Mismatch] = field(default_factory=list)  # at most max_shown per output
    message: str = ""  # "" if ok, else the human failure text


# ---------------------------------------------------------------------------------------
# spec resolution
# ---------------------------------------------------------------------------------------
def resolve_spec(spec: dict | None, output: str, tier: str) -> dict:
    """The effective compare parameters of one output (see the module docstring)."""
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}: use one of {', '.join(TIERS)}")
    if spec is None:
        return {"mode": "default"}
    resolved = merge_compare(spec, output, tier == "tolerant")
    mode = resolved.get("mode")
    if mode not in MODES:
        raise ValueError(f"compare spec of output {output!r}: unknown mode {mode!r} (known: {', '.join(MODES)})")
    for key in COMPARE_MODES[mode]:
        if key not in resolved:
            raise ValueError(f"compare spec of output {output!r}: mode {mode!r} needs {key!r}")
    return resolved


def tier_independent(spec: dict | None, outputs: list[str]) -> bool:
    """True when the outputs are judged the same way in every tier: each resolves to one spec in all
    tiers, and none compares the sign of NaN (the one rule that depends on the tier by name). Then one
    comparison gives the verdict of every tier. Raises ValueError for a bad spec, as resolve_spec does."""
    for name in outputs:
        resolved = [resolve_spec(spec, name, t) for t in TIERS]
        if any(r != resolved[0] for r in resolved[1:]) or resolved[0].get("nan_sign"):
            return False
    return True


def describe(resolved: dict, tier: str) -> str:
    """Short text for a resolved spec, e.g. "ulp <= 2, strict tier"."""
    mode = resolved["mode"]
    if mode == "ulp":
        what = f"ulp <= {resolved['ulp']}"
    elif mode == "abs":
        what = f"abs <= {resolved['abs']}"
    elif mode == "allclose":
        what = f"|a - e| <= {resolved['atol']:g} + {resolved['rtol']:g} * |e|"
    elif mode == "parsed":
        what = f"parsed as {resolved['source_type']}" + (f", rel <= {resolved['rel']:g}" if "rel" in resolved else "")
    elif mode == "dot":
        block = f", A in int8 blocks of {resolved['a_int8_block']}" if "a_int8_block" in resolved else ""
        what = f"dot-product bound: {resolved['abs_bound']} x {resolved['accumulation']} rounding of sum |a*w|{block}"
    elif mode in ("range", "none"):
        what = "what any float32 order of the sums gives" if mode == "range" else "values not judged"
    elif mode == "default":
        what = f"onnx default: rtol {DEFAULT_RTOL:g}, atol {DEFAULT_ATOL:g} for floats, else exact"
    else:
        what = "exact" + (", NaN sign compared" if resolved.get("nan_sign") and tier == "strict" else "")
    return f"{what}, {tier} tier"


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def _text(s):
    """str / bytes as str (bytes decoded as UTF-8); anything else unchanged: a number is no text."""
    if isinstance(s, bytes):
        return s.decode("utf-8", "backslashreplace")
    return str(s) if isinstance(s, str) else s


def type_name(v) -> str:
    """The Python type of an element, as a message shows it: "float", "numpy.float64"."""
    t = type(v)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def not_text(a: np.ndarray) -> tuple[int, tuple, object] | None:
    """Elements of an object array that are neither str nor bytes: (how many, index of the first, the first);
    None where every element is text (or the array is not an object array)."""
    if a.dtype.kind != "O":
        return None
    bad = [(idx, v) for idx, v in np.ndenumerate(a) if not isinstance(v, (str, bytes))]
    return (len(bad), *bad[0]) if bad else None


def text_array(a) -> np.ndarray:
    """An object array of str from str / bytes / numpy unicode arrays (the form string outputs take). An element
    that is not text is left as it is (not_text finds it; compare reports it), never converted."""
    a = np.asarray(a)
    out = np.empty(a.shape, dtype=object)
    for idx, s in np.ndenumerate(a):
        out[idx] = _text(s)
    return out


def _hex(bits: int, t: DType) -> str:
    return f"0x{int(bits):0{max(1, (t.bits + 3) // 4)}x}"


def _is_text(a: np.ndarray) -> bool:
    return a.dtype.kind in "OUS"


def _float64(a: np.ndarray) -> np.ndarray:
    return np.asarray(a).astype(np.float64)


def _bits(a: np.ndarray, t: DType) -> np.ndarray:
    return t.to_bits(a).astype(np.uint64)


def _ints(a: np.ndarray, t: DType) -> np.ndarray:
    """Integer values without wraparound: int64, or Python ints for uint64."""
    if t.name == "uint64":
        return a.astype(object)
    return np.asarray(a).astype(np.int64)


def _ordered(bits: np.ndarray, t: DType) -> np.ndarray:
    """Encodings on a monotonic integer line: sign-magnitude -> signed integer (-0 and +0 meet at 0)."""
    if not t.signed_float:
        return bits.astype(np.int64)
    sign = np.uint64(t.sign_mask)
    mag = (bits & ~sign).astype(np.int64)  # < 2**63 for every type
    return np.where((bits & sign) != 0, -mag, mag)


def _ulp_distance(e: np.ndarray, a: np.ndarray, t: DType) -> np.ndarray:
    """|ordered(a) - ordered(e)| as uint64, without overflow for float64."""
    ke, ka = _ordered(_bits(e, t), t), _ordered(_bits(a, t), t)
    same_side = (ke >= 0) == (ka >= 0)
    with np.errstate(over="ignore"):
        near = np.abs(np.where(same_side, ke - ka, 0)).astype(np.uint64)
        far = np.abs(ke).astype(np.uint64) + np.abs(ka).astype(np.uint64)
    return np.where(same_side, near, far)


def _float_special(e: np.ndarray, a: np.ndarray, t: DType, close: np.ndarray) -> np.ndarray:
    """Combine a closeness test of finite values with the NaN / infinity rules of ulp / abs / default."""
    en, an = t.isnan(e), t.isnan(a)
    ef, af = _float64(e), _float64(a)
    inf = np.isinf(ef) | np.isinf(af)
    same_inf = inf & (ef == af)
    return (en & an) | (~en & ~an & np.where(inf, same_inf, close))


# ---------------------------------------------------------------------------------------
# per-mode element tests: each returns (ok mask, expected bits, actual bits) over the flat arrays
# ---------------------------------------------------------------------------------------
def _match_exact(e, a, t: DType, resolved: dict, tier: str) -> np.ndarray:
    if t.kind == "string":
        return np.array([x == y for x, y in zip(e, a)], dtype=bool)
    eb, ab = _bits(e, t), _bits(a, t)
    ok = eb == ab
    if t.has_nan:
        en, an = t.isnan(e), t.isnan(a)
        both = en & an
        if resolved.get("nan_sign") and tier == "strict" and t.negative_nan_bits is not None:
            sign = np.uint64(t.sign_mask)
            both &= (eb & sign) == (ab & sign)
        ok |= both
    return ok


def _match_int_abs(e, a, t: DType, k) -> np.ndarray:
    diff = np.abs(_ints(a, t) - _ints(e, t))
    return np.asarray(diff <= int(k), dtype=bool)


def _match_ulp(e, a, t: DType, n) -> np.ndarray:
    if not t.is_float:
        return _match_int_abs(e, a, t, n) if t.is_integer else _match_exact(e, a, t, {}, "strict")
    close = _ulp_distance(e, a, t) <= np.uint64(int(n))
    return _float_special(e, a, t, close)


def _match_abs(e, a, t: DType, k) -> np.ndarray:
    if t.is_integer:
        return _match_int_abs(e, a, t, k)
    if not t.is_float:
        return _match_exact(e, a, t, {}, "strict")
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(_float64(a) - _float64(e)) <= float(k)
    return _float_special(e, a, t, close)


def _match_allclose(e, a, t: DType, rtol, atol) -> np.ndarray:
    if not t.is_float:
        return _match_exact(e, a, t, {}, "strict")
    ef, af = _float64(e), _float64(a)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(af - ef) <= float(atol) + float(rtol) * np.abs(ef)
    return _float_special(e, a, t, close)


def _match_default(e, a, t: DType) -> np.ndarray:
    if not t.is_float:
        return _match_exact(e, a, t, {}, "strict")
    rtol = max(DEFAULT_RTOL, 2.0**-6) if t.name == "bfloat16" else DEFAULT_RTOL
    ef, af = _float64(e), _float64(a)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(af - ef) <= DEFAULT_ATOL + rtol * np.abs(ef)
    return _float_special(e, a, t, close)


def _read_back(texts: list[str], src: DType) -> tuple[np.ndarray, np.ndarray]:
    """Texts -> (values of src, parseable mask), each text's exact decimal value rounded to nearest.

    Rounding uses the Cast reference with round_mode "nearest" (a printed power of two must read back
    as itself for float8e8m0) and saturate=0 (a value beyond the type's range must not read back as
    FLT_MAX), except for float8e8m0, whose range ends read back as E8M0_MIN / E8M0_MAX, their nearest
    values. Fast path: parse_number, then float64 (correctly rounded), then Cast from double; the slow
    exact string Cast only where a float64 neighbour would round differently (a tie or range boundary)."""
    kw = {"saturate": src.nan_style == dtypes.E8M0, "round_mode": "nearest"}
    parsed = [cast_ref.parse_number(s) for s in texts]
    ok = np.array([p is not None for p in parsed], dtype=bool)
    f = np.zeros(len(texts), dtype=np.float64)
    slow = np.zeros(len(texts), dtype=bool)
    for i, p in enumerate(parsed):
        if p is None:
            continue
        try:
            f[i] = float(p)  # Fraction -> float is correctly rounded
        except OverflowError:
            slow[i] = True
    with np.errstate(all="ignore"):
        y = cast_ref.cast_outcome(f, "double", src, **kw).outputs[0]
        for direction in (-np.inf, np.inf):
            near = cast_ref.cast_outcome(np.nextafter(f, direction), "double", src, **kw).outputs[0]
            slow |= ~src.same_values(near, y)
    slow &= ok & np.array([p is not None and not isinstance(p, float) for p in parsed], dtype=bool)
    if slow.any():
        idx = np.flatnonzero(slow)
        y[idx] = cast_ref.cast_outcome(np.array([texts[i] for i in idx], dtype=object), "string", src, **kw).outputs[0]
    return y, ok


def _match_parsed(e, a, resolved: dict) -> tuple[np.ndarray, list[str], list[str]]:
    """Number -> string outputs read back as values. Returns (ok, expected bits, actual bits)."""
    src = dtypes.get(resolved["source_type"])
    n = len(e)
    ok = np.array([x == y for x, y in zip(e, a)], dtype=bool)  # same text, same value
    ebits, abits = [""] * n, [""] * n
    todo = np.flatnonzero(~ok)
    if not len(todo):
        return ok, ebits, abits
    if not src.is_float:
        # integer (or bool) sources: the exact value, whatever the notation
        for i in todo:
            pe, pa = cast_ref.parse_number(e[i]), cast_ref.parse_number(a[i])
            ok[i] = pa is not None and pe is not None and pa == pe  # "-0" == 0; NaN / Inf never equal an integer
        return ok, ebits, abits
    ve, ok_e = _read_back([e[i] for i in todo], src)
    va, ok_a = _read_back([a[i] for i in todo], src)
    if "rel" in resolved:
        with np.errstate(invalid="ignore", over="ignore"):
            fe, fa = _float64(ve), _float64(va)
            close = np.abs(fa - fe) <= float(resolved["rel"]) * np.abs(fe)
        good = _float_special(ve, va, src, close)
    else:
        good = src.same_values(ve, va)
    ok[todo] = good & ok_a & ok_e
    be, ba = _bits(ve, src), _bits(va, src)
    for j, i in enumerate(todo):
        ebits[i] = _hex(be[j], src) if ok_e[j] else ""
        abits[i] = _hex(ba[j], src) if ok_a[j] else "not a number"
    return ok, ebits, abits


# ---------------------------------------------------------------------------------------
# the comparison
# ---------------------------------------------------------------------------------------
def _structure_problem(e: np.ndarray, a, t: DType) -> str:
    """Why `a` cannot be compared with `e` element by element ("" if it can)."""
    if not isinstance(a, np.ndarray):
        return f"returned a {type(a).__name__}, not a numpy array"
    if t.kind == "string":
        if not _is_text(a):
            return f"returned element type {a.dtype}, declared string (expected str elements)"
        wrong = not_text(a)
        if wrong:
            n, idx, v = wrong
            where = "[" + ", ".join(map(str, idx)) + "]"
            return (f"{n} of {a.size} elements are not text: element {where} is a Python {type_name(v)} ({v!r}), "
                    "declared string (expected str elements)")
    elif a.dtype != t.np_dtype:
        hint = ""
        if t.is_float and a.dtype == t.bits_dtype:
            hint = f" (bit patterns as {a.dtype} are not accepted: the output must be {t.np_dtype})"
        try:
            got = dtypes.from_numpy(a.dtype).name
        except KeyError:
            got = str(a.dtype)
        got += "" if got == str(a.dtype) else f" (numpy {a.dtype})"
        want = t.name + ("" if t.name == str(t.np_dtype) else f" (numpy {t.np_dtype})")
        return f"returned element type {got}, declared {want}{hint}"
    if a.shape != e.shape:
        return f"returned shape {a.shape}, expected {e.shape}"
    return ""


def _input_for(shape: tuple, inputs: list[np.ndarray] | None) -> np.ndarray | None:
    for x in inputs or []:
        if isinstance(x, np.ndarray) and x.shape == shape:
            return x
    return None


def _fmt_value(v, bits: str) -> str:
    text = repr(v) if isinstance(v, str) else str(v)
    return f"{text} ({bits})" if bits else text


def _fmt_input(x: np.ndarray, idx: tuple) -> str:
    v = x[idx]
    try:
        t = dtypes.from_numpy(x.dtype)
    except KeyError:
        return str(v)
    if not t.is_numeric:
        return repr(_text(v))
    return _fmt_value(v, _hex(t.to_bits(np.asarray(v))[()], t))


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]


def _compare_one(name: str, e: np.ndarray, a: np.ndarray, t: DType, resolved: dict, tier: str,
                 inputs: list[np.ndarray] | None, max_shown: int) -> tuple[int, list[Mismatch], str]:
    """(n_mismatch, first mismatches, message) for one output whose structure matches."""
    mode = resolved["mode"]
    if t.kind == "string":
        ef, af = text_array(e).ravel(), text_array(a).ravel()
    else:
        ef, af = e.ravel(), a.ravel()
    ebits = abits = None
    if mode == "parsed":
        if t.kind != "string":
            raise ValueError(f"compare spec of output {name!r}: mode 'parsed' needs a string output, not {t.name}")
        ok, ebits, abits = _match_parsed(ef, af, resolved)
    elif mode == "exact":
        ok = _match_exact(ef, af, t, resolved, tier)
    elif mode == "ulp":
        ok = _match_ulp(ef, af, t, resolved["ulp"])
    elif mode == "abs":
        ok = _match_abs(ef, af, t, resolved["abs"])
    elif mode == "allclose":
        ok = _match_allclose(ef, af, t, resolved["rtol"], resolved["atol"])
    elif mode == "default":
        ok = _match_default(ef, af, t)
    elif mode == "dot":
        if not t.is_float:
            raise ValueError(f"compare spec of output {name!r}: mode 'dot' needs a float output, not {t.name}")
        ok = dot_bound.check(resolved, inputs, ef, af, t)
    elif mode == "range":
        ok = dq_op_q.check(resolved, inputs, ef, af)
    else:  # "none": probe outputs are recorded, never judged
        ok = np.ones(ef.shape, dtype=bool)
    bad = np.nonzero(~ok)[0]
    if not len(bad):
        return 0, [], ""
    x = _input_for(e.shape, inputs)
    shown: list[Mismatch] = []
    rows = [["index", "input", "expected", "actual"]] if x is not None else [["index", "expected", "actual"]]
    for flat in bad[:max_shown]:
        idx = tuple(int(i) for i in np.unravel_index(flat, e.shape)) if e.ndim else ()
        if ebits is None and t.is_numeric:
            eb, ab = _hex(_bits(ef[flat:flat + 1], t)[0], t), _hex(_bits(af[flat:flat + 1], t)[0], t)
        elif ebits is None:
            eb = ab = ""
        else:
            eb, ab = ebits[flat], abits[flat]
        m = Mismatch(name, idx, None if x is None else x[idx], ef[flat], af[flat], eb, ab)
        shown.append(m)
        row = ["[" + ", ".join(map(str, idx)) + "]"]
        if x is not None:
            row.append(_fmt_input(x, idx))
        row += [_fmt_value(m.expected, eb), _fmt_value(m.actual, ab)]
        rows.append(row)
    n = len(bad)
    lines = [f"output {name!r} ({t.name}; {describe(resolved, tier)}): {n} of {ef.size} elements differ"]
    if resolved.get("reason"):
        lines.append(f"  compare: {resolved['reason']}")
    if mode == "dot":
        lines.append("  " + dot_bound.explain(resolved, inputs, ef, af, t, int(bad[0])))
    if mode == "range":
        lines.append("  " + dq_op_q.explain(resolved, inputs, int(bad[0])))
    lines += _table(rows)
    if n > len(shown):
        lines.append(f"  ... and {n - len(shown)} more")
    return n, shown, "\n".join(lines)


def compare_outputs(expected: list[np.ndarray], actual: list[np.ndarray], names: list[str], types: list[DType],
                    spec: dict | None, tier: str, inputs: list[np.ndarray] | None = None,
                    max_shown: int = 10) -> Outcome:
    """Judge one data set: structure first (count, element type, shape), then values per output.

    n_total counts the expected elements of all outputs; an output that is missing or has the wrong
    type or shape counts all its elements as mismatching. Raises ValueError for a bad spec or tier."""
    n_total = sum(int(np.asarray(e).size) for e in expected)
    if len(actual) != len(expected):
        return Outcome(False, n_total, n_total, [],
                       f"backend returned {len(actual)} outputs, expected {len(expected)} "
                       f"({', '.join(repr(n) for n in names)})")
    n_bad, shown, messages = 0, [], []
    for e, a, name, t in zip(expected, actual, names, types):
        t = dtypes.get(t)
        resolved = resolve_spec(spec, name, tier)
        e = np.asarray(e)
        problem = _structure_problem(e, a, t)
        if problem:
            n_bad += int(e.size)
            messages.append(f"output {name!r} ({t.name}): {problem}")
            continue
        n, mism, msg = _compare_one(name, e, a, t, resolved, tier, inputs, max_shown)
        n_bad += n
        shown += mism
        if msg:
            messages.append(msg)
    return Outcome(not messages, n_bad, n_total, shown, "\n".join(messages))
