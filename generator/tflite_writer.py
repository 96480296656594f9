"""Our graph description (generator.reference.layout, form "tflite") <-> a .tflite flatbuffer.

Written with the TFLite schema that ai_edge_litert ships (`ai_edge_litert.schema_py_generated`, object API),
without TensorFlow. Parameters the graph description keeps as attributes (axes, pads, begin / end, perm,
shape, split sizes) become int32 constant tensors, as the TFLite builtins take them. Reading back accepts
the files this module writes (the opconform-tflite backend runs them with our kernels), not any .tflite.

Serialization is deterministic: tensors, buffers and operator codes are numbered in graph order.
"""

from __future__ import annotations

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as S

from generator.reference.layout import Graph, Op, new_graph

FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3
_PADDING = {"SAME": S.Padding.SAME, "VALID": S.Padding.VALID}
_PADDING_NAME = {v: k for k, v in _PADDING.items()}
RESHAPE_FORMS = ("input", "options")

# op type -> (BuiltinOperator, options class, BuiltinOptions member) for ops without special handling
_SIMPLE = {
    "add": ("ADD", S.AddOptionsT, "AddOptions"),
    "sub": ("SUB", S.SubOptionsT, "SubOptions"),
    "mul": ("MUL", S.MulOptionsT, "MulOptions"),
    "abs": ("ABS", S.AbsOptionsT, "AbsOptions"),
    "relu": ("RELU", None, None),
    "logistic": ("LOGISTIC", None, None),
    "tanh": ("TANH", None, None),
    "prelu": ("PRELU", None, None),
}


class _Writer:
    def __init__(self, g: Graph, reshape_form: str = "input"):
        if reshape_form not in RESHAPE_FORMS:
            raise ValueError(f"reshape_form {reshape_form!r}: use one of {RESHAPE_FORMS}")
        self.g = g
        self.reshape_form = reshape_form
        self.pre: list = []  # operators an op needs before it (the PAD of an explicitly padded conv)
        self.tensors: list = []
        self.index: dict[str, int] = {}
        self.buffers = [S.BufferT()]  # buffer 0: the empty sentinel every activation points to
        self.codes: list = []
        self.code_index: dict[int, int] = {}

    def tensor(self, name: str) -> int:
        if name not in self.index:
            t = self.g.tensors[name]
            self.index[name] = self._add(name, t.shape, S.TensorType.FLOAT32,
                                         None if t.data is None else np.asarray(t.data, np.float32))
        return self.index[name]

    def param(self, name: str, values, shape=None) -> int:
        """An int32 constant tensor holding an op's parameter."""
        data = np.asarray(values, dtype=np.int32)
        if shape is not None:
            data = data.reshape(shape)
        return self._add(name, data.shape, S.TensorType.INT32, data)

    def _add(self, name: str, shape, ttype: int, data: np.ndarray | None) -> int:
        t = S.TensorT()
        t.name = name
        t.shape = np.asarray(shape, dtype=np.int32)
        t.type = ttype
        t.buffer = 0
        if data is not None:
            b = S.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).astype(data.dtype.newbyteorder("<")).tobytes(),
                                   dtype=np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def opcode(self, builtin: str) -> int:
        code = getattr(S.BuiltinOperator, builtin)
        if code not in self.code_index:
            c = S.OperatorCodeT()
            c.builtinCode = code
            c.deprecatedBuiltinCode = min(code, S.BuiltinOperator.PLACEHOLDER_FOR_GREATER_OP_CODES)
            c.version = 1
            self.codes.append(c)
            self.code_index[code] = len(self.codes) - 1
        return self.code_index[code]

    def operator(self, builtin: str, inputs: list[int], outputs: list[int], options=None, member=None):
        o = S.OperatorT()
        o.opcodeIndex = self.opcode(builtin)
        o.inputs = np.asarray(inputs, dtype=np.int32)
        o.outputs = np.asarray(outputs, dtype=np.int32)
        if options is not None:
            o.builtinOptionsType = getattr(S.BuiltinOptions, member)
            o.builtinOptions = options
        return o


def _opts(cls, **fields):
    o = cls()
    for k, v in fields.items():
        setattr(o, k, v)
    return o


def _explicit_pad(w: _Writer, op: Op) -> int:
    """A PAD of a conv's input with the conv's explicit spatial pads (N and C unpadded); its output tensor."""
    x = w.g.tensors[op.inputs[0]]
    pads = [(0, 0)] + [tuple(p) for p in op.attrs["pads"]] + [(0, 0)]
    shape = tuple(s + b + e for s, (b, e) in zip(x.shape, pads))
    padded = w._add(f"{op.outputs[0]}_padded_input", shape, S.TensorType.FLOAT32, None)
    w.pre.append(w.operator("PAD", [w.tensor(x.name), w.param(f"{op.outputs[0]}_paddings", pads)], [padded],
                            S.PadOptionsT(), "PadOptions"))
    return padded


