"""The error bound of a float dot product (compare mode "dot", runners/compare.py), after the TOSA conformance
suite's dot-product compliance mode (the TOSA specification's "Dot product accuracy requirements"; its
reference model's verify_dot_product.cc).

For each output element, from the case's own inputs (float64):
    bnd  = sum_k |a_k * w_k| (+ |bias|)       the magnitude every rounding error scales with
    qerr = sum_k |w_k| * step_k / 2           only where A may be quantized to int8 (step: one int8 step of k's block)
and, e the expected value (the reference's float64 sum rounded once to the output type), an implementation's
value imp meets the bound when
    e is NaN:                                imp is NaN
    bnd * (1 + abs_bound * 2**-(1 + frac)) overflows the output or accumulation type:  anything (the sum may)
    bnd == 0 and qerr == 0:                  imp == e (every product is zero)
    otherwise:  |imp - e| <= abs_bound * max(bnd * 2**-(1 + frac), normal_min) + qerr + ulp(e) / 2
frac and normal_min are the accumulation type's (mantissa bits, smallest normal); abs_bound is TOSA's 2 * KS,
KS the number of terms of each sum (K, plus 1 with a bias). TOSA measures from the float64 sum; the half ulp of
the output type at e accounts for e being that sum rounded once, so that a comparison reads the expected file
(and the diagnosis can hold a backend against a fault model's outputs). TOSA's two statistical checks over a
tensor (error bias and variance across the data sets of a test set) are left out: a case's data sets are no
test set of TOSA's S kinds.

A compare spec names how the runner finds a and w in the inputs ("operands", a name of operands_table(): the
reference module that decodes them, found by its DOT_OPERANDS, so a family adds its own without editing this one; "slots": the node input of each data-set input, then of each initializer of
the model, `operands`) and carries the node's attributes those need ("node").
"""

from __future__ import annotations

import numpy as np

import functools
import importlib
import pkgutil

from generator import dtypes, reference
from generator.dtypes import DType


@functools.cache
def operands_table() -> dict:
    """"operands" of a compare spec -> (the node's input names in order, (inputs in that order with None for an
    omitted one, node attributes, a_int8_block) -> (ref, bnd, qerr) shaped like Y): every reference module's
    DOT_OPERANDS, under the module's name (never a name read from a case: only these modules can be asked)."""
    table = {}
    for m in sorted(pkgutil.iter_modules(reference.__path__), key=lambda m: m.name):
        if not m.name.endswith("_faults"):
            found = getattr(importlib.import_module(f"generator.reference.{m.name}"), "DOT_OPERANDS", None)
            if found is not None:
                table[m.name] = found
    return table

# accuracy_level (MatMulNBits: "The minimum accuracy level of input A, can be: 0(unset), 1(fp32), 2(fp16),
# 3(bf16), or 4(int8)") -> the accumulation the bound allows: 1, 2, 3 that type, whatever A's type (a float16 A at
# level 1 is summed as precisely as float32; a float32 A at level 2 may be summed in float16); 0 (unset: "A will
# not be quantized or downcast", matmul_nbits.READING_LEVEL_0) and 4 A's own type, 4 with A in int8 blocks.
LEVEL_TYPES = {0: None, 1: "float32", 2: "float16", 3: "bfloat16", 4: "int8"}


def accumulation(t1: str, accuracy_level: int) -> str:
    """The least precise float type the node may compute in: the level's (1, 2, 3), else A's type."""
    level = LEVEL_TYPES.get(accuracy_level)
    return t1 if level in (None, "int8") else dtypes.get(level).name


class Operands(list):
    """A data set's inputs, then the case model's initializers; `names`: the tensor name of each."""
    names: list


def operands(model, inputs: list) -> Operands:
    """What a "dot" spec's slots name: the data set's inputs, then the model's initializers in graph order (a case
    of a user's model holds its weights as the model does, as initializers: generator/from_model/); a "range" spec
    names them by tensor name."""
    from generator.interpret import decode_initializers
    out = Operands(list(inputs))
    out.names = []
    if model is not None:
        inits = {i.name for i in model.graph.initializer}
        out.names = [v.name for v in model.graph.input if v.name not in inits][: len(out)]
        if len(model.graph.initializer):
            out.extend(decode_initializers(model))
            out.names += [i.name for i in model.graph.initializer]
    return out


