"""Export ONNX's own node tests (from the installed onnx package) as on-disk node-test directories.

The onnx wheel does not ship its test data; onnx.backend.test.case.node.collect_testcases builds
the cases in memory. Written out in onnx's layout (model.onnx, test_data_set_0/input_<j>.pb,
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


def export(op_type: str, out_dir: Path | str) -> list[Path]:
    """Write ONNX's node tests of `op_type` under out_dir/<test name>/; return the directories."""
    from onnx.backend.test.case.node import collect_testcases

    out_dir = Path(out_dir)
    written = []
    for tc in collect_testcases(op_type):
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