def _operator(w: _Writer, op: Op):
    g, a, t = w.g, op.attrs, op.type
    x = w.tensor(op.inputs[0])
    outs = [w.tensor(n) for n in op.outputs]
    pname = op.outputs[0]
    implicit = t in ("conv", "depthwise_conv", "max_pool", "avg_pool")
    pad = _PADDING.get(a.get("padding", "VALID")) if implicit else None
    if t in _SIMPLE:
        builtin, cls, member = _SIMPLE[t]
        return w.operator(builtin, [w.tensor(n) for n in op.inputs], outs, cls() if cls else None, member)
    if a.get("padding") == "EXPLICIT":  # TFLite convs pad SAME or VALID only: a PAD, then the conv VALID
        x, pad = _explicit_pad(w, op), _PADDING["VALID"]
    if t == "conv" and g.tensors[op.inputs[0]].rank == 4:
        (sh, sw), (dh, dw) = a.get("strides", (1, 1)), a.get("dilations", (1, 1))
        return w.operator("CONV_2D", [x] + [w.tensor(n) for n in op.inputs[1:]], outs,
                          _opts(S.Conv2DOptionsT, padding=pad, strideH=sh, strideW=sw, dilationHFactor=dh,
                                dilationWFactor=dw), "Conv2DOptions")
    if t == "conv" and g.tensors[op.inputs[0]].rank == 5:
        (sd, sh, sw), (dd, dh, dw) = a.get("strides", (1, 1, 1)), a.get("dilations", (1, 1, 1))
        return w.operator("CONV_3D", [x] + [w.tensor(n) for n in op.inputs[1:]], outs,
                          _opts(S.Conv3DOptionsT, padding=pad, strideD=sd, strideH=sh, strideW=sw, dilationDFactor=dd,
                                dilationHFactor=dh, dilationWFactor=dw), "Conv3DOptions")
    if t == "depthwise_conv":
        (sh, sw), (dh, dw) = a.get("strides", (1, 1)), a.get("dilations", (1, 1))
        mult = g.tensors[op.outputs[0]].shape[-1] // g.tensors[op.inputs[0]].shape[-1]
        return w.operator("DEPTHWISE_CONV_2D", [x] + [w.tensor(n) for n in op.inputs[1:]], outs,
                          _opts(S.DepthwiseConv2DOptionsT, padding=pad, strideH=sh, strideW=sw, depthMultiplier=mult,
                                dilationHFactor=dh, dilationWFactor=dw), "DepthwiseConv2DOptions")
    if t in ("max_pool", "avg_pool"):
        (kh, kw), (sh, sw) = a["kernel"], a.get("strides", (1, 1))
        return w.operator("MAX_POOL_2D" if t == "max_pool" else "AVERAGE_POOL_2D", [x], outs,
                          _opts(S.Pool2DOptionsT, padding=pad, strideH=sh, strideW=sw, filterHeight=kh, filterWidth=kw),
                          "Pool2DOptions")
    if t == "concat":
        return w.operator("CONCATENATION", [w.tensor(n) for n in op.inputs], outs,
                          _opts(S.ConcatenationOptionsT, axis=a["axis"]), "ConcatenationOptions")
    if t == "split":
        sizes = w.param(f"{pname}_size_splits", a["sizes"])
        axis = w.param(f"{pname}_axis", a["axis"], ())
        return w.operator("SPLIT_V", [x, sizes, axis], outs, _opts(S.SplitVOptionsT, numSplits=len(a["sizes"])),
                          "SplitVOptions")
    if t == "pad":
        return w.operator("PAD", [x, w.param(f"{pname}_paddings", a["pads"])], outs, S.PadOptionsT(), "PadOptions")
    if t == "slice":
        return w.operator("SLICE", [x, w.param(f"{pname}_begin", a["begin"]), w.param(f"{pname}_size", a["size"])],
                          outs, S.SliceOptionsT(), "SliceOptions")
    if t == "strided_slice":
        params = [w.param(f"{pname}_{k}", a[k]) for k in ("begin", "end", "strides")]
        return w.operator("STRIDED_SLICE", [x] + params, outs, S.StridedSliceOptionsT(), "StridedSliceOptions")
    if t in ("mean", "reduce_max"):
        return w.operator("MEAN" if t == "mean" else "REDUCE_MAX", [x, w.param(f"{pname}_axes", a["axes"])], outs,
                          _opts(S.ReducerOptionsT, keepDims=bool(a.get("keepdims", True))), "ReducerOptions")
    if t == "softmax":
        rank = g.tensors[op.inputs[0]].rank
        if a["axis"] not in (-1, rank - 1):
            raise ValueError(f"TFLite SOFTMAX works on the last axis only (axis {a['axis']} of rank {rank})")
        return w.operator("SOFTMAX", [x], outs, _opts(S.SoftmaxOptionsT, beta=1.0), "SoftmaxOptions")
    if t == "transpose":
        return w.operator("TRANSPOSE", [x, w.param(f"{pname}_perm", a["perm"])], outs, S.TransposeOptionsT(),
                          "TransposeOptions")
    if t in ("reshape", "flatten", "squeeze", "unsqueeze"):
        shape = np.asarray(a["shape"], dtype=np.int32)
        # the new shape as a second input (what TFLite's converter writes) or only in the options (one input:
        # the older form, which the RESHAPE kernel still reads; tflite2onnx issue #23)
        form = a.get("tflite_shape", w.reshape_form)  # a graph's op may ask for its form
        ins = [x] if form == "options" else [x, w.param(f"{pname}_shape", shape)]
        return w.operator("RESHAPE", ins, outs, _opts(S.ReshapeOptionsT, newShape=shape), "ReshapeOptions")
    if t == "fully_connected":
        return w.operator("FULLY_CONNECTED", [x] + [w.tensor(n) for n in op.inputs[1:]], outs,
                          _opts(S.FullyConnectedOptionsT, keepNumDims=False), "FullyConnectedOptions")
    raise ValueError(f"no TFLite builtin for op {t!r}")


