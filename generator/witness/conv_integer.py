"""Witnesses of the ConvInteger fault models (generator/reference/conv_integer_faults.py), per group.

For each of the 24 groups (type pair x x_zero_point form x w_zero_point form) one configuration, grouped, dilated,
strided and padded so that every geometry fault can differ: x (1, 4, 5, 4), w (2, 2, 3, 3), group 2, dilations
[2, 1], strides [1, 2] (K = C / group x taps = 18: a remainder for every K-tail width), auto_pad "NOTSET" written
and pads [1, 0, 2, 1]; small, as every group's witnesses are committed. For each fault that can differ there, the first of these data
sets on which it does (`how: "construction"`, checked against the reference; a fault with none would be a hole, and
find() raises):
  far      zero points at the bottom of their types, every element at the top: products of 255 * 255 (128 * 255 or
           128 * 128 without a zero point), sums beyond int16
  wrap     zero points at the top, elements at the bottom: x - x_zero_point = -255 leaves the 8-bit types
  pairs    x at the top of its type, w at the bottom: in u8 x s8 terms (int8 x + 128, uint8 w - 128) 255 * -128, whose
           adjacent pairs leave int16
  mixed    x and w drawn from a PCG64 stream seeded by the group, zero points drawn non-zero (distinct per channel)
           (last: the others' runs are a few bytes of JSON)
and three configurations of their own (case test_convinteger_witness_<group>_<configuration>):
  float32  x (1, K, 1), w (1, K, 1), kernel 1: K - 2 far products, one of +-1 and a last 0, an exact odd sum between
           2**24 and 2**25 that no float32 holds (K a multiple of 16: no K-tail fault differs there)
  same     the group's configuration with auto_pad SAME_LOWER instead (W's total padding 1 is odd, H's dilated total 4
           differs from the undilated 2): far, then mixed
  1d       mixed's data on a 1-D convolution x (1, 4, 7), w (2, 2, 3), group 2, a per-tensor w_zero_point of shape [1]
           (w_zero_point_as_4d refuses it)
Witness data (JSON): generator/catalogue/conv_integer.py's form, with the configuration's params.
"""

from __future__ import annotations

import numpy as np

from generator import dtypes, sampling
from generator.catalogue.conv_integer import encode
from generator.faults import Refusal
from generator.families.conv_integer.spec import CI, OPSET, U8
from generator.reference import conv_integer as ref
from generator.reference import conv_integer_faults as F
from generator.witness import group_faults

_FORMS = {"absent": "absent", "present": "tensor", "tensor": "tensor", "channel": "channel"}


def configuration(x_type: str, w_type: str, x_zp: str, w_zp: str, label: str = "") -> CI:
    """The witness configuration of a group (the module docstring); label "float32" / "same" / "1d" for those."""
    what = "witness_" + F.key_of(x_type, w_type, x_zp, w_zp).replace(" ", "_").replace("=", "_")
    attrs: dict = {"auto_pad": "SAME_LOWER"} if label == "same" else {"auto_pad": "NOTSET", "pads": [1, 0, 2, 1]}
    base = dict(types=(x_type, w_type), x_zp=_FORMS[x_zp], w_zp=_FORMS[w_zp], data="witness")
    if label == "float32":
        return CI(what + "_float32", (1, 16, 1), (1,), 1, {"auto_pad": "NOTSET"}, **base)
    if label == "1d":  # a per-tensor w_zero_point as [1] (READING_ONE_ELEMENT): a 1-D one, of the group's form
        attrs = dict(pads=[1, 2], group=2, dilations=[2], strides=[1])
        one_d = dict(base, w_zp="one" if w_zp == "tensor" else base["w_zp"])
        return CI(what + "_1d", (1, 4, 7), (3,), 2, attrs, **one_d)
    return CI(what + (f"_{label}" if label else ""), (1, 4, 5, 4), (3, 3), 2, dict(attrs, group=2, dilations=[2, 1], strides=[1, 2]), **base)


def _zero_point(t: dtypes.DType, form: str, m: int, s: sampling.Stream, value: int | None = None):
    if form == "absent":
        return None
    n = m if form == "channel" else 1
    v = [value] * n if value is not None else s.sample([x for x in range(t.int_min, t.int_max + 1) if x != 0], n)
    arr = np.array(v, dtype=np.int64).astype(t.np_dtype)
    return arr if form in ("channel", "one") else arr.reshape(())


