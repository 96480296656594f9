"""The QLinearConv fault models (generator/reference/qlinear_conv_faults.py) and their witnesses
(generator/witness/qlinear_conv.py, catalogue generator/witness/catalogue/qlinear_conv.json):
  - every catalogued witness is one: the fault's output differs from the reference's there;
  - every class has, for every fault, witnesses or an equivalence proof, and each proof holds on random
    configurations and data of its classes;
  - each fault is the reference wherever its one deviation cannot matter;
  - the committed catalogue is what the search writes today (constructions are deterministic).
"""

from __future__ import annotations

import numpy as np
import pytest

from generator import dtypes, faults, witness
from generator.families import qlinear_conv as fam
from generator.reference import qlinear_conv as ref
from generator.reference import qlinear_conv_faults as F
from generator.witness import qlinear_conv as W

CATALOGUE = witness.load("qlinear_conv")
FAULTS = {f.name: f for f in F.FAULTS}
TYPES = ("uint8", "int8")


def run(fn, conv: fam.Conv, inputs: list[np.ndarray]) -> np.ndarray:
    return fn(inputs, dict(conv.attrs), 10, [])[0]


# ---------------------------------------------------------------------------------------
# random configurations of a class, and data for them
# ---------------------------------------------------------------------------------------
def draw_conv(rs: np.random.RandomState, padding: str, dilated: bool, per_channel: bool, bias: bool) -> fam.Conv:
    nd = int(rs.randint(1, 4))
    group = int(rs.choice([1, 1, 2, 3]))
    cg, mg = int(rs.randint(1, 4)), int(rs.randint(1, 4))
    kernel = tuple(int(k) for k in rs.randint(1, 4, nd))
    strides = [int(s) for s in rs.randint(1, 3, nd)]
    dilations = [int(d) for d in rs.randint(1, 3, nd)] if dilated else [1] * nd
    if dilated and max(dilations) == 1:
        dilations[0] = 2
    attrs: dict = {"strides": strides, "dilations": dilations}
    pads = [0] * (2 * nd)
    if padding == "explicit":
        if rs.randint(3) == 0:
            attrs["auto_pad"] = "VALID"
        else:
            pads = [int(p) for p in rs.randint(0, 3, 2 * nd)]
            attrs["pads"] = pads
    else:
        attrs["auto_pad"] = padding.upper()
    if group > 1:
        attrs["group"] = group
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    spatial = tuple(max(1, e - pads[a] - pads[a + nd]) + int(rs.randint(0, 5)) for a, e in enumerate(extent))
    types = tuple(str(rs.choice(TYPES)) for _ in range(3))
    return fam.Conv("random", (int(rs.randint(1, 3)), cg * group) + spatial, kernel, mg * group, attrs, types,
                    per_channel=str(rs.choice(["scale", "zero_point"])) if per_channel else None,
                    bias="random" if bias else None)


def draw_inputs(rs: np.random.RandomState, conv: fam.Conv) -> list[np.ndarray]:
    """Random data; scales half the time powers of two (exact multipliers, so ties happen), y_scale near the
    accumulator's size so that outputs spread."""
    xt, wt, yt = (dtypes.get(t) for t in conv.types)
    n = conv.m if conv.per_channel else 1
    x = rs.randint(xt.int_min, xt.int_max + 1, conv.x_shape).astype(xt.np_dtype)
    w = rs.randint(wt.int_min, wt.int_max + 1, conv.w_shape).astype(wt.np_dtype)
    xz = int(rs.randint(xt.int_min, xt.int_max + 1))
    if conv.per_channel == "zero_point":
        wz = rs.randint(wt.int_min, wt.int_max + 1, n)
    else:
        wz = np.full(n, rs.randint(wt.int_min, wt.int_max + 1))
    yz = int(rs.randint(yt.int_min, yt.int_max + 1))
    if rs.randint(2):
        xs, ws = 2.0 ** rs.randint(-9, -3), 2.0 ** rs.randint(-9, -3, n)
        ys = xs * ws.max() * 2.0 ** rs.randint(0, 12)
    else:
        xs, ws = 2.0 ** rs.uniform(-9, -3), 2.0 ** rs.uniform(-9, -3, n)
        ys = xs * ws.max() * 2.0 ** rs.uniform(0, 12)
    per = (conv.m,) if conv.per_channel else ()
    inputs = [x, np.array(xs, np.float32), np.array(xz, xt.np_dtype), w, ws.astype(np.float32).reshape(per),
              wz.astype(wt.np_dtype).reshape(per), np.array(ys, np.float32), np.array(yz, yt.np_dtype)]
    if conv.bias:
        inputs.append(rs.randint(-20000, 20001, conv.m).astype(np.int32))
    return inputs


