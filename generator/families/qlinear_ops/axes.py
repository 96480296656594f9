"""The axes of the QLinear operators (generator/axes.py):
  explicit defaults  each operator with attributes of a default value (QLinearLeakyRelu's alpha, QLinearSoftmax's axis, QLinearAveragePool's
                     auto_pad / ceil_mode / channels_last / count_include_pad, QLinearGlobalAveragePool's
                     channels_last) once with every default written: test_<op>_explicit_defaults
  vector tail        the element-wise operators over one model with a symbolic length N, data sets of 1 .. 65
                     elements (tail_lengths(short=True)), each the first N of one "pow2" set (exact, with ties),
                     then a random and a saturating one of 65: a kernel that
                     vectorizes (onnxruntime's lookup tables, its SIMD QLinearAdd) and drops or garbles its partial
                     last vector fails the last elements: test_<op>_vector_tail
The opset-boundary axis has nothing to act on (every operator is com.microsoft version 1) nor the NaN-payload one
(the tensors are integers; a non-finite y_scale is the probe's)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator

from generator import axes, sampling
from generator.case import Case
from generator.families.qlinear_ops.config import Config, case_from, datasets, draw
from generator.reference import qlinear_ops as ref

DEFAULTS = (Config("explicit_defaults", "QLinearLeakyRelu", "uint8", ((64,),)),
            Config("explicit_defaults", "QLinearAveragePool", "uint8", ((1, 2, 5, 5),), {"kernel_shape": [3, 3]}),
            Config("explicit_defaults", "QLinearGlobalAveragePool", "int8", ((1, 3, 4, 4),)),
            Config("explicit_defaults", "QLinearSoftmax", "uint8", ((3, 8),), {"opset": 13}))
TAIL = (Config("vector_tail", "QLinearAdd", "uint8", ((65,), (65,))),
        Config("vector_tail", "QLinearMul", "int8", ((65,), (65,))),
        Config("vector_tail", "QLinearSigmoid", "int8", ((65,),)),
        Config("vector_tail", "QLinearLeakyRelu", "int8", ((65,),)))
LENGTHS = axes.tail_lengths(short=True, limit=65)


def default_cases(seed: int = 0) -> Iterator[Case]:
    for cfg in DEFAULTS:
        full = dict(ref.QOPS[cfg.op].attrs, **cfg.attrs)
        yield from case_from(cfg, datasets(cfg, seed), seed, ("edge", "explicit_defaults"), attrs=full)


def tail_cases(seed: int = 0) -> Iterator[Case]:
    for cfg in TAIL:
        s = sampling.Stream(sampling.case_seed(seed, f"{cfg.op}/{cfg.what}"))
        ties = draw(cfg, s, "pow2")
        sets = [[x[:n] if x is not None and x.ndim == 1 else x for x in ties] for n in LENGTHS]
        sets += [draw(cfg, s, kind) for kind in ("random", "saturate")]
        sym = replace(cfg, shapes=tuple(("N",) for _ in cfg.shapes))
        yield from case_from(sym, sets, seed, ("edge", "vector_tail"), out_shape=("N",))