def candidates(ci: CI) -> list[tuple[str, list]]:
    """The data sets (what, [x, w, x_zero_point, w_zero_point]) tried for each fault, in order."""
    xt, wt = (dtypes.get(t) for t in ci.types)
    s = sampling.Stream(sampling.case_seed(0, ci.name))
    x = s.integers(xt.int_min, xt.int_max, ci.x_shape, dtype=xt.np_dtype)
    w = s.integers(wt.int_min, wt.int_max, ci.w_shape, dtype=wt.np_dtype)
    mixed = ("mixed", [x, w, _zero_point(xt, ci.x_zp, ci.m, s), _zero_point(wt, ci.w_zp, ci.m, s)])
    out = []
    lo = [_zero_point(t, form, ci.m, s, t.int_min) for t, form in ((xt, ci.x_zp), (wt, ci.w_zp))]
    hi = [_zero_point(t, form, ci.m, s, t.int_max) for t, form in ((xt, ci.x_zp), (wt, ci.w_zp))]
    xf = xt.int_max if ci.x_zp != "absent" or xt.name == U8 else xt.int_min
    wf = wt.int_max if ci.w_zp != "absent" or wt.name == U8 else wt.int_min
    out.append(("far", [np.full(ci.x_shape, xf, xt.np_dtype), np.full(ci.w_shape, wf, wt.np_dtype)] + lo))
    out.append(("wrap", [np.full(ci.x_shape, xt.int_min, xt.np_dtype), np.full(ci.w_shape, wt.int_min, wt.np_dtype)]
                + hi))
    out.append(("pairs", [np.full(ci.x_shape, xt.int_max, xt.np_dtype), np.full(ci.w_shape, wt.int_min, wt.np_dtype)]
                + mixed[1][2:]))
    return out + [mixed]  # last: the runs of the others are a few bytes of JSON each, mixed's 116 numbers


def float32_candidate(ci: CI) -> tuple[str, list]:
    """float32's data set (the module docstring) on its configuration, resized to the K it needs."""
    xt, wt = (dtypes.get(t) for t in ci.types)
    za = 0 if ci.x_zp == "absent" else xt.int_min
    zb = 0 if ci.w_zp == "absent" else wt.int_min
    fa = xt.int_max if ci.x_zp != "absent" or xt.name == U8 else xt.int_min
    fb = wt.int_max if ci.w_zp != "absent" or wt.name == U8 else wt.int_min
    p = abs((fa - za) * (fb - zb))
    k = -(-(2**24 // p + 3) // 16) * 16
    x = np.full((1, k, 1), fa, xt.np_dtype)
    w = np.full((1, k, 1), fb, wt.np_dtype)
    x[0, -2], w[0, -2] = za + 1, zb + 1
    x[0, -1] = za
    s = sampling.Stream(0)
    return "float32", [x, w, _zero_point(xt, ci.x_zp, 1, s, za if ci.x_zp != "absent" else None),
                       _zero_point(wt, ci.w_zp, 1, s, zb if ci.w_zp != "absent" else None)]


def differs(fault, ci: CI, inputs: list) -> bool:
    """Does the fault's output differ from the reference's (every element defined), or refuse, on these inputs?"""
    outcome = ref.conv_integer(*inputs, **ci.attrs)
    if not outcome.defined:
        return False
    try:
        got = fault.fn(inputs, ci.attrs, OPSET, [])[0]
    except Refusal:
        return True
    return got.shape != outcome.outputs[0].shape or not np.array_equal(got, outcome.outputs[0])


def _params(ci: CI, inputs: list) -> dict:
    return dict(ci.params(), x_shape=list(inputs[0].shape), w_shape=list(inputs[1].shape))


def find(max_opset: int, budget: int = 0) -> dict:
    """The catalogue's groups: every group, each fault's witness or its equivalence proof (budget: unused, every
    witness is built)."""
    if max_opset < OPSET:
        return {}
    groups = {}
    for parts in F.all_groups():
        ci = configuration(*parts)
        f32 = configuration(*parts, label="float32")
        one_d = configuration(*parts, label="1d")
        same = configuration(*parts, label="same")
        tried = [(ci, "", what, inputs) for what, inputs in candidates(ci)]
        tried += [(same, "same", what, inputs) for what, inputs in candidates(same)[::3]]
        tried.append((f32, "float32") + float32_candidate(f32))
        tried += [(one_d, "1d", what, inputs) for what, inputs in candidates(one_d)[-1:]]
        params = ci.params()

        def witnesses_of(fault, tried=tried, key=F.key_of(*parts)) -> tuple[str, list]:
            if not fault.applies(params):
                return "construction", []
            for conf, label, what, inputs in tried:
                if differs(fault, conf, inputs):
                    entry = encode(inputs, what)
                    if label:
                        entry.update(configuration=label, params=_params(conf, inputs))
                    return "construction", [entry]
            raise ValueError(f"conv_integer witness: no data set tells {fault.name} apart in {key!r}")

        groups[F.key_of(*parts)] = {"params": params,
                                    "faults": group_faults(F.FAULTS, dict(params, opset=OPSET), witnesses_of)}
    return groups
