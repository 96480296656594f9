"""The witness cases of MatMulInteger's fault models (generator/reference/matmul_integer_faults.py): one case per
group and operand ranks (2-D by 2-D, and a 1-D A or B where a witness has one), its data sets from the committed
catalogue (generator/witness/catalogue/matmul_integer.json, in generator/catalogue/matmul_integer.py's form),
expected outputs from the reference."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import dtypes, witness
from generator.case import Case
from generator.catalogue.matmul_integer import decode
from generator.families.matmul_integer.spec import FAMILY, MM, dataset_cases, expected, feed



def witness_dims(a_zp: str, b_zp: str, a_rank: int = 2, b_rank: int = 2) -> dict:
    """Symbolic M, K, N: A [M, K] (or [K]), B [K, N] (or [K]), a per-row zero point [M], a per-column one [N] (a
    scalar stays 0-D)."""
    dims: dict = {"A": ("M", "K")[2 - a_rank:], "B": ("K", "N")[:b_rank]}
    if a_zp == "row":
        dims["a_zero_point"] = ("M",)
    if b_zp == "column":
        dims["b_zero_point"] = ("N",)
    return dims


def witness_mm(what: str, params: dict) -> MM:
    """The configuration of a witness group from its catalogue params (MM.params() of it): symbolic dims."""
    a_shape, b_shape = tuple(params["a_shape"]), tuple(params["b_shape"])
    return MM(what, a_shape, b_shape, (params["a_type"], params["b_type"]), params["a_zp"], params["b_zp"],
              data=params.get("data", "witness"),
              dims=witness_dims(params["a_zp"], params["b_zp"], len(a_shape), len(b_shape)))


RANK_SUFFIX = {(2, 2): "", (1, 2): "_a_1d", (2, 1): "_b_1d"}  # a case per operand ranks, 2-D by 2-D unsuffixed


def witness_cases() -> Iterator[Case]:
    """One node case per group of the committed catalogue and operand ranks: test_matmulinteger_witness_<group>
    (2-D by 2-D), _a_1d / _b_1d for the 1-D witnesses; one data set per distinct witness; case.json "witnesses"
    names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        types = tuple(dtypes.get(t).np_dtype for t in (group["params"]["a_type"], group["params"]["b_type"]))
        by_ranks: dict = {}  # (A's rank, B's rank) -> (inputs, made_for, seen)
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                inputs = decode(wit, types)
                sets, made_for, seen = by_ranks.setdefault((inputs[0].ndim, inputs[1].ndim), ([], [], {}))
                digest = repr([None if v is None else (v.shape, v.tobytes()) for v in inputs])
                if digest in seen:
                    made_for[seen[digest]].append(name)
                    continue
                if not expected(inputs).defined:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} has undefined elements")
                seen[digest] = len(sets)
                sets.append(inputs)
                made_for.append([name])
        for ranks, (sets, made_for, _) in sorted(by_ranks.items(), reverse=True):
            params = group["params"] if ranks == (2, 2) else \
                dict(group["params"], a_shape=list(sets[0][0].shape), b_shape=list(sets[0][1].shape))
            mm = witness_mm("witness_" + key.replace(" ", "_").replace("=", "_") + RANK_SUFFIX[ranks], params)
            yield from dataset_cases(mm, [feed(mm, *inputs) for inputs in sets], 0, ["witness"],
                                     witnesses=made_for)
