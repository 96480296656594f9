"""Fault models of ONNX CastLike: Cast's (generator/reference/cast_faults.py), each run as a CastLike node, the
target type taken from target_type's element type as the reference does (generator/reference/cast_like.py).

CastLike-N is Cast-N with `to` read from its second input, so a plausible wrong CastLike is a plausible wrong
Cast: the same deviations, named cast_like.<what> after cast.<what>, with Cast's applicability and equivalence
proofs. A group is Cast's (from, to, saturate, round_mode, opset), at CastLike's opsets.
"""

from __future__ import annotations

import dataclasses

from generator import dtypes
from generator.faults import Fault
from generator.reference import cast_faults

group_key = cast_faults.group_key


def _like(cast_fn):
    """A CastLike node function from a Cast one: input alone, `to` = target_type's element type."""
    def fn(inputs, attrs, opset, input_types):
        return cast_fn(inputs[:1], dict(attrs, to=dtypes.get(input_types[1]).onnx), opset, input_types[:1])
    return fn


def like(fault: Fault) -> Fault:
    """Cast's fault as CastLike's."""
    return dataclasses.replace(fault, name="cast_like." + fault.name.split(".", 1)[1], fn=_like(fault.fn))


FAULTS: tuple[Fault, ...] = tuple(like(f) for f in cast_faults.FAULTS)
