"""The backend interface every adapter implements (DESIGN.md, "Runners").

A backend turns a model into something runnable (`prepare`) and runs it on one data set (`run`).
Outputs come back as numpy / ml_dtypes arrays of the declared output element types, bit-exact; string
outputs as object arrays of str. A backend that does not implement an op / type / attribute raises
Unsupported (reported apart from failures); any other exception is an error of the backend.
"""

from __future__ import annotations

import numpy as np
import onnx

from generator import dtypes
from generator.dtypes import DType
from generator.serialize import graph_io_types
from runners.compare import text_array


class Unsupported(Exception):
    """the backend says it does not implement this op / type / attribute"""


class UnknownBackend(Exception):
    """str() is ONE line naming the bad name and listing available backends"""


class BackendNotInstalled(UnknownBackend):
    """A known backend whose package is missing; str() says how to install it."""


class Backend:
    name: str = "?"

    def version(self) -> str:
        raise NotImplementedError

    def settings(self) -> dict:
        """Settings that change results, recorded in reports (e.g. precision hints)."""
        return {}

    def prepare(self, model: onnx.ModelProto, case) -> object:
        """case: generator.serialize.LoadedCase or None. May raise Unsupported."""
        raise NotImplementedError

    def run(self, prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """One data set: inputs in graph-input order (initializers excluded). May raise Unsupported."""
        raise NotImplementedError


def io_types(model: onnx.ModelProto) -> tuple[list[tuple[str, DType]], list[tuple[str, DType]]]:
    """(name, element type) of the graph inputs (initializers excluded) and outputs.

    Raises Unsupported for an element type the project does not know."""
    try:
        return graph_io_types(model)
    except KeyError as exc:
        raise Unsupported(f"graph input / output of an unknown element type: {exc.args[0]}") from None


def as_declared(a, t: DType) -> np.ndarray:
    """A backend's output in its declared element type, where that is an exact reinterpretation:
    str / bytes / unicode -> object array of str; the bit-pattern dtype of a float type -> that type;
    integers (bool) of another width whose values all fit -> the declared integer type.
    Anything else is returned unchanged, so that compare reports the wrong type; no value is fixed."""
    a = np.asarray(a)
    t = dtypes.get(t)
    if t.kind == "string":
        return text_array(a) if a.dtype.kind in "OUS" else a
    if a.dtype == t.np_dtype:
        return a
    if t.is_float and a.dtype == t.bits_dtype and (t.bits >= 8 or not (a >> t.bits).any()):
        return t.from_bits(a)
    if t.kind in ("int", "uint", "bool") and a.dtype.kind in "iub":
        if a.size == 0 or (t.int_min <= int(a.min()) and int(a.max()) <= t.int_max):
            return a.astype(t.np_dtype)
    return a