def random_cases(classes, n: int, seed: int):
    """n (conv, inputs) pairs over the given classes, every element defined."""
    rs = np.random.RandomState(seed)
    out = []
    while len(out) < n:
        parts = classes[len(out) % len(classes)]
        conv = draw_conv(rs, *parts)
        inputs = draw_inputs(rs, conv)
        if fam.expected(conv, inputs).defined:
            out.append((conv, inputs))
    return out


# ---------------------------------------------------------------------------------------
# groups
# ---------------------------------------------------------------------------------------
def test_group_key_of_params():
    meta = {"opset": 10, "params": fam.Conv("c", attrs={"auto_pad": "SAME_LOWER", "dilations": [1, 2]},
                                             per_channel="scale", bias="random").params()}
    assert F.group_key(meta) == "same_lower dilated per_channel bias"
    meta = {"opset": 10, "params": fam.Conv("c", attrs={"auto_pad": "VALID", "dilations": [1, 1]}).params()}
    assert F.group_key(meta) == "explicit undilated per_tensor no_bias"


def test_every_class_of_the_family_has_its_catalogued_group():
    """Every case of the family's catalogue, and every random configuration drawn, is in a class the witness
    catalogue holds; and each catalogued group's params are of that group."""
    keys = set(CATALOGUE["groups"])
    assert keys == {F.key_of(*parts) for parts in F.all_groups()}
    for conv in fam.catalogue() + fam.random_configurations(16, 0):
        assert F.group_key({"opset": 10, "params": conv.params()}) in keys
    for key, group in CATALOGUE["groups"].items():
        assert F.group_key({"opset": 10, "params": group["params"]}) == key


# ---------------------------------------------------------------------------------------
# witnesses
# ---------------------------------------------------------------------------------------
def _witnesses():
    for key, group in sorted(CATALOGUE["groups"].items()):
        for name, entry in sorted(group["faults"].items()):
            for i, wit in enumerate(entry.get("witnesses", [])):
                conv = fam.witness_conv("w", wit.get("params", group["params"]))
                yield pytest.param(key, conv, name, wit, id=f"{key.replace(' ', '-')}-{name.split('.')[1]}-{i}")


def _killed(fault, conv: fam.Conv, inputs: list[np.ndarray], y: np.ndarray) -> bool:
    try:
        return not np.array_equal(y, run(fault.fn, conv, inputs))
    except faults.Refusal:  # raised where the spec requires a result
        return True


@pytest.mark.parametrize("key,conv,name,wit", list(_witnesses()))
def test_witness_kills_its_fault(key, conv, name, wit):
    inputs = fam.witness_inputs(conv, wit)
    outcome = fam.expected(conv, inputs)
    (y,) = outcome.outputs
    assert outcome.defined
    assert F.group_key({"opset": 10, "params": conv.params()}) == key  # a configuration of its own: of the class
    assert np.array_equal(y, run(ref.qlinear_conv_node, conv, inputs))
    assert _killed(FAULTS[name], conv, inputs, y), wit["what"]


def test_every_fault_has_witnesses_or_a_proof_in_every_class():
    for key, group in CATALOGUE["groups"].items():
        params = dict(group["params"], opset=10)
        for fault in F.FAULTS:
            entry = group["faults"].get(fault.name)
            assert entry is not None, (key, fault.name)
            proof = fault.equivalent(params)
            if proof:
                assert entry == {"equivalent": proof}
            else:
                assert entry["witnesses"] and entry["how"] in ("construction", "search"), (key, fault.name)


