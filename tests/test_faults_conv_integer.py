"""ConvInteger's fault models (generator/reference/conv_integer_faults.py): each is the reference with one deviation,
its equivalence proofs hold on data, and the committed witness catalogue is what the constructions build."""

import numpy as np
import pytest

from generator import sampling, witness
from generator.catalogue.conv_integer import decode
from generator.faults import Refusal
from generator.families.conv_integer import ci_of
from generator.reference import conv_integer as ref
from generator.reference import conv_integer_faults as F
from generator.witness import conv_integer as W

BY_NAME = {f.name: f for f in F.FAULTS}


def _run(fault, inputs, attrs=None):
    try:
        return fault.fn(list(inputs), dict(attrs or {}), 10, [])[0]
    except Refusal:
        return None


def test_every_fault_is_named_described_and_says_where_it_was_seen():
    assert len(BY_NAME) == len(F.FAULTS) >= 20
    for f in F.FAULTS:
        assert f.name.startswith("conv_integer.") and f.what and f.seen_in, f.name


def test_on_data_that_triggers_no_deviation_every_fault_gives_the_reference():
    """No zero points, no padding, no dilation, group 1, uint8 values 0 .. 2 (no pair, product or sum leaves int16
    or float32), K = C x taps = 16 x 1 (no tail): each fault then computes exactly the reference's result."""
    s = sampling.Stream(7)
    x = s.integers(0, 2, (2, 16, 5, 4), dtype=np.uint8)
    w = s.integers(0, 2, (3, 16, 1, 1), dtype=np.uint8)
    for attrs in ({}, {"auto_pad": "VALID"}):
        want = ref.conv_integer(x, w).outputs[0]
        for f in F.FAULTS:
            if f.name == "conv_integer.auto_pad_present_as_same_upper" and attrs:
                continue  # a 1 x 1 kernel: SAME_UPPER pads nothing, so it does agree; VALID written is its trigger
            assert np.array_equal(_run(f, [x, w, None, None], attrs), want), f.name


def test_padding_with_zero_gives_minus_two_on_the_example():
    """The with_padding example: the corner is 1 by READING_PADDING, -2 if the padding held the quantized 0."""
    x = np.arange(2, 11, dtype=np.uint8).reshape(1, 1, 3, 3)
    w = np.ones((1, 1, 2, 2), np.uint8)
    y = _run(BY_NAME["conv_integer.padding_zero"], [x, w, np.uint8(1), None], {"pads": [1, 1, 1, 1]})
    assert y[0, 0, 0, 0] == -2 and ref.conv_integer(x, w, np.uint8(1), pads=[1, 1, 1, 1]).outputs[0][0, 0, 0, 0] == 1


def test_the_int16_pair_saturation_of_onnxruntime_16105():
    """u8 x s8, x = [255, 255], w = [127, 127] on two channels: the pair 64770 saturates to 32767."""
    x = np.full((1, 2, 1), 255, np.uint8)
    w = np.full((1, 2, 1), 127, np.int8)
    assert int(_run(BY_NAME["conv_integer.int16_pair_saturation"], [x, w, None, None]).reshape(-1)[0]) == 32767
    assert int(ref.conv_integer(x, w).outputs[0].reshape(-1)[0]) == 64770


def test_the_refusals_refuse_what_they_say():
    x, w = np.zeros((1, 2, 5), np.uint8), np.zeros((2, 2, 3), np.uint8)
    wz = np.array([1, 2], np.uint8)
    assert _run(BY_NAME["conv_integer.w_zero_point_per_channel_refused"], [x, w, None, wz]) is None
    assert _run(BY_NAME["conv_integer.w_zero_point_as_4d"], [x, w, None, wz]) is None  # 1-D: w becomes 4-D
    assert _run(BY_NAME["conv_integer.w_zero_point_as_4d"], [x, w, None, np.array(1, np.uint8)]) is not None
    assert _run(BY_NAME["conv_integer.omitted_x_zero_point_refused"], [x, w, None, wz]) is None
    assert _run(BY_NAME["conv_integer.omitted_x_zero_point_refused"], [x, w, np.uint8(0), wz]) is not None
    same = {"auto_pad": "SAME_UPPER", "dilations": [2]}
    assert _run(BY_NAME["conv_integer.same_dilated_refused"], [x, w, None, None], same) is None
    assert _run(BY_NAME["conv_integer.same_dilated_refused"], [x, w, None, None], {"auto_pad": "SAME_UPPER"}) \
        is not None


@pytest.mark.parametrize("group", F.all_groups(), ids=lambda g: F.key_of(*g).replace(" ", "_"))
def test_a_fault_proved_equivalent_in_a_group_never_differs_there(group):
    """The group's witness data sets (every extreme the constructions use), on its configurations, and seeded
    random ones: a fault whose equivalent() gives a proof agrees with the reference."""
    sets = []
    for label in ("", "same", "1d"):
        ci = W.configuration(*group, label=label)
        sets += [(ci, inputs) for _, inputs in W.candidates(ci)]
        s = sampling.Stream(sampling.case_seed(1, ci.name))
        xt, wt = (np.iinfo(np.dtype(t)) for t in ci.types)
        for _ in range(3):
            x = s.integers(xt.min, xt.max, ci.x_shape).astype(ci.types[0])
            w = s.integers(wt.min, wt.max, ci.w_shape).astype(ci.types[1])
            sets.append((ci, [x, w] + W.candidates(ci)[-1][1][2:]))
    ci0 = W.configuration(*group)
    params = dict(ci0.params(), opset=10)
    quiet = [f for f in F.FAULTS if f.applies(params) and f.equivalent(params) is not None]
    for ci, inputs in sets:
        want = ref.conv_integer(*inputs, **ci.attrs).outputs[0]
        for f in quiet:
            assert np.array_equal(_run(f, inputs, ci.attrs), want), (f.name, F.key_of(*group), ci.name)


def test_each_live_fault_differs_on_its_catalogued_witness():
    groups = witness.load("conv_integer")["groups"]
    assert len(groups) == len(F.all_groups())
    for key, group in groups.items():
        for name, entry in group["faults"].items():
            for wit in entry.get("witnesses", []):
                params = wit.get("params", group["params"])
                ci = ci_of("w", params)
                inputs = decode(wit, (np.dtype(ci.types[0]), np.dtype(ci.types[1])))
                assert W.differs(BY_NAME[name], ci, inputs), (key, name)


def test_the_committed_witness_catalogue_is_what_the_constructions_build():
    assert W.find(10) == witness.load("conv_integer")["groups"], \
        "regenerate: python -c \"from generator.witness import find, save; save(find('conv_integer', 28, 0))\""


def test_every_group_has_every_live_fault_witnessed():
    for key, group in witness.load("conv_integer")["groups"].items():
        params = dict(group["params"], opset=10)
        for f in F.FAULTS:
            if f.applies(params):
                assert f.name in group["faults"], (key, f.name)
