"""DequantizeLinear's cases from Specs: the node case and its probe (or the negative case) of a Spec, the random
Specs per granularity, and the witnesses' cases (the committed catalogue, generator/catalogue/dequantize_linear.py's
form)."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import dtypes, sampling, witness
from generator.case import Case, node_model
from generator.catalogue.dequantize_linear import decode, slug, template
from generator.family import split
from generator.input_dims import varying_dims
from generator.outcome import Outcome
from generator.families.dequantize_linear.spec import EXACT, FAMILY, READING_IEEE, Spec, arr
from generator.reference import dequantize_linear as ref


def random_specs(n: int, seed: int) -> Iterator[tuple[str, Spec]]:
    """n seeded draws per granularity: x of a random type, uniform bit patterns; scales 2**[-8, 8) times
    [1, 2); zero points uniform in x's range (float types: 0)."""
    for g, (v, shape, axis, bs) in {"per_tensor": (21, (3, 9), None, 0), "per_axis": (21, (3, 9), -1, 0),
                                    "blocked": (21, (3, 9), 1, 3)}.items():  # whole blocks: short ones are blocked's
        s = sampling.Stream(sampling.case_seed(seed, f"test_dequantizelinear_random_{g}"))
        types = ("int8", "uint8", "int4", "uint4", "int16", "uint16", "float8e4m3fn", "float8e5m2")
        for t in types:
            d = dtypes.get(t)
            sshape = () if g == "per_tensor" else (9,) if g == "per_axis" else (3, 3)
            m = int(np.prod(sshape))
            sets = []
            for _ in range(n):
                x = d.from_bits(s.bits(d.bits, int(np.prod(shape))).astype(d.bits_dtype)).reshape(shape)
                if d.is_float:
                    x = np.where(d.isnan(x), d.from_bits(np.zeros((), d.bits_dtype)), x).astype(d.np_dtype)
                sc = (s.octaves(-8, 8, m) * (1 + s.random(m))).astype(np.float32).reshape(sshape)
                zp = arr(np.zeros(m) if d.is_float else s.integers(d.int_min, d.int_max, m), t, sshape)
                sets.append((x, sc, zp))
            yield f"{g}_{t}", Spec(v, t, "float", sets, axis=axis, block_size=bs, flags=("random",))


# ---------------------------------------------------------------------------------------
# turning a Spec into cases
# ---------------------------------------------------------------------------------------
def _params(spec: Spec, what: str) -> dict:
    shape = spec.shapes[1] if spec.shapes else np.shape(spec.sets[0][1])
    x_rank = len(spec.shapes[0]) if spec.shapes else np.ndim(spec.sets[0][0])
    gran = "per-tensor" if shape == () else "blocked" if spec.block_size else "per-axis"
    axis = 1 if spec.axis is None else spec.axis
    return {"what": what, "x": spec.x, "scale": spec.scale, "output": spec.out, "zero_point": spec.zero_point,
            "granularity": gran, "axis": None if gran == "per-tensor" else axis % max(x_rank, 1),
            "negative_axis": spec.axis is not None and spec.axis < 0, "block_size": spec.block_size}


def model_of(spec: Spec, x_shape: tuple, scale_shape: tuple):
    xt, st = dtypes.get(spec.x), dtypes.get(spec.scale)
    ins = [("x", xt, x_shape), ("x_scale", st, scale_shape)]
    if spec.zero_point:
        zt = dtypes.get(spec.zp_type) if spec.zp_type else xt
        ins.append(("x_zero_point", zt, scale_shape if not spec.error else spec.shapes[2]))
    return node_model("DequantizeLinear", ins, [("y", dtypes.get(spec.out), x_shape)], spec.attrs(), spec.opset)


def _compare(spread: int) -> dict:
    if not spread:
        return dict(EXACT)
    return {"mode": "ulp", "ulp": int(spread),
            "reason": f"within {int(spread)} ulp of the output type: the text fixes no precision for the steps "
                      "before it, and a float32 product rounded again, or operands rounded to the output type "
                      "first, land there (the reference rounds the exact product once)"}


def _zeros(t: str, shape: tuple) -> np.ndarray:
    """A negative case's data: zeros of type t (ones for a float scale, which a backend may check)."""
    d = dtypes.get(t)
    return np.full(shape, 1.0 if d.is_float else 0, dtype=np.float64 if d.is_float else np.int64).astype(d.np_dtype)


