"""Fault models of the NHWC -> NCHW layout conversion: plausible wrong converters with the signature of
generator.reference.layout.convert (layout-semantic-conversion.txt; the converter mistakes docs/layout.md
lists and measures on tflite2onnx / onnx2tf). docs/design.md, "Fault models, witnesses, diagnosis".

Each fault is the reference converter with one mistake switched on (`Mistakes`); `convert_with(m)` gives it.
A fault is judged on a graph case by converting that case's source graph (the TFLite form of its pattern,
rebuilt from the case's name and seed: generator.families.layout.variants.source_pattern) with the faulty converter and
running the result on the case's ONNX data sets:

  run(fault, model, inputs, meta)            the faulty graph's outputs; [] where the conversion raises or
                                             the converted graph cannot run on the case's inputs (a wrong
                                             input shape, operands that do not broadcast)
  killed(fault, meta, expected, outputs)     no outputs, another shape, or a value outside the case's
                                             tolerance (allclose with its rtol and per-output atol)

Group: the whole family is one group ("tflite->onnx": every case converts a TFLite-form graph); each fault
must be killed by at least one graph case. The patterns are the witnesses (generator/witness/layout.py).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from generator.families.layout.pattern import FAMILY
from generator.families.layout.variants import source_pattern
from generator.faults import Fault
from generator.reference import layout as L
from generator.reference.layout_graph import TERMINATE
from generator.reference import layout_kernels as K

GROUP = "tflite->onnx"
TFLITE2ONNX = "tflite2onnx 0.4.1 + onnxruntime, measured here (docs/layout.md)"
ONNX2TF = "onnx2tf 1.29.24 + LiteRT 2.3.0, measured here (docs/layout.md; the other direction, ONNX -> TFLite)"


def _not_seen(why: str) -> str:
    return f"not seen; modelled as {why}"

AXIS_OPS = ("concat", "split", "softmax")
REDUCE_OPS = ("mean", "reduce_max")


@dataclass(frozen=True)
class Mistakes:
    """The mistakes a converter makes (all off: the reference converter)."""

    lift: str = "reference"  # "none": broadcast operands not lifted; "no_transpose": lifted straight to the
    #                          permuted shape (data reshaped, not transposed)
    rank4_perm_for_all: bool = False  # (0, 3, 1, 2) + the rest for every rank (NDHWC -> N W D H C)
    explicit: str = "use"  # "ignore" the explicit map; "refuse_terminate_output": refuse a map on a
    #                        terminate op's output
    inputs_channels_last: bool = False  # every 3-D to 5-D graph input taken for channels last
    forward_only: bool = False  # propagation from inputs to outputs only
    not_remapped: frozenset = frozenset()  # attribute op types whose attributes are copied unchanged
    remap_inverted: bool = False  # attributes remapped with the permutation the wrong way round
    axis_by_size: bool = False  # an axis found by its size in the converted shape (the last that fits)
    reduce_negative_axes_refused: bool = False
    no_bracket: bool = False  # terminate ops without the Transpose bracket (Reshape to the permuted shape)
    reduced_layout_dropped: bool = False  # a reduction without keepdims leaves no layout on its output
    depthwise_as_conv: bool = False  # depthwise weights transposed like a regular conv's (OHWI -> OIHW)
    conv_weights_hw_swapped: bool = False  # OHWI -> OIWH
    same_pads_swapped: bool = False  # SAME's odd pixel at the start (SAME_LOWER)
    avg_pool_counts_pad: bool = False  # AveragePool with count_include_pad=1
    transpose_by_shape: bool = False  # a terminate op's Transpose bracket only where the shapes say one is needed
    reshape_shape_input_only: bool = False  # a RESHAPE's new shape read from its second input only
    broadcast_needs_layout: bool = False  # a lifted broadcast operand refused where its op has no layout


# ---------------------------------------------------------------------------------------
# the converter with mistakes
# ---------------------------------------------------------------------------------------
def _seed(m: Mistakes, to: str, rank: int) -> tuple[int, ...]:
    if m.rank4_perm_for_all and rank >= 4:
        p = (0, 3, 1, 2) + tuple(range(4, rank))
        return p if to == "onnx" else L.inverse(p)
    return L._seed(to, rank)


def _lift(g: L.Graph) -> set[str]:
    """The reference's broadcast lifting; returns the names of the lifted tensors."""
    before = set(g.tensors)
    L._lift_broadcast_operands(g)
    return set(g.tensors) - before