def write_tflite(g: Graph, description: str = "opconform layout twin", reshape_form: str = "input") -> bytes:
    """The .tflite bytes of a graph of form "tflite". reshape_form: "input" writes RESHAPE's new shape as its
    second input (and in its options, as TFLite's converter does); "options" only in ReshapeOptions.new_shape
    (one input), a form the RESHAPE kernel reads and converters must too."""
    if g.form != "tflite":
        raise ValueError(f"a .tflite model holds a graph of form 'tflite', not {g.form!r}")
    w = _Writer(g, reshape_form)
    inputs = [w.tensor(n) for n in g.inputs]
    operators = []
    for op in g.ops:
        main = _operator(w, op)
        operators += w.pre + [main]
        w.pre = []
    sub = S.SubGraphT()
    sub.name = "main"
    sub.tensors = w.tensors
    sub.inputs = np.asarray(inputs, dtype=np.int32)
    sub.outputs = np.asarray([w.tensor(n) for n in g.outputs], dtype=np.int32)
    sub.operators = operators
    model = S.ModelT()
    model.version = SCHEMA_VERSION
    model.description = description
    model.operatorCodes = w.codes
    model.subgraphs = [sub]
    model.buffers = w.buffers
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


# ---------------------------------------------------------------------------------------
# reading back
# ---------------------------------------------------------------------------------------
_BUILTIN_NAME = {v: k for k, v in vars(S.BuiltinOperator).items() if not k.startswith("_")}
_FROM_SIMPLE = {builtin: op for op, (builtin, _, _) in _SIMPLE.items()}


class TfliteError(ValueError):
    """Not a .tflite this module can read (str() names the problem)."""


class TfliteUnknownOperator(TfliteError):
    """A well-formed .tflite with an operator this reader does not know."""


