"""The graphs the layout reference converts and runs: tensors, operators (by how a layout passes through them) and
graphs in either form (TFLite: NHWC, ONNX: NCHW), and the permutations between the forms."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


FORMS = ("tflite", "onnx")

IMPLICIT = frozenset({"conv", "depthwise_conv", "max_pool", "avg_pool"})
TRANSPARENT = frozenset({"add", "sub", "mul", "abs", "relu", "logistic", "tanh", "prelu", "quantize", "dequantize"})
ATTRIBUTE = frozenset({"concat", "split", "pad", "slice", "strided_slice", "mean", "reduce_max", "softmax",
                       "transpose"})
TERMINATE = frozenset({"reshape", "flatten", "squeeze", "unsqueeze", "fully_connected"})
BINARY = frozenset({"add", "sub", "mul", "prelu"})


def op_class(op_type: str) -> str:
    """"implicit" | "transparent" | "attribute" | "terminate" (layout-semantic-conversion.txt, the four
    categories of "Propagation based Approach")."""
    for name, members in (("implicit", IMPLICIT), ("transparent", TRANSPARENT), ("attribute", ATTRIBUTE),
                          ("terminate", TERMINATE)):
        if op_type in members:
            return name
    raise ValueError(f"unknown op type {op_type!r}")


class LayoutError(ValueError):
    """The conversion cannot decide or keep a layout (a conflict, a bad explicit map, an op the target
    cannot express)."""


@dataclass
class Tensor:
    name: str
    shape: tuple[int, ...]
    data: np.ndarray | None = None  # weights; None for activations

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass
class Op:
    type: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict = field(default_factory=dict)


@dataclass
class Graph:
    form: str
    tensors: dict[str, Tensor]
    ops: list[Op]
    inputs: list[str]
    outputs: list[str]

    def __post_init__(self) -> None:
        if self.form not in FORMS:
            raise ValueError(f"graph form {self.form!r}: use one of {FORMS}")

    def add(self, name: str, shape, data: np.ndarray | None = None) -> str:
        if name in self.tensors:
            raise ValueError(f"tensor {name!r} defined twice")
        self.tensors[name] = Tensor(name, tuple(int(s) for s in shape), data)
        return name

    def const(self, name: str, data: np.ndarray) -> str:
        data = np.asarray(data, dtype=np.float32)
        return self.add(name, data.shape, data)

    def op(self, type_: str, inputs: list[str], outputs: list[tuple[str, tuple]] | list[str], **attrs) -> None:
        """Append an op; outputs given as (name, shape) are declared here."""
        names = []
        for o in outputs:
            if isinstance(o, tuple):
                self.add(*o)
                names.append(o[0])
            else:
                names.append(o)
        op_class(type_)
        self.ops.append(Op(type_, list(inputs), names, dict(attrs)))


def new_graph(form: str) -> Graph:
    return Graph(form, {}, [], [], [])


# ---------------------------------------------------------------------------------------
# permutations
# ---------------------------------------------------------------------------------------
def identity(rank: int) -> tuple[int, ...]:
    return tuple(range(rank))


def last_to_first(rank: int) -> tuple[int, ...]:
    """NHWC -> NCHW (NWC -> NCW, NDHWC -> NCDHW)."""
    return (0, rank - 1) + tuple(range(1, rank - 1))


def first_to_last(rank: int) -> tuple[int, ...]:
    """NCHW -> NHWC."""
    return (0,) + tuple(range(2, rank)) + (1,)


def inverse(perm) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def compose(a, b) -> tuple[int, ...]:
    """x.transpose(a).transpose(b) == x.transpose(compose(a, b))."""
    return tuple(a[i] for i in b)


def _seed(to: str, rank: int) -> tuple[int, ...]:
    return last_to_first(rank) if to == "onnx" else first_to_last(rank)


def weight_perm(op: Op, rank: int, to: str) -> tuple[int, ...]:
    """How an implicit op's weight data is transposed from one form to the other."""
    if op.type == "depthwise_conv":
        p = (3, 0, 1, 2)  # (1, H, W, C*M) <-> (C*M, 1, H, W)
    elif rank == 4:
        p = (0, 3, 1, 2)  # OHWI <-> OIHW
    elif rank == 5:
        p = (4, 3, 0, 1, 2)  # DHWIO (TFLite CONV_3D) <-> OIDHW
    else:
        raise LayoutError(f"{op.type}: no weight layout for rank {rank}")
    return p if to == "onnx" else inverse(p)
