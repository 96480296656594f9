"""The witness cases of QLinearMatMul's fault models (generator/reference/qlinear_matmul_faults.py): one case per
configuration class, its data sets from the committed catalogue (generator/witness/catalogue/qlinear_matmul.json, in
generator/catalogue/qlinear_matmul.py's form), expected outputs from the reference."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import witness
from generator.case import Case
from generator.catalogue import qlinear_matmul as codec
from generator.families.qlinear_matmul.mm import FAMILY, dataset_cases, expected, from_params


def witness_cases() -> Iterator[Case]:
    """One node case per class of the committed witness catalogue: test_qlinearmatmul_witness_<class>, one data set
    per distinct witness; case.json "witnesses" names the faults each data set was built for. A witness on a
    configuration of its own ("config", "params": K = 0) goes to test_qlinearmatmul_witness_<class>_<config>."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        by_config: dict[str, tuple[dict, list, list, dict]] = {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                params = wit.get("params", group["params"])
                _, sets, made_for, seen = by_config.setdefault(wit.get("config", ""), (params, [], [], {}))
                inputs = codec.decode(wit, params)
                digest = b"".join(np.ascontiguousarray(v).tobytes() for v in inputs)
                if digest in seen:
                    made_for[seen[digest]].append(name)
                    continue
                if not expected(inputs).defined:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} has undefined elements")
                seen[digest] = len(sets)
                sets.append(inputs)
                made_for.append([name])
        for config, (params, sets, made_for, _) in sorted(by_config.items()):
            mm = from_params("_".join(filter(None, ("witness", key.replace(" ", "_"), config))), params)
            yield from dataset_cases(mm, sets, 0, ["witness"], witnesses=made_for)
