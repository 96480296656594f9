"""The device and compile properties of the two OpenVINO backends (ONNX and TFLite frontends), and the
--backend-option keys that change them.

Defaults for conformance (docs/backends.md, "openvino and openvino-tflite"): CPU, f32 inference precision (the
CPU plugin would otherwise compute in bf16 where the CPU has it) and accuracy execution mode. A vendor gates its own
device and hints with options; the settings in force are in every report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import openvino as ov

from runners.backends.base import Backend, BackendOptionError, choice, refuse_option
from runners.backends.openvino_ops import BASIC as ops

DEVICE = "CPU"
HINTS = {"INFERENCE_PRECISION_HINT": "f32", "EXECUTION_MODE_HINT": "ACCURACY"}
DEVICE_DEFAULT = "device"  # the option value that leaves a hint to the device
VIRTUAL_DEVICES = ("AUTO", "HETERO", "MULTI", "BATCH")  # devices made of others: "HETERO:GPU,CPU"

# option -> (property, accepted values)
NAMED = {
    "inference_precision": ("INFERENCE_PRECISION_HINT", ("f32", "f16", "bf16", DEVICE_DEFAULT)),
    "execution_mode": ("EXECUTION_MODE_HINT", ("ACCURACY", "PERFORMANCE", DEVICE_DEFAULT)),
    "performance_mode": ("PERFORMANCE_HINT", ("LATENCY", "THROUGHPUT", "CUMULATIVE_THROUGHPUT")),
}
OPTIONS = {
    "device": f"the device to compile for (default {DEVICE}): one of Core().available_devices, or "
              f"{' / '.join(VIRTUAL_DEVICES)}[:devices]",
    "inference_precision": f"INFERENCE_PRECISION_HINT: f32 (default), f16, bf16, or {DEVICE_DEFAULT} (the "
                           "device's own)",
    "execution_mode": f"EXECUTION_MODE_HINT: ACCURACY (default), PERFORMANCE, or {DEVICE_DEFAULT} (the device's own)",
    "performance_mode": "PERFORMANCE_HINT: LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT (default: not set)",
    "allow_fallback": "0 | 1 (default 0: an item whose nodes ran on another device than the first one the device "
                      "option names, e.g. AUTO:GPU,CPU run on CPU, is unsupported, naming both; 1: judged, the "
                      "placement recorded)",
    "config.<KEY>": "any other compile_model property, passed as a string, e.g. config.INFERENCE_NUM_THREADS=1",
}


@dataclass
class OvConfig:
    device: str = DEVICE
    properties: dict[str, str] = field(default_factory=lambda: dict(HINTS))
    allow_fallback: bool = False  # judge items whose nodes ran on another device than the one asked for

    def settings(self) -> dict:
        """The device and every property in force; a default hint left to the device says so; allow_fallback
        only where it is on (settings unchanged by default)."""
        return {"device": self.device, **{k: self.properties.get(k, "(device default)") for k in HINTS},
                **{k: v for k, v in self.properties.items() if k not in HINTS},
                **({"allow_fallback": True} if self.allow_fallback else {})}


# Lines of OpenVINO's messages that say where, not what (source locations, the frontend's report around a node's
# own message).
BOILERPLATE = ("Exception from src", "Check '", "FrontEnd API failed with", "Model wasn't fully converted", "Summary:",
               "-- Conversion is failed for", "To facilitate")


def summary(exc: BaseException) -> str:
    """OpenVINO's messages are C++ traces: keep the lines that say what failed (a failed node's own message)."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.startswith(BOILERPLATE)] or lines
    return " ".join(keep[:4])[:600] if keep else type(exc).__name__


def configure(backend: Backend, core: ov.Core, options: dict[str, str]) -> OvConfig:
    """The device and properties `options` ask for, checked by compiling a one-node model with them."""
    config = OvConfig()
    for key, value in options.items():
        if key == "device":
            config.device = _device(backend, core, value)
        elif key == "allow_fallback":
            config.allow_fallback = choice(backend, key, value, {"0": False, "1": True})
        elif key in NAMED:
            prop, values = NAMED[key]
            choice(backend, key, value, dict.fromkeys(values))
            config.properties.pop(prop, None)
            if value != DEVICE_DEFAULT:
                config.properties[prop] = value
        else:
            prop = key.removeprefix("config.")
            named = next((k for k, (p, _) in NAMED.items() if p == prop), None)
            if named:
                raise refuse_option(backend, key, value, f"use --backend-option {named}=...")
            config.properties[prop] = value
    _check(backend, core, config)
    return config


def _device(backend: Backend, core: ov.Core, value: str) -> str:
    """value if every device it names is available (a virtual device's list may be empty: all of them)."""
    available = core.available_devices
    kind, _, members = value.partition(":")
    named = [m.split("(")[0].strip() for m in members.split(",") if m.strip()] if kind in VIRTUAL_DEVICES else [value]
    known = set(available) | {d.split(".")[0] for d in available}
    missing = [d for d in named if d not in known]
    if missing or not value:
        raise refuse_option(backend, "device", value, f"{', '.join(missing) or 'no device'} not available; OpenVINO "
                            f"has {', '.join(available)} (or {' / '.join(VIRTUAL_DEVICES)}[:devices])")
    return value


def _check(backend: Backend, core: ov.Core, config: OvConfig) -> None:
    """A property OpenVINO does not take, or a value it refuses, is one usage error now, not an error per case."""
    x = ops.parameter([1], ov.Type.f32, name="x")
    try:
        core.compile_model(ov.Model([ops.relu(x)], [x], "options"), config.device, config.properties)
    except Exception as exc:  # noqa: BLE001 - whatever OpenVINO says about the options
        said = re.sub(r"Exception from src/\S+: ", "", " ".join(summary(exc).split()))  # without source locations
        raise BackendOptionError(f"backend {backend.name!r}: OpenVINO refuses these --backend-option values: "
                                 f"{said}") from None
