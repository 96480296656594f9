"""Where and in which precision OpenVINO ran each node of a compiled model (issue 20, item 1).

A compiled model's runtime model (`CompiledModel.get_runtime_model()`) lists the plugin's execution nodes;
each one's rt_info says (CPU plugin, 2023.3 to 2026.4) "layerType" (Convert, Subgraph, Convolution...),
"runtimePrecision" (the precision its kernel computes in), "outputPrecisions" and "originalLayersNames" (the
ov.Model ops it was made of, comma-separated). The ONNX frontend names the op that produces an ONNX output after
that output ("y"), its helpers "y/..." or "y.N"; ops the plugin inserts have names of their own ("Convert_123").
The device is the compiled model's EXECUTION_DEVICES.

A node is `lowered` when an execution node made from it computes or writes a float type with fewer mantissa
bits than every float type the ONNX node declares (an f64 node run in f32, as the CPU plugin runs f64; an f32
node run in f16 / bf16 under an inference_precision hint), or an integer type narrower than every integer type it
declares (i64 run as i32). Narrower than the narrowest declared type, so that a Cast f32 -> f64 computed in f32
(exact) is not flagged. A node that declares integer types only is lowered when it runs in a float type whose
significand cannot hold its widest one (MatMulInteger's int32 sum computed by an f32 MatMul). The verdict is judged as usual (see runners/backends/openvino.py): the placement and a
note say why a result is what it is.
"""

from __future__ import annotations

import onnx

from generator import dtypes
from generator.dtypes import DType
from generator.reference.convert_promote_types import element_name
from runners.backends.base import Unsupported

SKIPPED_LAYERS = ("Input", "Output", "Const")  # graph edges and data, not computations of a node


def _dtype(name: str) -> DType | None:
    """Our element type for an OpenVINO precision name ("f32", "bf16", "i64"), None for others ("undefined")."""
    return next((d for d in dtypes.all_dtypes() if element_name(d) == name.strip()), None)


def _rt(op, key: str) -> str:
    info = op.get_rt_info()
    if key not in info:
        return ""
    value = info[key]
    return str(value.astype(str) if hasattr(value, "astype") else value)


def _declared(model: onnx.ModelProto) -> dict[str, DType]:
    """Every value's declared element type (graph inputs, outputs, value_info, initializers; shape inference for
    the values between nodes). A type the registry does not know is left out."""
    try:
        model = onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001 - a model the checker refuses: the declared inputs / outputs still say
        pass
    g = model.graph
    pairs = [(v.name, v.type.tensor_type.elem_type) for v in (*g.input, *g.output, *g.value_info)]
    pairs += [(t.name, t.data_type) for t in g.initializer]
    out = {}
    for name, enum in pairs:
        try:
            out[name] = dtypes.get(enum)
        except (KeyError, ValueError):
            pass
    return out


# Inputs whose declared integer type is a container of packed narrower elements: (domain, op) -> (input slots,
# the attribute giving the element width, its default). MatMulNBits' uint8 B (and packed uint8 zero_points) hold
# `bits`-wide weights (default 4), which OpenVINO decompresses as u4 / u2: the declared width, not a lowering.
PACKED = {("com.microsoft", "MatMulNBits"): ((1, 3), "bits", 4)}


def _node_types(node: onnx.NodeProto, declared: dict[str, DType]) -> list[DType]:
    """The element types a node declares (its inputs and outputs), a packed container as its element's type."""
    slots, attribute, default = PACKED.get((node.domain, node.op_type), ((), "", None))
    width = next((a.i for a in node.attribute if a.name == attribute), default)
    out = []
    for j, v in enumerate(node.input):
        t = declared.get(v)
        if t is not None and j in slots and width is not None and t.kind == "uint":
            t = dtypes.find(f"uint{width}") or t
        if t is not None:
            out.append(t)
    return out + [declared[v] for v in node.output if v in declared]


def _label(node: onnx.NodeProto) -> str:
    return node.name or (node.output[0] if node.output else node.op_type)


def _owner(name: str, nodes: list[onnx.NodeProto]) -> onnx.NodeProto | None:
    """The ONNX node an ov.Model op of this name came from (the frontend names ops after the node's outputs)."""
    for node in nodes:
        for out in filter(None, node.output):
            if name == out or name.startswith((out + "/", out + ".")):
                return node
    return nodes[0] if len(nodes) == 1 and name else None  # a one-node model: the plugin's own ops serve it


