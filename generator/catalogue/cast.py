"""Cast's witness catalogue (generator/witness/catalogue/cast.json, CastLike's too): the JSON form of a witness and
the fault sets whose witnesses only some case functions read. Read by the families (generator/families/cast/,
cast_like.py) and written by the search (generator/witness/cast.py).

A witness is the source element's bit pattern in hex (a string source: the string itself).
"""

from __future__ import annotations

import numpy as np

from generator.dtypes import DType

# faults that read an attribute only where the model writes it: their witnesses are searched on the model of the
# explicit-defaults axis (the defaults written, at the group's first opset that has them) and stored as
# "explicit_witnesses", which only that case reads (generator/families/cast/axes_cases.py, explicit_defaults)
PRESENT_ATTRIBUTE_FAULTS = ("cast.present_saturate_read_as_0", "cast.present_round_mode_as_nearest",
                            "cast.present_saturate_beyond_float8")
NAN_SIGN_FAULTS = ("cast.nan_sign_lost", "cast.input_nan_sign_lost")  # judged only where the sign of NaN is compared


def encode(x: np.ndarray, src: DType) -> list[str]:
    if src.kind == "string":
        return [str(s) for s in x]
    return [hex(int(b)) for b in src.to_bits(x).tolist()]


def decode(items: list[str], src: DType) -> np.ndarray:
    if src.kind == "string":
        return np.array(items, dtype=object)
    return src.from_bits(np.array([int(s, 16) for s in items], dtype=np.uint64))


def value_witnesses(entry: dict) -> list[str]:
    """A group's "witnesses" in fault-name order, each once, but those of NAN_SIGN_FAULTS (judged only by the case
    that compares the sign of NaN)."""
    items: list[str] = []
    for name, found in sorted(entry["faults"].items()):
        if name not in NAN_SIGN_FAULTS:
            items += [w for w in found.get("witnesses", []) if w not in items]
    return items
