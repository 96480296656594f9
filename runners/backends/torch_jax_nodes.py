"""What a one-node model asks of a framework runtime (the torch and jax backends), and what the runtime does.

Neither PyTorch nor JAX reads ONNX: their adapters map the one node of a case onto the runtime's own conversion
(Cast, CastLike) or quantization op (QuantizeLinear / DequantizeLinear, torch only). This module reads that node
(`read_node`: its op, element types and attributes, after onnx.checker has accepted the model: the adapter's
refusal of an invalid model stands in for the frontend these runtimes lack) and finds out, by converting a few
values on the runtime itself, how its float8 conversions treat an overflow (`overflow_behaviour`) and how it
rounds to float8e8m0 (`e8m0_rounding`), so that a node whose `saturate` / `round_mode` the runtime does not do
is unsupported instead of judged against semantics it never claimed. Nothing here converts a value on the
runtime's behalf.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
import onnx.checker

from generator.dtypes import DType
from runners.backends.base import Unsupported, io_types

OPS = ("Cast", "CastLike", "QuantizeLinear", "DequantizeLinear")


@dataclass
class Node:
    """The node under test: op, attributes (name -> value), and the element types of its inputs / outputs
    (graph inputs in feed order)."""

    op: str
    opset: int
    attrs: dict
    inputs: list[DType]
    outputs: list[DType]
    input_names: list[str] = field(default_factory=list)


def read_node(model: onnx.ModelProto, runtime: str, ops: tuple[str, ...] = OPS) -> Node:
    """The one node of `model`. Unsupported for another op, several nodes, or a node input that is not fed
    (an initializer, a Constant): the adapter maps a single fed node. Unsupported too for a model onnx.checker
    rejects: that refusal is the adapter's, the runtime reads no model, so a negative case is not judged here."""
    ins, outs = io_types(model)
    graph = model.graph
    if len(graph.node) != 1:
        raise Unsupported(f"{runtime}: the adapter maps one-node models only ({len(graph.node)} nodes)")
    node = graph.node[0]
    if node.domain not in ("", "ai.onnx") or node.op_type not in ops:
        raise Unsupported(f"{runtime}: no mapping for {node.domain or 'ai.onnx'}.{node.op_type} "
                          f"(the adapter maps {', '.join(ops)})")
    fed = [n for n, _ in ins]
    if [n for n in node.input if n] != fed or list(node.output) != [n for n, _ in outs]:
        raise Unsupported(f"{runtime}: the adapter maps a node whose inputs are all fed, in order "
                          f"(inputs {list(node.input)}, graph inputs {fed})")
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as exc:  # noqa: BLE001 - the checker's own error types vary by release
        raise Unsupported(f"{runtime} reads no ONNX model; the adapter's onnx.checker refuses this one: "
                          f"{' '.join(str(exc).split())[:300]}") from None
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
    return Node(node.op_type, opset, attrs, [t for _, t in ins], [t for _, t in outs], fed)


def cast_types(node: Node) -> tuple[DType, DType]:
    """(source, destination) of a Cast / CastLike node."""
    return node.inputs[0], node.outputs[0]


def exactly(value: float, t: DType) -> np.ndarray | None:
    """A one-element array of `value` in type t, or None where t does not hold it exactly."""
    if t.kind not in ("float", "int", "uint", "bool"):
        return None
    with np.errstate(all="ignore"):
        a = np.array([value], dtype=np.float64).astype(t.np_dtype)
        back = a.astype(np.float64)
    return a if np.isfinite(back[0]) and back[0] == value else None


Convert = Callable[[np.ndarray], np.ndarray]  # src-typed array -> dst-typed array, on the runtime


def overflow_behaviour(convert: Convert, src: DType, dst: DType) -> str | None:
    """How the runtime converts a `src` value that the float8 type `dst` holds only under `saturate`: "saturates"
    (to dst's largest finite value; float8e8m0: its smallest for 0), "overflows" (to Inf / NaN), "other: <bits>"
    (neither), or None where src has no such value (saturate cannot matter). The value: a finite one beyond dst's
    max (4 x dst's max where src holds it, else src's largest where that rounds beyond dst's max to nearest);
    where src has none, +Inf; for float8e8m0 from a type without either, 0."""
    x, boundary = _beyond(src, dst), dst.finite_max
    if x is None and src.has_inf:
        x = np.array([np.inf]).astype(src.np_dtype)
    if x is None and dst.name == "float8e8m0":
        x, boundary = exactly(0.0, src), 2.0 ** -127  # below its smallest: saturate gives that
    if x is None:
        return None
    y = np.asarray(convert(x)).reshape(-1)[:1]
    value = float(y.astype(np.float64)[0])
    if value == boundary:
        return "saturates"
    if np.isnan(value) or np.isinf(value):
        return "overflows"
    return f"other: 0x{int(dst.to_bits(y)[0]):02x}"


