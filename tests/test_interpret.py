"""generator/interpret.py: the opconform backend's graph interpreter."""

import pytest

from generator.case import node_model
from generator.dtypes import get
from generator.interpret import compile_model


def _dequantize(inputs, opset=21):
    return node_model("DequantizeLinear", inputs, [("y", get("float"), (4,))], {}, opset)


def test_prepare_checks_run_with_an_omitted_optional_input():
    """A type-invalid model must be refused at prepare whether its optional zero point is absent or named ""."""
    bad = _dequantize([("x", get("int8"), (4,)), ("s", get("int8"), ())])  # an int8 scale: no T2 allows it
    with pytest.raises(Exception, match="(?i)scale|type"):
        compile_model(bad, validate=True)
    bad.graph.node[0].input.append("")  # the zero point omitted by name
    with pytest.raises(Exception, match="(?i)scale|type"):
        compile_model(bad, validate=True)
    good = _dequantize([("x", get("int8"), (4,)), ("s", get("float"), ())])
    good.graph.node[0].input.append("")
    assert compile_model(good, validate=True).steps