def test_witness_cases_kill_through_the_interpreter():
    """The family's witness cases: each data set's expected output is the reference's, and the fault models
    it was built for differ from it when run on the case's model (generator.faults.fault_outputs)."""
    cases = list(fam.witness_cases())
    labels = {w.get("configuration", "") for g in CATALOGUE["groups"].values() for e in g["faults"].values()
              for w in e.get("witnesses", [])}
    assert labels == {"", "1d", "3d", "stride_over_kernel", "u8_s8"}
    # every class, its 1-D one, the 8 undilated SAME ones, the 12 per-channel ones in 3-D, the 17 whose witness
    # configuration is not uint8 x int8
    assert len(cases) == 2 * len(CATALOGUE["groups"]) + 8 + 12 + 17
    for case in cases:
        key = F.group_key(case.meta)
        base = "test_qlinearconv_witness_" + key.replace(" ", "_")
        assert key in CATALOGUE["groups"] and case.name in (base, base + "_1d", base + "_3d",
                                                            base + "_stride_over_kernel", base + "_u8_s8")
        for inputs, outputs, names in zip(case.inputs, case.outputs, case.meta["witnesses"]):
            for name in names:
                try:
                    got = faults.fault_outputs(FAULTS[name], case.model, inputs, case.meta)
                except faults.Refusal:
                    assert FAULTS[name].may_refuse, (case.name, name)
                    continue
                assert faults.differs(outputs, got, [dtypes.from_numpy(o.dtype) for o in outputs]), (case.name, name)


def test_committed_catalogue_is_what_the_search_writes():
    assert W.find(10, 0) == CATALOGUE["groups"]


# ---------------------------------------------------------------------------------------
# equivalence proofs hold
# ---------------------------------------------------------------------------------------
def _params_of(parts) -> dict:
    padding, dilated, per_channel, bias = parts
    p = {"per_channel": "scale" if per_channel else "no", "bias": "random" if bias else "absent"}
    if padding != "explicit":
        p["auto_pad"] = padding.upper()
    p["dilations"] = [2, 1] if dilated else [1, 1]
    return p


def _equivalent_classes(fault) -> list:
    return [parts for parts in F.all_groups()
            if fault.equivalent(dict(fam.Conv("c").params(), **_params_of(parts), opset=10))]


@pytest.mark.parametrize("name", sorted(n for n, f in FAULTS.items() if _equivalent_classes(f)))
def test_equivalence_proofs_hold_on_random_inputs(name):
    fault = FAULTS[name]
    for conv, inputs in random_cases(_equivalent_classes(fault), 120, seed=len(name)):
        assert fault.equivalent(dict(conv.params(), opset=10))
        assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), run(fault.fn, conv, inputs)), conv


def test_wraparound_is_the_reference_even_with_huge_bias():
    """conv + B within int32 although B alone is near its ends: modular sums give the same result."""
    conv = fam.Conv("c", attrs={"pads": [1, 1, 1, 1]}, bias="random")
    rs = np.random.RandomState(5)
    inputs = draw_inputs(rs, conv)
    inputs[8] = np.array([ref.INT32_MAX - 2_000_000, ref.INT32_MIN + 2_000_000, 2**30, -(2**30)], dtype=np.int32)
    inputs[6] = np.array(2.0**-20, np.float32) * inputs[1] * inputs[4].max()
    assert fam.expected(conv, inputs).defined
    assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs),
                          run(FAULTS["qlinear_conv.accumulator_wrap32"].fn, conv, inputs))


# ---------------------------------------------------------------------------------------
# the faults are the reference where their deviation cannot matter
# ---------------------------------------------------------------------------------------
ALL_CLASSES = F.all_groups()


def test_no_deviation_is_the_reference():
    for conv, inputs in random_cases(ALL_CLASSES, 150, seed=1):
        assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), F._conv(inputs, dict(conv.attrs))[0]), conv


