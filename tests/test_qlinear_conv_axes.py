"""The axes of generation (generator/axes.py) in the QLinearConv family (issue 21): explicit defaults, vector tails,
the opset boundary; the readings every judged case carries; the fault model that explains OpenVINO's unexplained
per-channel failures; a seen_in on every fault."""

from __future__ import annotations

import numpy as np
import pytest

from generator import axes, dtypes, faults
from generator.families import qlinear_conv as fam
from generator.reference import qlinear_conv as ref
from generator.reference import qlinear_conv_faults as F

FAULTS = {f.name: f for f in F.FAULTS}


def _kills(case, fault) -> list[int]:
    out = []
    for i, (inputs, outputs) in enumerate(zip(case.inputs, case.outputs)):
        got = faults.fault_outputs(fault, case.model, inputs, case.meta)
        if faults.differs(outputs, got, [dtypes.from_numpy(o.dtype) for o in outputs]):
            out.append(i)
    return out


@pytest.fixture(scope="module")
def tail_case():
    (case,) = list(fam.tail_cases())
    return case


def test_every_fault_says_where_it_was_seen():
    assert all(f.seen_in.strip() for f in F.FAULTS)


def test_explicit_defaults_writes_every_default_and_kills_the_presence_fault():
    conv = fam.CATALOGUE["explicit_defaults"]()
    assert axes.attribute_defaults("QLinearConv", 10).items() <= conv.attrs.items()
    assert conv.attrs["strides"] == [1, 1] and conv.attrs["dilations"] == [1, 1] and conv.attrs["pads"] == [0] * 4
    assert conv.attrs["kernel_shape"] == list(conv.kernel) and conv.kernel[0] != conv.kernel[1]
    (case,) = [c for c in fam.conv_cases(replace_what(conv, "explicit_defaults"), 3, 0, ["edge"]) if c.kind == "node"]
    names = {a.name for a in case.model.graph.node[0].attribute}
    assert names == {"auto_pad", "group", "strides", "dilations", "pads", "kernel_shape"}
    assert _kills(case, FAULTS["qlinear_conv.auto_pad_present_as_same_upper"]) == [0, 1, 2]
    # the same configuration without the attributes: the presence fault is the reference
    bare = replace_what(conv, "bare")
    bare = fam.replace(bare, attrs={})
    (plain,) = [c for c in fam.conv_cases(bare, 2, 0, ["edge"]) if c.kind == "node"]
    assert _kills(plain, FAULTS["qlinear_conv.auto_pad_present_as_same_upper"]) == []


def replace_what(conv, what):
    return fam.replace(conv, what=what)


def test_tail_case_is_one_model_of_symbolic_width_and_channels(tail_case):
    dims = [d.dim_param or d.dim_value for d in tail_case.model.graph.output[0].type.tensor_type.shape.dim]
    assert dims == [1, "m", "w"]
    assert len(tail_case.inputs) == len(fam.TAIL_WIDTHS) + len(fam.TAIL_CHANNELS) + len(fam.TAIL_SATURATE_WIDTHS)


def _killed_sizes(tail_case, name, part):
    lo = {"width": 0, "channels": len(fam.TAIL_WIDTHS),
          "saturate": len(fam.TAIL_WIDTHS) + len(fam.TAIL_CHANNELS)}[part]
    sizes = {"width": fam.TAIL_WIDTHS, "channels": fam.TAIL_CHANNELS, "saturate": fam.TAIL_SATURATE_WIDTHS}[part]
    return {sizes[i - lo] for i in _kills(tail_case, FAULTS[name]) if lo <= i < lo + len(sizes)}, set(sizes)


@pytest.mark.parametrize("w", F.TAIL_WIDTHS)
def test_width_tail_faults_die_exactly_where_the_last_position_is_in_a_partial_vector(tail_case, w):
    killed, sizes = _killed_sizes(tail_case, f"qlinear_conv.width_tail{w}_round_half_away", "width")
    assert killed == {n for n in sizes if n < w or n % w}


def test_channel_and_saturation_tails(tail_case):
    killed, sizes = _killed_sizes(tail_case, "qlinear_conv.channel_tail8_round_half_away", "channels")
    assert killed == {m for m in sizes if m % 8} and 8 not in killed and 16 not in killed
    killed, sizes = _killed_sizes(tail_case, "qlinear_conv.width_tail8_unsaturated", "saturate")
    assert killed == {n for n in sizes if n % 8}
    # only the last output position is decisive: everywhere else acc is 0
    for inputs, (y,) in zip(tail_case.inputs, tail_case.outputs):
        assert not y[..., :-1].any() and y[..., -1].all()


