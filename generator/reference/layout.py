"""The propagation-based layout conversion of layout-semantic-conversion.txt, over the project's own small
graph description, both ways: channels last (TFLite: NHWC, NWC, NDHWC) <-> channels first (ONNX: NCHW ...).

The graph description: tensors (name, shape, data for weights / None for activations) and ops in a small
vocabulary shared by both forms. A graph's `form` says which convention its implicit operators follow:
  "tflite"  conv input N,spatial...,C, weights OHWI (2-D) / DHWIO (3-D, TFLite CONV_3D); depthwise weights
            (1, H, W, C*M); pools N,H,W,C
  "onnx"    conv input N,C,spatial..., weights OIHW / OIDHW; depthwise weights (C*M, 1, H, W) with group C
Every other op is layout-free: its attributes (axis, pads, begin / end / strides, axes, perm, shape) are
plain numbers on the tensors as they are. Attribute ops carry their parameters as attributes, not tensors.
Convs and pools pad "SAME" (TFLite's: the odd pixel at the end), "VALID", or "EXPLICIT" with attribute "pads"
((begin, end) per spatial axis; the ONNX Conv's pads; a TFLite twin writes it as PAD then the conv VALID).

A layout is a permutation `perm` of a tensor: the converted tensor is source.transpose(perm).

Conversion (layout-semantic-conversion.txt):
  1. "Broadcast of Propagation": the lower-rank operand of a binary elementwise op is lifted to full rank by
     inserting leading 1s (a weight's data is reshaped; an activation gets a Reshape op).
  2. "Implicit" ops seed the layout of their activation input and output (channels last -> first, or back).
  3. The user's explicit layout map seeds the tensors it names ("Explicit Layout").
  4. Propagation: across "Transparent" and "Attribute" ops every data tensor takes the layout of the others;
     "Implicit" and "Terminate" ops stop it. Two different layouts meeting at one tensor is an error.
  5. Activations get their shapes permuted, weights their data transposed; "Attribute" ops get their axis /
     pads / begin-end-strides / axes / perm remapped; implicit ops their weights converted.
  6. A "Terminate" op (Reshape, Flatten, Squeeze, Unsqueeze; FullyConnected likewise) computes on data in
     the source arrangement: where its input or output carries a layout, a Transpose is put before / after
     it, so that the converted graph computes exactly what the source graph does. (The spec stops
     propagation there; it does not say how to keep the result right: this is our decision, see
     docs/layout.md.)

Execution: run(graph, inputs) computes a graph with the kernels of layout_kernels and returns an Outcome
(generator/outcome.py): the outputs, and the data set undefined by reason where a kernel's result is.

The graph model and the permutations are in generator/reference/layout_graph.py; this module converts and runs.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from generator.outcome import Outcome
from generator.reference import layout_kernels as K
from generator.reference.layout_graph import (ATTRIBUTE, BINARY, compose, first_to_last, Graph, identity, IMPLICIT,
                                              inverse, last_to_first, LayoutError, new_graph, Op, op_class, _seed,
                                              Tensor, TRANSPARENT, weight_perm)


# ---------------------------------------------------------------------------------------
# which tensors of an op carry data whose layout propagates
# ---------------------------------------------------------------------------------------
def data_inputs(op: Op) -> list[str]:
    """The inputs of an op that are activations-like data (parameters are attributes; weights of implicit
    ops and of fully_connected are not data)."""
    if op.type in TRANSPARENT or op.type == "concat":
        return list(op.inputs)
    return op.inputs[:1]


def _implied(op: Op, g: Graph, known: dict[str, tuple]) -> dict[str, tuple]:
    """Layouts that `known` layouts of some of op's tensors imply for its other data tensors."""
    tensors = [t for t in data_inputs(op) + op.outputs if t]
    have = [(t, known[t]) for t in tensors if t in known]
    if not have:
        return {}
    if op.type in ("mean", "reduce_max") and not op.attrs.get("keepdims", True):
        x, y = op.inputs[0], op.outputs[0]
        if x not in known:  # an output without the reduced axes cannot say where they were
            return {}
        return {y: reduced_perm(known[x], op.attrs["axes"])}
    rank = len(have[0][1])
    return {t: have[0][1] for t in tensors if g.tensors[t].rank == rank}


def reduced_perm(perm, axes) -> tuple[int, ...]:
    """The layout left on a reduction's output without keepdims: perm with the reduced axes removed."""
    r = len(perm)
    gone = {K.norm_axis(a, r) for a in axes}
    kept = [a for a in range(r) if a not in gone]
    return tuple(kept.index(p) for p in perm if p not in gone)


