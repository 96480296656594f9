"""What a backend returned or raised, as a record keeps it: an exception as one `Type: text`, and a probe's
outputs (declared type, returned dtype, shape, values, bit patterns) for the report to compare across backends."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.serialize import LoadedCase
from runners.compare import not_text, type_name
from runners.results import float_value, jsonable

MAX_PROBE_ELEMENTS = 1 << 16  # elements of one probe output recorded (the rest is counted, not kept)


def describe_exception(exc: BaseException) -> str:
    """`Type: text`, one paragraph, for messages and records."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__



def _probe_outputs(case: LoadedCase, outputs) -> list[dict]:
    """What the backend returned, per output: declared type, returned dtype, shape, values, bits."""
    try:
        _, outs = case.io_types
    except KeyError:
        outs = []
    recorded = []
    for j, arr in enumerate(outputs):
        name, dt = outs[j] if j < len(outs) else (f"output_{j}", None)
        recorded.append(_probe_output(name, dt, arr))
    return recorded


def _probe_output(name: str, dt: dtypes.DType | None, arr) -> dict:
    try:
        arr = np.asarray(arr)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - the backend returned something numpy cannot read
        return {"name": name, "type": dt.name if dt else None, "dtype": None, "shape": None, "truncated": False,
                "values": None, "bits": None, "note": f"a {type(arr).__name__}, not an array: {describe_exception(exc)}"}
    flat = arr.reshape(-1)
    kept = flat[:MAX_PROBE_ELEMENTS]
    rec = {"name": name, "type": dt.name if dt else None, "dtype": str(arr.dtype), "shape": list(arr.shape),
           "truncated": bool(flat.size > len(kept))}
    if dt is not None and dt.kind == "string" or arr.dtype.kind in "OUS":
        rec["values"] = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in kept.tolist()]
        rec["bits"] = None
        wrong = not_text(kept) if dt is not None and dt.kind == "string" else None
        if wrong:  # recorded as text, but said: a float where a string is declared is no string (onnx#4814)
            n, idx, v = wrong
            rec["note"] = (f"{n} of {kept.size} elements are not text: element [{idx[0]}] is a Python "
                           f"{type_name(v)} ({v!r})")
        return rec
    try:
        typed = np.asarray(kept, dtype=dt.np_dtype) if dt is not None else kept
        rec["values"] = _values(typed, dt)
        rec["bits"] = _hex_bits(typed, dt)
    except Exception as exc:  # noqa: BLE001 - a backend returned something not of the declared type
        rec["values"] = jsonable(kept)
        rec["bits"] = None
        rec["note"] = f"not convertible to {dt.name if dt else '?'}: {describe_exception(exc)}"
    return rec


def _values(a: np.ndarray, dt: dtypes.DType | None) -> list:
    if dt is not None and dt.is_float:
        return [float_value(v) for v in a.astype(np.float64).tolist()]
    if dt is not None and dt.kind in ("int", "uint"):
        return [int(v) for v in a.astype(np.int64 if dt.kind == "int" else np.uint64).tolist()]
    return jsonable(a)


def _hex_bits(a: np.ndarray, dt: dtypes.DType | None) -> list[str] | None:
    if dt is None or dt.kind == "string" or dt.kind == "bool":
        return None
    width = max(1, (dt.bits + 3) // 4)
    return [f"0x{int(b):0{width}x}" for b in dt.to_bits(a).tolist()]


def returned(outputs) -> tuple[list | None, str]:
    """What a backend's run returned, as (the list of its outputs, "N output(s)"), or (None, what it returned
    instead: "None", "a ndarray (not a list of outputs)", ...) when it is not a list or tuple of outputs
    (nor another iterable of them)."""
    if isinstance(outputs, (list, tuple)):
        outputs = list(outputs)
        return outputs, f"{len(outputs)} output(s)"
    if outputs is None:
        return None, "None"
    what = type(outputs).__name__
    if isinstance(outputs, (str, bytes, dict, np.ndarray, np.generic)) or not hasattr(outputs, "__iter__"):
        article = "an" if what[:1].lower() in "aeiou" else "a"
        return None, f"{article} {what} (not a list of outputs)"
    try:
        outputs = list(outputs)
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - the backend's object, not our code
        return None, f"a {what} whose items cannot be read ({describe_exception(exc)})"
    return outputs, f"{len(outputs)} output(s)"