def _implied(op: L.Op, g: L.Graph, known: dict, m: Mistakes) -> dict:
    if m.reduced_layout_dropped and op.type in REDUCE_OPS and not op.attrs.get("keepdims", True):
        return {}
    implied = L._implied(op, g, known)
    if m.forward_only:
        if not any(t in known for t in L.data_inputs(op)):
            return {}
        implied = {t: p for t, p in implied.items() if t in op.outputs}
    return implied


def _propagate(g: L.Graph, perms: dict, assign, m: Mistakes) -> None:
    users: dict[str, list[L.Op]] = {}
    for op in g.ops:
        if op.type in L.TRANSPARENT or op.type in L.ATTRIBUTE:
            for t in L.data_inputs(op) + op.outputs:
                users.setdefault(t, []).append(op)
    work = sorted(perms)
    while work:
        name = work.pop()
        for op in users.get(name, []):
            for t, perm in sorted(_implied(op, g, perms, m).items()):
                if assign(t, perm, f"propagated through {op.type}"):
                    work.append(t)


def convert_with(m: Mistakes) -> Callable:
    """A converter (the signature of generator.reference.layout.convert) making the mistakes m."""

    def convert(src: L.Graph, explicit: dict | None = None) -> L.Converted:
        to = "onnx" if src.form == "tflite" else "tflite"
        g = copy.deepcopy(src)
        lifted = _lift(g) if m.lift != "none" else set()
        perms: dict[str, tuple] = {}

        def assign(name: str, perm: tuple, why: str) -> bool:
            perm = tuple(int(p) for p in perm)
            old = perms.get(name)
            if old is not None and old != perm:
                raise L.LayoutError(f"tensor {name!r}: layout {list(old)} meets layout {list(perm)} ({why})")
            perms[name] = perm
            return old is None

        for op in g.ops:
            if op.type in L.IMPLICIT:
                for t in (op.inputs[0], op.outputs[0]):
                    assign(t, _seed(m, to, g.tensors[t].rank), f"{op.type} is implicit")
        explicit = dict(explicit or {})
        if m.explicit == "ignore":
            explicit = {}
        if m.explicit == "refuse_terminate_output":
            made = {o for op in g.ops if op.type in TERMINATE for o in op.outputs}
            for name in explicit:
                if name in made:
                    raise L.LayoutError(f"explicit layout on {name!r}, the output of a terminate op, refused")
        if m.inputs_channels_last:
            for name in g.inputs:
                if name not in explicit and 3 <= g.tensors[name].rank <= 5:
                    assign(name, _seed(m, to, g.tensors[name].rank), "graph inputs are channels last")
        for name, perm in sorted(explicit.items()):
            if name not in g.tensors:
                raise L.LayoutError(f"explicit layout for unknown tensor {name!r}")
            assign(name, perm, "explicit layout")
        _propagate(g, perms, assign, m)
        if m.broadcast_needs_layout:
            _refuse_lifted_without_layout(g, perms, lifted)
        out = _apply(g, perms, to, m, lifted)
        return L.Converted(out, {k: v for k, v in perms.items() if k in src.tensors})

    convert.mistakes = m
    return convert


def _apply(g: L.Graph, perms: dict, to: str, m: Mistakes, lifted: set[str]) -> L.Graph:
    out = L.Graph(to, {}, [], list(g.inputs), list(g.outputs))
    for name, t in g.tensors.items():
        p = perms.get(name)
        if p is None or p == L.identity(t.rank):
            out.tensors[name] = L.Tensor(name, t.shape, None if t.data is None else t.data.copy())
            continue
        shape = tuple(t.shape[i] for i in p)
        data = None
        if t.data is not None:
            no_move = m.lift == "no_transpose" and name in lifted
            data = t.data.reshape(shape).copy() if no_move else np.ascontiguousarray(t.data.transpose(p))
        out.tensors[name] = L.Tensor(name, shape, data)
    for op in g.ops:
        cls = L.op_class(op.type)
        if cls == "implicit":
            out.ops.append(_implicit(op, g, out, to, m))
        elif cls == "attribute":
            out.ops.append(_remap(op, g, out, perms, m))
        elif cls == "terminate":
            if m.reshape_shape_input_only and op.attrs.get("tflite_shape") == "options":
                raise L.LayoutError(f"{op.type}: no shape input (the new shape is in the options only)")
            straight = m.no_bracket or (m.lift == "no_transpose" and op.outputs[0] in lifted)
            bracket = _by_shape(g, perms) if m.transpose_by_shape else perms
            out.ops.extend(_terminate_straight(op, out) if straight else L._bracket_terminate(op, g, out, bracket))
        else:
            out.ops.append(copy.deepcopy(op))
    return out


