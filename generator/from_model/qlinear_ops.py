"""A model's com.microsoft QLinearAdd / Mul / Sigmoid / LeakyRelu / Softmax / AveragePool / GlobalAveragePool /
Concat / Where node as a case (generator/from_model/plan.py): the node's attributes, its scales and zero points the
model's constants (a computed one is not taken: the family's operators are per tensor and the model fixes them), its
tensors generated as the family draws them (generator/families/qlinear_ops/config.py): T's ends, every value of T in
turn, the values near each zero point, uniform ones; judged by the family's range compare over the model's own
tensor names."""

from __future__ import annotations

import numpy as np

from generator.families.qlinear_ops.config import RANGE_REASON, TOLERANT, chain, rounding_reading
from generator.from_model.model_source import Site
from generator.from_model.node_cases import slot_names
from generator.from_model.plan import Context, Plan, tile
from generator.reference import qlinear_ops as ref
from generator.sampling import Stream

OPS = tuple((ref.DOMAIN, op) for op in ref.QOPS)


def _attr(a):
    from generator.interpret import decode_attribute
    return decode_attribute(a)


def plan(site: Site, ctx: Context) -> Plan | str:
    op = site.op
    slots = ref.slots_of(op, len(site.inputs))
    if len(site.inputs) > len(slots):
        return f"the model's node is invalid: {op} takes {len(slots)} inputs, not {len(site.inputs)}"
    attrs = {a.name: _attr(a) for a in site.node.attribute}
    generated, shapes, consts = [], {}, {}
    t = None
    for i, (slot, operand) in enumerate(zip(slots, site.inputs)):
        if operand.origin == "absent":
            if not slot.optional:
                return f"the model's node is invalid: {slot.name} is required"
            continue
        if slot.kind in ("scale", "zp"):
            if not operand.constant:
                return f"{slot.name} is computed by another node (the family takes the model's constant)"
            consts[i] = operand.value()
            continue
        if operand.type is None or operand.shape is None:
            return f"{slot.name}'s element type or shape is unknown"
        if slot.kind == "q":
            t = operand.type
        if not operand.constant:
            generated.append(i)
            shapes[i] = tuple(operand.shape)
    if t is None or t.name not in ("uint8", "int8"):
        return f"{op}'s tensors are {t.name if t else 'of no known type'}: the family takes uint8 / int8"
    try:
        ref.validate(op, attrs, [None if o.origin == "absent" else o.type for o in site.inputs])
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    zero = {slots[i].role: int(np.asarray(v).ravel()[0]) for i, v in consts.items() if slots[i].kind == "zp"}
    lo, hi = t.int_min, t.int_max

    def tensor(i: int, values: np.ndarray) -> np.ndarray:
        if slots[i].kind == "cond":
            return tile(np.asarray(values) % 2 == 1, shapes[i])
        return tile(np.asarray(values), shapes[i]).astype(t.np_dtype)

    def around(i: int) -> np.ndarray:
        z = zero.get(slots[i].role, 0)
        return np.clip(np.arange(z - 16, z + 17), lo, hi)

    every = np.arange(lo, hi + 1)
    edges = [[tensor(i, every if k == 0 else every[::-1]) for k, i in enumerate(generated)],
             [tensor(i, np.array([lo, hi, hi, lo])) for i in generated],
             [tensor(i, around(i)) for i in generated]]

    def random(stream: Stream) -> list:
        return [tensor(i, stream.integers(lo, hi, int(np.prod(shapes[i], dtype=np.int64)))) for i in generated]

    def draw(stream: Stream) -> list:
        """Half the elements near their tensor's zero point (ties, small results), the rest anywhere in T."""
        out = []
        for i in generated:
            n = int(np.prod(shapes[i], dtype=np.int64))
            z = zero.get(slots[i].role, 0)
            near = np.clip(z + stream.integers(-8, 8, n), lo, hi)
            out.append(tensor(i, np.where(stream.booleans(n), near, stream.integers(lo, hi, n))))
        return out

    def outcome(args: list):
        return ref.qlinear(op, list(args), attrs), tuple(_readings(op, attrs, site))

    names, _ = slot_names(site)  # the one-node case's tensor names (generator/from_model/node_cases.py)
    tensors = {s.name: n for s, n, o in zip(slots, names, site.inputs) if o.origin != "absent"}
    compare = {"mode": "range", "operands": "dq_op_q", "chain": chain(op, attrs, len(site.inputs)),
               "tensors": tensors, "reason": RANGE_REASON, "tolerant": dict(TOLERANT)}
    shapes_in_order = [list(o.shape) for s, o in zip(slots, site.inputs) if s.kind in ("q", "cond") and o.shape]
    params = {"what": f"model_{site.name}", "op": op, "t": t.name, "shapes": shapes_in_order,
              "attrs": {k: v for k, v in attrs.items()},
              "omitted": [s.name for s, o in zip(slots, site.inputs) if o.origin == "absent"]
              + [s.name for s in slots[len(site.inputs):]],
              "scale_shape": [], "source": "model"}
    return Plan("qlinear_ops", params, ref.QOPS[op].clause, compare, generated, edges, draw, random, outcome,
                spec_file=ref.SPEC_FILE, range_note="T's whole range")


def _readings(op: str, attrs: dict, site: Site) -> list[str]:
    out = [rounding_reading(op), ref.READING_FLOAT32]
    slots = ref.slots_of(op, len(site.inputs))
    if any(s.kind == "zp" and (i >= len(site.inputs) or site.inputs[i].origin == "absent")
           for i, s in enumerate(slots)):
        out.append(ref.READING_DEFAULT_ZERO_POINT)
    full = dict(ref.QOPS[op].attrs, **attrs)
    if full.get("ceil_mode") and full.get("count_include_pad"):
        out.append(ref.READING_CEIL)
    return out


__all__ = ["OPS", "plan"]