def _with(inputs, **changes):
    out = list(inputs)
    for i, v in changes.items():
        out[int(i[1:])] = v
    return out


def _pow2_scales(conv: fam.Conv, inputs: list[np.ndarray], c: float) -> list[np.ndarray]:
    """x_scale 2**-7, w_scale 2**-8 (every channel), y_scale such that the multiplier is exactly c."""
    per = (conv.m,) if conv.per_channel else ()
    return _with(inputs, i1=np.array(2.0**-7, np.float32), i4=np.full(per, 2.0**-8, np.float32),
                 i6=np.array(2.0**-15 / c, np.float32))


def test_zero_point_before_rounding_with_an_even_zero_point():
    """round(v + z) == round(v) + z for even z, ties included (c = 1/2 makes every odd acc a tie)."""
    fault = FAULTS["qlinear_conv.zero_point_before_rounding"]
    n = 0
    for conv, inputs in random_cases(ALL_CLASSES, 60, seed=2):
        yt = dtypes.get(conv.types[2])
        inputs = _with(_pow2_scales(conv, inputs, 0.5), i7=np.array(yt.int_min + 2 * 37, yt.np_dtype))
        if not fam.expected(conv, inputs).defined:
            continue
        n += 1
        assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), run(fault.fn, conv, inputs))
    assert n > 30


def test_saturation_before_zero_point_with_zero_point_zero():
    fault = FAULTS["qlinear_conv.saturate_before_zero_point"]
    for conv, inputs in random_cases(ALL_CLASSES, 60, seed=3):
        yt = dtypes.get(conv.types[2])
        inputs = _with(inputs, i7=np.array(0, yt.np_dtype))
        assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), run(fault.fn, conv, inputs))


@pytest.mark.parametrize("name,c", [("qlinear_conv.requant_float32", 0.125), ("qlinear_conv.requant_float64", 0.125),
                                    ("qlinear_conv.requant_fixed_point", 1.0)])
def test_float_and_fixed_point_multipliers_when_exact(name, c):
    """A power-of-two multiplier is exact in float32 and float64, and so is acc * c (|acc| < 2**24): the
    float faults round the same values to even, ties included. The Q31 fixed-point multiplier rounds twice
    (its doubling high multiply, then its rounding shift), so only c = 1, where neither step rounds, is exact."""
    fault = FAULTS[name]
    n = 0
    for conv, inputs in random_cases(ALL_CLASSES, 60, seed=4):
        inputs = _pow2_scales(conv, inputs, c)
        if not fam.expected(conv, inputs).defined:
            continue
        n += 1
        assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), run(fault.fn, conv, inputs)), conv
    assert n > 30


def test_per_channel_faults_with_equal_scales():
    """Per-channel w_scale with every element equal and one w_zero_point: taking the first, or the input
    channel's, changes nothing."""
    for conv, inputs in random_cases([p for p in ALL_CLASSES if p[2]], 60, seed=6):
        ws = np.full(conv.m, inputs[4][0], np.float32)
        wz = np.full(conv.m, inputs[5][0], inputs[5].dtype)
        inputs = _with(inputs, i4=ws, i5=wz)
        y = run(ref.qlinear_conv_node, conv, inputs)
        names = ("qlinear_conv.per_channel_first_scale",) + (
            ("qlinear_conv.per_channel_input_axis",) if conv.w_shape[1] == conv.m else ())  # else it refuses
        for name in names:
            assert np.array_equal(y, run(FAULTS[name].fn, conv, inputs)), (name, conv)


