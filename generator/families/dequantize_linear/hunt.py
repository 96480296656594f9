"""Live hunting over DequantizeLinear (generator/hunting.py): one small model and one data set per example, built
as every case here (cases_of), biased to where the fault models (reference/dequantize_linear_faults.py) part from the
reference."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.families.dequantize_linear.cases import cases_of
from generator.families.dequantize_linear.spec import FAMILY, MIN_OPSET, Spec
from generator.reference import dequantize_linear as ref


HUNT_GRANULARITIES = ("per-tensor", "per-axis", "blocked")


def _hunt_scale_values(st: dtypes.DType) -> list[float]:
    """Scales worth trying first: simple ones, values whose products tie in a narrower output type, the scale
    type's subnormals and extremes (flush_subnormals, overflow, scale_distributed's x * x_scale)."""
    if st.name == "float8e8m0":
        return [1.0, 0.5, 2.0, 2.0**-127, 2.0**127, 2.0**-20, 2.0**15]
    return [1.0, 0.5, 0.1, 3.0, 1.0 + 2.0**-9, 1.0 + 2.0**-12, st.smallest_subnormal, st.smallest_normal,
            st.finite_max, st.finite_max / 3, 2.0**-20, 2.0**-130]


def hunt_spec(draw, x_type: str, max_opset: int) -> Spec:
    """A Spec of one data set drawn for x type x_type: version, scale and output types, zero point or none,
    granularity (negative axes, short blocks), shapes of at most 24 elements, values from the types' boundaries
    or any bits; one per-tensor x_scale in four +-0."""
    from hypothesis import strategies as st

    from generator import hunting

    opset = draw(st.sampled_from([v for v in ref.OPSETS if ref._T1_SINCE[x_type] <= v <= max_opset]))
    scale = draw(st.sampled_from(ref.scale_types(opset)))
    outs = [o for o in ref.output_types(opset) if o != scale] if opset >= 23 else []
    out = draw(st.sampled_from([None] + outs)) if scale != "float8e8m0" else draw(st.sampled_from(outs))
    zero_point = draw(st.booleans())
    grans = [g for g, v in zip(HUNT_GRANULARITIES, (10, 13, 21)) if v <= opset]
    gran = draw(st.sampled_from(grans))
    rank = 1 if gran == "per-tensor" else draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(rank))
    axis, block_size, sshape = None, 0, ()
    if gran != "per-tensor":
        i = draw(st.integers(0, rank - 1))
        axis = i - rank if draw(st.booleans()) else i
        if gran == "per-axis":
            sshape = (shape[i],)
        else:
            block_size = draw(st.integers(1, 4))
            sshape = tuple(-(-n // block_size) if j == i else n for j, n in enumerate(shape))
    xt, stt = dtypes.get(x_type), dtypes.get(scale)
    n, m = int(np.prod(shape)), int(np.prod(sshape)) if sshape else 1
    x_bits = draw(st.lists(hunting.elements(xt, hunting.pool(xt), extra_bits=hunting.nan_patterns(xt)),
                           min_size=n, max_size=n))
    s_bits = draw(st.lists(hunting.elements(stt, _hunt_scale_values(stt), extra_bits=hunting.nan_patterns(stt)),
                           min_size=m, max_size=m))
    x = hunting.array_of(xt, x_bits, shape)
    s = hunting.array_of(stt, s_bits, sshape)
    if gran == "per-tensor" and stt.name != "float8e8m0" and draw(st.integers(0, 3)) == 0:
        s = np.full(sshape, draw(st.sampled_from([-0.0, 0.0])), stt.np_dtype)  # zero_scale_folded: one x_scale, 0
    z = None
    if zero_point:
        z_bits = draw(st.lists(hunting.elements(xt, [0, 1, -1, xt.int_min, xt.int_max] if xt.is_integer
                                                else [0.0, 1.0, -0.5]), min_size=m, max_size=m))
        z = hunting.array_of(xt, z_bits, sshape)
        if x_type == "int32" and draw(st.booleans()):
            z = np.zeros(sshape, np.int32)  # a nonzero int32 zero point is undefined: mostly keep it defined
    return Spec(opset, x_type, scale, [(x, s, z)], zero_point=zero_point, axis=axis, block_size=block_size,
                output_dtype=out, flags=("hunt",))


def _bits_of(a, t: str) -> dict:
    d = dtypes.get(t)
    return {"shape": list(np.shape(a)), "bits": [int(b) for b in d.to_bits(np.asarray(a)).reshape(-1).tolist()]}


def _from_bits(d: dict, t: str) -> np.ndarray:
    return dtypes.get(t).from_bits(np.array(d["bits"], dtype=np.uint64)).reshape(d["shape"])


def hunt_example(spec: Spec):
    """The hunt Example of a one-data-set Spec: the node case test_dequantizelinear_hunt (or the probe
    test_dequantizelinear_hunt_probe where the reference leaves an element undefined), built by cases_of; args:
    the Spec with its tensors as bit patterns (exact), for rebuild."""
    from generator.hunting import Example

    made = {c.kind: c for c in cases_of(f"{FAMILY.prefix}_hunt", spec)}
    x, s, z = spec.sets[0]
    args = {"opset": spec.opset, "x_type": spec.x, "scale_type": spec.scale, "output_dtype": spec.output_dtype,
            "axis": spec.axis, "block_size": spec.block_size, "x": _bits_of(x, spec.x),
            "x_scale": _bits_of(s, spec.scale), "x_zero_point": None if z is None else _bits_of(z, spec.x)}
    return Example(made.get("node"), made.get("probe"), args)


def rebuild(args: dict):
    """The hunt example `args` describes (hunt_example): the same tensors, expected outputs from the reference."""
    z = args.get("x_zero_point")
    sets = [(_from_bits(args["x"], args["x_type"]), _from_bits(args["x_scale"], args["scale_type"]),
             None if z is None else _from_bits(z, args["x_type"]))]
    return hunt_example(Spec(int(args["opset"]), args["x_type"], args["scale_type"], sets, zero_point=z is not None,
                             axis=args.get("axis"), block_size=int(args.get("block_size") or 0),
                             output_dtype=args.get("output_dtype"), flags=("hunt",)))


def hunt(max_opset: int):
    """The hunt strategy (generator/hunting.py): one slice per x type the installed versions up to max_opset
    list, each drawing Examples of one small model (hunt_spec, hunt_example). None below opset 10."""
    if max_opset < MIN_OPSET:
        return None
    from hypothesis import strategies as st

    def slice_of(t: str):
        @st.composite
        def examples(draw):
            return hunt_example(hunt_spec(draw, t, max_opset))
        return examples()

    return {t: slice_of(t) for t, v in ref._T1_SINCE.items() if v <= max_opset}
