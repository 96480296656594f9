"""A model's com.microsoft MatMulIntegerToFloat node as a case (generator/from_model/plan.py), as onnxruntime's
optimizer writes it from quantize_dynamic's DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul (-> Add): A,
a_scale and a_zero_point computed by the model's DynamicQuantizeLinear (generated), B, b_scale, b_zero_point and
bias the model's constants, kept bit for bit.

The generated inputs take the family's data (generator/families/matmul_integer_to_float/config.py), with the
zero points the case holds (the model's where constant):
  zero      A = a_zero_point everywhere: every integer sum 0, Y = bias exactly (bias_ignored)
  ends      a computed a_zero_point at each end of its type, A uniform
  far       A at the far end of its type from its zero point: the largest sums the model's weights give
  pairs     uint8 x int8: A = 255 raw (x86 VPMADDUBSW saturates the int16 pairs of the model's large weights)
  random    A uniform over its type (or --calibration's range), a computed a_zero_point drawn
A computed a_scale is off float16's grid (core.scales). The bound is the family's (config.REASON).
"""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.families.matmul_integer_to_float import core
from generator.families.matmul_integer_to_float.config import FAMILY, REASON, U8, I8, Config, terms
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.reference import matmul_integer_to_float as ref
from generator.sampling import Stream, case_seed

OPS = ((ref.DOMAIN, "MatMulIntegerToFloat"),)
KINDS = ("zero", "ends_low", "ends_high", "far", "pairs", "random")


def present(site: Site, n: int = len(ref.INPUTS)) -> list:
    """The node's n operands in the reference's order, None for an omitted one."""
    ops = list(site.inputs) + [None] * (n - len(site.inputs))
    return [None if op is None or op.origin == "absent" else op for op in ops]


def slots(ops: list, generated: list[int], names: tuple = ref.INPUTS) -> list[str]:
    """The dot bound's slots: the node input of each graph input of the case (generated ones, and constants fed
    with their default), then of each initializer, both in node input order (node_cases.build's order)."""
    fed = [j for j, op in enumerate(ops) if op is not None and (j in generated or op.default)]
    held = [j for j, op in enumerate(ops) if op is not None and j not in fed]
    return [names[j] for j in fed + held]


def form(shape: tuple | None, length: int, vector: str, absent: str = "absent") -> str:
    if shape is None:
        return absent
    return {(): "tensor", (1,): "one"}.get(tuple(shape), vector if tuple(shape) == (length,) else "?")


def config_of(ops: list) -> Config:
    """The family's configuration of the node (its params group the case with the family's)."""
    a, b = ops[0].shape, ops[1].shape
    k, n = a[-1], b[-1]
    shape = [None if op is None else tuple(op.shape) for op in ops]
    return Config("model", tuple(a), tuple(b), ops[0].type.name, ops[1].type.name, ops[2].type.name,
                  form(shape[4], k, "k"), form(shape[2], k, "k", "tensor"), form(shape[5], n, "column"),
                  form(shape[3], n, "column", "tensor"), ops[6] is not None)


