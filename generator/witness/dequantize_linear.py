"""Witnesses of the DequantizeLinear fault models (generator/reference/dequantize_linear_faults.py).

The search runs the family's catalogue (profile quick: no random case) through the kill matrix, with the groups
of the random cases (whose random values are credited with no kill); for every (group, fault) pair left alive it
draws data sets of the group's template model until one kills the fault: seeded PCG64 draws (generator.sampling),
so no hypothesis is involved and the search is repeatable.
Templates: one model per group, its params rebuild it (generator/catalogue/dequantize_linear.py, template).
Draws: x any bit pattern (int32: +-2**20; 16-bit types one draw in two within +-100, zero points within +-27, so
that x - x_zero_point is exact in bfloat16); scales 2**[-6, 6) * [1, 2), two draws in seven scales that make results
subnormal in the output type, one in seven near the top of the range (x * x_scale overflows where the difference
times the scale does not), each exact in both the scale and the output type; float8e8m0 any pattern; zero points
any finite value of x's type.
A data set is kept only where the reference defines every element and every intermediate precision agrees
(spread 0), so the witness case compares exactly.
Constructed first, for the faults that need a scale no draw gives (ZERO_SCALE): a draw of its own stream with
x_scale -0, or +0 where that kills nothing (x - x_zero_point negative throughout): some element of the
product is then -0 (or NaN).

Witness data (JSON): generator/catalogue/dequantize_linear.py's form.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from generator import dtypes, faults, sampling
from generator.catalogue.dequantize_linear import encode, template
from generator.reference import dequantize_linear as ref
from generator.reference import dequantize_linear_faults as F

FAMILY = "dequantize_linear"
DRAWS = 400  # data sets drawn per group at most
ZERO_SCALE = ("dequantize_linear.zero_scale_folded",)  # killed only by a zero x_scale, which no draw gives


# ---------------------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------------------
def _draw(s: sampling.Stream, params: dict, tpl: dict) -> tuple:
    xt, st, ot = (dtypes.get(params[k]) for k in ("x", "scale", "output"))
    n = int(np.prod(tpl["x_shape"]))
    m = int(np.prod(tpl["scale_shape"])) if tpl["scale_shape"] else 1
    small = xt.is_integer and xt.bits > 8 and s.booleans()  # x - zp within 8 bits: exact in every output type
    if small:
        x = np.asarray(s.integers(max(xt.int_min, -100), 100, n)).astype(xt.np_dtype)
    elif xt.name == "int32":
        x = np.asarray(s.integers(-(2**20), 2**20, n)).astype(np.int32)
    else:
        x = xt.from_bits(s.bits(xt.bits, n).astype(xt.bits_dtype))
    if st.name == "float8e8m0":
        sc = st.from_bits(s.integers(0, 255, m).astype(np.uint8))
    else:
        kind = s.integers(0, 7)
        if kind < 2:  # results subnormal in the output type (and in the scale's, where it has them)
            v = s.octaves(ot.min_exponent - 12, ot.min_exponent - 2, m)
        elif kind == 2:  # near the top: x * x_scale overflows where (x - x_zero_point) * x_scale does not
            big = min(ot.finite_max, st.finite_max)
            top = int(np.log2(big))
            v = np.minimum(s.octaves(top - 1, top + 1, m), big)
        else:
            v = s.octaves(-6, 6, m)
        # exact in the output type too: then rounding the scale to it first (DequantizeLinear-23's precision)
        # changes nothing, and the draw can compare exactly
        sc = ref.round_to(ref._values(ref.round_to(v, ot), ot), st)
    zp = None
    if params["zero_point"]:
        if xt.is_float:
            zb = s.bits(xt.bits, m).astype(xt.bits_dtype)
            zp = xt.from_bits(zb)
            zp = np.where(np.isfinite(ref._values(zp, xt)), zp, xt.from_bits(np.zeros(m, xt.bits_dtype)))
            zp = zp.astype(xt.np_dtype)
        elif xt.name == "int32":
            zp = np.zeros(m, np.int32)
        elif small:
            zp = np.asarray(s.integers(max(xt.int_min, -27), 27, m)).astype(xt.np_dtype)
        else:
            zp = np.asarray(s.integers(xt.int_min, xt.int_max, m)).astype(xt.np_dtype)
        zp = zp.reshape(tpl["scale_shape"])
    return x.reshape(tpl["x_shape"]), np.asarray(sc).reshape(tpl["scale_shape"]), zp


def _kills(fault, params: dict, tpl: dict, x, sc, zp) -> bool:
    out_dtype = dtypes.get(params["output"]).onnx if params["output"] != params["scale"] else None
    kw = dict(axis=1 if tpl["axis"] is None else tpl["axis"], block_size=tpl["block_size"], output_dtype=out_dtype,
              opset=params["opset"], x_type=params["x"], scale_type=params["scale"])
    try:
        out, spread = ref.dequantize_linear_explained(x, sc, zp, **kw)
    except ValueError:
        return False
    if not out.defined or spread.any():
        return False
    attrs = {k: v for k, v in (("axis", tpl["axis"]), ("block_size", tpl["block_size"]),
                               ("output_dtype", out_dtype)) if v}
    types = [dtypes.get(params["x"]), dtypes.get(params["scale"])] + ([dtypes.get(params["x"])] if zp is not None
                                                                       else [])
    try:
        got = fault.fn([x, sc] + ([zp] if zp is not None else []), attrs, params["opset"], types)
    except faults.Refusal:  # it raises where a result is due: killed, as the kill matrix counts it
        return True
    except Exception:  # noqa: BLE001 - a fault that cannot run here kills nothing
        return False
    return F.killed(fault, {"compare": {"mode": "exact"}}, list(out.outputs), got)


def survivors() -> dict[str, tuple[dict, list[str]]]:
    """{group key: (params, faults alive)} after the family's catalogue cases (profile quick)."""
    from generator.families import dequantize_linear as fam
    from generator.kill_matrix import KillMatrix

    km = KillMatrix([FAMILY])
    for unit in fam.work("quick", 0, ref.OPSETS[-1])[:-1]:  # all but the witness unit
        for case in unit():
            km.add(case)
    for _, spec in fam.random_specs(1, 0):  # the random cases' groups, with no kill credited to random values
        for case in fam.cases_of("test_dequantizelinear_random_group", spec):
            km.add(dataclasses.replace(case, inputs=[], outputs=[]) if case.kind == "node" else case)
    out = {}
    for key, row in km.matrix()[FAMILY]["groups"].items():
        alive = [f for f, e in row.items() if e["status"] == "survived"]
        if alive:
            out[key] = (km.params[FAMILY][key], alive)
    return out