def test_every_judged_case_carries_the_requantization_reading():
    cases = [c for unit in fam.work("quick", 0, 10) for c in unit()]
    judged = [c for c in cases if c.kind == "node"]
    assert judged and all(ref.READING_REQUANTIZATION in c.meta["reading"] for c in judged)
    same_dilated = [c for c in judged if str(c.meta["params"].get("auto_pad", "")).startswith("SAME")
                    and any(d > 1 for d in c.meta["params"].get("dilations", []))]
    assert same_dilated and all(ref.READING_SAME_DILATED in c.meta["reading"] for c in same_dilated)
    assert all("reading" not in c.meta for c in cases if c.kind != "node")


def test_opset_boundary_cases():
    assert fam.boundary_opsets(28) == [11, 28] and fam.boundary_opsets(10) == []
    cases = list(fam.boundary_cases(28, 2))
    assert [c.name for c in cases] == ["test_qlinearconv_pads_symmetric_opset11",
                                       "test_qlinearconv_pads_symmetric_opset28"]
    assert [c.model.opset_import[0].version for c in cases] == [11, 28] == [c.meta["opset"] for c in cases]
    base = [c for c in fam.conv_cases(fam.replace(fam.CATALOGUE["pads_symmetric"](), what="pads_symmetric"), 2, 0,
                                      ["edge"])][0]
    for c in cases:  # the same data as opset 10's case
        assert all(np.array_equal(a, b) for s, t in zip(c.inputs, base.inputs) for a, b in zip(s, t))


def test_openvino_per_channel_failure_is_the_combined_fault():
    """OpenVINO 2026.4.1, measured on the default suite's witness (explicit undilated per_channel no_bias, int8,
    the zero_point_before_rounding tie): outputs [0, 0, 1, 1] and [0, 1, 0..1, 0..2] all -124 where the reference
    gives -125 / -127; neither fault model alone explained it."""
    conv = fam.Conv("w", (1, 2, 5, 5), (3, 3), 2, {"pads": [1, 1, 1, 1]}, ("int8", "int8", "int8"),
                    per_channel="zero_point")
    inputs = fam.witness_inputs(conv, {"w": "127 -126 -127*16 -126*18", "w_scale": "0.00390625 0.00390625",
                                       "w_zero_point": "-127 -126", "x": "-127 -122 -127*48", "x_scale": "0.0078125",
                                       "x_zero_point": "-127", "y_scale": "6.103515625e-05", "y_zero_point": "-127"})
    attrs = dict(conv.attrs)
    (y,) = FAULTS["qlinear_conv.per_channel_input_axis_zero_point_before_rounding"].fn(inputs, attrs, 10, [])
    measured = {(0, 0, 1, 1): -124, (0, 1, 0, 0): -124, (0, 1, 0, 1): -124, (0, 1, 0, 2): -124, (0, 1, 1, 0): -124,
                (0, 1, 1, 1): -124, (0, 1, 1, 2): -124}
    assert all(int(y[i]) == v for i, v in measured.items())
    for alone in ("qlinear_conv.per_channel_input_axis", "qlinear_conv.zero_point_before_rounding"):
        (z,) = FAULTS[alone].fn(inputs, attrs, 10, [])
        assert not all(int(z[i]) == v for i, v in measured.items()), alone


def test_nan_scale_probe_holds_every_nan_kind_bit_for_bit():
    conv = fam.replace(fam.PROBES["nan_scale_probe"](), what="nan_scale_probe")
    _, nans = axes.nan_values("float")
    cases = list(fam.conv_cases(conv, nans.size, 0, ["probe"]))
    assert [c.kind for c in cases] == ["probe"]
    got = [int(np.asarray(d[(1, 4, 6)[i % 3]]).reshape(-1)[0:1].view(np.uint32)[0])
           for i, d in enumerate(cases[0].inputs)]
    assert got == nans.view(np.uint32).tolist()  # signalling NaNs not quieted on the way
    assert cases[0].meta["undefined"] == [ref.UNDEF_SCALE]
