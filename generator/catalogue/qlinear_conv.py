"""The JSON form of QLinearConv's witnesses (generator/witness/catalogue/qlinear_conv.json) and of its hunt
examples' inputs: every tensor a string of space-separated values in C order (shapes from the group's params):
integers, "v*n" for a run of n values v; float32 scales as the shortest decimal that reads back as exactly that
value (Python's repr of it). "B" is left out of a witness where it is all zeros.

Written by the witness search (generator/witness/qlinear_conv.py) and the hunt (rebuild's args), read by the
family (generator/families/qlinear_conv/witnesses.py).
"""

from __future__ import annotations

import numpy as np


def encode_floats(values) -> str:
    """float32 values, each as the shortest decimal that reads back as exactly that value."""
    return " ".join(repr(float(np.float32(v))) for v in values)


def encode_ints(a) -> str:
    """Values in C order, space-separated; a run of n > 2 equal values as "v*n"."""
    out, values = [], [int(v) for v in np.asarray(a).reshape(-1)]
    i = 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        out += [f"{values[i]}*{j - i}"] if j - i > 2 else [str(values[i])] * (j - i)
        i = j
    return " ".join(out)


def encode(named: dict[str, np.ndarray]) -> dict[str, str]:
    """Each tensor by its input name: the scales (names ending "_scale") as floats, the others as integers."""
    return {name: (encode_floats if name.endswith("_scale") else encode_ints)(np.asarray(v).reshape(-1))
            for name, v in named.items()}


def decode_ints(text: str, dtype: np.dtype, shape: tuple) -> np.ndarray:
    """encode_ints' text as an array of dtype and shape."""
    values = []
    for token in text.split():
        v, _, n = token.partition("*")
        values += [int(v)] * (int(n) if n else 1)
    return np.array(values, dtype=np.int64).reshape(shape).astype(dtype)


def decode_floats(text: str, shape: tuple) -> np.ndarray:
    """encode_floats' text as float32 (decimals that read back as the float32 values)."""
    return np.array([float(v) for v in text.split()], dtype=np.float64).astype(np.float32).reshape(shape)


def encode_named(names: tuple[str, ...], inputs: list, what: str = "") -> dict:
    """Integer inputs by name (None: left out) as {"what": ..., name: {"shape": [...], "values": text}}: the form of
    MatMulInteger's and ConvInteger's witness catalogues (generator/catalogue/matmul_integer.py, conv_integer.py)."""
    out: dict = {"what": what} if what else {}
    for name, v in zip(names, inputs):
        if v is not None:
            out[name] = {"shape": list(np.shape(v)), "values": encode_ints(v)}
    return out


def decode_named(names: tuple[str, ...], entry: dict, dtypes: tuple) -> list:
    """encode_named's JSON back to the inputs in names' order (None where absent), each of its dtype."""
    return [decode_ints(entry[n]["values"], dt, tuple(entry[n]["shape"])) if n in entry else None
            for n, dt in zip(names, dtypes)]

