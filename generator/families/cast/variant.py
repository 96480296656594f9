"""Cast's variants: the (from, to, saturate, round_mode) groups of the family, their first opsets, and the text
each one's expectations come from (spec_of)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np
import onnx

from generator import dtypes
from generator.dtypes import DType
from generator.family import Family
from generator.outcome import Outcome
from generator.reference import cast as ref
from generator.reference.cast_reasons import ROUND_MODES

FAMILY = Family("cast", "Cast", "Cast.txt")
CAST_SCHEMA = f"onnx.defs Cast-24..{onnx.defs.get_schema('Cast').since_version} (onnx {onnx.__version__})"
# ONNX's technical notes (docs/docsgen/source/technical/ in onnx/onnx), at the revision read; the onnx wheel
# does not ship them. float6.md is not on onnx main yet: the revision is the pull request's that onnx.ai
# publishes and that the installed onnx's FLOAT6 code goes with (ee4c1ba / c93be5d, PRs #7145 / #8349).
NOTE_INT4 = "ONNX docs/technical/int4.md @ f754691 (onnx main, 2026-08-22; this text since d2ac757, 2024-01-08)"
NOTE_INT2 = "ONNX docs/technical/int2.md @ f754691 (onnx main, 2026-08-22; this text since 8f97916, 2025-11-06)"
NOTE_FLOAT4 = "ONNX docs/technical/float4.md @ f754691 (onnx main, 2026-08-22; this text since c057d17, 2024-08-23)"
NOTE_FLOAT6 = "ONNX docs/technical/float6.md @ c93be5d (onnx PR #8349, 2026-08-22; onnx.ai technical/float6)"
# Lowest opset a case uses: Cast-13 is the first with bfloat16 and what current backends all
# implement; a pair whose types are newer starts at the first opset accepting both.
MIN_OPSET = 13
NEWEST_CAST = onnx.defs.get_schema("Cast").since_version  # of the installed onnx


@dataclass(frozen=True)
class Variant:
    src: DType
    to: DType
    saturate: bool | None  # None: not applicable to this target
    round_mode: str | None  # only for float8e8m0
    opset: int

    @property
    def label(self) -> str:
        """What names the variant: float32_to_float8e8m0_nosat_down (the hunt's slice, case names after the op)."""
        name = f"{dtypes.short(self.src)}_to_{dtypes.short(self.to)}"
        if self.saturate is False:
            name += "_nosat"
        if self.round_mode not in (None, "up"):
            name += f"_{self.round_mode}"
        return name

    @property
    def base_name(self) -> str:
        return f"{FAMILY.prefix}_{self.label}"

    @property
    def attrs(self) -> dict:
        """Node attributes; defaults (saturate=1, round_mode=up) are left out, as models do."""
        a = {"to": self.to.onnx}
        if self.saturate is False:
            a["saturate"] = 0
        if self.round_mode not in (None, "up"):
            a["round_mode"] = self.round_mode
        return a

    @property
    def params(self) -> dict:
        p = {"from": self.src.name, "to": self.to.name}
        if self.saturate is not None:
            p["saturate"] = int(self.saturate)
        if self.round_mode is not None:
            p["round_mode"] = self.round_mode
        return p

    def explain(self, x: np.ndarray, opset: int | None = None) -> tuple[Outcome, np.ndarray]:
        """The reference's Outcome on x, and the readings per element (generator.reference.cast.explain)."""
        return ref.explain(x, self.src, self.to, saturate=self.saturate is not False,
                           round_mode=self.round_mode or "up", opset=opset or self.opset)

    def outcome(self, x: np.ndarray, opset: int | None = None) -> Outcome:
        return self.explain(x, opset)[0]


def attribute_options(to: DType) -> list[tuple[bool | None, str | None]]:
    """(saturate, round_mode) values that change what a cast to `to` does: saturate for float8, both for
    float8e8m0, none (None) elsewhere."""
    if to.is_float8:
        return [(True, None), (False, None)]
    if to.nan_style == dtypes.E8M0:
        return [(sat, mode) for sat in (True, False) for mode in ROUND_MODES]
    return [(None, None)]


def variants(max_opset: int) -> Iterator[Variant]:
    types = dtypes.cast_types(min(max_opset, NEWEST_CAST))
    for src in types:
        for to in types:
            opset = max(src.cast_since, to.cast_since, MIN_OPSET)
            if opset <= max_opset:
                yield from (Variant(src, to, sat, mode, opset) for sat, mode in attribute_options(to))


def spec_of(v: Variant) -> tuple[str, str]:
    """(file, clause) of the text the variant's expected outputs come from."""
    src, to = v.src, v.to
    if src.kind == "string":
        return FAMILY.spec_file, "Casting from string tensor in plain and scientific numeric representations"
    if to.kind == "string":
        return FAMILY.spec_file, "When casting from numeric tensors to string tensors, plain floating-point representation"
    if to.is_float8:
        return FAMILY.spec_file, f"float 8 table, saturate={int(v.saturate)}"
    if to.nan_style == dtypes.E8M0:
        return CAST_SCHEMA, "FLOAT8E8M0 table, round_mode"
    if to.name == "float4e2m1":
        return NOTE_FLOAT4, ("Cast: '-6<=x<=6: E2M1 converted value of x. Round to nearest even.', x=+/-0 -> +/-0, "
                             "x>6 -> 6, x<-6 -> -6, +Inf -> 6, -Inf -> -6")
    if to.name.startswith("float6"):
        return NOTE_FLOAT6, "Cast: 'Downcasting RNE with saturation.'; its table: -0.0 -> -0.0, inf -> max (sat)"
    if src.is_float and to.is_integer and to.bits < 8:
        note, bits = (NOTE_INT4, 4) if to.bits == 4 else (NOTE_INT2, 2)
        return note, (f"Cast: 'Cast to a {bits} bit type is done by rounding to the nearest-integer (with ties to "
                      f"even) nearest-even integer'; out of range: Cast.txt, 'fixed point: undefined if OOR'")
    frm = {"float": "floating point", "bool": "bool"}.get(src.kind, "fixed point")
    dst = {"float": "floating point", "bool": "bool"}.get(to.kind, "fixed point")
    return FAMILY.spec_file, f"Casting from {frm} to: {dst}"