def _refuse_lifted_without_layout(g: L.Graph, perms: dict, lifted: set[str]) -> None:
    """The broadcast Reshape pattern asks for the layout of the op it lifts an operand for, needed or not."""
    for op in g.ops:
        if op.type in L.BINARY and lifted & set(op.inputs) and op.outputs[0] not in perms:
            raise L.LayoutError(f"Requires layout description for {sorted(lifted & set(op.inputs))}")


def _by_shape(g: L.Graph, perms: dict) -> dict:
    """The layouts a converter that guesses from shapes sees: none on a tensor whose shape its layout leaves
    unchanged (C == H == W under NHWC <-> NCHW), which it takes for already converted."""
    return {k: p for k, p in perms.items() if tuple(g.tensors[k].shape[i] for i in p) != g.tensors[k].shape}


def _implicit(op: L.Op, g: L.Graph, out: L.Graph, to: str, m: Mistakes) -> L.Op:
    new = copy.deepcopy(op)
    if len(op.inputs) > 1:
        w = g.tensors[op.inputs[1]]
        p = L.weight_perm(op, w.rank, to)
        if m.depthwise_as_conv and op.type == "depthwise_conv":
            p = (0, 3, 1, 2) if to == "onnx" else L.inverse((0, 3, 1, 2))
        if m.conv_weights_hw_swapped and op.type == "conv" and w.rank == 4:
            p = (0, 3, 2, 1)
        out.tensors[w.name] = L.Tensor(w.name, tuple(w.shape[i] for i in p), np.ascontiguousarray(w.data.transpose(p)))
    if m.same_pads_swapped and op.attrs.get("padding", "VALID") == "SAME":
        new.attrs["explicit_pads"] = [(e, b) for b, e in L.implicit_pads(op, g)]
    if m.avg_pool_counts_pad and op.type == "avg_pool":
        new.attrs["count_include_pad"] = True
    return new


def _remap_axis(axis: int, perm, m: Mistakes, src_shape, new_shape) -> int:
    r = len(perm)
    a = K.norm_axis(axis, r)
    if m.axis_by_size:
        fits = [j for j, s in enumerate(new_shape) if s == src_shape[a]]
        new = fits[-1]
    elif m.remap_inverted:
        new = perm[a]
    else:
        new = L.inverse(perm)[a]
    return new - r if axis < 0 else new


def _remap(op: L.Op, g: L.Graph, out: L.Graph, perms: dict, m: Mistakes) -> L.Op:
    new = copy.deepcopy(op)
    if op.type in m.not_remapped:
        return new
    x = op.inputs[0]
    p = perms.get(x, L.identity(g.tensors[x].rank))
    src_shape, new_shape = g.tensors[x].shape, out.tensors[x].shape
    a = new.attrs
    if op.type in REDUCE_OPS and m.reduce_negative_axes_refused and any(ax < 0 for ax in a["axes"]):
        raise L.LayoutError(f"{op.type}: negative axes {a['axes']} refused")
    q = L.inverse(p) if m.remap_inverted else p  # lists are re-indexed with p; the mistake uses its inverse

    def axis(ax: int) -> int:
        return _remap_axis(ax, p, m, src_shape, new_shape)

    if op.type in AXIS_OPS:
        a["axis"] = axis(a["axis"])
    elif op.type == "pad":
        a["pads"] = [list(a["pads"][i]) for i in q]
    elif op.type == "slice":
        a["begin"] = [a["begin"][i] for i in q]
        a["size"] = [a["size"][i] for i in q]
    elif op.type == "strided_slice":
        for k in ("begin", "end", "strides"):
            a[k] = [a[k][i] for i in q]
    elif op.type in REDUCE_OPS:
        a["axes"] = [axis(ax) for ax in a["axes"]]
    elif op.type == "transpose":
        y = op.outputs[0]
        r = perms.get(y, L.identity(g.tensors[y].rank))
        if m.remap_inverted:
            a["perm"] = list(L.compose(p, L.compose(a["perm"], L.inverse(r))))
        else:
            a["perm"] = list(L.compose(L.inverse(p), L.compose(a["perm"], r)))
    return new


