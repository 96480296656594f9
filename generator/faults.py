"""Fault models: plausible wrong implementations of an operator, and what tells them apart from the
reference (docs/design.md, "Fault models, witnesses, diagnosis").

Each family that has fault models keeps them next to its reference, in
`generator/reference/<family>_faults.py`, which exposes

    FAULTS: tuple[Fault, ...]        the catalogue, each with the reference's node-function signature
    group_key(meta) -> str           the parameter group of a case, from its case.json fields
                                     ("params", "opset", ...): a Cast (from, to, saturate, round_mode,
                                     opset), a QLinearConv configuration class, ...
    run(fault, model, inputs, meta)  optional: the fault's outputs for one data set; the default swaps
                                     the fault's node function into the interpreter (generator.interpret)
                                     for the operator the family names (meta "domain" / "op"); [] where
                                     the fault refuses the model
    refuses(fault, model, meta)      optional: whether the fault refuses the model before any data (the
                                     kill matrix's negative cases; the diagnosis of errors and refusals)

A fault models a refusal (an implementation that raises where the spec requires a result) in one of three
ways: its family's `refuses` says so; its family's `run` returns []; or its function raises `Refusal`, and
the fault says `may_refuse=True` (so that the diagnosis of a backend's errors runs only faults that can
refuse). `refuses()` below asks whichever applies.

No central table: a family is found by the module's name. A fault is killed on a data set when its
outputs differ from the expected ones under the case's strict comparison (`differs`).
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable

import numpy as np
import onnx

from generator import dtypes
from generator.interpret import compile_model, domain_of, run_program
from generator.reference import lookup as reference_lookup


@dataclass(frozen=True)
class Fault:
    name: str  # "<family>.<what>", unique, stable: witness catalogues and results refer to it
    what: str  # one line: what it does wrong
    fn: Callable  # the reference's signature (a node function for operator families)
    seen_in: str = ""  # runtimes known to do it, where known ("" = a plausible shortcut nobody was seen taking)
    # params of a group -> None if the fault can matter there, else the reason it cannot differ from
    # the reference on any input (an analytic proof: the group is listed as equivalent with it)
    equivalent: Callable[[dict], str | None] = field(default=lambda params: None, compare=False)
    # params of a group -> False where the fault is no plausible implementation at all (e.g. rounding
    # through an intermediate type narrower than the target): "not applicable" in the kill matrix
    applies: Callable[[dict], bool] = field(default=lambda params: True, compare=False)
    # its function raises Refusal on some models (the module docstring): asked when a backend raises
    may_refuse: bool = False
    # the CPU path where it shows, where seen_in names one (a kernel the runtime picks by CPU feature: "x86-64
    # without VNNI"): an item it explains may pass on another machine class (reports and the gate label it)
    cpu: str = ""


class Refusal(Exception):
    """Raised by a fault model's function where the implementation it models refuses the model or the data
    (raises instead of giving outputs): a backend's error or unsupported verdict is then consistent with it."""


def optional_module(name: str) -> ModuleType | None:
    """The module, or None if it does not exist (an import error inside it still raises)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            return None
        raise


def module(family: str) -> ModuleType | None:
    """The fault-model module of a family, or None if it has none."""
    return optional_module(f"generator.reference.{family}_faults")


def catalogue(family: str) -> tuple[Fault, ...]:
    mod = module(family)
    return tuple(mod.FAULTS) if mod else ()


def by_name(family: str) -> dict[str, Fault]:
    return {f.name: f for f in catalogue(family)}


def group_params(meta: dict) -> dict:
    """The fields of case.json a group key is made of: the case's params and opset."""
    return dict(meta.get("params") or {}, opset=meta.get("opset"))


def fault_outputs(fault: Fault, model: onnx.ModelProto, inputs: list[np.ndarray], meta: dict) -> list[np.ndarray]:
    """What a backend with this fault (and nothing else wrong) outputs on one data set."""
    mod = module(meta["family"])
    custom = getattr(mod, "run", None)
    if custom is not None:
        return custom(fault, model, inputs, meta)
    domain, op = domain_of(meta.get("domain", "")), meta["op"]
    program = _compiled(model)
    steps = [dataclasses.replace(st, fn=fault.fn) if (domain_of(st.node.domain), st.node.op_type) == (domain, op)
             else st for st in program.steps]
    return run_program(dataclasses.replace(program, steps=steps), inputs)


def refuses(fault: Fault, model: onnx.ModelProto, inputs: list[np.ndarray], meta: dict) -> bool:
    """Does a backend with this fault (and nothing else wrong) raise on this model and data set instead of
    giving outputs? The family's `refuses(fault, model, meta)` where it has one; else the fault's run: no
    outputs from a family `run`, or Refusal raised. Any other exception propagates (the caller cannot tell)."""
    mod = module(meta["family"])
    predicate = getattr(mod, "refuses", None)
    if predicate is not None:
        return bool(predicate(fault, model, meta))
    if getattr(mod, "run", None) is None and not fault.may_refuse:
        return False  # the interpreter runs the fault's function, which says it never refuses
    try:
        return len(fault_outputs(fault, model, inputs, meta)) == 0
    except Refusal:
        return True


_last_compiled: list = [None, None]  # (model, program): every fault of a case runs on the same model


def _compiled(model: onnx.ModelProto):
    if _last_compiled[0] is not model:
        _last_compiled[:] = [model, compile_model(model, reference_lookup)]
    return _last_compiled[1]


# ---------------------------------------------------------------------------------------
# telling outputs apart
# ---------------------------------------------------------------------------------------
def same_elements(a: np.ndarray, b: np.ndarray, t: dtypes.DType, nan_sign: bool = False) -> np.ndarray:
    """Element-wise: the same value of type t in the strict tier's sense (runners/compare.py, mode exact):
    identical bits, any NaN matches any NaN (of the same sign with nan_sign), strings by text."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return np.zeros(np.broadcast_shapes(a.shape, b.shape) if a.size == b.size else (1,), dtype=bool)
    if t.kind == "string":
        return np.array([x == y for x, y in zip(a.ravel(), b.ravel())], dtype=bool).reshape(a.shape)
    a, b = a.astype(t.np_dtype), b.astype(t.np_dtype)
    if not t.is_float:
        return a == b
    same = t.same_values(a, b)
    if nan_sign:  # a NaN matches only a NaN of its sign
        with np.errstate(invalid="ignore"):
            same &= ~t.isnan(a) | (np.signbit(a.astype(np.float64)) == np.signbit(b.astype(np.float64)))
    return same


def differs(expected: list[np.ndarray], actual: list[np.ndarray], types: list[dtypes.DType],
            compare: dict | None = None) -> bool:
    """Would the strict tier fail `actual` against `expected`? Only for the exact comparison; a family
    whose cases compare otherwise gives its faults a `run` and its own rule (layout)."""
    compare = compare or {}
    if len(expected) != len(actual):
        return True
    for y, z, t in zip(expected, actual, types):
        nan_sign = bool(compare.get("nan_sign", False))
        if np.shape(y) != np.shape(z) or np.asarray(y).dtype != np.asarray(z).dtype:
            return True  # a wrong element type fails whatever the values
        if not same_elements(y, z, t, nan_sign).all():
            return True
    return False
