"""The DynamicQuantizeLinear fault models (generator/reference/dynamic_quantize_linear_faults.py) and their
witnesses (generator/witness/dynamic_quantize_linear.py, catalogue generator/witness/catalogue/):
  - every catalogued witness is one, and the family's witness case carries them all;
  - each fault is the reference wherever its one deviation cannot matter;
  - the committed catalogue is what the search writes today.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes, faults, witness
from generator.catalogue import dynamic_quantize_linear as codec
from generator.families import dynamic_quantize_linear as fam
from generator.reference import dynamic_quantize_linear as ref
from generator.reference import dynamic_quantize_linear_faults as F
from generator.witness import dynamic_quantize_linear as W

CATALOGUE = witness.load("dynamic_quantize_linear")
FAULTS = {f.name: f for f in F.FAULTS}
F32 = np.float32
DENORM = float(np.finfo(F32).smallest_subnormal)


def same(x: np.ndarray, fault) -> bool:
    return not W.differs(fault, x)


def random_xs(n: int, seed: int, lo: float = -100.0, hi: float = 100.0) -> list[np.ndarray]:
    """Random float32 vectors of random lengths, with signs, magnitudes over many octaves."""
    rs = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        k = int(rs.randint(1, 40))
        x = rs.uniform(lo, hi, k) * 2.0 ** rs.randint(-20, 20)
        out.append(x.astype(F32))
    return out


def test_group_key():
    assert F.group_key({"opset": 11, "params": {"what": "mixed"}}) == "opset=11"
    assert set(CATALOGUE["groups"]) == {"opset=11"}


def _witnesses():
    for key, group in sorted(CATALOGUE["groups"].items()):
        for name, entry in sorted(group["faults"].items()):
            for i, wit in enumerate(entry.get("witnesses", [])):
                yield pytest.param(name, wit, id=f"{name.split('.')[1]}-{i}")


@pytest.mark.parametrize("name,wit", list(_witnesses()))
def test_witness_kills_its_fault(name, wit):
    x = codec.decode(wit)
    # the vector-tail faults' witnesses have a partial last vector; the others are LENGTH long
    assert x.size == (int(name.rsplit("tail", 1)[1]) + 1 if "min_max_skip_tail" in name else
                      9 if name.endswith("y_tail_round_half_away") else W.LENGTH)
    assert W.differs(FAULTS[name], x), wit["what"]


def test_every_fault_has_witnesses():
    (group,) = CATALOGUE["groups"].values()
    for fault in F.FAULTS:
        assert fault.equivalent(dict(group["params"], opset=11)) is None
        assert group["faults"][fault.name]["witnesses"], fault.name


def test_witness_case_kills_through_the_interpreter():
    (case,) = list(fam.witness_cases())
    assert case.name == "test_dynamicquantizelinear_witness_opset11" and F.group_key(case.meta) == "opset=11"
    assert sorted({n for names in case.meta["witnesses"] for n in names}) == sorted(FAULTS)
    for inputs, outputs, names in zip(case.inputs, case.outputs, case.meta["witnesses"]):
        outcome = ref.dynamic_quantize_linear(inputs[0])
        y, scale, zp = outcome.outputs
        assert outcome.defined and np.array_equal(outputs[0], y) and np.array_equal(outputs[2], zp)
        for name in names:
            got = faults.fault_outputs(FAULTS[name], case.model, inputs, case.meta)
            assert faults.differs(outputs, got, [dtypes.from_numpy(o.dtype) for o in outputs]), name


def test_committed_catalogue_is_what_the_search_writes():
    assert W.find(11, 0) == CATALOGUE["groups"]


# ---------------------------------------------------------------------------------------
# the faults are the reference where their deviation cannot matter
# ---------------------------------------------------------------------------------------
def test_zero_point_clip_matters_only_for_subnormal_scales():
    """With a normal y_scale, -X_Min / y_scale is within 255 * 2**-23 of a value in [0, 255]: rounding it
    unclipped gives the clipped result (docstring of dynamic_quantize_linear_faults)."""
    fault = FAULTS["dynamic_quantize_linear.zero_point_unclipped"]
    xs = random_xs(400, 1) + [np.array([-v, 0.0], F32) for v in (1.0, 3.0, 1e-30, 7e37)]
    for x in xs:
        scale = ref.quantization_parameters(x)[0]
        if scale >= np.finfo(F32).tiny:
            assert same(x, fault), x
    # all-negative x: -X_Min / y_scale is 255 up to rounding, the largest it gets
    rs = np.random.RandomState(2)
    for _ in range(300):
        x = -np.abs(rs.uniform(0, 1, 5) * 2.0 ** rs.randint(-100, 100)).astype(F32)
        if ref.quantization_parameters(x)[0] >= np.finfo(F32).tiny:
            assert same(x, fault), x


def test_range_widening_matters_only_without_zero_inside():
    fault = FAULTS["dynamic_quantize_linear.range_not_widened"]
    for x in random_xs(300, 3):
        x = np.concatenate([x, np.array([0.0], F32)])  # min <= 0 <= max
        assert same(x, fault)


def test_reciprocal_scale_matters_only_off_powers_of_two():
    """range = 2**k: range * float32(1/255) is float32(1/255) scaled exactly, the correctly rounded quotient."""
    fault = FAULTS["dynamic_quantize_linear.scale_reciprocal"]
    for k in range(-100, 100):
        assert same(np.array([0.0, 2.0**k, 2.0 ** (k - 1)], F32), fault)


@pytest.mark.parametrize("name", ["dynamic_quantize_linear.y_reciprocal", "dynamic_quantize_linear.y_from_range"])
def test_y_formulas_matter_only_off_exact_scales(name):
    """y_scale = 2**k (range 255 * 2**k): 1 / y_scale is exact, so x * (1 / y_scale) == x / y_scale, and
    x * 255 / range is x / y_scale too (x * 255 exact below 2**104 of x's magnitude)."""
    fault = FAULTS[name]
    rs = np.random.RandomState(4)
    for k in range(-20, 20):
        x = (rs.uniform(-1, 1, 30) * 255 * 2.0**k).astype(F32)
        x[:2] = [0.0, 255 * 2.0**k]  # range 255 * 2**k, min 0
        x = np.clip(x, 0, None).astype(F32)
        assert ref.quantization_parameters(x)[0] == F32(2.0**k)
        assert same(x, fault), k


def test_half_away_matters_only_at_ties():
    """Random x, where no quotient (nor the zero point) is exactly j + 0.5 in float32: the reference."""
    fault = FAULTS["dynamic_quantize_linear.round_half_away"]
    for x in random_xs(300, 5):
        scale, zp = ref.quantization_parameters(x)
        q = x / scale
        if not (np.any(q - np.floor(q) == 0.5) or zp - np.floor(zp) == 0.5):
            assert same(x, fault)


def test_undefined_inputs_give_the_reference_placeholders():
    for x in (np.zeros(3, F32), np.array([np.nan, 1.0], F32), np.array([np.inf, 1.0], F32), np.zeros(0, F32),
              np.array([DENORM, 0.0], F32)):
        outcome = ref.dynamic_quantize_linear(x)
        y, scale, zp = outcome.outputs
        assert not outcome.defined
        for fault in F.FAULTS:
            fy, fscale, fzp = fault.fn([x], {}, 11, [])
            assert np.array_equal(y, fy) and np.array_equal(zp, fzp) and scale.tobytes() == fscale.tobytes()


def test_openvino_measured_scales_are_the_reciprocal_fault():
    """docs/quantization.md measured OpenVINO's y_scale as range * float32(1/255): the fault's y_scale."""
    x = np.array([0.0, 3.0], F32)
    _, scale, _ = FAULTS["dynamic_quantize_linear.scale_reciprocal"].fn([x], {}, 11, [])
    assert scale == F32(F32(3) * F32(F32(1) / F32(255))) != ref.quantization_parameters(x)[0]


def test_flush_subnormals_is_the_reference_on_normal_values_and_flushes_the_rest():
    """FTZ / DAZ changes nothing where every operand and result is normal (or 0); with a subnormal y_scale it is 0
    and the quotients NaN / +-Inf: NaN plus the zero point -> 0, Inf -> 255, what IREE 3.13 llvm-cpu returns for
    scale_subnormal's data set 1."""
    fn = FAULTS["dynamic_quantize_linear.flush_subnormals"].fn
    x = np.array([-2.5, 252.5, 0.0, 1.0, 100.5], np.float32)
    for got, want in zip(fn([x], {}, 11, [None]), ref.dynamic_quantize_linear(x).outputs):
        assert np.array_equal(got, want)
    tiny = np.finfo(np.float32).tiny
    x = np.array([-tiny, tiny, 0.0, -tiny / 2, 1e-45, -1e-45], np.float32)
    y, scale, zp = fn([x], {}, 11, [None])
    assert float(scale) == 0.0 and int(zp) == 255 and y.tolist() == [0, 255, 0, 0, 0, 0]


def test_divide_by_range_then_255_gives_tinygrads_numbers():
    """tinygrad 0.14.0 (CPU, clang 19) on test_dynamicquantizelinear_mixed's data set 1: y from
    float32(float32(x / range) * 255) and the zero point from float32(float32(-X_Min / range) * 255), y_scale
    range * float32(1 / 255): 1.0 -> 255 (the reference 254), the zero point 128 (127)."""
    x = np.array([-1.0, 1.0, 0.1, -0.1, 0.5, -0.5], F32)
    y, scale, zp = FAULTS["dynamic_quantize_linear.divide_by_range_then_255"].fn([x], {}, 11, [])
    assert y.tolist() == [0, 255, 141, 115, 192, 64] and int(zp) == 128
    assert scale.tobytes() == F32(F32(2) * F32(F32(1) / F32(255))).tobytes()
    assert ref.dynamic_quantize_linear(x).outputs[0].tolist() == [0, 254, 140, 114, 191, 63]
