"""The project's reference implementations, one module per operator.

A reference module that runs as graph nodes exposes NODES: {(domain, op_type): node function}, which the
opconform backend (runners/backends/opconform.py) calls node by node:

    fn(inputs: list[np.ndarray], attrs: dict, opset: int, input_types: list[DType]) -> list[np.ndarray]

inputs: one array per node input (None for an omitted optional input); attrs: attribute values by ONNX
name (strings as str, tensors as numpy arrays); opset: the model's import of the node's domain;
input_types: the element type of each input. Outputs come back in their ONNX element types.
The domain of the default ONNX operator set is "" ("ai.onnx" is looked up as "").

Modules are found by name (every module here but the *_faults ones): adding an operator edits no table.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Callable

import numpy as np

from generator.dtypes import DType

NodeFunction = Callable[[list[np.ndarray], dict, int, list[DType]], list[np.ndarray]]


@functools.cache
def references() -> dict[tuple[str, str], NodeFunction]:
    """(domain, op_type) -> node function, from every reference module's NODES."""
    table: dict[tuple[str, str], NodeFunction] = {}
    for m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if m.name.endswith("_faults"):
            continue
        for key, fn in getattr(importlib.import_module(f"{__name__}.{m.name}"), "NODES", {}).items():
            if key in table:
                raise RuntimeError(f"two references of {key}: {table[key].__module__} and {fn.__module__}")
            table[key] = fn
    return table


def lookup(domain: str, op_type: str) -> NodeFunction | None:
    """The node function of an operator, or None; "ai.onnx" and "" are the same domain."""
    return references().get(("" if domain == "ai.onnx" else domain, op_type))