# ---------------------------------------------------------------------------------------
# the conversion
# ---------------------------------------------------------------------------------------
@dataclass
class Converted:
    graph: Graph
    perms: dict[str, tuple[int, ...]]  # tensor of the source graph -> its layout (converted = src.transpose)

    def perm(self, name: str) -> tuple[int, ...]:
        """The layout of a source tensor (identity if it has none)."""
        return self.perms.get(name, identity(self.graph.tensors[name].rank))


def convert(src: Graph, explicit: dict[str, tuple] | None = None) -> Converted:
    """Convert a graph to the other form (tflite -> onnx or onnx -> tflite).

    explicit: tensor name -> permutation (the converted tensor is source.transpose(perm)), for tensors
    propagation cannot decide (layout-semantic-conversion.txt, "Explicit Layout")."""
    to = "onnx" if src.form == "tflite" else "tflite"
    g = copy.deepcopy(src)
    _lift_broadcast_operands(g)
    perms: dict[str, tuple] = {}

    def assign(name: str, perm: tuple, why: str) -> bool:
        perm = tuple(int(p) for p in perm)
        old = perms.get(name)
        if old is not None and old != perm:
            raise LayoutError(f"tensor {name!r}: layout {list(old)} meets layout {list(perm)} ({why}); "
                              f"give an explicit layout or break the region")
        perms[name] = perm
        return old is None

    for op in g.ops:
        if op.type in IMPLICIT:
            for t in (op.inputs[0], op.outputs[0]):
                assign(t, _seed(to, g.tensors[t].rank), f"{op.type} is implicit")
    for name, perm in sorted((explicit or {}).items()):
        if name not in g.tensors:
            raise LayoutError(f"explicit layout for unknown tensor {name!r}")
        if sorted(perm) != list(range(g.tensors[name].rank)):
            raise LayoutError(f"explicit layout {list(perm)} of {name!r} is not a permutation of its "
                              f"{g.tensors[name].rank} axes")
        assign(name, perm, "explicit layout")
    _propagate(g, perms, assign)
    out = _apply(g, perms, to)
    return Converted(out, {k: v for k, v in perms.items() if k in src.tensors})


def _lift_broadcast_operands(g: Graph) -> None:
    """layout-semantic-conversion.txt, "Broadcast of Propagation": extend the lower-rank operand of a
    binary op with leading 1s, so that propagation and broadcasting both work."""
    new_ops = []
    for op in g.ops:
        if op.type in BINARY:
            rank = max(g.tensors[t].rank for t in op.inputs)
            for i, name in enumerate(op.inputs):
                t = g.tensors[name]
                if t.rank == rank:
                    continue
                shape = (1,) * (rank - t.rank) + t.shape
                lifted = _fresh(g, f"{name}_rank{rank}")
                if t.data is not None:
                    g.const(lifted, t.data.reshape(shape))
                else:
                    g.add(lifted, shape)
                    new_ops.append(Op("reshape", [name], [lifted], {"shape": list(shape)}))
                op.inputs[i] = lifted
        new_ops.append(op)
    g.ops = new_ops


def _fresh(g: Graph, name: str) -> str:
    base, i = name, 1
    while name in g.tensors:
        name = f"{base}_{i}"
        i += 1
    return name


def _propagate(g: Graph, perms: dict, assign) -> None:
    users: dict[str, list[Op]] = {}
    for op in g.ops:
        if op.type in TRANSPARENT or op.type in ATTRIBUTE:
            for t in data_inputs(op) + op.outputs:
                users.setdefault(t, []).append(op)
    work = sorted(perms)
    while work:
        name = work.pop()
        for op in users.get(name, []):
            for t, perm in sorted(_implied(op, g, perms).items()):
                if assign(t, perm, f"propagated through {op.type}"):
                    work.append(t)


def _apply(g: Graph, perms: dict, to: str) -> Graph:
    out = Graph(to, {}, [], list(g.inputs), list(g.outputs))
    for name, t in g.tensors.items():
        p = perms.get(name)
        if p is None or p == identity(t.rank):
            out.tensors[name] = Tensor(name, t.shape, None if t.data is None else t.data.copy())
        else:
            out.tensors[name] = Tensor(name, tuple(t.shape[i] for i in p),
                                       None if t.data is None else np.ascontiguousarray(t.data.transpose(p)))
    for op in g.ops:
        cls = op_class(op.type)
        if cls == "implicit":
            out.ops.append(_convert_implicit(op, g, out, to))
        elif cls == "attribute":
            out.ops.append(_remap_attribute(op, g, perms))
        elif cls == "terminate":
            out.ops.extend(_bracket_terminate(op, g, out, perms))
        else:
            out.ops.append(copy.deepcopy(op))
    return out


