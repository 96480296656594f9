"""One MatMulInteger case's configuration (MM), its model, the reference's outcome of a data set, and the node and
probe cases of given data sets: what every other part of the family builds on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
from onnx import helper

from generator import dtypes
from generator.case import Case, finish_model, value_info
from generator.family import Catalogue, Family, split
from generator.outcome import Outcome
from generator.reference import matmul_integer as ref

FAMILY = Family("matmul_integer", "MatMulInteger", ref.SPEC_FILE)
OPSET = ref.OPSET
NAMES = ref.NAMES
CATALOGUE = Catalogue()
# the report's grid: a_zero_point form x b_zero_point form, one table per type pair (worst verdict per cell)
GRID = ("a_zp", "b_zp", ("a_type", "b_type"))

PROFILES = {
    # datasets: per catalogue case; random: seeded random configurations
    "quick": dict(datasets=1, random=0),
    "default": dict(datasets=1, random=4),
    "exhaustive": dict(datasets=6, random=48),
}
COMPARE = {"mode": "exact", "reason": "integer output: one exact int32 per element (the exact sum of exact products)"}
CLAUSE = ("Summary (\"behaves like numpy.matmul. The production MUST never overflow. The accumulation may overflow "
          "if and only if in 32 bits.\"); inputs A, B, a_zero_point, b_zero_point; type constraints T1, T2, T3")
U8, I8 = "uint8", "int8"


@dataclass(frozen=True)
class MM:
    """One case: shapes, types, the zero points' forms, and how its data sets are made."""

    what: str = ""  # the case is test_matmulinteger_<what>
    a_shape: tuple = (3, 4)
    b_shape: tuple = (4, 5)
    types: tuple = (U8, U8)  # A, B
    a_zp: str = "tensor"  # absent | tensor (scalar) | one ([1]) | row ([M]) | row_nd (A's shape, K as 1)
    b_zp: str = "tensor"  # absent | tensor | one | column ([N]) | column_nd (B's shape, K as 1)
    data: str = "random"  # how data.draw_dataset makes data sets (data.py)
    opset: int = OPSET
    dims: dict | None = None  # declared shapes with symbolic dims, by input name (one model, data sets of sizes)

    @property
    def name(self) -> str:
        return f"{FAMILY.prefix}_{self.what}"

    def zp_shapes(self) -> tuple[tuple | None, tuple | None]:
        a, b = self.a_shape, self.b_shape
        m, n = (a[-2] if len(a) > 1 else 1), (b[-1] if len(b) > 1 else 1)
        az = {"absent": None, "tensor": (), "one": (1,), "row": (m,), "row_nd": a[:-1] + (1,)}[self.a_zp]
        bz = {"absent": None, "tensor": (), "one": (1,), "column": (n,), "column_nd": b[:-2] + (1, n)}[self.b_zp]
        return az, bz

    def params(self) -> dict:
        return {"a_shape": list(self.a_shape), "b_shape": list(self.b_shape), "a_type": self.types[0],
                "b_type": self.types[1], "a_zp": self.a_zp, "b_zp": self.b_zp, "data": self.data}


def y_shape(a_shape: tuple, b_shape: tuple) -> tuple:
    """numpy.matmul's output shape."""
    return np.matmul(np.zeros(a_shape, np.int8), np.zeros(b_shape, np.int8)).shape


def model(mm: MM, input_shapes: list | None = None, input_types: list | None = None,
          y: tuple | str | None = "infer"):
    """The one-node model: A, B and the zero points present as graph inputs; an absent a_zero_point before a present
    b_zero_point is the empty name. input_shapes / input_types override the declared ones, y Y's shape ("infer":
    numpy.matmul's, None: unknown) (negative cases)."""
    az, bz = mm.zp_shapes()
    at, bt = (dtypes.get(t) for t in mm.types)
    shapes = [mm.a_shape, mm.b_shape, az, bz]
    types = [at, bt, at, bt]
    present = [True, True, az is not None, bz is not None]
    if mm.dims:
        shapes = [mm.dims.get(n, s) for n, s in zip(NAMES, shapes)]
    if input_shapes is not None:
        shapes = list(input_shapes)
    if input_types is not None:
        types = list(input_types)
    n_in = 4 if present[3] else (3 if present[2] else 2)
    names = [n if present[i] else "" for i, n in enumerate(NAMES[:n_in])]
    graph_inputs = [value_info(n, types[i], shapes[i]) for i, n in enumerate(names) if n]
    out = y if y != "infer" else (None if mm.dims else y_shape(mm.a_shape, mm.b_shape))
    node = helper.make_node(FAMILY.op, names, ["Y"])
    graph = helper.make_graph([node], "matmulinteger", graph_inputs, [value_info("Y", dtypes.get("int32"), out)])
    return finish_model(graph, mm.opset)


def inputs_of(dataset: list) -> list:
    """A data set as the reference takes it: A, B, a_zero_point or None, b_zero_point or None."""
    return list(dataset) + [None] * (4 - len(dataset))


def expected(dataset: list) -> Outcome:
    """The reference's Outcome of one data set (A, B, then the zero points present, None for an absent one)."""
    return ref.matmul_integer_outcome(*inputs_of(dataset))


def feed(mm: MM, a, b, az=None, bz=None) -> list[np.ndarray]:
    """A data set in the model's graph-input order: A, B, then each zero point the model has."""
    s_az, s_bz = mm.zp_shapes()
    out = [a, b]
    if s_az is not None:
        out.append(az)
    if s_bz is not None:
        out.append(bz)
    return out


def as_reference(mm: MM, dataset: list) -> list:
    """A data set in graph-input order back to (A, B, a_zero_point, b_zero_point), None where absent."""
    s_az, _ = mm.zp_shapes()
    a, b, rest = dataset[0], dataset[1], list(dataset[2:])
    az = rest.pop(0) if s_az is not None else None
    bz = rest.pop(0) if rest else None
    return [a, b, az, bz]


def dataset_cases(mm: MM, datasets: list[list[np.ndarray]], seed: int, flags: list[str], **extra) -> Iterator[Case]:
    """The node case of the data sets (graph-input order) the spec defines, and the probe case of the others."""
    meta = FAMILY.meta(opset=mm.opset, clause=CLAUSE, compare=COMPARE, flags=flags, seed=seed, params=mm.params(),
                       reading=reading(mm, max((np.shape(d[0])[-1] for d in datasets), default=0)), **extra)
    outcomes = [expected(as_reference(mm, d)) for d in datasets]
    yield from split(mm.name, datasets, outcomes, lambda _: model(mm), meta)


def reading(mm: MM, k_data: int = 0) -> str:
    """case.json "reading": READING_EXACT where partial sums can leave int32 (K * 255 * 255 > 2**31 - 1, K the
    model's or, for symbolic dims, the largest of the data sets': k_data), and READING_ONE_ELEMENT for a zero point
    of shape [1]."""
    k = max(mm.a_shape[-1], k_data)
    out = [ref.READING_EXACT] if isinstance(k, int) and k * 255 * 255 > ref.INT32_MAX else []
    if "one" in (mm.a_zp, mm.b_zp):
        out.append(ref.READING_ONE_ELEMENT)
    return "; ".join(out)