def terms(spec: dict, inputs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ref, bnd, qerr) of each output element, from a data set's inputs and the compare spec (ref: the float64
    sum, which the reference rounds to give the expected values)."""
    table = operands_table()
    known = table.get(spec.get("operands")) if isinstance(spec.get("operands"), str) else None
    if known is None:
        raise ValueError(f"compare mode 'dot': unknown operands {spec.get('operands')!r} "
                         f"(known: {', '.join(table)})")
    if inputs is None:
        raise ValueError("compare mode 'dot' needs the data set's inputs")
    names, how = known
    slots = list(spec["slots"])
    if len(slots) != len(inputs) or not set(slots) <= set(names):
        raise ValueError(f"compare mode 'dot': slots {slots} do not name the {len(inputs)} inputs among {names}")
    by_name = dict(zip(slots, inputs))
    return how([by_name.get(n) for n in names], dict(spec["node"]), spec.get("a_int8_block"))


def tolerance(bnd: np.ndarray, qerr: np.ndarray, acc: DType, abs_bound: int) -> np.ndarray:
    """abs_bound * max(bnd * 2**-(1 + frac), normal_min) + qerr, per element."""
    unit = np.maximum(bnd * 2.0 ** -(1 + acc.mantissa_bits), float(acc.smallest_normal))
    return abs_bound * unit + qerr


def half_ulp(e: np.ndarray, out: DType) -> np.ndarray:
    """Half the spacing of out's values at e (at the smallest normal's below it), float64."""
    mag = np.abs(np.asarray(e, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        exp = np.floor(np.log2(np.maximum(mag, float(out.smallest_normal))))
    return np.where(np.isfinite(exp), 2.0 ** (exp - out.mantissa_bits - 1), 0.0)


def within(expected: np.ndarray, bnd: np.ndarray, qerr: np.ndarray, imp: np.ndarray, out: DType, acc: DType,
           abs_bound: int) -> np.ndarray:
    """Element-wise: does imp (of type out) meet the bound around expected (the module docstring)?"""
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.asarray(expected).astype(np.float64)
        x = np.asarray(imp).astype(np.float64)
        grown = bnd * (1 + abs_bound * 2.0 ** -(1 + acc.mantissa_bits))
        unlimited = grown > min(float(out.finite_max), float(acc.finite_max))
        close = np.abs(x - e) <= tolerance(bnd, qerr, acc, abs_bound) + half_ulp(e, out)
        zero = (bnd == 0) & (qerr == 0)
    ok = np.where(zero, x == e, close) | unlimited
    return np.where(np.isnan(e), np.isnan(x), ok)


def check(spec: dict, inputs: list, expected: np.ndarray, actual: np.ndarray, out: DType) -> np.ndarray:
    """Element-wise verdict of one output under a "dot" compare spec (raveled)."""
    _, bnd, qerr = terms(spec, inputs)
    acc = dtypes.get(spec["accumulation"])
    return within(np.ravel(expected), bnd.ravel(), qerr.ravel(), np.ravel(actual), out, acc, int(spec["abs_bound"]))


def explain(spec: dict, inputs: list, expected: np.ndarray, actual: np.ndarray, out: DType, flat: int) -> str:
    """One line on the bound at one element (a failure message's): the allowed and the actual error."""
    _, bnd, qerr = (x.ravel()[flat] for x in terms(spec, inputs))
    e = float(np.asarray(expected).ravel()[flat])
    tol = tolerance(np.float64(bnd), np.float64(qerr), dtypes.get(spec["accumulation"]), int(spec["abs_bound"]))
    tol = float(tol + half_ulp(np.float64(e), out))
    err = abs(float(np.asarray(actual).ravel()[flat]) - e)
    return (f"bound at flat index {flat}: |actual - expected| = {err:.6g} > {tol:.6g} (sum |a*w| {bnd:.6g}"
            + (f", int8 steps {qerr:.6g}" if qerr else "") + ")")


def spec_of(node: dict, slots: list[str], t1: str, reason: str) -> dict:
    """The compare spec of a MatMulNBits case: its attributes, the node input of each data-set input, the
    accumulation type and the int8 blocks its accuracy_level allows, abs_bound = 2 * (K + 1 with a bias)."""
    level = int(node.get("accuracy_level", 0))
    spec = {"mode": "dot", "operands": "matmul_nbits", "node": dict(node), "slots": list(slots),
            "accumulation": accumulation(t1, level), "abs_bound": 2 * (int(node["K"]) + int("bias" in slots)),
            "reason": reason}
    if LEVEL_TYPES.get(level) == "int8":
        spec["a_int8_block"] = int(node["block_size"])
    return spec
