"""The QuantizeLinear fault models (generator/reference/quantize_linear_faults.py) and their witnesses
(generator/witness/quantize_linear.py, catalogue generator/witness/catalogue/quantize_linear.json):
  - every catalogued witness kills its fault, in its own group;
  - every group of the family's cases has a witness or a proof for every fault;
  - each fault is the reference where its equivalence proof says it cannot differ;
  - the witness cases kill through the interpreter, and the kill matrix of the family has no survivor;
  - the committed catalogue is what the search writes today.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from generator import dtypes, faults, witness
from generator.catalogue import quantize_linear as codec
from generator.families import quantize_linear as fam
from generator.reference import quantize_linear as ref
from generator.reference import quantize_linear_faults as F
from generator.witness import quantize_linear as W

CATALOGUE = witness.load("quantize_linear")
FAULTS = {f.name: f for f in F.FAULTS}


def test_group_key():
    assert F.group_key({"params": {"version": 19, "y": "float8e5m2", "precision": "float", "saturate": 0}}) == \
        "version=19 y=float8e5m2 precision=float saturate=0"
    assert F.group_key({"params": {"version": 10, "y": "uint8", "precision": "float", "saturate": None}}) == \
        "version=10 y=uint8 precision=float"


def _witnesses():
    for key, group in sorted(CATALOGUE["groups"].items()):
        for name, entry in sorted(group["faults"].items()):
            for i, w in enumerate(entry.get("witnesses", [])):
                yield pytest.param(key, name, w, id=f"{codec.slug(key)}-{name.split('.')[1]}-{i}")


@pytest.mark.parametrize("key,name,w", list(_witnesses()))
def test_witness_kills_its_fault_in_its_group(key, name, w):
    assert W.differing(FAULTS[name], w, *codec.decode(w)).any(), w["what"]
    p = CATALOGUE["groups"][key]["params"]
    y = w["zp_type"] or dtypes.get(int(w["attrs"]["output_dtype"])).name  # no zero point: output_dtype says y
    assert ref.schema_version(int(w["opset"])) == p["version"] and y == p["y"]


def test_every_group_of_the_suite_has_every_fault_resolved():
    suite = W.groups_of_suite(28)
    assert set(suite) == set(CATALOGUE["groups"])
    for key, group in CATALOGUE["groups"].items():
        for fault in F.FAULTS:
            entry = group["faults"].get(fault.name)
            assert entry and (entry.get("equivalent") or entry.get("witnesses")), (key, fault.name)
            assert bool(entry.get("equivalent")) == (fault.equivalent(group["params"]) is not None), (key, fault.name)


def _random_inputs(params: dict, seed: int):
    """Random x over random per-tensor scales / zero points in a group's configuration."""
    rs = np.random.RandomState(seed)
    y = dtypes.get(params["y"])
    x_t, s_t, attrs = W.config_types(params)
    if params.get("saturate") is not None:
        attrs = dict(attrs, saturate=int(params["saturate"]))
    for _ in range(4):
        s = float(2.0 ** rs.randint(-3, 4)) * rs.choice([1.0, 1.5, 0.3])
        span = (y.finite_max if y.is_float else max(abs(y.int_min), y.int_max)) * 1.5
        x = rs.uniform(-span, span, 64) * s
        z = 0.0 if y.is_float else float(rs.randint(y.int_min, y.int_max + 1))
        w = codec.encode(int(params["version"]), x_t, s_t, y.name, attrs, codec.as_type(x, x_t),
                         codec.as_type(s, s_t), codec.as_type(z, y.name), "random")
        yield w, codec.decode(w)


@pytest.mark.parametrize("key", sorted(CATALOGUE["groups"]))
def test_a_fault_proved_equivalent_never_differs(key):
    group = CATALOGUE["groups"][key]
    for name, entry in group["faults"].items():
        if "equivalent" not in entry:
            continue
        for w, data in _random_inputs(group["params"], zlib.crc32(key.encode()) % 1000):
            assert not W.differing(FAULTS[name], w, *data).any(), (key, name)


