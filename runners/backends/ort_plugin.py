"""onnxruntime plugin execution providers (issue 20, item 5): an EP shipped as a shared library, registered
with `onnxruntime.register_execution_provider_library(name, path)` and run on the devices it offers
(`onnxruntime.get_ep_devices()`), added to a session with `SessionOptions.add_provider_for_devices`.

Registration belongs to the process's onnxruntime environment: each worker process of a run configures the
backend, so each registers the library once for itself (a second backend of the same process reuses it).
Every refusal here is a ValueError of one line; the backend turns it into its BackendOptionError.
"""

from __future__ import annotations

import os

import onnxruntime as ort

DEVICE_TYPES = ("cpu", "gpu", "npu")
_registered: dict[str, str] = {}  # registration name -> library path, in this process


def register(name: str, path: str) -> None:
    """Load the EP library at `path` under `name` (once per process)."""
    if not hasattr(ort, "register_execution_provider_library"):
        raise ValueError(f"onnxruntime {ort.__version__} cannot load plugin EP libraries "
                         "(register_execution_provider_library came in 1.22)")
    path = os.path.abspath(path)
    if _registered.get(name) == path:
        return
    if name in _registered:
        raise ValueError(f"{name} is already registered in this process from {_registered[name]}")
    if not os.path.isfile(path):
        raise ValueError(f"no such file {path}")
    try:
        ort.register_execution_provider_library(name, path)
    except Exception as exc:  # noqa: BLE001 - whatever onnxruntime says about the library
        text = str(exc).strip().splitlines()
        raise ValueError(f"onnxruntime cannot load it: {text[0] if text else type(exc).__name__}") from None
    _registered[name] = path


def parse_devices(value: str) -> list[tuple[str, str | None]]:
    """"EpName[:cpu|gpu|npu],..." -> [(ep name, device type or None)], in priority order."""
    specs = []
    for item in (s.strip() for s in value.split(",")):
        ep, _, kind = item.partition(":")
        if not ep or (kind and kind.lower() not in DEVICE_TYPES):
            raise ValueError(f"expected EpName[:{'|'.join(DEVICE_TYPES)}],... ({item!r})")
        specs.append((ep, kind.lower() or None))
    names = [ep for ep, _ in specs]
    if len(set(names)) < len(names):
        raise ValueError("an execution provider named twice")
    return specs


def select(specs: list[tuple[str, str | None]]) -> list[tuple[str, list]]:
    """[(ep name, its OrtEpDevice entries of the wanted type)] for each spec; a spec no device matches is
    refused naming the devices there are."""
    devices = ort.get_ep_devices()
    chosen = []
    for ep, kind in specs:
        found = [d for d in devices if d.ep_name == ep and (kind is None or d.device.type.name.lower() == kind)]
        if not found:
            there = ", ".join(f"{d.ep_name}:{d.device.type.name.lower()}" for d in devices) or "none"
            raise ValueError(f"no device of {ep}{':' + kind if kind else ''} (onnxruntime.get_ep_devices(): {there}; "
                             "a plugin EP's library is registered with ep_library.<name>=PATH)")
        chosen.append((ep, found))
    return chosen
