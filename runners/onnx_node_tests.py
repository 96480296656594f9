"""Export ONNX's own node tests (from the installed onnx package) as on-disk node-test directories.

The onnx wheel does not ship its test data; onnx.backend.test.case.node builds the cases in
memory. Written out in onnx's layout (model.onnx, test_data_set_0/input_<j>.pb,
output_<j>.pb, no case.json), they are collected by the pytest plugin like any plain ONNX
node-test directory, so `--backend opconform` checks our references against ONNX's expectations.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper


def _tensor_bytes(value, name: str) -> bytes:
    if isinstance(value, onnx.TensorProto):
        tensor = onnx.TensorProto()
        tensor.CopyFrom(value)
        tensor.name = name
    else:
        arr = np.asarray(value)
        if arr.dtype.kind == "U":
            arr = arr.astype(object)
        tensor = numpy_helper.from_array(arr, name=name)
    return tensor.SerializeToString(deterministic=True)


def collect(op_type: str) -> list:
    """ONNX's node test cases of one operator, as onnx.backend.test's TestCase objects.

    onnx registers its examples when each test module is first imported, filtered by the op type
    asked for at that moment, so collect_testcases() cannot be asked twice. Instead the export_*
    methods of the operator's module are run again into an empty registry, restored afterwards."""
    import importlib

    import onnx.backend.test.case.node as node
    from onnx.backend.test.case.base import Base

    module = importlib.import_module(f"onnx.backend.test.case.node.{op_type.lower()}")
    saved = (list(node._NodeTestCases), dict(node._existing_names), node._TargetOpType)
    node._NodeTestCases.clear()
    node._existing_names.clear()
    node._TargetOpType = op_type
    try:
        for cls in vars(module).values():
            if isinstance(cls, type) and issubclass(cls, Base) and cls is not Base:
                for name in sorted(vars(cls)):
                    if name.startswith("export"):
                        np.random.seed(0)  # as onnx does before each export
                        getattr(cls, name)()
        return list(node._NodeTestCases)
    finally:
        node._NodeTestCases[:] = saved[0]
        node._existing_names.clear()
        node._existing_names.update(saved[1])
        node._TargetOpType = saved[2]


def export(op_type: str, out_dir: Path | str) -> list[Path]:
    """Write ONNX's node tests of `op_type` under out_dir/<test name>/; return the directories."""
    out_dir = Path(out_dir)
    written = []
    for tc in collect(op_type):
        case_dir = out_dir / tc.name
        case_dir.mkdir(parents=True, exist_ok=True)
        model = tc.model
        (case_dir / "model.onnx").write_bytes(model.SerializeToString(deterministic=True))
        in_names = [i.name for i in model.graph.input]
        out_names = [o.name for o in model.graph.output]
        for i, (inputs, outputs) in enumerate(tc.data_sets):
            ds = case_dir / f"test_data_set_{i}"
            ds.mkdir(exist_ok=True)
            for j, value in enumerate(inputs):
                (ds / f"input_{j}.pb").write_bytes(_tensor_bytes(value, in_names[j]))
            for j, value in enumerate(outputs):
                (ds / f"output_{j}.pb").write_bytes(_tensor_bytes(value, out_names[j]))
        written.append(case_dir)
    return written
