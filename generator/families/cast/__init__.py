"""The Cast family: every (from, to) pair some Cast opset allows, for each attribute value that
changes the semantics (saturate for float8 and float8e8m0 targets, round_mode for float8e8m0).

For each such variant:
  <name>_edge        the edge catalogue: +-0, +-Inf, NaN of both signs, the extremes of both types,
                     values just inside / at / just outside the target's range, RNE ties at the
                     overflow boundary, in the subnormals and mid-range, integer wrap boundaries
  <name>_exhaustive  every bit pattern of a source of <= 8 bits (16 bits in the exhaustive profile)
  <name>_random      seeded PCG64 draws (generator.sampling) for wider sources
  <name>_probe       (probe/) every generated input whose result the spec leaves undefined
plus, for some pairs, 0-d / empty / 3-d shapes, the FNUZ Inf row once per semantics, and the
rows where the saturate=0 table states the sign of NaN.

Expected values come from generator.reference.cast only. Each case cites in case.json "spec" the text its
expectations come from (spec_of), and names in "reading" the readings they rest on where no sentence gives
them (generator.reference.cast READING_*, docs/readings.md).

The package, by concern: variant.py (the variants, the text each cites), inputs.py (the edge catalogue, seeded
draws), cases.py (Form, cases_of, Context and the catalogue's own case functions), axes_cases.py (the axes of
generation), constructions.py (where a wrong Cast shows: the witness search's and the hunt's), hunt_strategy.py
(opconform hunt). This module is the family (generator/family.py): CATALOGUE lists the case functions in the
order a variant's cases are written; they take a Form (the family, the node, the data set of x), so an operator
with Cast's semantics reuses them with its own (CastLike: generator/families/cast_like.py).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from generator.case import Case
from generator.family import Catalogue
from generator.families.cast.axes_cases import explicit_defaults, nan_payloads, opset_boundaries, vector_tail
from generator.families.cast.cases import CAST, Context, Form, data_sets, fnuz_inf, negative_nan, shapes, witness
from generator.families.cast.hunt_strategy import hunt, rebuild
from generator.families.cast.variant import FAMILY, MIN_OPSET, NEWEST_CAST, Variant, variants

GRID = ("from", "to", ())  # the report draws this family as a grid: rows, columns, tables

PROFILES = {
    # random: draws per case for sources wider than 8 bits; exhaustive16: every 16-bit pattern
    "quick": dict(exhaustive8=False, exhaustive16=False, random=0, shapes=False),
    "default": dict(exhaustive8=True, exhaustive16=False, random=48, shapes=True),
    "exhaustive": dict(exhaustive8=True, exhaustive16=True, random=512, shapes=True),
}

# Cast's case functions, in the order a variant's cases are written: each (form, variant, context) -> cases
CATALOGUE = Catalogue()
for _fn in (data_sets, fnuz_inf, negative_nan, shapes, witness,
            explicit_defaults, nan_payloads, vector_tail, opset_boundaries):
    CATALOGUE(_fn)


def units(form: Form, catalogue: Catalogue, variants_: Iterable[Variant],
          ctx: Context) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation, one per variant (so callers can show progress or spread them): its cases, case
    function by case function of the catalogue."""
    def unit(v: Variant) -> Iterator[Case]:
        for fn in catalogue.values():
            yield from fn(form, v, ctx)

    return [lambda v=v: unit(v) for v in variants_]


def work(profile: str = "default", seed: int = 0, max_opset: int = NEWEST_CAST) -> list[Callable[[], Iterator[Case]]]:
    from generator import witness

    groups = witness.load(FAMILY.name)["groups"] if profile != "quick" else {}
    return units(CAST, CATALOGUE, variants(max_opset), Context(PROFILES[profile], seed, max_opset, groups))


__all__ = ["FAMILY", "GRID", "MIN_OPSET", "NEWEST_CAST", "PROFILES", "CATALOGUE", "CAST", "Context", "Form", "Variant",
           "variants", "units", "work", "hunt", "rebuild"]
