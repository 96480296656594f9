"""The chains family (generator/families/chains.py): the family contract, its graph cases without a twin on disk
and on the opconform backend, its kill matrix, and each fault model's mutant failing the suite."""

import numpy as np
import pytest

from family_cases import generate, opconform_failures, opconform_results
from generator import faults
from generator.families import FAMILIES, chains
from generator.kill_matrix import KillMatrix
from generator.reference import chains_faults
from generator.serialize import graph_io_types, read_case, write_case
from runners.backends.mutant import mutant
from runners.execute import PreparedCache, run_case_dataset

CASES = generate(chains)


def test_the_family_is_found_by_its_module_name_and_holds_graph_cases_only():
    assert "chains" in FAMILIES
    assert CASES and all(c.kind == "graph" and c.twin is None for c in CASES.values())
    assert all(name.startswith("test_chain_") for name in CASES)


def test_every_case_names_its_rewrite_inputs_mode_and_spec_clause():
    for case in CASES.values():
        p = case.meta["params"]
        assert p["rewrite"] and p["pattern"] and p["inputs"] in ("fed", "initializers", "constant"), case.name
        assert case.meta["spec"]["file"] and case.meta["spec"]["clause"], case.name
        assert case.meta["family"] == "chains"
        assert case.meta["opset"] == (chains.FLOAT8_OPSET if "float8" in case.name else chains.DQL_OPSET
                                      if "dql" in case.name else chains.QUANT_OPSET), case.name
        assert len(case.model.graph.node) >= 1


def test_every_chain_comes_fed_and_with_constants():
    by_chain = {}
    for case in CASES.values():
        stem = case.name.rsplit("_", 1)[0]
        by_chain.setdefault(stem, set()).add(case.meta["params"]["inputs"])
    for stem, modes in by_chain.items():
        assert "fed" in modes and modes & {"initializers", "constant"}, stem


def test_inputs_modes_put_tensors_where_they_say():
    for case in CASES.values():
        mode = case.meta["params"]["inputs"]
        inits = {i.name for i in case.model.graph.initializer}
        fed = [v.name for v in case.model.graph.input if v.name not in inits]
        if mode == "fed":
            assert not inits and fed, case.name
        elif mode == "constant":
            assert not fed and inits and case.inputs == [[]], case.name
        else:  # initializers: weights constant, activations fed
            assert inits and fed, case.name
            assert not any("scale" in n or "zero_point" in n for n in fed), case.name


def test_the_cases_named_in_the_issue_are_there():
    for name in ("test_chain_cast_float_float16_float_fed", "test_chain_cast_int32_float16_float_constant",
                 "test_chain_cast_float_float8e4m3fn_float_nosat_constant", "test_chain_cast_float_float_fed",
                 "test_chain_cast_int64_float_int64_fed", "test_chain_cast_float_int32_float_fed",
                 "test_chain_qdq_uint8_initializers", "test_chain_dq_conv_q_initializers",
                 "test_chain_dql_matmulinteger_fed", "test_chain_dql_matmulinteger_scaled_initializers"):
        assert name in CASES
    # the OpenVINO folder's bug class: int32 70000 -> float16 is +Inf, never 65504
    case = CASES["test_chain_cast_int32_float16_float_constant"]
    assert case.meta["params"]["rewrite"] == "constant_folding"
    x = next(i for i in case.model.graph.initializer if i.name == "x")
    values = list(x.int32_data) or np.frombuffer(x.raw_data, np.int32).tolist()
    assert case.outputs[0][0][values.index(70000)] == np.inf


def test_saturate_is_written_on_casts_to_float8_only():
    for case in CASES.values():
        for node in case.model.graph.node:
            if any(a.name == "saturate" for a in node.attribute):
                to = next(a.i for a in node.attribute if a.name == "to")
                assert to in (17, 19), case.name  # FLOAT8E4M3FN, FLOAT8E5M2


def test_max_opset_keeps_the_chains_of_older_opsets():
    assert chains.work("default", 0, chains.MIN_OPSET - 1) == []
    at18 = [c for u in chains.work("default", 0, 18) for c in u()]
    assert at18 and all(c.meta["opset"] <= 18 and "float8" not in c.name for c in at18)
    with pytest.raises(ValueError):
        chains.work("nope")


def test_the_graph_cases_pass_on_the_opconform_backend_from_disk(tmp_path):
    assert opconform_failures(CASES.values(), tmp_path) == []
    loaded = read_case(tmp_path / "graph" / "test_chain_cast_int32_float16_float_constant")
    assert loaded.kind == "graph" and loaded.n_datasets == 1 and loaded.twin is None


def test_the_kill_matrix_kills_every_fault_that_can_differ():
    km = KillMatrix(["chains"])
    for case in generate(chains).values():
        km.add(case)
    m = km.matrix()["chains"]
    assert m["counts"]["survived"] == 0 and m["score"] == 1.0
    killed_somewhere = {f for row in m["groups"].values() for f, e in row.items() if e["status"] == "killed"}
    assert killed_somewhere == {f.name for f in chains_faults.FAULTS}


def test_a_lossless_pair_is_proved_equivalent_not_killed():
    params = {"pattern": "cast", "types": ["float16", "float", "float16"], "saturate": None}
    fault = faults.by_name("chains")["chains.cast_pair_removed"]
    assert fault.applies(params) and fault.equivalent(params)
    lossy = dict(params, types=["float", "float16", "float"])
    assert fault.equivalent(lossy) is None


def test_the_pair_removed_fault_converts_straight():
    case = CASES["test_chain_cast_float_float16_float_fed"]
    fault = faults.by_name("chains")["chains.cast_pair_removed"]
    (y,) = faults.fault_outputs(fault, case.model, case.inputs[0], case.meta)
    x = case.inputs[0][0]
    assert np.array_equal(y, x, equal_nan=True)  # float -> float: the input itself


def test_the_folded_saturating_fault_gives_65504():
    case = CASES["test_chain_cast_int32_float16_float_fed"]
    fault = faults.by_name("chains")["chains.cast_folded_saturating"]
    (y,) = faults.fault_outputs(fault, case.model, case.inputs[0], case.meta)
    x = case.inputs[0][0].tolist()
    assert y[x.index(70000)] == 65504 and y[x.index(-70000)] == -65504 and y[x.index(2049)] == 2048


@pytest.mark.parametrize("fault", [f.name for f in chains_faults.FAULTS])
def test_each_fault_mutant_fails_the_suite(fault, tmp_path):
    for case in CASES.values():
        write_case(case, tmp_path)
    backend, cache = mutant(f"fault:{fault}"), PreparedCache()
    verdicts = {}
    for case in CASES.values():
        loaded = read_case(tmp_path / case.kind / case.name)
        verdicts[case.name] = run_case_dataset(backend, loaded, 0, "strict", cache).verdict
    failed = {n for n, v in verdicts.items() if v == "fail"}
    assert failed, fault
    assert set(verdicts.values()) <= {"pass", "fail"}, verdicts
    # the data sets the kill matrix says kill it are exactly the ones that fail
    km = KillMatrix(["chains"])
    killers = set()
    for case in generate(chains).values():
        km.add(case)
        if fault in case.meta["kills"][0]:
            killers.add(case.name)
    assert failed == killers


def test_results_name_their_outputs_types():
    for case, result in opconform_results([CASES["test_chain_dql_matmulinteger_fed"]], _tmp()):
        assert result.verdict == "pass"
    _, outs = graph_io_types(CASES["test_chain_dql_matmulinteger_fed"].model)
    assert [t.name for _, t in outs] == ["int32", "float", "uint8"]


def _tmp():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp())