def cases_of(name: str, spec: Spec, seed: int = 0) -> Iterator[Case]:
    """The node case (defined data sets) and probe case (the others) of a Spec, or its negative case."""
    what = name.removeprefix(FAMILY.prefix + "_")
    spec_file = f"{FAMILY.spec_file}-{ref.version(spec.opset)}"
    if spec.error:
        data = [] if spec.phase == "prepare" else [[_zeros(t, sh) for t, sh in zip(
            (spec.x, spec.scale, spec.zp_type or spec.x), spec.shapes[:3 if spec.zero_point else 2])]]
        yield FAMILY.negative(name, model_of(spec, spec.shapes[0], spec.shapes[1]), data, phase=spec.phase,
                              opset=spec.opset, clause=spec.clause, flags=list(spec.flags), seed=seed,
                              params=_params(spec, what), spec_file=spec_file, error=spec.error,
                              reading=spec.reading)
        return
    kw = dict(axis=1 if spec.axis is None else spec.axis, block_size=spec.block_size,
              output_dtype=dtypes.get(spec.output_dtype).onnx if spec.output_dtype else None, opset=spec.opset,
              x_type=spec.x, scale_type=spec.scale)
    datasets, outcomes, spread = [], [], 0
    for x, s, z in spec.sets:
        out, sp = ref.dequantize_linear_explained(x, s, z, **kw)
        rest = [s] + ([z] if spec.zero_point else [])
        if out.defined:
            datasets.append([x] + rest)
            outcomes.append(out)
            spread = max(spread, int(sp.max(initial=0)))
            continue
        if not _elementwise(x, s):  # a data set as a whole: to the probe
            datasets.append([x] + rest)
            outcomes.append(out)
            continue
        # per-tensor 1-D x: the defined elements judged, only the open ones to the probe
        bad = out.mask()
        if (~bad).any():
            datasets.append([x[~bad]] + rest)
            outcomes.append(Outcome((out.outputs[0][~bad],)))
            spread = max(spread, int(sp[~bad].max(initial=0)))
        datasets.append([x[bad]] + rest)
        outcomes.append(Outcome((out.outputs[0][bad],), dict.fromkeys(out.reasons, np.True_)))
    readings = [spec.reading] + ([ref.READING_ONE_ROUNDING] if spread else []) + (
        [READING_IEEE] if any(_special(d, spec) for d, o in zip(datasets, outcomes) if o.defined) else [])
    meta = FAMILY.meta(opset=spec.opset, clause=spec.clause, compare=_compare(spread), flags=list(spec.flags),
                       seed=seed, params=_params(spec, what), spec_file=spec_file,
                       reading="; ".join(dict.fromkeys(r for r in readings if r)) or None)
    x_dims, s_dims = varying_dims([d[0] for d in datasets], "n"), varying_dims([d[1] for d in datasets], "m")
    yield from split(name, datasets, outcomes, lambda ins: model_of(spec, x_dims or ins[0].shape,
                                                                    s_dims or ins[1].shape), meta)


def _special(inputs: list, spec: Spec) -> bool:
    """A judged data set with a NaN or an infinite x, scale or zero point: its y rests on READING_IEEE."""
    types = (spec.x, spec.scale, spec.x)
    for a, t in zip(inputs, types):
        d = dtypes.get(t)
        if d.is_float:
            with np.errstate(invalid="ignore"):
                if not np.isfinite(np.asarray(a).astype(np.float64)).all():
                    return True
    return False


def _elementwise(x: np.ndarray, s: np.ndarray) -> bool:
    """A 1-D x with a scalar scale: each element on its own (split element by element)."""
    return np.ndim(x) == 1 and np.ndim(s) == 0


def witness_cases(max_opset: int = ref.OPSETS[-1]) -> Iterator[Case]:
    """The fault models' witnesses from the committed catalogue: one case per group (params rebuild its Spec)."""
    groups = witness.load(FAMILY.name).get("groups", {})
    if not groups:
        return
    for key, group in sorted(groups.items()):
        spec, names = spec_of(group)
        if spec is None or spec.opset > max_opset:
            continue
        for case in cases_of(f"{FAMILY.prefix}_witness_{slug(key)}", spec):
            if case.kind == "node":
                case.meta["witnesses"] = names
            yield case


def spec_of(group: dict) -> tuple[Spec | None, list[list[str]]]:
    """(Spec, per data set the faults it kills) of a catalogue group, for the family's witness case."""
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