def test_faults_are_the_reference_without_their_deviation():
    x = np.array([0.5, 1.5, 2.5, -0.5, 3.0, 300.0], np.float32)
    types = [dtypes.get("float"), dtypes.get("float"), dtypes.get("uint8")]
    (y,) = ref.quantize_linear_node([x, np.float32(1), np.uint8(10)], {}, 13, types)
    got = {n: f.fn([x, np.float32(1), np.uint8(10)], {}, 13, types)[0].tolist() for n, f in FAULTS.items()}
    assert y.tolist() == [10, 12, 12, 10, 13, 255]
    assert got["quantize_linear.round_half_away"] == [11, 12, 13, 9, 13, 255]
    assert got["quantize_linear.truncate"] == [10, 11, 12, 10, 13, 255]
    assert got["quantize_linear.wrap"] == [10, 12, 12, 10, 13, (300 + 10) % 256]
    for n in ("quantize_linear.axis_ignored", "quantize_linear.blocks_from_end", "quantize_linear.divide_in_float32",
              "quantize_linear.saturate_ignored", "quantize_linear.fnuz_inf_saturates",
              "quantize_linear.float_zero_point_ignored", "quantize_linear.output_dtype_ignored",
              "quantize_linear.reciprocal_int32_saturating", "quantize_linear.short_last_block_refused"):
        assert got[n] == y.tolist(), n
    # output_dtype int8 without a zero point: y is uint8 (negatives saturate to 0, Inf to 255), as tract 0.23.9 gives
    x8 = np.array([-3.0, 2.5, 200.0, np.inf], np.float32)
    (q,) = FAULTS["quantize_linear.output_dtype_ignored"].fn([x8, np.float32(1)], {"output_dtype": 3}, 21, types[:2])
    assert q.dtype == np.uint8 and q.tolist() == [0, 2, 200, 255]


def test_witness_cases_kill_through_the_interpreter():
    n = 0
    for case in fam.witness_cases(28):
        group = CATALOGUE["groups"][F.group_key(case.meta)]
        assert case.kind == "node" and len(case.meta["witnesses"]) == len(case.inputs), case.name
        for inputs, outputs, names in zip(case.inputs, case.outputs, case.meta["witnesses"]):
            for name in names:
                assert "witnesses" in group["faults"][name]
                n += 1
                try:
                    got = faults.fault_outputs(FAULTS[name], case.model, inputs, case.meta)
                except faults.Refusal:  # it raises where a result is due: killed, as the kill matrix counts it
                    assert FAULTS[name].may_refuse, (case.name, name)
                    continue
                assert faults.differs(outputs, got, [dtypes.from_numpy(o.dtype) for o in outputs]), (case.name, name)
    assert n >= sum(len(e.get("witnesses", [])) for g in CATALOGUE["groups"].values() for e in g["faults"].values())


def test_the_family_s_kill_matrix_has_no_survivor():
    from generator.kill_matrix import KillMatrix

    km = KillMatrix(["quantize_linear"])
    for unit in fam.work("default", 0, 28):
        for case in unit():
            km.add(case)
    m = km.matrix()["quantize_linear"]
    assert m["counts"]["survived"] == 0 and m["counts"]["killed"] > 0, m["counts"]


def test_committed_catalogue_is_what_the_search_writes():
    assert W.find(28, 0) == CATALOGUE["groups"]


def test_add_half_truncate_gives_tinygrads_numbers():
    """tinygrad 0.14.0 (CPU, clang 19), test_quantizelinear_uint8_opset25: fed, float32(x / 1 + 0) + 0.4999999 then
    truncated: 1.5 -> 1, 2.5 -> 3 (the reference 2 and 2), 3e38 beyond int32 -> INT32_MIN -> 0; with the scale 3 an
    initializer, fma(x, float32(1 / 3), 0.4999999): 4.5 -> 2 (fed 1), 7.5 -> 3 (the reference 2)."""
    types = [dtypes.get("float"), dtypes.get("float"), dtypes.get("uint8")]
    x = np.array([1.5, 2.5, 0.5, 3.0, 3e38, -1.5], np.float32)
    (y,) = FAULTS["quantize_linear.add_half_truncate"].fn([x, np.float32(1), np.uint8(0)], {}, 25, types)
    assert y.tolist() == [1, 3, 0, 3, 0, 0]
    x3 = np.array([4.5, 7.5, 13.5], np.float32)
    (fed,) = FAULTS["quantize_linear.add_half_truncate"].fn([x3, np.float32(3), np.uint8(0)], {}, 25, types)
    (const,) = FAULTS["quantize_linear.add_half_truncate_constant_scale"].fn([x3, np.float32(3), np.uint8(0)], {}, 25,
                                                                             types)
    (want,) = ref.quantize_linear_node([x3, np.float32(3), np.uint8(0)], {}, 25, types)
    assert fed.tolist() == [1, 3, 5] and const.tolist() == [2, 3, 5] and want.tolist() == [2, 2, 4]
    # float16 x and y_scale: the constant is 0.5
    h = [dtypes.get("float16"), dtypes.get("float16"), dtypes.get("uint8")]
    (y16,) = FAULTS["quantize_linear.add_half_truncate"].fn([np.array([0.5, 2.5], np.float16), np.float16(1),
                                                             np.uint8(0)], {}, 19, h)
    assert y16.tolist() == [1, 3]


