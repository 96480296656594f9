"""PyTorch: Cast and CastLike through `Tensor.to(dtype)`, QuantizeLinear / DequantizeLinear through torch's
quantized tensors (torch_quant.py), on the device --backend-option device names (cpu, cuda, cuda:N).

torch reads no ONNX: the adapter maps the case's one node onto torch's own op (torch_jax_nodes.read_node) and
never converts, clamps or rounds a value itself. Inputs go in and outputs come back bit-exact: the numpy /
ml_dtypes array is viewed as integers of its width, handed to torch.from_numpy, viewed as the torch dtype of
the same name (float8_e4m3fn, bfloat16, uint16 ...), moved to the device; the result comes back the same way.
A node torch cannot express is unsupported with the reason: a type torch has no dtype (or no conversion
kernel) for (strings, the sub-byte types, float6), a float8 `saturate` or a float8e8m0 `round_mode` other than
what torch's conversion does. Which of its float8 conversions saturate changed between releases, so it is found
by converting a value beyond the type's largest finite one on the device itself at prepare, never assumed
(torch_jax_nodes.cast_semantics_problem; `settings()` records what this torch does from float32).
Every other op is unsupported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import onnx
import torch

from generator import dtypes
from generator.dtypes import DType
from runners.backends import torch_quant
from runners.backends.base import Backend, Unsupported, UnsupportedTable, refuse_option
from runners.backends.torch_jax_nodes import (Node, cast_semantics_problem, cast_types, cpu_name,
                                              overflow_behaviour, read_node)

RUNTIME = "torch"
# What torch says when it has no kernel for a dtype on a device (an error anywhere else stays an error).
# (docs/frameworks.md; each pattern as measured on torch 2.13)
UNSUPPORTED = UnsupportedTable(text=(
    r"not implemented for '",  # "copy_" not implemented for 'Int4': no kernel for this dtype
    r"Quantize only works on Float Tensor",
))
FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0")


def torch_dtype(t: DType) -> torch.dtype | None:
    """torch's dtype of the same name as t's ml_dtypes / numpy one, where it holds one element per byte or more
    (torch's int1..int7 / uint1..uint7 are dtype names without conversion kernels; float4_e2m1fn_x2 packs two)."""
    if t.kind == "string" or t.bits < 8:
        return None
    found = getattr(torch, t.np_dtype.name, None)
    return found if isinstance(found, torch.dtype) and found.itemsize * 8 == t.bits else None


def to_torch(a: np.ndarray, t: DType, device: str) -> torch.Tensor:
    """a (of type t) as a torch tensor of the same bits on `device`."""
    bits = np.array(a, dtype=t.np_dtype, order="C").view(np.dtype(f"i{t.bits // 8}"))  # a copy; 0-d stays 0-d
    return torch.from_numpy(bits).view(torch_dtype(t)).to(device)


def from_torch(x: torch.Tensor, t: DType) -> np.ndarray:
    """A torch tensor of t's dtype as a numpy / ml_dtypes array of t, bit for bit."""
    if x.dtype != torch_dtype(t):
        raise TypeError(f"torch returned {x.dtype}, not {torch_dtype(t)} ({t.name})")
    ints = x.detach().cpu().contiguous().view(getattr(torch, f"int{t.bits}")).numpy()
    return ints.view(t.np_dtype)


def parse_device(value: str) -> str | None:
    """"cpu", "cuda" or "cuda:N" as torch names it; None for anything else."""
    return value if re.fullmatch(r"cpu|cuda(:[0-9]{1,3})?", value) else None


def device_problem(device: str) -> str | None:
    """Why this torch cannot run on `device` here, or None."""
    if device == "cpu":
        return None
    if not torch.cuda.is_available():
        return f"torch {torch.__version__} sees no CUDA device here (torch.cuda.is_available() is False)"
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        return f"torch sees {torch.cuda.device_count()} CUDA device(s), no {device}"
    return None


def device_name(device: str) -> str:
    return cpu_name() if device == "cpu" else torch.cuda.get_device_name(torch.device(device))


@dataclass
class Prepared:
    node: Node
    run: object  # list[np.ndarray] -> list[np.ndarray]


class TorchBackend(Backend):
    name = "torch"
    OPTIONS = {"device": "where torch converts: cpu (default), cuda or cuda:N"}

    def __init__(self):
        self.device = "cpu"
        self._found: dict = {}  # what torch's conversions do (torch_jax_nodes.cast_semantics_problem)

    def configure(self, options: dict[str, str]) -> None:
        if "device" in options:
            value = options["device"]
            device = parse_device(value)
            if device is None:
                raise refuse_option(self, "device", value, "expected cpu, cuda or cuda:N")
            problem = device_problem(device)
            if problem:
                raise refuse_option(self, "device", value, problem)
            self.device = device

    def version(self) -> str:
        return torch.__version__

    def settings(self) -> dict:
        return {"device": self.device, "device_name": device_name(self.device),
                "float8_overflow_from_float32": self.float8_overflow()}

    def float8_overflow(self) -> str:
        """What this torch does on this device with a float32 beyond each float8 type's largest finite value."""
        src = dtypes.get("float")
        parts = []
        for name in FLOAT8:
            dst = dtypes.get(name)
            if torch_dtype(dst) is None:
                continue
            try:
                parts.append(f"{name} {overflow_behaviour(self._converter(src, dst), src, dst)}")
            except Exception as exc:  # noqa: BLE001 - a missing kernel: say so in the settings
                parts.append(f"{name} no conversion ({type(exc).__name__})")
        return ", ".join(parts)

    def _converter(self, src: DType, dst: DType):
        target = torch_dtype(dst)

        def convert(a: np.ndarray) -> np.ndarray:
            return from_torch(to_torch(a, src, self.device).to(target), dst)
        return convert

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        node = read_node(model, RUNTIME)
        if node.op in ("QuantizeLinear", "DequantizeLinear"):
            return Prepared(node, torch_quant.prepare(node, self.device))
        return Prepared(node, self._prepare_cast(node))

    def _prepare_cast(self, node: Node):
        src, dst = cast_types(node)
        for t in (src, dst):
            if torch_dtype(t) is None:
                raise Unsupported(f"torch {torch.__version__} has no {t.name} dtype with conversions "
                                  f"({'no string tensors' if t.kind == 'string' else 'no such element type'})")
        convert = self._converter(src, dst)
        try:
            convert(np.zeros(1, dtype=src.np_dtype))
        except Exception as exc:  # noqa: BLE001
            if UNSUPPORTED.matches(exc):
                raise Unsupported(f"torch on {self.device}: {src.name} -> {dst.name}: {_one_line(exc)}") from None
            raise
        problem = cast_semantics_problem(node, convert, f"torch on {self.device}", self._found)
        if problem:
            raise Unsupported(problem)

        def run(inputs: list[np.ndarray]) -> list[np.ndarray]:
            return [convert(np.asarray(inputs[0]))]  # CastLike's second input gives its type only
        return run

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        try:
            return prepared.run(inputs)
        except Exception as exc:  # noqa: BLE001
            if UNSUPPORTED.matches(exc):
                raise Unsupported(f"torch on {self.device}: {_one_line(exc)}") from None
            raise


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__
