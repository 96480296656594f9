"""OpenVINO's operator sets across releases: `openvino.opsetN` from 2025.0 on, `openvino.runtime.opsetN` before
(2024.6 has opset14 only there; 2026.0 removed openvino.runtime). OpenVINO 2023.3 LTS stops at opset13, so it
has no ConvertPromoteTypes-14: OPSET14 is None there and native ConvertPromoteTypes items are unsupported."""

from __future__ import annotations

import importlib
from types import ModuleType


def opset(n: int) -> ModuleType | None:
    """openvino's opset n module, or None where this release has none."""
    for path in (f"openvino.opset{n}", f"openvino.runtime.opset{n}"):
        try:
            return importlib.import_module(path)
        except ImportError:
            continue
    return None


OPSET14 = opset(14)
# parameter / relu for the option check: any opset has them; the newest this release has
BASIC = OPSET14 or next(filter(None, (opset(n) for n in range(13, 7, -1))))