def test_bfloat16_parity_round_gives_tinygrads_numbers():
    """tinygrad 0.14.0 (CPU, clang 19), test_quantizelinear_bfloat16_x_opset19: y_scale 1, zero point -128: 129 ->
    2 and 131 -> 4 (the reference 1 and 3: 129.5 rounds to 130 in bfloat16); zero point 127: -253 -> -127 (-126);
    ties below 128 still go to even (2.5 -> 2)."""
    bf = dtypes.get("bfloat16")
    types = [bf, bf, dtypes.get("int8")]
    x = bf.from_bits(bf.to_bits(np.array([129.0, 131.0, 2.5, -253.0])).astype(bf.bits_dtype))
    one = bf.from_bits(bf.to_bits(np.array(1.0)).astype(bf.bits_dtype))
    fn = FAULTS["quantize_linear.bfloat16_parity_round"].fn
    assert fn([x, one, np.int8(-128)], {}, 19, types)[0].tolist() == [2, 4, -126, -128]
    assert ref.quantize_linear_node([x, one, np.int8(-128)], {}, 19, types)[0].tolist() == [1, 3, -126, -128]
    assert fn([x, one, np.int8(127)], {}, 19, types)[0].tolist() == [127, 127, 127, -127]


def test_reciprocal_int32_saturating_gives_tracts_numbers():
    """tract 0.23.9 (--inputs initializers): test_quantizelinear_scale_subnormal_opset13[0], y_scale 2.8e-45 (bits 2),
    zero point 3: 1 / y_scale is +Inf in float32, so x * Inf saturates to INT32_MAX (INT32_MIN), the zero point wraps
    it negative (stays negative) and the clamp gives 0 where 3, 5 and 3 are due; 0 * Inf is NaN -> 0, so 3.
    test_quantizelinear_uint8_opset25[2] / int8_opset25[1], y_scale 0.5: 1e10 with zero point 255 gives 0 (255 due),
    -3e38 with zero point -128 gives 127 (-128 due); witness_13_int8_float_1[1], y_scale 3, zero point 1: -250.49998
    gives -83 (-82 due: float32(1 / 3) makes the product -83.5)."""
    fn = FAULTS["quantize_linear.reciprocal_int32_saturating"].fn
    f32, u8, i8 = (dtypes.get(n) for n in ("float", "uint8", "int8"))
    x = np.array([0, 1, 3, 0x80000001], np.uint32).view(np.float32)
    s = np.array(2, np.uint32).view(np.float32)
    assert fn([x, s, np.uint8(3)], {}, 13, [f32, f32, u8])[0].tolist() == [3, 0, 0, 0]
    assert ref.quantize_linear_node([x, s, np.uint8(3)], {}, 13, [f32, f32, u8])[0].tolist() == [3, 3, 5, 3]
    big = np.array([1e10, 1e5, -3e38], np.float32)
    assert fn([big, np.float32(0.5), np.uint8(255)], {}, 25, [f32, f32, u8])[0].tolist() == [0, 255, 0]
    assert fn([big, np.float32(0.5), np.int8(-128)], {}, 25, [f32, f32, i8])[0].tolist() == [127, 127, 127]
    assert ref.quantize_linear_node([big, np.float32(0.5), np.int8(-128)], {}, 25, [f32, f32, i8])[0].tolist() == \
        [127, 127, -128]
    tie = np.array([-250.49998, 58.499996], np.float32)
    assert fn([tie, np.float32(3), np.int8(1)], {}, 13, [f32, f32, i8])[0].tolist() == [-83, 21]
    assert ref.quantize_linear_node([tie, np.float32(3), np.int8(1)], {}, 13, [f32, f32, i8])[0].tolist() == [-82, 20]


