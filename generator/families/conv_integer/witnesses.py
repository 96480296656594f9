"""The witness cases of ConvInteger's fault models (generator/reference/conv_integer_faults.py): one case per group
and witness configuration, its data sets from the committed catalogue (generator/witness/catalogue/conv_integer.json,
in generator/catalogue/conv_integer.py's form), expected outputs from the reference."""

from __future__ import annotations

from typing import Iterator

from generator import dtypes, witness
from generator.case import Case
from generator.catalogue.conv_integer import decode
from generator.families.conv_integer.spec import FAMILY, ci_of, dataset_cases, expected, feed


def witness_cases() -> Iterator[Case]:
    """One node case per group of the committed catalogue and witness configuration: test_convinteger_witness_<group>
    (the group's own configuration) or _<configuration> (a fault that needs one of its own to differ); one data set
    per distinct witness; case.json "witnesses" names the faults each data set was built for."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        by_config: dict = {}  # configuration -> (params, sets, made_for, seen)
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                params = wit.get("params", group["params"])
                types = tuple(dtypes.get(t).np_dtype for t in (params["x_type"], params["w_type"]))
                inputs = decode(wit, types)
                _, sets, made_for, seen = by_config.setdefault(wit.get("configuration", ""), (params, [], [], {}))
                digest = repr([None if v is None else (v.shape, v.tobytes()) for v in inputs])
                if digest in seen:
                    made_for[seen[digest]].append(name)
                    continue
                seen[digest] = len(sets)
                sets.append(inputs)
                made_for.append([name])
        for label, (params, sets, made_for, _) in sorted(by_config.items()):
            what = "witness_" + key.replace(" ", "_").replace("=", "_") + (f"_{label}" if label else "")
            ci = ci_of(what, params)
            data = [feed(ci, *inputs) for inputs in sets]
            for name, d in zip(made_for, data):
                if not expected(ci, d).defined:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} has undefined elements")
            yield from dataset_cases(ci, data, 0, ["witness"], witnesses=made_for)

