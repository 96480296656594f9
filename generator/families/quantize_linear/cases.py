"""QuantizeLinear's cases from Specs: the node case and its probe (or the negative case) of a Spec, the catalogue's,
the witnesses' (the committed catalogue, generator/catalogue/quantize_linear.py's form) and the random ones."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import dtypes, sampling, witness
from generator.case import Case, node_model
from generator.catalogue.quantize_linear import KEEP, as_type, decode, slug
from generator.family import split, split_elements
from generator.input_dims import varying_dims
from generator.outcome import Outcome
from generator.families.quantize_linear.spec import CATALOGUE, CLAUSE_AXIS, COMPARE_FLOAT, COMPARE_INT, FAMILY, Spec
from generator.reference import quantize_linear as ref


def _model(spec: Spec, inputs: tuple, x_shape: tuple | None = None):
    x, s, z = inputs
    s_shape = varying_dims([st[1] for st in spec.sets], "m") or s.shape
    x_shape = x_shape or varying_dims([st[0] for st in spec.sets], "n") or x.shape
    ins = [("x", dtypes.get(spec.x_type), x_shape), ("y_scale", dtypes.get(spec.scale_type), s_shape)]
    if z is not None:
        ins.append(("y_zero_point", dtypes.get(spec.zp_type), s_shape))
    out = spec.out
    return node_model(FAMILY.op, ins, [("y", out, x_shape)], dict(spec.attrs), spec.opset)


def params_of(spec: Spec, name: str) -> dict:
    """What case.json "params" says of a case (the fault groups are made of it)."""
    out = spec.out
    p = dtypes.get(int(spec.attrs["precision"])).name if spec.attrs.get("precision") else spec.scale_type
    return {"what": name, "version": ref.schema_version(spec.opset), "x": spec.x_type, "scale": spec.scale_type,
            "zero_point": spec.zp_type, "y": out.name, "precision": p,
            "saturate": int(spec.attrs.get("saturate", 1)) if out.name in dtypes.FLOAT8_SATURATE_TYPES else None,
            "granularity": _granularity(spec), "attrs": {k: int(v) for k, v in sorted(spec.attrs.items())}}


def _granularity(spec: Spec) -> str:
    x, s, _ = spec.sets[0]
    try:
        return ref.check_shapes(spec.opset, x.shape, s.shape, None, int(spec.attrs.get("axis", 1)),
                                int(spec.attrs.get("block_size", 0)))
    except ValueError:
        return "invalid"


def _explained(spec: Spec) -> Iterator[tuple[Outcome, tuple[str, ...]]]:
    """(Outcome, readings) of each data set (reference.quantize_linear_explained)."""
    for x, s, z in spec.sets:
        yield ref.quantize_linear_explained(x, s, z, x_type=spec.x_type, scale_type=spec.scale_type,
                                            zero_point_type=spec.zp_type if z is not None else None,
                                            opset=spec.opset, axis=int(spec.attrs.get("axis", 1)),
                                            saturate=int(spec.attrs.get("saturate", 1)),
                                            block_size=int(spec.attrs.get("block_size", 0)),
                                            output_dtype=int(spec.attrs.get("output_dtype", 0)),
                                            precision=int(spec.attrs.get("precision", 0)))


def spec_cases(name: str, spec: Spec, seed: int = 0, extra: dict | None = None) -> Iterator[Case]:
    """The node case (and probe) of a Spec, or its negative case."""
    full = f"{FAMILY.prefix}_{name}"
    params = params_of(spec, name)
    if spec.negative:
        inputs = [[v for v in spec.sets[0] if v is not None]]
        yield FAMILY.negative(full, _model(spec, spec.sets[0]), inputs, phase=spec.phase, opset=spec.opset,
                              clause=spec.clause, flags=list(spec.flags), seed=seed, params=params,
                              error=spec.negative, reading=spec.reading)
        return
    results = list(_explained(spec))
    readings = sorted({r for _, rs in results for r in rs})
    compare = COMPARE_FLOAT if spec.out.is_float else COMPARE_INT
    elementwise = spec.sets[0][0].ndim == 1 and spec.sets[0][1].ndim == 0
    datasets, outcomes = [], []
    for (x, sc, z), (outcome, _) in zip(spec.sets, results):
        if not elementwise:  # a data set as a whole: to the probe if any element is undefined
            datasets.append([v for v in (x, sc, z) if v is not None])
            outcomes.append(outcome)
            continue
        # per-tensor 1-D x: the defined elements to the node case, the others to the probe
        xd, kept, xu, reasons = split_elements(x, outcome)
        left = Outcome((outcome.outputs[0][outcome.mask()],), dict.fromkeys(reasons, np.True_))
        for part, part_outcome in ((xd, kept), (xu, left)):
            if part.size:
                datasets.append([v for v in (part, sc, z) if v is not None])
                outcomes.append(part_outcome)
    shape = ("n",) if elementwise else None
    meta = FAMILY.meta(opset=spec.opset, clause=spec.clause, compare=dict(compare), flags=list(spec.flags), seed=seed,
                       params=params, reading="; ".join(readings) or None, **(extra or {}))
    yield from split(full, datasets, outcomes, lambda _: _model(spec, spec.sets[0], shape), meta)


def catalogue_cases(max_opset: int) -> Iterator[Case]:
    for key, fn in CATALOGUE.items():
        spec = fn()
        if spec.opset <= max_opset:
            yield from spec_cases(key.removeprefix(FAMILY.prefix + "_"), spec)


def witness_cases(max_opset: int) -> Iterator[Case]:
    """One node case per (group, configuration) of the committed witness catalogue (generator/witness/
    catalogue/quantize_linear.json), expected outputs from the reference; case.json "witnesses" names the
    faults each data set was built for."""
    groups = witness.load(FAMILY.name)["groups"]
    if not groups:
        return
    for key, group in sorted(groups.items()):
        if int(group["params"]["opset"]) > max_opset:
            continue
        for i, (spec, made_for) in enumerate(specs_of(group)):
            name = f"witness_{slug(key)}_{i}"
            yield from spec_cases(name, spec, extra={"witnesses": made_for})


def specs_of(group: dict) -> list[tuple[Spec, list[list[str]]]]:
    """(Spec, [[fault names] per data set]) for a group's witness cases: the per-tensor witnesses of one
    configuration as data sets of one case (x repeated cyclically to KEEP elements), each per-axis / blocked one
    a case of its own."""
    merged: dict[str, tuple] = {}
    for name, entry in sorted(group["faults"].items()):
        for w in entry.get("witnesses", []):
            x, s, z = decode(w)
            per_tensor = x.ndim == 1 and s.ndim == 0
            conf = repr((w["opset"], w["x_type"], w["scale_type"], w["zp_type"], sorted(w["attrs"].items()),
                         None if per_tensor else (w["shape"], w["x"], w["scale"], w["zp"])))
            if per_tensor:
                x = np.resize(x, KEEP)
            spec, made_for, seen = merged.setdefault(conf, (
                Spec(int(w["opset"]), [], x_type=w["x_type"], scale_type=w["scale_type"], zp_type=w["zp_type"],
                     attrs=dict(w["attrs"]), flags=("witness",)), [], {}))
            data = repr((w["x"], w["scale"], w["zp"]))
            if data in seen:
                made_for[seen[data]].append(name)
                continue
            seen[data] = len(spec.sets)
            spec.sets.append((x, s, z))
            made_for.append([name])
    return [(spec, made_for) for spec, made_for, _ in merged.values()]


def random_cases(n: int, seed: int, max_opset: int) -> Iterator[Case]:
    """Seeded random x over random per-axis scales and zero points, for the faults nobody modelled."""
    s = sampling.Stream(sampling.case_seed(seed, f"{FAMILY.prefix}_random"))
    for i in range(n):
        out = ("uint8", "int8", "int16", "uint4")[i % 4]
        opset = 21 if max_opset >= 21 else 13
        if dtypes.get(out).bits != 8 and opset < 21:
            out = "uint8"
        o = dtypes.get(out)
        shape = (3, 16)
        sets = []
        for _ in range(2):
            scale = s.octaves(-6, 6, 3)
            zp = s.integers(o.int_min, o.int_max, 3)
            x = s.uniform(-1.0, 1.0, 48).reshape(shape) * (o.int_max - o.int_min) * scale[:, None]
            sets.append((as_type(x, "float"), as_type(scale, "float"), as_type(zp, out)))
        spec = Spec(opset, sets, zp_type=out, attrs={"axis": 0}, flags=("random",), clause=CLAUSE_AXIS)
        yield from spec_cases(f"per_axis_{out}_{i}_random", spec, seed=int(s.integers(0, 2**31 - 1)))