def _beyond(src: DType, dst: DType) -> np.ndarray | None:
    """A finite src value that rounds beyond dst's largest finite value, or None."""
    x = exactly(dst.finite_max * 4, src)
    if x is not None:
        return x
    top = src.finite_max if src.is_float else float(src.int_max) if src.is_integer else 0.0
    if top < dst.finite_max + _last_step(dst) / 2:  # rounds to dst's max or below, to nearest
        return None
    return exactly(top, src)


def _last_step(t: DType) -> float:
    """The gap between t's two largest finite values."""
    bits = t.to_bits(np.array([t.finite_max], dtype=np.float64).astype(t.np_dtype))
    below = t.from_bits(bits - 1).astype(np.float64)[0]
    return t.finite_max - float(below)


# round_mode of Cast-24 to float8e8m0 -> what it makes of the probe values (between powers of two); the last one
# (a tie, the only kind of value float4e2m1 has between powers of two) tells down from up / nearest only
E8M0_PROBES = (((5.0, 3.0), {"up": (8.0, 4.0), "down": (4.0, 2.0), "nearest": (4.0, 4.0)}),
               ((1.25, 1.5), {"up": (2.0, 2.0), "down": (1.0, 1.0), "nearest": (1.0, 2.0)}),
               ((3.0,), {"up": (4.0,), "down": (2.0,), "nearest": (4.0,)}))


def e8m0_rounding(convert: Convert, src: DType) -> str | None:
    """The round_mode(s) ("up", "down", "nearest"; "up|nearest" where the values src holds cannot tell them
    apart) the runtime's src -> float8e8m0 conversion matches on values between powers of two; "other: ..."
    where it matches none; None where src holds no probe value."""
    for values, modes in E8M0_PROBES:
        xs = [exactly(v, src) for v in values]
        if any(x is None for x in xs):
            continue
        got = tuple(float(np.asarray(convert(x)).astype(np.float64).reshape(-1)[0]) for x in xs)
        matched = [mode for mode, want in modes.items() if got == want]
        return "|".join(matched) if matched else f"other: {values} -> {got}"
    return None


def cast_semantics_problem(node: Node, convert: Convert, runtime: str, found: dict | None = None) -> str | None:
    """Why the runtime's conversion cannot stand for this Cast / CastLike node (its saturate or round_mode is
    not what the runtime does), or None. Asks the runtime (overflow_behaviour, e8m0_rounding) once per type
    pair when `found` (a dict the caller keeps) remembers the answers."""
    src, dst = cast_types(node)
    if not dst.is_float8 and dst.name != "float8e8m0":
        return None
    found = {} if found is None else found
    saturate = bool(node.attrs.get("saturate", 1))
    if ("overflow", src.name, dst.name) not in found:
        found["overflow", src.name, dst.name] = overflow_behaviour(convert, src, dst)
    overflow = found["overflow", src.name, dst.name]
    if overflow is not None and overflow != ("saturates" if saturate else "overflows"):
        return (f"{runtime}'s {src.name} -> {dst.name} conversion {overflow} beyond the largest finite value; "
                f"the node asks saturate={int(saturate)}")
    if dst.name == "float8e8m0":
        wanted = node.attrs.get("round_mode", "up")
        if ("e8m0", src.name) not in found:
            found["e8m0", src.name] = e8m0_rounding(convert, src)
        mode = found["e8m0", src.name]
        if mode is not None and wanted not in mode.split("|"):
            return f"{runtime}'s {src.name} -> float8e8m0 conversion rounds {mode}; the node asks round_mode={wanted}"
    return None


def cpu_name() -> str:
    """The host CPU's model name (Linux /proc/cpuinfo), else the machine type."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"
