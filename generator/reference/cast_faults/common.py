"""What every Cast fault model is built from: the group key, the reference's kernel in a node function, and
the type facts the applicability rules need."""

from __future__ import annotations

import numpy as np

from generator import dtypes
from generator.dtypes import DType
from generator.outcome import Outcome
from generator.reference import cast as ref


INTERMEDIATES = ("float16", "bfloat16", "float", "double")


def group_key(meta: dict) -> str:
    """The group of a case. A case written at another opset of the same semantics (the opset-boundary and
    explicit-defaults axes: one opset above a change, Cast-23 beside Cast-19) names the group's opset in
    case.json "group_opset", so that it joins its group rather than opening one of its own."""
    p = meta.get("params") or {}
    parts = [f"{p['from']}->{p['to']}"]
    if "saturate" in p:
        parts.append(f"saturate={p['saturate']}")
    if "round_mode" in p:
        parts.append(f"round_mode={p['round_mode']}")
    parts.append(f"opset={meta.get('group_opset') or meta['opset']}")
    return " ".join(parts)


def _params(p: dict) -> tuple[DType, DType, bool, str, int]:
    return (dtypes.get(p["from"]), dtypes.get(p["to"]), bool(p.get("saturate", 1)), p.get("round_mode", "up"),
            int(p["opset"]))


def _node(kernel):
    """A node function from kernel(x, src, to, saturate, round_mode, opset) -> y (attributes as cast_node reads them)."""
    def fn(inputs, attrs, opset, input_types):
        a = ref.node_attributes(attrs, opset)
        return [kernel(np.asarray(inputs[0]), dtypes.get(input_types[0]), dtypes.get(int(attrs["to"])), a["saturate"],
                       a["round_mode"], opset)]
    return fn


_MEMO: dict = {}  # the last casts: the faults diagnosed on one data set cast it the same way 2.5 times on average
_MEMO_KEPT = 256


def _outcome(x, src, to, saturate, round_mode, opset):
    """The reference's Cast; a repeated cast of the same numeric array is answered from the memo, as fresh
    copies (a fault kernel may write into what it gets)."""
    x = np.asarray(x)
    if x.dtype.kind == "O":  # strings: no bytes to key on
        return ref.cast_outcome(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)
    key = (x.dtype.str, x.shape, x.tobytes(), dtypes.get(src).name, dtypes.get(to).name, bool(saturate), round_mode,
           opset)
    if key not in _MEMO:
        if len(_MEMO) >= _MEMO_KEPT:
            _MEMO.clear()
        _MEMO[key] = ref.cast_outcome(x, src, to, saturate=saturate, round_mode=round_mode, opset=opset)
    kept = _MEMO[key]
    return Outcome(tuple(np.copy(y) for y in kept.outputs), {r: np.copy(m) for r, m in kept.undefined.items()})


def _cast(x, src, to, saturate, round_mode, opset):
    return _outcome(x, src, to, saturate, round_mode, opset).outputs[0]


# ---------------------------------------------------------------------------------------
# type facts the applicability rules need
# ---------------------------------------------------------------------------------------
def _is_rounding_float(t: DType) -> bool:
    """A float target with a mantissa (every float but float8e8m0)."""
    return t.is_float and t.nan_style != dtypes.E8M0


def _holds_all(big: DType, small: DType) -> bool:
    """Every finite value of `small` is exact in `big` (float or integer `small`, float `big`)."""
    if not big.is_float or big.nan_style == dtypes.E8M0:
        return False
    if small.kind == "bool":
        return True
    if small.is_integer:
        mag = max(abs(small.int_min), small.int_max)
        return mag.bit_length() <= big.mantissa_bits + 1 and mag <= big.finite_max
    if not small.is_float:
        return False
    if small.nan_style == dtypes.E8M0:
        return big.min_exponent - big.mantissa_bits <= -127 and big.finite_max >= small.finite_max
    return (small.mantissa_bits <= big.mantissa_bits and small.finite_max <= big.finite_max
            and small.min_exponent - small.mantissa_bits >= big.min_exponent - big.mantissa_bits)


def _wider(t: DType, to: DType) -> bool:
    """t is a plausible intermediate for `to`: it holds every value of `to`, Inf where `to` has it."""
    return t.name != to.name and _holds_all(t, to)