def test_input_axis_refuses_where_the_lengths_differ():
    """With C / group != M the input-axis faults cannot take w_scale along axis 1: they refuse, as OpenVINO
    2026.4.1's frontend does ("The number of dequantization scale elements '5' must match the input shape
    dimension '3 pointed to by the axis attribute: 1"); per tensor they are the reference."""
    n = 0
    for conv, inputs in random_cases([p for p in ALL_CLASSES if p[2]], 80, seed=7):
        if conv.w_shape[1] == conv.m or conv.m == 1:  # (one output channel: one element, per tensor)
            continue
        n += 1
        for name in ("qlinear_conv.per_channel_input_axis",
                     "qlinear_conv.per_channel_input_axis_zero_point_before_rounding"):
            assert FAULTS[name].may_refuse
            with pytest.raises(faults.Refusal):
                run(FAULTS[name].fn, conv, inputs)
        per_tensor = _with(inputs, i4=inputs[4][:1], i5=inputs[5][:1])
        assert np.array_equal(run(ref.qlinear_conv_node, conv, per_tensor),
                              run(FAULTS["qlinear_conv.per_channel_input_axis"].fn, conv, per_tensor))
    assert n > 20


def test_geometry_faults_without_padding_or_with_even_same_padding():
    """SAME with an even total padding per axis splits the same way whichever side takes the odd pixel."""
    fault = FAULTS["qlinear_conv.same_split_swapped"]
    conv = fam.Conv("c", (1, 2, 7, 9), (3, 3), 3, {"auto_pad": "SAME_UPPER"})  # totals 2, 2
    inputs = draw_inputs(np.random.RandomState(8), conv)
    assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), run(fault.fn, conv, inputs))
    odd = fam.Conv("c", (1, 2, 7, 9), (2, 2), 3, {"auto_pad": "SAME_UPPER"})  # totals 1, 1
    inputs = draw_inputs(np.random.RandomState(8), odd)
    assert not np.array_equal(run(ref.qlinear_conv_node, odd, inputs), run(fault.fn, odd, inputs))


def test_undefined_inputs_give_the_reference_placeholders():
    conv = fam.Conv("c", attrs={"pads": [1, 1, 1, 1]})
    inputs = _with(draw_inputs(np.random.RandomState(9), conv), i6=np.array(0.0, np.float32))
    assert not fam.expected(conv, inputs).defined
    for fault in F.FAULTS:
        assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), run(fault.fn, conv, inputs)), fault.name


def test_float32_fault_is_mlas_arithmetic():
    """requant_float32 on single accumulators, step by step as MLAS's MlasRequantizeOutput computes them:
    float(acc) * float32((x_scale * w_scale) / y_scale), clamped, rounded to even, plus the zero point."""
    conv = fam.Conv("c", (1, 2, 1), (1,), 1)
    xs, ws, ys = np.float32(0.0123), np.float32(0.0456), np.float32(0.789)
    scale = np.float32(np.float32(xs * ws) / ys)
    for acc in (1, 77, 12345, 65000):
        x = acc // 255 if acc > 255 else acc
        w = 255 if acc > 255 else 1
        inputs = [np.array([[[x], [acc - x * w]]], np.uint8), np.array(xs), np.array(0, np.uint8),
                  np.array([[[w], [1]]], np.uint8), np.array(ws), np.array(0, np.uint8), np.array(ys),
                  np.array(3, np.uint8)]
        v = np.float32(np.float32(acc) * scale)
        expected = int(np.rint(min(v, np.float32(252)))) + 3
        assert int(run(FAULTS["qlinear_conv.requant_float32"].fn, conv, inputs).reshape(-1)[0]) == expected


def test_int16_pairs_by_hand():
    """C = 2, a 1x1 kernel: the two channels' products pair up; 255 * 127 * 2 = 64770 saturates to 32767."""
    x = np.array([[[[255]], [[255]]]], np.uint8)
    w = np.array([[[[127]], [[127]]]], np.int8)
    acc = F.int16_pairs(x, 0, w, np.array([0]), 1, [0, 0], [0, 0], [1, 1], [1, 1], [1, 1])
    assert acc.reshape(-1).tolist() == [32767]
    # three channels: (c0, c1) pair, c2 alone; zero points applied exactly afterwards
    x = np.array([[[[255]], [[255]], [[10]]]], np.uint8)
    w = np.array([[[[127]], [[127]], [[-3]]]], np.int8)
    acc = F.int16_pairs(x, 5, w, np.array([-2]), 1, [0, 0], [0, 0], [1, 1], [1, 1], [1, 1])
    raw = 32767 + 10 * -3
    assert acc.reshape(-1).tolist() == [raw + 2 * (255 + 255 + 10) - 5 * (127 + 127 - 3) + 3 * 5 * -2]


