"""Witnesses of the DequantizeLinear fault models (generator/reference/dequantize_linear_faults.py).

The search runs the family's catalogue (profile quick: no random case) through the kill matrix, with the groups
of the random cases (whose random values are credited with no kill); for every (group, fault) pair left alive it
draws data sets of the group's template model until one kills the fault: seeded PCG64 draws (generator.sampling),
so no hypothesis is involved and the search is repeatable.
Templates (one model per group, its params rebuild it):
  per-tensor   x (12,), a scalar scale
  per-axis     x (3, 3, 3), axis -1 (negative-axis groups) or 2: equal dimensions, so a wrong axis still runs
  blocked      x (2, 6), axis 1 (or -1), block_size 4: two blocks of 4 and 2, where ceil(6 / 2) = 3 is wrong
Draws: x any bit pattern (int32: +-2**20; 16-bit types one draw in two within +-100, zero points within +-27, so
that x - x_zero_point is exact in bfloat16); scales 2**[-6, 6) * [1, 2), two draws in seven scales that make results
subnormal in the output type, one in seven near the top of the range (x * x_scale overflows where the difference
times the scale does not), each exact in both the scale and the output type; float8e8m0 any pattern; zero points
any finite value of x's type.
A data set is kept only where the reference defines every element and every intermediate precision agrees
(spread 0), so the witness case compares exactly.

Witness data (JSON): {"what", "x", "scale", "zero_point" (or null): bit patterns as hex strings}.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from generator import dtypes, sampling
from generator.reference import dequantize_linear as ref
from generator.reference import dequantize_linear_faults as F

FAMILY = "dequantize_linear"
DRAWS = 400  # data sets drawn per group at most


def slug(key: str) -> str:
    """A group key as a case-name part."""
    out = key.replace("opset=", "opset").replace("x=", "").replace("scale=", "scale_").replace("out=", "to_")
    out = out.replace("zp=1", "zp").replace("zp=0", "nozp").replace("per-tensor", "per_tensor")
    return out.replace("per-axis", "per_axis").replace("negative-axis", "negative_axis").replace(" ", "_")


def template(params: dict) -> dict:
    """The group's model: shapes, axis, block_size (module docstring)."""
    g = params["granularity"]
    if g == "per-tensor":
        return {"x_shape": [12], "scale_shape": [], "axis": None, "block_size": 0}
    if g == "per-axis":
        return {"x_shape": [3, 3, 3], "scale_shape": [3], "axis": -1 if params.get("negative_axis") else 2,
                "block_size": 0}
    return {"x_shape": [2, 6], "scale_shape": [2, 2], "axis": -1 if params.get("negative_axis") else 1,
            "block_size": 4}


def _hex(a: np.ndarray, t: dtypes.DType) -> list[str]:
    return [f"0x{int(b):x}" for b in t.to_bits(np.asarray(a)).reshape(-1).tolist()]


def _unhex(bits: list[str], t: dtypes.DType, shape) -> np.ndarray:
    return t.from_bits(np.array([int(b, 16) for b in bits], dtype=np.uint64).astype(t.bits_dtype)).reshape(shape)


def encode(what: str, x, scale, zp, params: dict) -> dict:
    xt, st = dtypes.get(params["x"]), dtypes.get(params["scale"])
    return {"what": what, "x": _hex(x, xt), "scale": _hex(scale, st),
            "zero_point": None if zp is None else _hex(zp, xt)}


def decode(wit: dict, params: dict) -> tuple:
    tpl = {**template(params), **{k: params[k] for k in ("x_shape", "scale_shape") if k in params}}
    xt, st = dtypes.get(params["x"]), dtypes.get(params["scale"])
    zp = wit.get("zero_point")
    return (_unhex(wit["x"], xt, tpl["x_shape"]), _unhex(wit["scale"], st, tpl["scale_shape"]),
            None if zp is None else _unhex(zp, xt, tpl["scale_shape"]))


def spec_of(group: dict):
    """(Spec, per data set the faults it kills) of a catalogue group, for the family's witness case."""
    from generator.families.dequantize_linear import Spec

    params = group["params"]
    tpl = template(params)
    sets, names, seen = [], [], {}
    for name, entry in sorted(group["faults"].items()):
        for wit in entry.get("witnesses", []):
            key = (tuple(wit["x"]), tuple(wit["scale"]), tuple(wit.get("zero_point") or ()))
            if key in seen:
                names[seen[key]].append(name)
                continue
            seen[key] = len(sets)
            sets.append(decode(wit, params))
            names.append([name])
    if not sets:
        return None, []
    out = params["output"] if params["output"] != params["scale"] else None
    spec = Spec(params["opset"], params["x"], params["scale"], sets, zero_point=bool(params["zero_point"]),
                axis=tpl["axis"], block_size=tpl["block_size"], output_dtype=out, flags=("witness",),
                clause="the fault models' witnesses (generator/witness/catalogue/dequantize_linear.json)")
    return spec, names


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