def find(max_opset: int, budget: float) -> dict:
    """The catalogue's groups: every group the catalogue cases leave a fault alive in, with a witness per fault
    (budget is unused: the search is a fixed number of seeded draws)."""
    by_name = {f.name: f for f in F.FAULTS}
    groups = {}
    for key, (params, alive) in sorted(survivors().items()):
        if params["opset"] > max_opset:
            continue
        tpl = template(params)
        s = sampling.Stream(sampling.case_seed(0, key))
        found: dict[str, dict] = {}
        for name in (n for n in alive if n in ZERO_SCALE):  # its own stream: the draws below stay as they were
            x, sc, zp = _draw(sampling.Stream(sampling.case_seed(1, key)), params, tpl)
            for zero in (-0.0, 0.0):
                if _kills(by_name[name], params, tpl, x, np.full_like(sc, zero), zp):
                    found[name] = {"how": "construction", "witnesses": [encode(f"x_scale {zero:+}", x,
                                                                                  np.full_like(sc, zero), zp, params)]}
                    break
        for i in range(DRAWS):
            if len(found) == len(alive):
                break
            x, sc, zp = _draw(s, params, tpl)
            for name in alive:
                if name not in found and _kills(by_name[name], params, tpl, x, sc, zp):
                    found[name] = {"how": "search", "witnesses": [encode(f"draw {i}", x, sc, zp, params)]}
        keep = {k: params[k] for k in ("opset", "x", "scale", "output", "zero_point", "granularity", "negative_axis",
                                        "axis")}
        keep.update(template(params))
        groups[key] = {"params": keep, "faults": found}
    return groups