def test_int16_pairs_run_across_taps_in_im2col_order():
    """onnxruntime's QLinearConv GEMM takes K = (kernel offset, input channel) flattened (NHWC im2col; C = 3 is no
    multiple of 4, so not the symmetric path), and the U8S8 kernel pairs K indices 2j, 2j + 1: with C = 3 the pair
    (tap 0 channel 2, tap 1 channel 0) straddles two taps and saturates (255 * 254 -> 32767), the others cancel
    (-255); the exact sum 64260, which pairs kept within a tap would give."""
    x = np.full((1, 3, 1, 2), 255, np.uint8)
    w = np.array([127, -128, 127], np.int8).reshape(1, 3, 1, 1).repeat(2, axis=3)
    acc = F.int16_pairs(x, 0, w, np.array([0]), 1, [0, 0], [0, 0], [1, 1], [1, 1], [1, 1])
    assert acc.reshape(-1).tolist() == [-255 + 32767 - 255]


def test_int16_pairs_is_the_reference_where_no_pair_saturates():
    """Every type pair but x uint8 / w int8, whatever the values (VPMADDUBSW multiplies u8 by s8 only; MLAS's
    U8U8 kernel widens to int16 and adds with VPMADDWD), and depthwise groups, which onnxruntime computes
    exactly: the reference."""
    fault = FAULTS["qlinear_conv.int16_pair_saturation"]
    n = 0
    for conv, inputs in random_cases(ALL_CLASSES, 80, seed=10):
        if conv.types[:2] == ("uint8", "int8") and not (conv.w_shape[1] == 1 and conv.m == conv.group):
            continue
        n += 1
        assert np.array_equal(run(ref.qlinear_conv_node, conv, inputs), run(fault.fn, conv, inputs)), conv
    assert n > 40


@pytest.mark.parametrize("types", [("uint8", "uint8"), ("int8", "int8"), ("int8", "uint8")])
def test_int16_pairs_leave_other_type_pairs_exact(types):
    """x and w at the ends whose pairs of products leave int16 (255 * 255, -128 * -128 by one, -128 * 255), C = 2
    and a 1x1 kernel, c = 3 / 2**16 (x_scale 3, y_scale 2**16), where int16's 32767 for -128 * -128's 32768 gives
    1.49995 for the tie 1.5: the fault is the reference; as uint8 x int8 (255 * -128) it saturates."""
    fault = FAULTS["qlinear_conv.int16_pair_saturation"]
    ends = {"uint8": 255, "int8": -128}
    conv = fam.Conv("c", (1, 2, 1, 1), (1, 1), 1, {}, types + ("int8",))
    xt, wt = (dtypes.get(t).np_dtype for t in types)
    three, one, scale = (np.array(v, np.float32) for v in (3.0, 1.0, 2.0**16))
    zero = np.array(0, np.int8)
    x, w = np.full((1, 2, 1, 1), ends[types[0]], xt), np.full((1, 2, 1, 1), ends[types[1]], wt)
    inputs = [x, three, np.array(0, xt), w, one, np.array(0, wt), scale, zero]
    want = run(ref.qlinear_conv_node, conv, inputs)
    assert want.reshape(-1).tolist() == [{"uint8": 6, "int8": 2}[types[0]] if types[0] == types[1] else -3]
    assert np.array_equal(run(fault.fn, conv, inputs), want)
    u8s8 = [np.full((1, 2, 1, 1), 255, np.uint8), three, np.array(0, np.uint8), np.full((1, 2, 1, 1), -128, np.int8),
            one, np.array(0, np.int8), scale, zero]
    assert run(fault.fn, conv, u8s8).reshape(-1).tolist() == [-2]  # -32768 * 3 / 2**16 = -1.5; the reference -3


