"""The contract between `gen-cases --from-model` and a family: how one node of a user's model becomes a case.

A family that can take a model's node has a module generator/from_model/<family>.py, found by its name (no central
table), with

    OPS: tuple[(domain, op_type), ...]      the operators it takes ("" is ai.onnx)
    plan(site: Site, ctx: Context) -> Plan | str
                                             the case of that node, or one line saying why the node is not covered
                                             (a configuration the family's reference does not implement)

A Plan keeps the node as the model writes it (generator/from_model/node_cases.py builds the one-node model: the
node's attributes, the model's opset, its constants as initializers); what it decides is what the family decides
for its own cases: the parameters the fault module groups by (params), the clause and comparison, and the data of
the inputs the model does not hold (`generated`: the activations, and inputs another node computes):

    edges    data sets made of the family's edge values for this configuration (ties, saturation, the zero point)
    draw     one candidate data set for the witness search, biased to where the fault models part from the
             reference (node_cases.py keeps the candidates that tell a fault apart that nothing else did)
    random   one seeded data set in the activation's range (Context.range: --calibration, else the plan's own)
    outcome  the family's reference on the node's whole inputs (None for an omitted one): (Outcome, readings)

A chain (Q -> DQ) is a plan of its first node with `chain` naming the nodes after it: a graph case of those nodes,
their tensors named as in the model, every constant of each an initializer (generator/from_model/chains.py).
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from generator.from_model.model_source import Site
from generator.outcome import Outcome
from generator.sampling import Stream

DataSet = list  # one array per generated input, in Plan.generated order


@dataclass
class Context:
    """What the user gave for the whole model: value ranges of named tensors (--calibration)."""
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)

    def range(self, name: str) -> tuple[float, float] | None:
        """(lo, hi) of the tensor's values as calibration data shows them, or None."""
        return self.ranges.get(name)


@dataclass
class Plan:
    family: str
    params: dict  # case.json "params", as the family's fault module groups cases (group_key)
    clause: str
    compare: dict
    generated: list[int]  # node input positions whose data the case's data sets hold
    edges: list[DataSet]
    draw: Callable[[Stream], DataSet]
    random: Callable[[Stream], DataSet]
    outcome: Callable[[list], tuple[Outcome, tuple[str, ...]]]
    spec_file: str | None = None  # the family's default text where None
    flags: tuple[str, ...] = ()
    range_note: str = ""  # where the random data's range came from ("calibration", or the plan's default)
    # a chain (a graph case, generator/from_model/chains.py): the nodes after the site's, in graph order, each fed
    # by the one before; its name's word ("chain_qdq") and op
    chain: list = field(default_factory=list)
    label: str = ""
    op: str = ""
    kind: str = "node"  # "graph" for a chain
    # the opset of the family's group of the same meaning, where the node's opset forms none (case.json
    # "group_opset": Cast at opset 17 joins Cast-13's group, and that group's catalogued equivalences)
    group_opset: int | None = None


def _modules() -> dict[str, object]:
    import generator.from_model as pkg
    found = {}
    for m in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"generator.from_model.{m.name}")
        if hasattr(mod, "OPS") and hasattr(mod, "plan"):
            found[m.name] = mod
    return found


_TABLE: dict[tuple[str, str], object] | None = None


def adapters() -> dict[tuple[str, str], object]:
    """(domain, op_type) -> the module that plans that operator's nodes."""
    global _TABLE
    if _TABLE is None:
        table = {}
        for name, mod in _modules().items():
            for key in mod.OPS:
                if key in table:
                    raise RuntimeError(f"two from-model adapters of {key}: {table[key].__name__} and {name}")
                table[key] = mod
        _TABLE = table
    return _TABLE


def covered(site: Site) -> bool:
    return site.key in adapters()


def tile(values: np.ndarray, shape: tuple[int, ...], offset: int = 0) -> np.ndarray:
    """values repeated (from offset, cyclically) to fill shape: edge values spread over every position, so that
    each scale of a per-axis or blocked quantization meets them."""
    flat = np.asarray(values).ravel()
    n = int(np.prod(shape, dtype=np.int64))
    if flat.size == 0 or n == 0:
        return np.resize(flat, shape)
    idx = (np.arange(n) + offset) % flat.size
    return flat[idx].reshape(shape)


EDGE_ELEMENTS = 2048  # edge values per node at most, over all its edge data sets
MAX_EDGE_SETS = 16


def edge_sets(values: np.ndarray, shape: tuple[int, ...]) -> list[np.ndarray]:
    """The edge values as whole tensors of shape: one data set per shape-full of values, at most MAX_EDGE_SETS and
    EDGE_ELEMENTS elements in all (beyond that, values spread evenly over the list, both ends kept); where they fit
    in one, a second shifted by one place, so that each value meets another scale of a per-axis or blocked
    quantization."""
    flat = np.asarray(values).ravel()
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0 or flat.size == 0:
        return [np.resize(flat, shape)]
    most = max(1, min(MAX_EDGE_SETS, EDGE_ELEMENTS // n))
    if flat.size > most * n:
        flat = flat[np.unique(np.linspace(0, flat.size - 1, most * n).round().astype(np.int64))]
    chunks = -(-flat.size // n)
    count = min(most, max(chunks, 2 if flat.size > 1 and n > 1 else 1))
    return [tile(flat, shape, offset=i * n if chunks > 1 else i) for i in range(max(count, 1))]
