"""The CastLike hunt strategy (generator/families/cast_like.py, hunt: Cast's strategy as CastLike nodes): one
slice per CastLike variant; its examples are valid suite cases of CastLike with a target_type input that the
reference passes; rebuild(args) gives them back; and the draws kill the fault model CastLike has of its own
(round_mode dropped, as onnx's CastLike-24 / 25 function body does) and Cast's where they can differ."""

from __future__ import annotations

import pytest

from generator.families import cast_like
from generator.serialize import read_case, write_case
from runners.backends.opconform import OpconformBackend
from runners.execute import run_case_dataset

from hunt_checks import assert_rebuilds, hunt_kills
from hunt_draws import draw_examples

SLICES = cast_like.hunt(cast_like.NEWEST)
pytestmark = pytest.mark.usefixtures("hypothesis_home")
LABELS = ["float32_to_float8e4m3fn_nosat", "float16_to_int4", "string_to_float32", "float32_to_float8e8m0_down",
          "bfloat16_to_float8e8m0_nearest", "float64_to_float4e2m1"]


def test_one_slice_per_variant_and_none_below_castlike():
    assert len(SLICES) == len(list(cast_like.variants(cast_like.NEWEST)))
    assert set(LABELS) <= set(SLICES)
    assert cast_like.hunt(cast_like.MIN_OPSET - 1) is None


@pytest.fixture(scope="module")
def examples() -> dict[str, list]:
    return {label: draw_examples(SLICES[label], 20) for label in LABELS}


def test_examples_are_castlike_cases_the_reference_passes(tmp_path, examples):
    for label, drawn in examples.items():
        for i, example in enumerate(drawn):
            for case in (example.case, example.probe):
                if case is None:
                    continue
                node = case.model.graph.node[0]
                assert node.op_type == "CastLike" and list(node.input) == ["input", "target_type"]
                assert case.meta["family"] == "cast_like" and case.meta["opset"] >= cast_like.first_opset(
                    *(cast_like.dtypes.get(case.meta["params"][k]) for k in ("from", "to")))
                write_case(case, tmp_path / label / str(i))
                loaded = read_case(tmp_path / label / str(i) / case.kind / case.name)
                verdict = run_case_dataset(OpconformBackend(), loaded, 0, "strict", {}).verdict
                assert verdict == ("pass" if case.kind == "node" else "probe"), (label, case.name)


def test_rebuild_gives_every_example_again(examples):
    assert_rebuilds(cast_like.rebuild, [e for drawn in examples.values() for e in drawn])


def test_the_draws_kill_round_mode_ignored_and_casts_faults(examples):
    killed = hunt_kills("cast_like", [e for drawn in examples.values() for e in drawn])
    assert "cast_like.round_mode_ignored" in killed
    assert {"cast_like.round_half_away", "cast_like.saturate_ignored"} <= killed, sorted(killed)