def test_int16_pair_witnesses_are_uint8_x_int8():
    """The pair fault's witnesses run on the one type pair the kernel saturates, so that its cases fail on an x86
    machine without VNNI (issue 33, item 6); the classes of other types take a configuration of their own."""
    for key, group in CATALOGUE["groups"].items():
        entry = group["faults"]["qlinear_conv.int16_pair_saturation"]
        own = (group["params"]["x_type"], group["params"]["w_type"]) != ("uint8", "int8")
        for wit in entry["witnesses"]:
            params = wit.get("params", group["params"])
            assert (params["x_type"], params["w_type"]) == ("uint8", "int8"), key
            assert wit.get("configuration", "") == ("u8_s8" if own else ""), key


def _two_tap_inputs(n: int) -> list[np.ndarray]:
    """x an n x n ramp (i * 7 % 200 + 10), w a 3x3 kernel with taps 2 at (0, 0) and 1 at (2, 2), scales 1 but
    y_scale 2, zero points 0: the model the SAME-padding faults were measured on."""
    x = (np.arange(n * n).reshape(1, 1, n, n) * 7 % 200 + 10).astype(np.uint8)
    w = np.zeros((1, 1, 3, 3), np.uint8)
    w[0, 0, 2, 2], w[0, 0, 0, 0] = 1, 2
    one, zero = np.array(1.0, np.float32), np.array(0, np.uint8)
    return [x, one, zero, w, one, zero, np.array(2.0, np.float32), zero]


def test_same_pads_from_undilated_kernel_by_hand():
    """SAME_UPPER, a 3x3 kernel with dilations 2 on 5x5: the spec pads 4 per axis (output 5x5), the undilated
    kernel's total is 2 (1 each side), so the dilated kernel (extent 5) gives 3x3. The numbers are tinygrad
    0.14.0's on this model (CPU, clang 19): w taps 2 at (0, 0), 1 at (2, 2), y_scale 2."""
    fault = FAULTS["qlinear_conv.same_pads_from_undilated_kernel"]
    inputs = _two_tap_inputs(5)
    attrs = {"auto_pad": "SAME_UPPER", "dilations": [2, 2]}
    y = fault.fn(inputs, attrs, 10, [])[0]
    assert y.tolist() == [[[[68, 72, 0], [86, 99, 17], [0, 45, 52]]]]
    assert ref.qlinear_conv_node(inputs, attrs, 10, [])[0].shape == (1, 1, 5, 5)
    undilated = {"auto_pad": "SAME_UPPER"}
    assert np.array_equal(fault.fn(inputs, undilated, 10, [])[0], ref.qlinear_conv_node(inputs, undilated, 10, [])[0])


def test_same_pads_from_undilated_kernel_unclamped_by_hand():
    """A 3x3 kernel, strides 6 on 6x6: the spec's total padding is 0 (clamped), the fault's -3 per axis crops the
    input, -2 at the start and -1 at the end for SAME_UPPER, -1 and -2 for SAME_LOWER. The numbers are tinygrad
    0.14.0's on this model (CPU, clang 14): w taps 2 at (0, 0), 1 at (2, 2), y_scale 2; UPPER reads x[2:5, 2:5]
    (108 * 2 + 206) / 2, LOWER x[1:4, 1:4] (59 * 2 + 157) / 2 = 137.5 -> 138, the spec x[0:3, 0:3] 64."""
    fault = FAULTS["qlinear_conv.same_pads_from_undilated_kernel"]
    inputs = _two_tap_inputs(6)
    for auto_pad, tinygrad in (("SAME_UPPER", 211), ("SAME_LOWER", 138)):
        attrs = {"auto_pad": auto_pad, "strides": [6, 6]}
        assert fault.fn(inputs, attrs, 10, [])[0].tolist() == [[[[tinygrad]]]]
        assert ref.qlinear_conv_node(inputs, attrs, 10, [])[0].tolist() == [[[[64]]]]
    stride3 = {"auto_pad": "SAME_LOWER", "strides": [3, 3]}  # total 3 - 6 + 3 = 0 along each axis: the spec's
    assert np.array_equal(fault.fn(inputs, stride3, 10, [])[0], ref.qlinear_conv_node(inputs, stride3, 10, [])[0])


