"""The built-in claims `builtin:onnx-node-tests` (runners/claim_sets/onnx-node-tests.claims): the configurations
ONNX's own node tests exercise for the operators a suite covers. A runtime that passes ONNX's backend tests (as
onnxruntime and OpenVINO run them in their CI) claims these: refusing one of them is a failure.

A case of the suite is in such a configuration when its model has the signature of one of ONNX's tests of its op:
the same domain and op, the same element type at each input and output, and the same scalar attributes that differ
from their schema default (an attribute written at its default, or one an older version of the op lacks, says
nothing). The operator version is left out: ONNX's tests are written at the newest opset, and a runtime that runs
the newest version of an op for some types runs its older versions for them too (a reading, docs/claims.md:
onnxruntime and OpenVINO register every version of these ops). The claims are then written over the suite's params
(runners/claims_make.py, with "implemented" read as "in such a configuration"): a configuration claimed whole holds
only cases of ONNX's signatures. scripts/onnx_node_test_claims.py writes the file; tests/test_claims.py checks it
is current with the installed onnx and the committed suite.
"""

from __future__ import annotations

import onnx

from runners.onnx_node_tests import collect

_SCALARS = {onnx.AttributeProto.INT: "i", onnx.AttributeProto.FLOAT: "f", onnx.AttributeProto.STRING: "s"}


def signature(model: onnx.ModelProto) -> tuple | None:
    """The signature of a one-node model (the module docstring), None for any other model or an op ONNX's schemas
    do not know."""
    if len(model.graph.node) != 1:
        return None
    node = model.graph.node[0]
    domain = "" if node.domain in ("", "ai.onnx") else node.domain
    opset = next((o.version for o in model.opset_import if (o.domain or "") in ("", "ai.onnx") and domain == ""
                  or o.domain == domain), None)
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, domain)
    except onnx.defs.SchemaError:
        return None
    types = {v.name: v.type.tensor_type.elem_type for v in [*model.graph.input, *model.graph.output,
                                                            *model.graph.value_info]}
    types.update({t.name: t.data_type for t in model.graph.initializer})
    defaults = {name: onnx.helper.get_attribute_value(a.default_value) for name, a in schema.attributes.items()
                if a.default_value.type in _SCALARS}
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute if a.type in _SCALARS}
    attrs = {k: v for k, v in attrs.items() if k not in defaults or defaults[k] != v}
    return (domain, node.op_type, tuple(types.get(n, 0) if n else 0 for n in node.input),
            tuple(types.get(n, 0) for n in node.output), tuple(sorted(attrs.items())))


def onnx_signatures(ops: list[str]) -> dict[tuple, str]:
    """{signature: the first ONNX node test with it} over ONNX's node tests of `ops` (ONNX-domain ops; others
    have no tests in onnx)."""
    out: dict[tuple, str] = {}
    for op in sorted(ops):
        try:
            cases = collect(op)
        except ModuleNotFoundError:  # no test module for this op in onnx
            continue
        for tc in cases:
            sig = signature(tc.model)
            if sig is not None:
                out.setdefault(sig, tc.name)
    return out