def _terminate_straight(op: L.Op, out: L.Graph) -> list[L.Op]:
    """No bracket: the op works on the converted arrangement and reshapes to its output's converted shape."""
    new = copy.deepcopy(op)
    if "shape" in new.attrs:
        new.attrs["shape"] = list(out.tensors[op.outputs[0]].shape)
    return [new]


# ---------------------------------------------------------------------------------------
# executing a converted graph (what a backend would do with the converter's model)
# ---------------------------------------------------------------------------------------
def _run_implicit(op: L.Op, vals: list, form: str) -> np.ndarray:
    """A conv / pool whose converter wrote explicit pads or count_include_pad (channels first, ONNX form)."""
    if form != "onnx":
        raise ValueError("fault attributes are written on ONNX-form graphs only")
    x = vals[0]
    spatial = x.shape[2:]
    if op.type in ("max_pool", "avg_pool"):
        kernel = tuple(op.attrs["kernel"])
        strides, _, pads = L._spatial_args(op, spatial, kernel)
        pads = op.attrs.get("explicit_pads", pads)
        return K.pool(x, "max" if op.type == "max_pool" else "avg", kernel, strides, pads,
                      bool(op.attrs.get("count_include_pad", False)))
    w = vals[1]
    b = vals[2] if len(vals) > 2 else None
    strides, dilations, pads = L._spatial_args(op, spatial, w.shape[2:])
    pads = op.attrs.get("explicit_pads", pads)
    group = x.shape[1] if op.type == "depthwise_conv" else 1
    return K.conv(x, w, b, strides, dilations, pads, group)


