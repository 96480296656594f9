"""The witness cases of QGemm's fault models (generator/reference/qgemm_faults.py): one case per configuration
class and witness configuration, its data sets from the committed catalogue (generator/witness/catalogue/qgemm.json,
in generator/catalogue/qgemm.py's form), expected outputs from the reference."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import witness
from generator.case import Case
from generator.catalogue import qgemm as codec
from generator.families.qgemm.config import FAMILY, dataset_cases, expected, from_params


def witness_cases() -> Iterator[Case]:
    """test_qgemm_witness_<class>_<config>: one data set per distinct witness of that class and configuration;
    case.json "witnesses" names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        by_config: dict[str, tuple[dict, list, list, dict]] = {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                params = wit["params"]
                g = from_params("witness", params)
                _, sets, made_for, seen = by_config.setdefault(wit["config"], (params, [], [], {}))
                data = codec.decode(wit["inputs"], g.slots, g.shapes(), g.input_types())
                digest = b"".join(np.ascontiguousarray(v).tobytes() for v in data)
                if digest in seen:
                    made_for[seen[digest]].append(name)
                    continue
                if not expected(g, data).defined:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} has undefined elements")
                seen[digest] = len(sets)
                sets.append(data)
                made_for.append([name])
        for config, (params, sets, made_for, _) in sorted(by_config.items()):
            g = from_params("_".join(("witness", key.replace(" ", "_"), config)), params)
            yield from dataset_cases(g, sets, 0, ["witness"], witnesses=made_for)