def test_short_last_block_refused_raises_as_tinygrad_does():
    """tinygrad 0.14.0 (CPU, fed or not), test_quantizelinear_blocked_axis1_short_last_block_opset21: x (2, 7),
    block_size 3, y_scale (2, 3) raises "shape mismatch: objects cannot be broadcast to a single shape ((2, 7),
    (2, 9))"; blocks that fill the axis are quantized as the reference does."""
    fn = FAULTS["quantize_linear.short_last_block_refused"].fn
    f32, u8 = dtypes.get("float"), dtypes.get("uint8")
    a = {"axis": 1, "block_size": 3}
    x = np.arange(-7, 7, dtype=np.float32).reshape(2, 7)
    s, z = np.full((2, 3), 0.5, np.float32), np.full((2, 3), 7, np.uint8)
    with pytest.raises(faults.Refusal):
        fn([x, s, z], a, 21, [f32, f32, u8])
    x6, s2, z2 = x[:, :6], s[:, :2], z[:, :2]
    assert np.array_equal(fn([x6, s2, z2], a, 21, [f32, f32, u8])[0],
                          ref.quantize_linear_node([x6, s2, z2], a, 21, [f32, f32, u8])[0])


def test_fake_quantize_band_gives_openvinos_numbers():
    """OpenVINO 2026.4.1 CPU, test_quantizelinear_x_float16_scale_float32_opset23 (float16 x, y_scale 0.3 in float32,
    int8): zero point 0: -26.25 -> -87, -17.25 -> -58, 2.25 -> 8, 12.75 -> 43 (the reference -88, -57, 7, 42: ties
    of the band's float32 steps, not of x / y_scale); zero point -128: 2.25 -> -120, 38.25 -> 0 (-121, -1)."""
    types = [dtypes.get("float16"), dtypes.get("float"), dtypes.get("int8")]
    fault = FAULTS["quantize_linear.fake_quantize_band"]
    x = np.array([-26.25, -17.25, 2.25, 12.75], np.float16)
    (y,) = fault.fn([x, np.float32(0.3), np.int8(0)], {}, 23, types)
    (want,) = ref.quantize_linear_node([x, np.float32(0.3), np.int8(0)], {}, 23, types)
    assert y.tolist() == [-87, -58, 8, 43] and want.tolist() == [-88, -57, 7, 42]
    x = np.array([2.25, 38.25, 1000.0, -1000.0], np.float16)  # beyond the band: lo / hi
    (y,) = fault.fn([x, np.float32(0.3), np.int8(-128)], {}, 23, types)
    assert y.tolist() == [-120, 0, 127, -128]


def test_x_precision_divides_in_xs_type_from_23_only():
    """A float16 x over a float32 y_scale divides in float16 under the fault: 2.25 / float16(0.3) = 7.504 -> 8, where
    the reference's float32 quotient 7.4999995 gives 7; before 23 x and y_scale share the type, and a float32 x
    keeps the reference's division."""
    fault = FAULTS["quantize_linear.x_precision"]
    h = [dtypes.get("float16"), dtypes.get("float"), dtypes.get("int8")]
    (y,) = fault.fn([np.array([2.25], np.float16), np.float32(0.3), np.int8(0)], {}, 23, h)
    assert y.tolist() == [8]
    f = [dtypes.get("float"), dtypes.get("float"), dtypes.get("int8")]
    (y32,) = fault.fn([np.array([2.25], np.float32), np.float32(0.3), np.int8(0)], {}, 23, f)
    assert y32.tolist() == ref.quantize_linear_node([np.array([2.25], np.float32), np.float32(0.3), np.int8(0)],
                                                    {}, 23, f)[0].tolist()
    assert fault.equivalent({"version": 21, "y": "int8", "precision": "float16"})
