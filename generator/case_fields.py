"""case.json's fields: what each field the runners read must be (CASE_FIELDS), and a compare spec resolved per
output and tier. A field that fails its check makes the case damaged (read_case in generator/serialize.py
raises CaseError: the verdict `invalid-case`), never a crash in runner code."""

from __future__ import annotations

import json
import math
import re

from generator import dtypes
from generator.case import KINDS

COMPARE_MODES = {  # compare mode (runners/compare.py) -> the parameters it needs
    "exact": (), "ulp": ("ulp",), "abs": ("abs",), "allclose": ("rtol", "atol"), "parsed": ("source_type",),
    "default": (), "none": (), "dot": ("operands", "node", "slots", "accumulation", "abs_bound"),
    "range": ("operands", "chain", "tensors"),
}
PHASES = ("prepare", "run")  # where a negative case's model must be refused
_FAMILY = re.compile(r"[a-z][a-z0-9_]*")  # a module name: the diagnosis imports a family's fault models by it
_FORMAT = re.compile(r"[a-z][a-z0-9]*")  # a twin's format names its data files (<format>_input_<j>.pb)
_SHA256 = re.compile(r"[0-9a-f]{64}")


class _Bad(Exception):
    """A field of case.json that fails its check: where (a dotted path) and what is wrong."""

    def __init__(self, where: str, problem: str):
        super().__init__(f'field "{where}": {problem}')