def execute(g: L.Graph, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Run a converted graph on data sets: inputs must have the declared shapes (a backend refuses others);
    intermediate shapes are whatever the ops compute. Raises ValueError where the graph cannot run."""
    vals = L.bind(g, inputs)
    for op in g.ops:
        args = [vals[n] for n in op.inputs]
        if op.type in L.IMPLICIT and ("explicit_pads" in op.attrs or "count_include_pad" in op.attrs):
            results = [_run_implicit(op, args, g.form)]
        else:
            results = L.run_op(op, args, g.form)
        vals.update(zip(op.outputs, results))
    return [vals[n] for n in g.outputs]


# ---------------------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------------------
def _fault(short: str, what: str, m: Mistakes, seen_in: str = "") -> Fault:
    return Fault(f"{FAMILY.name}.{short}", what, convert_with(m), seen_in)


NONE = Mistakes()
FAULTS: tuple[Fault, ...] = (
    _fault("concat_axis_not_remapped", "Concat's axis kept as in NHWC",
           replace(NONE, not_remapped=frozenset({"concat"})),
           _not_seen("the per-op remapping tflite2onnx / onnx2tf write one operator at a time (softmax.py forgot it)")),
    _fault("split_axis_not_remapped", "Split's axis kept as in NHWC", replace(NONE, not_remapped=frozenset({"split"})),
           _not_seen("the per-op remapping written one operator at a time, as for Softmax")),
    _fault("softmax_axis_not_remapped", "Softmax's axis kept (-1: W of NCHW instead of C)",
           replace(NONE, not_remapped=frozenset({"softmax"})), f"{TFLITE2ONNX} (softmax.py: axis = -1)"),
    _fault("reduce_axes_not_remapped", "Mean / ReduceMax axes kept as in NHWC",
           replace(NONE, not_remapped=frozenset({"mean", "reduce_max"})),
           _not_seen("the per-op remapping written one operator at a time, as for Softmax")),
    _fault("pad_not_remapped", "Pad's per-axis pads kept in NHWC order",
           replace(NONE, not_remapped=frozenset({"pad"})),
           _not_seen("a list parameter copied in source order, as tflite2onnx does with a Transpose perm")),
    _fault("slice_not_remapped", "Slice / StridedSlice begin, size, end, strides kept in NHWC order",
           replace(NONE, not_remapped=frozenset({"slice", "strided_slice"})),
           _not_seen("a list parameter copied in source order, as tflite2onnx does with a Transpose perm")),
    _fault("transpose_perm_not_remapped", "a Transpose inside the converted region keeps its NHWC perm",
           replace(NONE, not_remapped=frozenset({"transpose"})), f"{TFLITE2ONNX} (\"doing nothing now\")"),
    _fault("remap_inverted", "attribute axes / lists remapped with the permutation the wrong way round "
           "(perm[axis] instead of inverse(perm)[axis])", replace(NONE, remap_inverted=True),
           _not_seen("the permutation or its inverse: the two read alike and agree on (0, 2, 3, 1) squares")),
    _fault("axis_by_size", "an attribute's axis found by its size in the converted shape (C == H == W: the "
           "last axis that fits)", replace(NONE, axis_by_size=True), f"{ONNX2TF}: layouts guessed from shapes"),
    _fault("inputs_assumed_channels_last", "every 3-D to 5-D graph input taken for channels last, with or "
           "without a layout", replace(NONE, inputs_channels_last=True),
           f"{ONNX2TF}: a [1, 256, 256] tensor treated as NCW"),
    _fault("broadcast_not_lifted", "the lower-rank operand of a binary op not lifted (numpy broadcasting on "
           "the NCHW tensor)", replace(NONE, lift="none"),
           _not_seen("numpy broadcasting trusted on the permuted tensor (right for (C,) on NHWC, wrong on NCHW)")),
    _fault("broadcast_reshaped_not_transposed", "a lifted operand reshaped straight to the permuted shape, "
           "its data not transposed ((W, C) -> (1, C, 1, W))", replace(NONE, lift="no_transpose"),
           f"{TFLITE2ONNX} (mul_broadcast_wc)"),
    _fault("terminate_without_bracket", "Reshape / Flatten without the Transpose bracket (flatten NCHW order, "
           "reshape to the permuted shape)", replace(NONE, no_bracket=True),
           _not_seen("a Reshape to the permuted shape, the shortcut tflite2onnx takes for broadcast operands")),
    _fault("explicit_layouts_ignored", "the explicit layout map ignored", replace(NONE, explicit="ignore"),
           _not_seen("a converter without the spec's explicit-layout option (onnx2tf has none)")),
    _fault("explicit_layout_on_terminate_output_refused", "an explicit layout on a Reshape output refused",
           replace(NONE, explicit="refuse_terminate_output"), f"{TFLITE2ONNX} (graph.py:98 assert t.layout is None)"),
    _fault("rank5_as_rank4", "5-D tensors given the 4-D permutation (0, 3, 1, 2) plus the last axis",
           replace(NONE, rank4_perm_for_all=True), _not_seen("a 4-D permutation table reused for 5-D tensors")),
    _fault("forward_only_propagation", "layouts propagated from inputs to outputs only (a graph input reached "
           "through a Concat keeps NHWC)", replace(NONE, forward_only=True),
           _not_seen("a single forward pass over the graph instead of propagation to a fixed point")),
    _fault("reduce_negative_axes_refused", "Mean / ReduceMax with negative axes refused",
           replace(NONE, reduce_negative_axes_refused=True), f"{TFLITE2ONNX} (op/reduce.py:62)"),
    _fault("reduced_layout_dropped", "a reduction without keepdims leaves no layout on its output (the next "
           "op's axis is not remapped)", replace(NONE, reduced_layout_dropped=True),
           _not_seen("a reduction without keepdims treated as a terminate op")),
    _fault("depthwise_weights_as_conv", "depthwise weights (1, H, W, C*M) transposed like a conv's (OHWI -> "
           "OIHW)", replace(NONE, depthwise_as_conv=True),
           _not_seen("the conv weight transpose reused for depthwise weights (1, H, W, C*M)")),
    _fault("conv_weights_hw_swapped", "conv weights OHWI -> OIWH (kernel H and W swapped)",
           replace(NONE, conv_weights_hw_swapped=True),
           _not_seen("OHWI -> OIHW written with the wrong permutation (0, 3, 2, 1)")),
    _fault("same_padding_lower", "SAME padding's odd pixel put at the start (SAME_LOWER)",
           replace(NONE, same_pads_swapped=True),
           _not_seen("TensorFlow's SAME (odd pixel at the end) confused with ONNX SAME_LOWER")),
    _fault("average_pool_counts_padding", "AveragePool written with count_include_pad=1 (TFLite SAME divides by "
           "the real pixels)", replace(NONE, avg_pool_counts_pad=True),
           _not_seen("ONNX AveragePool's count_include_pad set to 1 for SAME (the pads written explicitly)")),
    _fault("transpose_skipped_where_shape_unchanged", "a Reshape / Flatten bracket Transpose left out where the "
           "tensor's shape is the same in both layouts (C == H == W): the layout guessed from the shape",
           replace(NONE, transpose_by_shape=True),
           "onnx2tf 1.29.24 + LiteRT 2.3.0, measured here (onnx2tf+litert, 2026-11): "
           "test_layout_reshape_conv_explicit_pads_equal_chw 128 of 128 values wrong (upstream PR onnx2tf#960: "
           "Conv straight from a Reshape, C == H == W, explicit pads; its permutation search stays at identity "
           "while -cotof says Matches), reshape_conv_equal_chw 64 of 64, conv_flatten_fully_connected_equal_chw "
           "13 of 13; the fault's outputs (NHWC) equal onnx2tf's on every mismatching element recorded. Modelled "
           "in the TFLite -> ONNX direction"),
    _fault("broadcast_lift_requires_layout", "the lower-rank operand of a binary op on a tensor without layout "
           "refused (the broadcast Reshape pattern asks for a layout even where none is needed)",
           replace(NONE, broadcast_needs_layout=True),
           f"{TFLITE2ONNX}: softmax_last_axis_1x256x256 refused, \"Requires layout description for <scale>\" "
           "(op/reshape.py:178)"),
    _fault("reshape_options_shape_ignored", "a RESHAPE whose new shape is only in its options (one input) "
           "refused or misread: the shape taken from a second input only", replace(NONE, reshape_shape_input_only=True),
           "tflite2onnx 0.3.0, measured here (test_layout_reshape_conv_reshape_options: AssertionError at "
           "op/reshape.py assert(op.InputsLength() == 2)); upstream issue tflite2onnx#23, fixed in 0.3.1 (0.4.1 "
           "converts it)"),
)
BY_NAME = {f.name: f for f in FAULTS}
REFERENCE = Fault(f"{FAMILY.name}.reference", "the reference converter (no mistake)", convert_with(NONE))


def group_key(meta: dict) -> str:
    """One group: every graph case converts a TFLite-form graph; a fault needs one case that kills it."""
    return GROUP


# ---------------------------------------------------------------------------------------
# running and judging
# ---------------------------------------------------------------------------------------
def convert_case(fault: Fault, meta: dict) -> L.Converted:
    """The fault's conversion of a case's source graph (raises where the converter refuses)."""
    p = source_pattern(meta)
    return fault.fn(p.graph, p.explicit)


def run(fault: Fault, model, inputs: list[np.ndarray], meta: dict) -> list[np.ndarray]:
    """The outputs of the fault's converted graph on one of the case's ONNX data sets; [] where the conversion
    raises or the converted graph cannot run on the case's inputs."""
    try:
        return execute(convert_case(fault, meta).graph, inputs)
    except (L.LayoutError, ValueError, IndexError) as exc:  # noqa: F841 (a refusal or a graph that cannot run)
        return []


def _tolerances(meta: dict) -> list[tuple[float, float]]:
    c = meta["compare"]
    names = source_pattern(meta).graph.outputs
    per = c.get("outputs", {})
    return [(float(c["rtol"]), float(per.get(n, {}).get("atol", c["atol"]))) for n in names]


def killed(fault: Fault, case_meta: dict, expected_outputs: list[np.ndarray],
           fault_outputs: list[np.ndarray]) -> bool:
    """Would the case fail the fault's converted model? No outputs, another shape, or an element outside
    |a - e| <= atol + rtol * |e| (NaN matches NaN; an infinity only itself), the case's comparison."""
    if len(fault_outputs) != len(expected_outputs):
        return True
    for e, a, (rtol, atol) in zip(expected_outputs, fault_outputs, _tolerances(case_meta)):
        with np.errstate(invalid="ignore"):  # a signalling NaN quiets on the way to float64: still a NaN
            e, a = np.asarray(e, dtype=np.float64), np.asarray(a, dtype=np.float64)
        if e.shape != a.shape:
            return True
        with np.errstate(invalid="ignore"):
            close = np.abs(a - e) <= atol + rtol * np.abs(e)
        close |= (np.isnan(a) & np.isnan(e)) | (np.isinf(e) & (a == e))
        if not close.all():
            return True
    return False
