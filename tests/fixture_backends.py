"""Misbehaving backends for the isolation tests: the opconform backend, except on chosen cases.

Chosen by the environment (spawned worker processes inherit it), one variable per behaviour, each a
comma-separated list of case names: OPCONFORM_TEST_SEGFAULT, _ABORT, _HANG, _RAISE, _WRONG_DTYPE,
_WRONG_SHAPE. Used as `--backend fixture_backends:Misbehaving` with tests/ on sys.path.
"""

from __future__ import annotations

import ctypes
import os
import time

import numpy as np

from runners.backends.opconform import OpconformBackend


def _chosen(what: str, case) -> bool:
    names = os.environ.get(f"OPCONFORM_TEST_{what}", "")
    return case is not None and case.name in {n for n in names.split(",") if n}


class Misbehaving(OpconformBackend):
    name = "misbehaving"

    def prepare(self, model, case):
        return (super().prepare(model, case), case)

    def run(self, prepared, inputs):
        prepared, case = prepared
        if _chosen("SEGFAULT", case):
            ctypes.string_at(0)  # a real segmentation fault, as a native backend would have
        if _chosen("ABORT", case):
            os.abort()
        if _chosen("HANG", case):
            time.sleep(3600)
        if _chosen("RAISE", case):
            raise RuntimeError("fixture backend: raised on purpose")
        outputs = super().run(prepared, inputs)
        if _chosen("WRONG_DTYPE", case):
            outputs = [np.asarray(o).astype(np.float64) if np.asarray(o).dtype != np.float64
                       else np.asarray(o).astype(np.float32) for o in outputs]
        if _chosen("WRONG_SHAPE", case):
            outputs = [np.concatenate([np.ravel(o), np.ravel(o)[:1]]) for o in outputs]
        return outputs