def _convert_implicit(op: Op, g: Graph, out: Graph, to: str) -> Op:
    new = copy.deepcopy(op)
    if len(op.inputs) > 1:
        w = g.tensors[op.inputs[1]]
        if w.data is None:
            raise LayoutError(f"{op.type}: weights {w.name!r} must be constant")
        p = weight_perm(op, w.rank, to)
        out.tensors[w.name] = Tensor(w.name, tuple(w.shape[i] for i in p), np.ascontiguousarray(w.data.transpose(p)))
    return new


def _remap_axis(axis: int, perm) -> int:
    r = len(perm)
    new = inverse(perm)[K.norm_axis(axis, r)]
    return new - r if axis < 0 else new  # a negative axis stays negative (the cases check both forms)


def _remap_attribute(op: Op, g: Graph, perms: dict) -> Op:
    new = copy.deepcopy(op)
    x = op.inputs[0]
    p = perms.get(x, identity(g.tensors[x].rank))
    a = new.attrs
    if op.type in ("concat", "split", "softmax"):
        a["axis"] = _remap_axis(a["axis"], p)
    elif op.type == "pad":
        a["pads"] = [list(a["pads"][i]) for i in p]
    elif op.type == "slice":
        a["begin"] = [a["begin"][i] for i in p]
        a["size"] = [a["size"][i] for i in p]
    elif op.type == "strided_slice":
        for k in ("begin", "end", "strides"):
            a[k] = [a[k][i] for i in p]
    elif op.type in ("mean", "reduce_max"):
        a["axes"] = [_remap_axis(ax, p) for ax in a["axes"]]
    elif op.type == "transpose":
        y = op.outputs[0]
        q = perms.get(y, identity(g.tensors[y].rank))
        a["perm"] = list(compose(inverse(p), compose(a["perm"], q)))
    return new


def _bracket_terminate(op: Op, g: Graph, out: Graph, perms: dict) -> list[Op]:
    """A terminate op computes on the source arrangement: undo its input's layout before it and apply its
    output's layout after it."""
    ops = []
    new = copy.deepcopy(op)
    x = op.inputs[0]
    p = perms.get(x)
    if p is not None and p != identity(len(p)):
        restored = _fresh(out, f"{x}_restored")
        out.add(restored, g.tensors[x].shape)
        ops.append(Op("transpose", [x], [restored], {"perm": list(inverse(p))}))
        new.inputs[0] = restored
    ops.append(new)
    y = op.outputs[0]
    q = perms.get(y)
    if q is not None and q != identity(len(q)):
        raw = _fresh(out, f"{y}_unlaid")
        out.add(raw, g.tensors[y].shape)
        new.outputs[0] = raw
        ops.append(Op("transpose", [raw], [y], {"perm": list(q)}))
    return ops


# ---------------------------------------------------------------------------------------
# execution with the reference kernels
# ---------------------------------------------------------------------------------------
def _to_first(x: np.ndarray) -> np.ndarray:
    return K.transpose(x, last_to_first(x.ndim))


def _to_last(x: np.ndarray) -> np.ndarray:
    return K.transpose(x, first_to_last(x.ndim))


def _implicit_weights(op: Op, w: np.ndarray, form: str) -> np.ndarray:
    """Weights in the ONNX (channels first) convention the kernels take."""
    return w if form == "onnx" else K.transpose(w, weight_perm(op, w.ndim, "onnx"))


def _spatial_args(op: Op, spatial: tuple, kernel: tuple) -> tuple:
    n = len(spatial)
    strides = tuple(op.attrs.get("strides", (1,) * n))
    dilations = tuple(op.attrs.get("dilations", (1,) * n))
    padding = op.attrs.get("padding", "VALID")
    if padding == "EXPLICIT":  # pads SAME cannot express (symmetric with stride 2): TFLite writes PAD + VALID
        return strides, dilations, [tuple(int(v) for v in p) for p in op.attrs["pads"]]
    pads = K.explicit_pads(padding, spatial, kernel, strides, dilations)
    return strides, dilations, pads


def implicit_pads(op: Op, g: Graph) -> list[tuple[int, int]]:
    """Explicit (begin, end) pads per spatial axis of a conv / pool (for writing ONNX)."""
    x = g.tensors[op.inputs[0]].shape
    spatial = x[1:-1] if g.form == "tflite" else x[2:]
    if op.type in ("max_pool", "avg_pool"):
        kernel = tuple(op.attrs["kernel"])
    else:
        w = g.tensors[op.inputs[1]]
        kernel = tuple(_implicit_weights(op, w.data, g.form).shape[2:])
    return _spatial_args(op, spatial, kernel)[2]


