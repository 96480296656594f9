"""The witness cases of MatMulInteger's fault models (generator/reference/matmul_integer_faults.py): one case per
group, its data sets from the committed catalogue (generator/witness/catalogue/matmul_integer.json, in
generator/catalogue/matmul_integer.py's form), expected outputs from the reference."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import dtypes, witness
from generator.case import Case
from generator.catalogue.matmul_integer import decode
from generator.families.matmul_integer.spec import FAMILY, MM, dataset_cases, expected, feed



def witness_dims(a_zp: str, b_zp: str) -> dict:
    """Symbolic M, K, N: A [M, K], B [K, N], a per-row zero point [M], a per-column one [N] (a scalar stays 0-D)."""
    dims: dict = {"A": ("M", "K"), "B": ("K", "N")}
    if a_zp == "row":
        dims["a_zero_point"] = ("M",)
    if b_zp == "column":
        dims["b_zero_point"] = ("N",)
    return dims


def witness_mm(what: str, params: dict) -> MM:
    """The configuration of a witness group from its catalogue params (MM.params() of it): symbolic dims."""
    return MM(what, tuple(params["a_shape"]), tuple(params["b_shape"]), (params["a_type"], params["b_type"]),
              params["a_zp"], params["b_zp"], data=params.get("data", "witness"),
              dims=witness_dims(params["a_zp"], params["b_zp"]))


def witness_cases() -> Iterator[Case]:
    """One node case per group of the committed catalogue: test_matmulinteger_witness_<group>, one data set per
    distinct witness; case.json "witnesses" names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        mm = witness_mm("witness_" + key.replace(" ", "_").replace("=", "_"), group["params"])
        types = tuple(dtypes.get(t).np_dtype for t in mm.types)
        sets: list[list[np.ndarray]] = []
        made_for, seen = [], {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                inputs = decode(wit, types)
                digest = repr([None if v is None else (v.shape, v.tobytes()) for v in inputs])
                if digest in seen:
                    made_for[seen[digest]].append(name)
                    continue
                if not expected(inputs).defined:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} has undefined elements")
                seen[digest] = len(sets)
                sets.append(feed(mm, *inputs))
                made_for.append([name])
        if sets:
            yield from dataset_cases(mm, sets, 0, ["witness"], witnesses=made_for)
