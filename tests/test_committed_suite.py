"""The committed suite (cases/): our own backend passes all of it, and its manifest covers every
(from, to, saturate / round_mode) combination the newest Cast allows. (That cases/ is exactly what
gen-cases writes is CI's `gen-cases --check cases`.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.families import cast as cast_family
from generator.serialize import read_case, read_manifest
from runners.backends.registry import get_backend
from runners.execute import PreparedCache, run_case_dataset

SUITE = Path(__file__).resolve().parents[1] / "cases"


@pytest.fixture(scope="module")
def manifest():
    return read_manifest(SUITE)


def test_manifest_covers_every_cast_combination_of_the_newest_opset(manifest):
    have = {(c["params"]["from"], c["params"]["to"], c["params"].get("saturate"), c["params"].get("round_mode"))
            for c in manifest["cases"] if c["op"] == "Cast" and c.get("family") == "cast"}
    for v in cast_family.variants(cast_family.NEWEST_CAST):
        key = (v.src.name, v.to.name, None if v.saturate is None else int(v.saturate), v.round_mode)
        assert key in have, key


def test_opconform_backend_passes_every_committed_case(manifest):
    backend = get_backend("opconform")
    cache = PreparedCache()
    bad = []
    for entry in manifest["cases"]:
        case = read_case(SUITE / entry["kind"] / entry["name"])
        for i in range(max(case.n_datasets, 1)):
            r = run_case_dataset(backend, case, i, "strict", cache)
            if r.verdict not in ("pass", "probe"):
                bad.append(f"{case.name}[{i}]: {r.verdict}: {r.message.splitlines()[0] if r.message else r.error}")
    assert not bad, "\n".join(bad[:20])
    assert len(manifest["cases"]) == sum(manifest["counts"].values())


def test_opconform_tflite_passes_every_graph_twin(manifest):
    """The other layout of the graph cases: their TFLite twins, run with the same references."""
    backend = get_backend("opconform-tflite")
    graphs = [read_case(SUITE / e["kind"] / e["name"]) for e in manifest["cases"] if e["kind"] == "graph"]
    graphs = [case for case in graphs if case.twin is not None]  # the layout family's (chains have none)
    assert graphs
    for case in graphs:
        for i in range(case.n_datasets):
            r = run_case_dataset(backend, case, i, "strict", {})
            assert r.verdict == "pass", (case.name, i, r.verdict, r.message)


def test_random_data_do_not_depend_on_what_is_imported(tmp_path):
    """Generated here, inside pytest with every test module imported (hypothesis included), the random cases
    must be byte-identical to the committed ones (made by the gen-cases command in a fresh process): the
    draws come from PCG64 words (generator.sampling), whatever else is loaded."""
    from generator import cli

    assert cli.main([str(tmp_path / "s"), "--family", "cast", "--max-opset", "13"]) == 0
    names = ["test_cast_float32_to_int8_random", "test_cast_int64_to_float16_random",
             "test_cast_string_to_float32_random", "test_cast_float64_to_string_random"]
    for name in names:
        for f in ("test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"):
            assert (tmp_path / "s" / "node" / name / f).read_bytes() == (SUITE / "node" / name / f).read_bytes(), name