def read_tflite(data: bytes) -> Graph:
    """A graph of form "tflite" from .tflite bytes written by write_tflite."""
    if len(data) < 8 or data[4:8] != FILE_IDENTIFIER:
        raise TfliteError("not a TFLite flatbuffer (no TFL3 identifier)")
    try:
        model = S.ModelT.InitFromPackedBuf(bytearray(data), 0)
    except Exception as exc:  # flatbuffers raises several types on corrupt bytes
        raise TfliteError(f"corrupt TFLite flatbuffer ({type(exc).__name__})") from None
    if not model.subgraphs or len(model.subgraphs) != 1:
        raise TfliteError("expected exactly one subgraph")
    sub = model.subgraphs[0]
    names = [t.name.decode() if isinstance(t.name, bytes) else t.name for t in sub.tensors]

    def array(i: int) -> np.ndarray | None:
        t = sub.tensors[i]
        buf = model.buffers[t.buffer]
        if buf.data is None or len(buf.data) == 0:
            return None
        dtype = {S.TensorType.FLOAT32: "<f4", S.TensorType.INT32: "<i4"}.get(t.type)
        if dtype is None:
            raise TfliteError(f"tensor {names[i]!r}: element type {t.type} is not read")
        shape = tuple(int(s) for s in (t.shape if t.shape is not None else []))
        return np.frombuffer(bytes(np.asarray(buf.data, np.uint8)), dtype=dtype).reshape(shape).astype(dtype[1:])

    g = new_graph("tflite")

    def ensure(i: int) -> str:
        if names[i] not in g.tensors:
            t = sub.tensors[i]
            if t.type != S.TensorType.FLOAT32:
                raise TfliteError(f"tensor {names[i]!r}: a data tensor must be float32")
            shape = tuple(int(s) for s in (t.shape if t.shape is not None else []))
            data = array(i)
            g.add(names[i], shape, None if data is None else data.astype(np.float32))
        return names[i]

    g.inputs = [ensure(int(i)) for i in sub.inputs]
    for o in sub.operators or []:
        code = model.operatorCodes[o.opcodeIndex]
        builtin = _BUILTIN_NAME.get(max(code.builtinCode, code.deprecatedBuiltinCode), "?")
        ins, outs = [int(i) for i in o.inputs], [int(i) for i in o.outputs]
        g.ops.append(_read_op(builtin, o.builtinOptions, ins, outs, array, ensure, sub))
    g.outputs = [ensure(int(i)) for i in sub.outputs]
    return g


def _read_op(builtin: str, opt, ins: list[int], outs: list[int], array, ensure, sub) -> Op:
    outputs = [ensure(i) for i in outs]

    def params(i: int) -> list:
        return array(ins[i]).tolist()

    if builtin in _FROM_SIMPLE:
        return Op(_FROM_SIMPLE[builtin], [ensure(i) for i in ins], outputs)
    if builtin in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        attrs = {"padding": _PADDING_NAME[opt.padding], "strides": [opt.strideH, opt.strideW],
                 "dilations": [opt.dilationHFactor, opt.dilationWFactor]}
        kind = "conv" if builtin == "CONV_2D" else "depthwise_conv"
        return Op(kind, [ensure(i) for i in ins if i >= 0], outputs, attrs)
    if builtin == "CONV_3D":
        attrs = {"padding": _PADDING_NAME[opt.padding], "strides": [opt.strideD, opt.strideH, opt.strideW],
                 "dilations": [opt.dilationDFactor, opt.dilationHFactor, opt.dilationWFactor]}
        return Op("conv", [ensure(i) for i in ins if i >= 0], outputs, attrs)
    if builtin in ("MAX_POOL_2D", "AVERAGE_POOL_2D"):
        attrs = {"padding": _PADDING_NAME[opt.padding], "strides": [opt.strideH, opt.strideW],
                 "kernel": [opt.filterHeight, opt.filterWidth]}
        return Op("max_pool" if builtin == "MAX_POOL_2D" else "avg_pool", [ensure(ins[0])], outputs, attrs)
    x = [ensure(ins[0])]
    if builtin == "CONCATENATION":
        return Op("concat", [ensure(i) for i in ins], outputs, {"axis": opt.axis})
    if builtin == "SPLIT_V":
        return Op("split", x, outputs, {"sizes": params(1), "axis": int(array(ins[2]))})
    if builtin == "PAD":
        return Op("pad", x, outputs, {"pads": params(1)})
    if builtin == "SLICE":
        return Op("slice", x, outputs, {"begin": params(1), "size": params(2)})
    if builtin == "STRIDED_SLICE":
        return Op("strided_slice", x, outputs, {"begin": params(1), "end": params(2), "strides": params(3)})
    if builtin in ("MEAN", "REDUCE_MAX"):
        return Op("mean" if builtin == "MEAN" else "reduce_max", x, outputs,
                  {"axes": params(1), "keepdims": bool(opt.keepDims)})
    if builtin == "SOFTMAX":
        return Op("softmax", x, outputs, {"axis": -1})
    if builtin == "TRANSPOSE":
        return Op("transpose", x, outputs, {"perm": params(1)})
    if builtin == "RESHAPE":
        shape = params(1) if len(ins) > 1 and ins[1] >= 0 else [int(v) for v in opt.newShape]
        return Op("reshape", x, outputs, {"shape": shape})
    if builtin == "FULLY_CONNECTED":
        return Op("fully_connected", [ensure(i) for i in ins if i >= 0], outputs)
    raise TfliteUnknownOperator(f"operator {builtin} is not one this reader knows")