def plan(site: Site, ctx: Context) -> Plan | str:
    """The node's case, or why not (an input of unknown type or shape, a node the family's validator refuses)."""
    ops = present(site)
    if any(ops[j] is None for j in range(4)):
        return "the model's node is invalid: A, B, a_scale and b_scale are required"
    for j, op in enumerate(ops):
        if op is not None and (op.type is None or op.shape is None):
            return f"{ref.INPUTS[j]}'s element type or shape is unknown"
    try:
        ref.validate({}, site.opset or 1, [op and op.type for op in ops], [op and len(op.shape) for op in ops])
        ref.check_shapes(*[None if op is None else tuple(op.shape) for op in ops])
    except ValueError as exc:
        return f"the model's node is invalid: {exc}"
    cfg = config_of(ops)
    generated = [j for j, op in enumerate(ops) if op is not None and not op.constant]
    consts = {j: op.value() for j, op in enumerate(ops) if op is not None and op.constant}
    compare = core.dot_spec(FAMILY.name, slots(ops, generated), cfg.t3, terms(cfg), REASON)
    probe = [None if op is None else np.zeros(op.shape) for op in ops]
    reading = ref.readings(probe[2], probe[4], probe[3], probe[5], cfg.k)
    params = dict(cfg.params, what="model")
    lo, hi, note = _range(ctx, ops[0].name, dtypes.get(cfg.a_type))

    def outcome(args):
        return ref.matmul_integer_to_float(list(args)), (reading,)

    def made(s: Stream, kind: str) -> list:
        vals = _values(cfg, ops, consts, s, kind, lo, hi)
        return [vals[j] for j in generated]

    if not generated:
        return Plan(FAMILY.name, params, ref.CLAUSE, compare, [], [[]], None, None, outcome)
    edge = Stream(case_seed(0, f"{FAMILY.name} edges {site.name}"))
    kinds = [k for k in KINDS if k != "pairs" or (cfg.a_type, cfg.b_type) == (U8, I8)]
    return Plan(FAMILY.name, params, ref.CLAUSE, compare, generated, [made(edge, k) for k in kinds],
                lambda s: made(s, s.choice(kinds)), lambda s: made(s, "random"), outcome, range_note=note)


def _range(ctx: Context, name: str, t: dtypes.DType) -> tuple[int, int, str]:
    given = ctx.range(name)
    if given is not None and np.ceil(given[0]) <= np.floor(given[1]):
        lo = int(max(t.int_min, min(t.int_max, np.ceil(given[0]))))
        return lo, int(min(t.int_max, max(lo, np.floor(given[1])))), "calibration"
    return t.int_min, t.int_max, f"the whole {t.name} range"


def _values(cfg: Config, ops: list, consts: dict, s: Stream, kind: str, lo: int, hi: int) -> list:
    """Every input's value for one data set of `kind` (module docstring): the model's constants as they are."""
    at, t3 = dtypes.get(cfg.a_type), dtypes.get(cfg.t3)
    vals: list = [consts.get(j) for j in range(len(ref.INPUTS))]
    shape = [None if op is None else tuple(op.shape) for op in ops]
    for j in (2, 3, 6):  # computed scales and bias: plausible positive scales, a bias the size of the product
        if ops[j] is not None and vals[j] is None:
            n = int(np.prod(shape[j], dtype=np.int64))
            v = core.scales(s, max(n, 1), cfg.t3, 4, 8) if j < 6 else core.bias(s, n, cfg.t3, 1.0)
            vals[j] = v.reshape(-1)[:n].reshape(shape[j]).astype(t3.np_dtype)
    for j, t in ((4, at), (5, dtypes.get(cfg.b_type))):  # computed zero points
        if ops[j] is not None and vals[j] is None:
            n = int(np.prod(shape[j], dtype=np.int64))
            how, corner = ("ends", int(kind == "ends_high")) if kind.startswith("ends") else ("random", 0)
            vals[j] = core.zero_points(s, t.name, max(n, 1), how, corner)[:n].reshape(shape[j])
    if vals[1] is None:
        bt = dtypes.get(cfg.b_type)
        vals[1] = s.integers(bt.int_min, bt.int_max, shape[1], dtype=bt.np_dtype)
    if vals[0] is None:
        za = np.zeros((), np.int64) if vals[4] is None else np.asarray(vals[4], np.int64)
        if kind == "zero":
            a = np.broadcast_to(za, shape[0])
        elif kind == "far":
            a = np.broadcast_to(core.far(cfg.a_type, za), shape[0])
        elif kind == "pairs":
            a = np.full(shape[0], at.int_max)
        else:
            a = s.integers(lo, hi, shape[0])
        vals[0] = np.asarray(a).astype(at.np_dtype)
    return vals