def _narrower(ran: DType, declared: list[DType]) -> DType | None:
    """The narrowest declared type of ran's kind when ran is narrower than all of them, else None."""
    ints = [d for d in declared if d.kind in ("int", "uint")]
    if ran.is_float and ran.mantissa_bits is not None and ints and not any(d.is_float for d in declared):
        # an integer-only node (MatMulInteger) computed in a float type whose significand cannot hold its widest
        # integer type: int32 sums in f32 round past 2**24
        wide = max(ints, key=lambda d: d.bits)
        return wide if ran.mantissa_bits + 1 < wide.bits - (wide.kind == "int") else None
    if ran.is_float:
        same = [d for d in declared if d.is_float and d.mantissa_bits is not None]
        low = min(same, key=lambda d: d.mantissa_bits, default=None)
        return low if low is not None and ran.mantissa_bits < low.mantissa_bits else None
    if ran.kind in ("int", "uint"):
        same = [d for d in declared if d.kind in ("int", "uint")]
        low = min(same, key=lambda d: d.bits, default=None)
        return low if low is not None and ran.bits < low.bits else None
    return None


def placement(compiled, model: onnx.ModelProto | None, device: str) -> dict:
    """{"requested": the device asked for, "devices": EXECUTION_DEVICES, "nodes": [{"node": ONNX node label(s)
    (its name, else its first output; the ov.Model op names where no ONNX node is known), "op": their ONNX op
    type(s), "layer": layerType, "device", "precision": runtimePrecision, "outputs": outputPrecisions, and where lowered
    "lowered": true, "declared": the narrowest declared type, "ran_as": the type it ran in}], and where a node
    was lowered "note": one line saying so}.
    `model`: the ONNX model (None for a natively built one: then every execution node serves its one node)."""
    try:
        devices = [str(d) for d in compiled.get_property("EXECUTION_DEVICES")]
    except Exception:  # noqa: BLE001 - a plugin without the property
        devices = []
    onnx_nodes = list(model.graph.node) if model is not None else []
    declared = _declared(model) if model is not None else {}
    nodes = []
    for op in compiled.get_runtime_model().get_ordered_ops():
        layer = _rt(op, "layerType")
        if layer in SKIPPED_LAYERS:
            continue
        names = [n for n in _rt(op, "originalLayersNames").split(",") if n]
        owners = list({id(o): o for o in (_owner(n, onnx_nodes) for n in names) if o is not None}.values())
        precision = _rt(op, "runtimePrecision")
        outputs = [p for p in _rt(op, "outputPrecisions").split(",") if p]
        entry = {"node": [_label(o) for o in owners] or names,
                 "op": "+".join(dict.fromkeys(o.op_type for o in owners)) or layer, "layer": layer,
                 "device": devices[0] if len(devices) == 1 else None, "precision": precision, "outputs": outputs}
        types = [t for o in owners for t in _node_types(o, declared)]
        for ran in filter(None, map(_dtype, [precision, *outputs])):
            low = _narrower(ran, types)
            if low is not None:
                entry.update(lowered=True, declared=element_name(low), ran_as=element_name(ran))
                break
        nodes.append(entry)
    place = {"requested": requested_device(device), "devices": devices, "nodes": nodes}
    said = note(place)
    return {**place, "note": said} if said else place


def requested_device(device: str) -> str | None:
    """The device a run asked for: itself, or the first one a virtual device names ("AUTO:GPU,CPU" -> GPU); None
    for a virtual device that names none (any device will do)."""
    kind, sep, members = device.partition(":")
    if not sep:
        return None if kind in ("AUTO", "HETERO", "MULTI", "BATCH") else device
    first = members.split(",")[0].split("(")[0].strip()
    return first or None


def note(place: dict) -> str | None:
    """One line on the nodes run lower than declared ("Cast y ran in f32, declared f64"), or None."""
    low = [n for n in place.get("nodes", ()) if n.get("lowered")]
    if not low:
        return None
    said = dict.fromkeys(f"{n['op']} {'/'.join(n['node'])} ran in {n['ran_as']}, declared {n['declared']}"
                         for n in low)
    return "; ".join(said)


def elsewhere(place: dict) -> str | None:
    """Why the model did not run (only) on the device asked for ("ran on CPU, not GPU"), or None where it did,
    where no device was named (AUTO alone) or the plugin does not say."""
    want, ran = place.get("requested"), place.get("devices") or []
    away = [d for d in ran if want and d != want and not d.startswith(want + ".")]
    if not away:
        return None
    return f"ran on {', '.join(ran)}, not {want}"


def check_fallback(place: dict, allow: bool, who: str) -> None:
    """Raises Unsupported (carrying `place`) where the model ran elsewhere than asked and `allow` (the
    allow_fallback option) is off: a verdict would judge another device's kernels."""
    away = elsewhere(place)
    if away and not allow:
        fallback = Unsupported(f"{who}: {away} (--backend-option allow_fallback=1 judges it)")
        fallback.placement = place
        raise fallback
