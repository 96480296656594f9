"""JAX: Cast and CastLike through `jax.lax.convert_element_type` (what `astype` calls), compiled by XLA for the
device --backend-option device names (cpu, gpu).

JAX reads no ONNX: the adapter maps the case's one node onto the conversion (torch_jax_nodes.read_node) and
never converts, clamps or rounds a value itself. JAX's element types are numpy's and ml_dtypes' (bfloat16, the
float8 types, float8_e8m0fnu, float4_e2m1fn, float6, int4 / uint4 / int2 / uint2), so inputs go in with
jax.device_put and outputs come back with np.asarray, bit for bit. 64-bit types exist only with jax_enable_x64
(otherwise JAX holds float64 as float32 without a word): the adapter sets it explicitly (--backend-option
enable_x64, default 1) and records it; with it off, a node with a 64-bit type is unsupported. A node JAX cannot
express is unsupported with the reason: strings, a type this JAX lacks, a float8 `saturate` or float8e8m0
`round_mode` other than what its conversion does (found by converting on the device at prepare,
torch_jax_nodes.cast_semantics_problem). QuantizeLinear / DequantizeLinear and every other op are unsupported:
JAX has no op that computes them one to one.
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass

import jax
import numpy as np
import onnx

from generator import dtypes
from generator.dtypes import DType
from runners.backends.base import Backend, Unsupported, UnsupportedTable, choice, refuse_option
from runners.backends.torch_jax_nodes import (Node, cast_semantics_problem, cast_types, cpu_name,
                                              overflow_behaviour, read_node)

# What JAX / XLA says when it has no buffer or conversion for an element type on a device (jax names float6 types
# that XLA's CPU client rejects: measured on 0.10.2; docs/frameworks.md). Anything else it raises stays an error.
UNSUPPORTED = UnsupportedTable(text=(
    r"Unknown NumPy dtype",  # device_put of an ml_dtypes type the client has no buffer for
    r"Invalid XLA PrimitiveType",  # a conversion to such a type
))
DEVICES = {"cpu": "cpu", "gpu": "gpu"}
SWITCH = {"1": True, "0": False, "true": True, "false": False}
FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float8e8m0")


def jax_dtype(t: DType) -> np.dtype | None:
    """t's numpy / ml_dtypes dtype where this JAX has it as an element type, else None."""
    if t.kind == "string":
        return None
    try:
        return np.dtype(jax.dtypes.canonicalize_dtype(t.np_dtype)) if _known(t) else None
    except (TypeError, ValueError):
        return None


def _known(t: DType) -> bool:
    """JAX names the type (jax.numpy.<ml_dtypes name>), or it is one of numpy's own."""
    import jax.numpy as jnp

    return t.is_numpy_native or t.kind == "bool" or getattr(jnp, t.np_dtype.name, None) is not None


@dataclass
class Prepared:
    node: Node
    convert: object


class JaxBackend(Backend):
    name = "jax"
    OPTIONS = {"device": "where XLA converts: cpu (default) or gpu",
               "enable_x64": "jax_enable_x64: 1 (default: 64-bit types as they are) or 0 (nodes with them unsupported)"}

    def __init__(self):
        self.platform = "cpu"
        self.x64 = True
        self._device = None
        self._found: dict = {}  # what the runtime's conversions do (torch_jax_nodes.cast_semantics_problem)
        self._jitted: dict = {}  # destination dtype -> the compiled conversion (XLA caches per input type/shape)

    def configure(self, options: dict[str, str]) -> None:
        if "enable_x64" in options:
            self.x64 = choice(self, "enable_x64", options["enable_x64"], SWITCH)
        if "device" in options:
            self.platform = choice(self, "device", options["device"], DEVICES)
            try:
                self.device()
            except RuntimeError as exc:
                raise refuse_option(self, "device", options["device"],
                                    f"jax {jax.__version__} has no {self.platform} device here "
                                    f"({' '.join(str(exc).split())[:200]})") from None

    def device(self):
        """The first device of the chosen platform, with jax_enable_x64 set as configured (before any array)."""
        if self._device is None:
            jax.config.update("jax_enable_x64", self.x64)
            self._device = jax.devices(self.platform)[0]
        return self._device

    def version(self) -> str:
        return jax.__version__

    def settings(self) -> dict:
        device = self.device()
        return {"device": self.platform, "device_name": cpu_name() if device.platform == "cpu" else device.device_kind,
                "jaxlib": importlib.metadata.version("jaxlib"), "jax_enable_x64": bool(jax.config.jax_enable_x64),
                "XLA_FLAGS": os.environ.get("XLA_FLAGS", ""), "float8_overflow_from_float32": self.float8_overflow()}

    def float8_overflow(self) -> str:
        """What this JAX does on this device with a float32 beyond each float8 type's largest finite value."""
        src = dtypes.get("float")
        return ", ".join(f"{name} {overflow_behaviour(self._converter(src, dtypes.get(name)), src, dtypes.get(name))}"
                         for name in FLOAT8 if jax_dtype(dtypes.get(name)) is not None)

    def _converter(self, src: DType, dst: DType):
        device, target = self.device(), jax_dtype(dst)
        if target not in self._jitted:
            self._jitted[target] = jax.jit(lambda x: jax.lax.convert_element_type(x, target))
        convert = self._jitted[target]

        def run(a: np.ndarray) -> np.ndarray:
            x = jax.device_put(np.asarray(a, dtype=src.np_dtype), device)
            if x.dtype != jax_dtype(src):
                raise TypeError(f"jax holds the {src.name} input as {x.dtype}")
            y = np.asarray(convert(x))
            if y.dtype != dst.np_dtype:
                raise TypeError(f"jax returned {y.dtype}, not {dst.np_dtype} ({dst.name})")
            return y
        return run

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        self.device()  # jax_enable_x64 set before any type is asked about
        if any(n.op_type in ("QuantizeLinear", "DequantizeLinear") for n in model.graph.node):
            raise Unsupported("jax has no op computing QuantizeLinear / DequantizeLinear one to one "
                              "(the adapter maps Cast and CastLike)")
        node = read_node(model, "jax", ("Cast", "CastLike"))
        src, dst = cast_types(node)
        for t in (src, dst):
            if jax_dtype(t) is None:
                raise Unsupported(f"jax {jax.__version__} has no {t.name} element type"
                                  + (" (no string arrays)" if t.kind == "string" else ""))
            if t.bits == 64 and not jax.config.jax_enable_x64:
                raise Unsupported(f"{t.name} with jax_enable_x64 off (enable_x64=0): jax would hold it as 32 bits")
        convert = self._converter(src, dst)
        try:  # the element types and the conversion exist on this device (an empty input aborts XLA: one element)
            convert(np.zeros(1, dtype=src.np_dtype))
        except Exception as exc:  # noqa: BLE001
            if UNSUPPORTED.matches(exc):
                raise Unsupported(f"jax on {self.platform}: {src.name} -> {dst.name}: "
                                  f"{' '.join(str(exc).split())[:300]}") from None
            raise
        problem = cast_semantics_problem(node, convert, f"jax on {self.platform}", self._found)
        if problem:
            raise Unsupported(problem)
        return Prepared(node, convert)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [prepared.convert(np.asarray(inputs[0]))]  # CastLike's second input gives its type only
