"""The witness cases of QLinearConv's fault models (generator/reference/qlinear_conv_faults.py): one case per
configuration class, its data sets from the committed catalogue (generator/witness/catalogue/qlinear_conv.json, in
generator/catalogue/qlinear_conv.py's form), expected outputs from the reference."""

from __future__ import annotations

from typing import Iterator

import numpy as np

from generator import witness
from generator.case import Case
from generator.catalogue import qlinear_conv as codec
from generator.families.qlinear_conv.conv import FAMILY, Conv, _type, dataset_cases, expected


def witness_conv(what: str, params: dict) -> Conv:
    """The configuration of a witness class from its catalogue params (Conv.params() of it)."""
    attrs = {k: params[k] for k in ("auto_pad", "pads", "strides", "dilations", "group", "kernel_shape") if k in params}
    w_shape = tuple(params["w_shape"])
    return Conv(what, tuple(params["x_shape"]), w_shape[2:], w_shape[0], attrs,
                (params["x_type"], params["w_type"], params["y_type"]),
                per_channel=None if params["per_channel"] == "no" else params["per_channel"],
                bias=None if params["bias"] == "absent" else params["bias"], scales=params["scales"])


def witness_inputs(conv: Conv, wit: dict) -> list[np.ndarray]:
    """The inputs (NAMES order) of one catalogued witness (generator/catalogue/qlinear_conv.py's form); B all
    zeros where left out."""
    xt, wt, yt = (_type(t) for t in conv.types)
    per = (conv.m,) if conv.per_channel else ()
    ints, scales = codec.decode_ints, codec.decode_floats
    inputs = [ints(wit["x"], xt.np_dtype, conv.x_shape), scales(wit["x_scale"], ()),
              ints(wit["x_zero_point"], xt.np_dtype, ()), ints(wit["w"], wt.np_dtype, conv.w_shape),
              scales(wit["w_scale"], per), ints(wit["w_zero_point"], wt.np_dtype, per), scales(wit["y_scale"], ()),
              ints(wit["y_zero_point"], yt.np_dtype, ())]
    if conv.bias:
        inputs.append(ints(wit.get("B", f"0*{conv.m}"), _type("int32").np_dtype, (conv.m,)))
    return inputs


def witness_cases() -> Iterator[Case]:
    """One node case per class of the committed witness catalogue (generator/witness/catalogue/
    qlinear_conv.json): test_qlinearconv_witness_<class>, one data set per distinct witness, expected outputs
    from the reference; case.json "witnesses" names the faults each data set was built for. Witnesses of a
    configuration of their own ("configuration", "params": a fault that needs one to differ) make the case
    test_qlinearconv_witness_<class>_<configuration>."""
    for key, group in sorted(witness.load(FAMILY.name)["groups"].items()):
        by_config: dict[str, list] = {}
        for name, entry in sorted(group["faults"].items()):
            for wit in entry.get("witnesses", []):
                by_config.setdefault(wit.get("configuration", ""), []).append((name, wit))
        for label, found in sorted(by_config.items()):
            what = "witness_" + key.replace(" ", "_") + (f"_{label}" if label else "")
            conv = witness_conv(what, found[0][1].get("params", group["params"]))
            sets: list[list[np.ndarray]] = []
            made_for, seen = [], {}
            for name, wit in found:
                inputs = witness_inputs(conv, wit)
                digest = b"".join(np.ascontiguousarray(v).tobytes() for v in inputs)
                if digest in seen:
                    made_for[seen[digest]].append(name)
                    continue
                if not expected(conv, inputs).defined:
                    raise ValueError(f"witness catalogue: a {name} witness of {key!r} has undefined elements")
                seen[digest] = len(sets)
                sets.append(inputs)
                made_for.append([name])
            yield from dataset_cases(conv, sets, 0, ["witness"], witnesses=made_for)