def _run_implicit(op: Op, vals: list, form: str) -> np.ndarray:
    x = vals[0] if form == "onnx" else _to_first(vals[0])
    spatial = x.shape[2:]
    if op.type in ("max_pool", "avg_pool"):
        kernel = tuple(op.attrs["kernel"])
        strides, _, pads = _spatial_args(op, spatial, kernel)
        y = K.pool(x, "max" if op.type == "max_pool" else "avg", kernel, strides, pads)
    else:
        w = _implicit_weights(op, vals[1], form)
        b = vals[2] if len(vals) > 2 else None
        strides, dilations, pads = _spatial_args(op, spatial, w.shape[2:])
        group = x.shape[1] if op.type == "depthwise_conv" else 1
        y = K.conv(x, w, b, strides, dilations, pads, group)
    return y if form == "onnx" else _to_last(y)


def run_op(op: Op, vals: list, form: str) -> list[np.ndarray]:
    a, t = op.attrs, op.type
    if t in IMPLICIT:
        return [_run_implicit(op, vals, form)]
    unary = {"abs": K.abs_, "relu": K.relu, "logistic": K.sigmoid, "tanh": K.tanh}
    binary = {"add": K.add, "sub": K.sub, "mul": K.mul, "prelu": K.prelu}
    if t in unary:
        return [unary[t](vals[0])]
    if t in binary:
        return [binary[t](vals[0], vals[1])]
    if t == "concat":
        return [K.concat(vals, a["axis"])]
    if t == "split":
        return K.split(vals[0], a["axis"], a["sizes"])
    if t == "pad":
        return [K.pad(vals[0], a["pads"])]
    if t == "slice":
        return [K.slice_(vals[0], a["begin"], [b + s for b, s in zip(a["begin"], a["size"])],
                         [1] * len(a["begin"]))]
    if t == "strided_slice":
        return [K.slice_(vals[0], a["begin"], a["end"], a["strides"])]
    if t in ("mean", "reduce_max"):
        return [K.reduce(vals[0], "mean" if t == "mean" else "max", a["axes"], a.get("keepdims", True))]
    if t == "softmax":
        return [K.softmax(vals[0], a["axis"])]
    if t == "transpose":
        return [K.transpose(vals[0], a["perm"])]
    if t in ("reshape", "flatten", "squeeze", "unsqueeze"):
        return [K.reshape(vals[0], a["shape"])]
    if t == "fully_connected":
        return [K.fully_connected(vals[0], vals[1], vals[2] if len(vals) > 2 else None)]
    raise ValueError(f"no kernel for op {t!r}")


def undefined_reason(op: Op, vals: list) -> str | None:
    """Why the spec leaves op's result on these inputs undefined (None: it is defined). Of the kernels, only
    a mean over an empty set is (layout_kernels.reduce_undefined); finite data keeps every other defined."""
    return K.reduce_undefined(vals[0], "mean", op.attrs["axes"]) if op.type == "mean" else None


def bind(g: Graph, inputs: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The values a run starts from: the graph's weights and its inputs (float32), which must have the declared
    shapes (ValueError)."""
    if len(inputs) != len(g.inputs):
        raise ValueError(f"the graph has {len(g.inputs)} inputs, {len(inputs)} given")
    vals: dict[str, np.ndarray] = {n: t.data for n, t in g.tensors.items() if t.data is not None}
    for name, x in zip(g.inputs, inputs):
        x = np.asarray(x, dtype=np.float32)
        if x.shape != g.tensors[name].shape:
            raise ValueError(f"input {name!r}: shape {x.shape}, the graph declares {g.tensors[name].shape}")
        vals[name] = x
    return vals


def run(g: Graph, inputs: list[np.ndarray]) -> Outcome:
    """Execute the graph with the reference kernels: the outputs in graph-output order, and the reasons of any
    op whose result is undefined. Such a result is not traced to the output elements it reaches: it leaves
    the data set undefined as a whole (a scalar mask; generator/outcome.py)."""
    vals = bind(g, inputs)
    undefined: dict[str, np.ndarray] = {}
    for op in g.ops:
        args = [vals[n] for n in op.inputs]
        why = undefined_reason(op, args)
        if why:
            undefined[why] = np.bool_(True)
        for name, r in zip(op.outputs, run_op(op, args, g.form)):
            if r.shape != g.tensors[name].shape:
                raise ValueError(f"{op.type} -> {name!r}: computed shape {r.shape}, declared {g.tensors[name].shape}")
            vals[name] = r
    return Outcome(tuple(vals[n] for n in g.outputs), undefined)


# new_graph: imported from here by generator/tflite_writer.py
__all__ = ["Converted", "Graph", "Op", "bind", "convert", "implicit_pads", "new_graph", "run", "run_op",
           "undefined_reason"]