def shown(value) -> str:
    """A JSON value as an error message quotes it (at most 60 characters)."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _need(ok: bool, where: str, expected: str, value) -> None:
    if not ok:
        raise _Bad(where, f"expected {expected}, got {shown(value)}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_amount(v) -> bool:
    """A finite number >= 0 (a tolerance)."""
    return (_is_int(v) or isinstance(v, float)) and math.isfinite(v) and v >= 0


def _is_numeric_type(v) -> bool:
    return isinstance(v, str) and dtypes.find(v) is not None and dtypes.find(v).is_numeric


def _string(where: str, v) -> None:
    _need(isinstance(v, str), where, "a string", v)


def _name(where: str, v) -> None:
    _need(isinstance(v, str) and v != "", where, "a non-empty string", v)


def _family(where: str, v) -> None:
    _need(isinstance(v, str) and _FAMILY.fullmatch(v) is not None, where,
          "a family name in lower snake case", v)


def _kind(where: str, v) -> None:
    _need(isinstance(v, str) and v in KINDS, where, "one of " + ", ".join(f'"{k}"' for k in KINDS), v)


def _opset(where: str, v) -> None:
    _need(_is_int(v) and v >= 1, where, "a positive integer", v)


def _object(where: str, v) -> None:
    _need(isinstance(v, dict), where, "an object", v)


def _strings(where: str, v) -> None:
    _need(isinstance(v, list) and all(isinstance(s, str) for s in v), where, "a list of strings", v)


def _phase(where: str, v) -> None:
    _need(isinstance(v, str) and v in PHASES, where, " or ".join(f'"{p}"' for p in PHASES), v)


def _negative(where: str, v) -> None:
    _object(where, v)
    if "phase" in v:
        _phase(f"{where}.phase", v["phase"])


def _native(where: str, v) -> None:
    _object(where, v)
    if "ops" in v:
        _strings(f"{where}.ops", v["ops"])
    if "reason" in v:
        _string(f"{where}.reason", v["reason"])


def is_case_path(rel) -> bool:
    """A path as case.json lists files: relative, with "/" between non-empty parts, no "." or ".."."""
    return isinstance(rel, str) and not rel.startswith("/") and all(
        part not in ("", ".", "..") for part in rel.split("/"))


def _spec(where: str, v) -> None:
    """The clause an expectation rests on: {"file", "clause"} (the report and opconform repro quote it)."""
    _object(where, v)
    for key in ("file", "clause"):
        if key in v:
            _string(f"{where}.{key}", v[key])


def _sha256s(where: str, v) -> None:
    _object(where, v)
    for rel, digest in v.items():
        _need(is_case_path(rel), f"{where}", "file paths relative to the case directory", rel)
        _need(isinstance(digest, str) and _SHA256.fullmatch(digest) is not None, f"{where}[{rel}]",
              "a sha256 in lower-case hex", digest)


_COMPARE_PARAMS = {  # key of a compare spec -> (what it must be, check)
    "mode": ("one of " + ", ".join(COMPARE_MODES), lambda v: isinstance(v, str) and v in COMPARE_MODES),
    "reason": ("a string", lambda v: isinstance(v, str)),
    "nan_sign": ("true or false", lambda v: isinstance(v, bool)),
    "ulp": ("an integer from 0 to 2**64 - 1", lambda v: _is_int(v) and 0 <= v < 2**64),
    "abs": ("a finite number >= 0", _is_amount),
    "rtol": ("a finite number >= 0", _is_amount),
    "atol": ("a finite number >= 0", _is_amount),
    "rel": ("a finite number >= 0", _is_amount),
    "source_type": ("the name of a numeric element type", _is_numeric_type),
    # mode "dot" (generator/dot_bound.py): the decoder of the operands, the node's integer attributes, the node
    # input each data-set input is, the accumulation type, TOSA's abs_bound, A's int8 block where allowed
    "operands": ("a string", lambda v: isinstance(v, str)),
    "node": ("an object of integers", lambda v: isinstance(v, dict) and all(_is_int(x) for x in v.values())),
    "slots": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)),
    "accumulation": ("the name of a float element type", lambda v: _is_numeric_type(v) and dtypes.get(v).is_float),
    "abs_bound": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "a_int8_block": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    # mode "range" (generator/reference/dq_op_q.py): the chain's attributes, the tensor each operand is
    "chain": ("an object", lambda v: isinstance(v, dict)),
    "widen": ("an integer >= 0", lambda v: _is_int(v) and v >= 0),
    "tensors": ("an object of strings", lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values())),
}


def _compare(where: str, v, nested: tuple[str, ...] = ("tolerant", "outputs")) -> None:
    """A compare spec (runners/compare.py's docstring): the parameters, a "tolerant" override, per-output
    specs under "outputs" (which may have their own "tolerant"). Keys compare does not read are left alone."""
    _object(where, v)
    for key, sub in v.items():
        here = f"{where}.{key}"
        if key in ("tolerant", "outputs"):
            if key not in nested:
                raise _Bad(here, f"not allowed inside {where.rsplit('.', 1)[-1]!r}")
            _object(here, sub)
            if key == "tolerant":
                _compare(here, sub, nested=())
            else:
                for output, spec in sub.items():
                    _compare(f"{here}.{output}", spec, nested=("tolerant",))
        elif key in _COMPARE_PARAMS:
            expected, ok = _COMPARE_PARAMS[key]
            _need(ok(sub), here, expected, sub)


def merge_compare(spec: dict, output: str, tolerant: bool) -> dict:
    """The compare spec of one output in one tier: the top-level keys, updated with the output's own spec,
    then (tier "tolerant") with its "tolerant" override, else the top-level one."""
    merged = {k: v for k, v in spec.items() if k != "outputs"}
    merged.update({k: v for k, v in ((spec.get("outputs") or {}).get(output) or {}).items() if k != "outputs"})
    override = merged.pop("tolerant", None)
    if tolerant and override:
        merged.update(override)
    return merged


def compare_problem(spec, outputs: list[tuple[str, dtypes.DType]]) -> str | None:
    """Why a compare spec cannot judge these outputs (name, element type) in every tier, or None: each must
    resolve to a known mode with its parameters ("parsed" only for string outputs)."""
    try:
        _compare("compare", spec)
    except _Bad as exc:
        return str(exc)
    for name, dt in outputs:
        for tier in ("strict", "tolerant"):
            merged = merge_compare(spec, name, tier == "tolerant")
            mode = merged.get("mode")
            missing = [k for k in COMPARE_MODES.get(mode, ("mode",)) if k not in merged]
            where = f'field "compare": output {name!r}, tier {tier}'
            if missing:
                return f'{where}: no "{missing[0]}"'
            if mode == "parsed" and dt.kind != "string":
                return f'{where}: mode "parsed" needs a string output, not {dt.name}'
            if mode == "dot" and not dt.is_float:
                return f'{where}: mode "dot" needs a float output, not {dt.name}'
            if mode == "range" and dt.kind not in ("int", "uint"):
                return f'{where}: mode "range" needs an integer output, not {dt.name}'
    return None


def _perm(where: str, v) -> None:
    _need(isinstance(v, list) and all(_is_int(p) for p in v) and sorted(v) == list(range(len(v))), where,
          "a permutation of 0 .. rank - 1", v)


def _element_type(where: str, v) -> None:
    _need(isinstance(v, str) and dtypes.find(v) is not None, where, "the name of an element type", v)


def _twin_entries(where: str, v) -> None:
    _need(isinstance(v, list), where, "a list", v)
    for i, entry in enumerate(v):
        here = f"{where}[{i}]"
        _object(here, entry)
        for key, check in (("name", _string), ("onnx", _string), ("perm", _perm), ("type", _element_type)):
            if key not in entry:
                raise _Bad(f"{here}.{key}", "missing")
            check(f"{here}.{key}", entry[key])


def _twin(where: str, v) -> None:
    _object(where, v)
    for key in ("format", "model", "inputs", "outputs"):
        if key not in v:
            raise _Bad(f"{where}.{key}", "missing")
    # "onnx" is the case's own model, not a twin
    _need(isinstance(v["format"], str) and _FORMAT.fullmatch(v["format"]) is not None
          and v["format"] != "onnx", f"{where}.format", 'a lower-case format name such as "tflite"', v["format"])
    _name(f"{where}.model", v["model"])  # confined to the case directory when read (CaseReader.inside)
    _twin_entries(f"{where}.inputs", v["inputs"])
    _twin_entries(f"{where}.outputs", v["outputs"])


# case.json field -> its check; a field that is present must pass it (the runners read these)
CASE_FIELDS = {
    "name": _name,
    "kind": _kind,
    "op": _string,
    "domain": _string,
    "family": _family,
    "opset": _opset,
    "params": _object,
    "flags": _strings,
    "undefined": _strings,  # a probe's reasons (opconform hunt keys its probes by them)
    "spec": _spec,
    "reading": _string,  # what a judged expectation rests on where no sentence states it (results carry it)
    "sha256": _sha256s,
    "phase": _phase,
    "negative": _negative,
    "native": _native,
    "compare": _compare,
    "twin": _twin,
}
REQUIRED_FIELDS = ("sha256",)


def meta_problem(meta) -> str | None:
    """The first field of a parsed case.json that the runners cannot use as it is, as
    'field "family": expected a string, got 17'; None if every field passes its check (CASE_FIELDS)."""
    if not isinstance(meta, dict):
        return f"expected a JSON object, got {shown(meta)}"
    for key in REQUIRED_FIELDS:
        if key not in meta:
            return f'field "{key}": missing'
    try:
        for key, check in CASE_FIELDS.items():
            if key in meta:
                check(key, meta[key])
    except _Bad as exc:
        return str(exc)