def test_one_d_refused():
    """tinygrad 0.14.0 raises on every 1-D QLinearConv ("Input Tensor shape (1, 1, 6) does not match the shape of
    the weights (1, 1, 1, 3)": w_zero_point reshaped to (-1, 1, 1, 1)); the fault is the reference in 2-D."""
    fault = FAULTS["qlinear_conv.one_d_refused"]
    x = (np.arange(36).reshape(1, 1, 6, 6) * 7 % 200 + 10).astype(np.uint8)
    w = np.arange(1, 10, dtype=np.uint8).reshape(1, 1, 3, 3)
    one, zero = np.array(1.0, np.float32), np.array(0, np.uint8)
    scales = [one, zero, one, zero, np.array(8.0, np.float32), zero]
    with pytest.raises(faults.Refusal):
        fault.fn([x[:, :, 0], *scales[:2], w[:, :, 0], *scales[2:]], {}, 10, [])
    inputs = [x, *scales[:2], w, *scales[2:]]
    assert np.array_equal(fault.fn(inputs, {}, 10, [])[0], ref.qlinear_conv_node(inputs, {}, 10, [])[0])


def test_per_channel_as_4d_by_hand():
    """A 1x1x1 kernel, x uint8 of depth 2 (then 1, 3), w = [[7, 8], [9, 10]] (M = C = 2), w_scale [1, 0.5],
    w_zero_point [5, 6], y_scale 4. The numbers are tinygrad 0.14.0's on these models (CPU, clang 14): w_zero_point
    taken per input channel, w_scale per output depth; depth 1 broadcast to (1, 2, 2, 2, 2); depth 3 and M = 3
    raise "shape mismatch: objects cannot be broadcast to a single shape". In 2-D, and per tensor, the reference."""
    fault = FAULTS["qlinear_conv.per_channel_as_4d"]
    one, zero = np.array(1.0, np.float32), np.array(0, np.uint8)

    def inputs(depth: int, m: int = 2, per_channel: bool = True) -> list[np.ndarray]:
        x = (np.arange(2 * depth * 4).reshape(1, 2, depth, 2, 2) * 3 % 40 + 10).astype(np.uint8)
        w = (np.arange(m * 2).reshape(m, 2, 1, 1, 1) + 7).astype(np.uint8)
        ws, wz = np.array([1.0, 0.5, 0.25][:m], np.float32), np.array([5, 6, 4][:m], np.uint8)
        if not per_channel:
            ws, wz = ws[0], wz[0]
        return [x, one, zero, w, ws, wz, np.array(4.0, np.float32), zero]

    assert fault.fn(inputs(2), {}, 10, [])[0].tolist() == [[[[[22, 25], [28, 31]], [[17, 18], [10, 12]]],
                                                            [[[44, 50], [56, 62]], [[34, 37], [20, 23]]]]]
    assert ref.qlinear_conv_node(inputs(2), {}, 10, [])[0][0, :, 0, 0].tolist() == [[30, 34], [21, 23]]
    assert fault.fn(inputs(1), {}, 10, [])[0].tolist() == [[[[[16, 19], [22, 25]], [[8, 10], [11, 12]]],
                                                            [[[32, 38], [44, 50]], [[16, 19], [22, 25]]]]]
    for refused in (inputs(3), inputs(2, m=3)):
        with pytest.raises(faults.Refusal):
            fault.fn(refused, {}, 10, [])
    flat = [v[:, :, 0] if v.ndim == 5 else v for v in inputs(2)]  # the same data in 2-D
    for same in (flat, inputs(3, per_channel=False), inputs(2, m=3, per_channel=False)):
        assert np.array_equal(fault.fn(same, {}, 10, [])[0], ref.qlinear_conv_node(same, {}, 10, [])[0])
