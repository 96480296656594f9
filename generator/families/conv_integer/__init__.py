"""The ConvInteger family (ONNX ConvInteger-10): y = the integer convolution of x - x_zero_point by w - w_zero_point,
int32, 1-D to 3-D.

One ConvInteger node per case (test_convinteger_<what>), expected outputs from generator.reference.conv_integer only
(generator.family.split sends elements whose exact sum leaves int32 to <name>_probe: the text allows that overflow and
names no result). The catalogue (entries.py):
  example_*               the operator's own examples (without_padding, with_padding: READING_PADDING rests on it)
  x_<t>_w_<t>[...]        the four type pairs: zero points at their types' ends, absent, per channel, at the far
                          ends (products of 255 * 255), raw int16-pair extremes (VPMADDUBSW, onnxruntime#16105)
  x_zero_point_only, w_zero_point_only (x_zero_point omitted by the empty name), zero_points_one_element ([1])
  padding                 pads absent / asymmetric, auto_pad NOTSET / VALID, SAME_UPPER and SAME_LOWER with odd and
                          even totals, strides 1 and 2, dilations 1 and 2; kernel_shape given, 1x1, even, larger
                          than the input (padded)
  channels                group 2, depthwise, depthwise with a multiplier, batch 3; 1-D and 3-D (per channel too)
  int32_max, int32_min    sums at int32's ends exactly; one beyond each in the *_overflow_probe cases
  sum_beyond_float32      an odd exact sum beyond 2**24
  explicit_defaults       the explicit-defaults axis: every attribute written with its default
  vector_tail             the vector-tail axis: C around vector widths, the decisive channel last
  opset<n>                the opset-boundary axis: a model of opset 11 and of the newest (still ConvInteger-10)
  config_<i>_random       seeded random configurations (generator.sampling; the only cases --seed changes)
  witness_<group>[_<configuration>]  the fault models' witnesses (generator/witness/catalogue/conv_integer.json)
  negative_*              (negative/) types, shapes and attributes the text rules out
The NaN-payload axis has nothing to act on: ConvInteger has no float.

The family is a package: spec (CI, the model, the node and probe cases of data sets), data (drawn data sets, random
configurations), entries (the catalogue), negatives, axes_cases (opset boundaries, vector tail), witnesses (the
catalogue's JSON form is generator/catalogue/conv_integer.py) and hunt (hunt, rebuild). This module is the family's
face (generator/family.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

from generator.case import Case
from generator.families.conv_integer import entries  # noqa: F401  (registers the catalogue)
from generator.families.conv_integer.axes_cases import boundary_cases, boundary_opsets, tail_cases
from generator.families.conv_integer.data import ci_cases, draw_dataset, random_configurations
from generator.families.conv_integer.entries import fixed
from generator.families.conv_integer.hunt import hunt, rebuild
from generator.families.conv_integer.negatives import negative_cases
from generator.families.conv_integer.spec import (CATALOGUE, CI, CLAUSE, COMPARE, FAMILY, GRID, OPSET, PROBES,
                                                  PROFILES, as_reference, ci_of, dataset_cases, expected, feed, model)
from generator.families.conv_integer.witnesses import witness_cases

__all__ = ["CATALOGUE", "CI", "CLAUSE", "COMPARE", "FAMILY", "GRID", "OPSET", "PROBES", "PROFILES", "as_reference",
           "boundary_cases", "boundary_opsets", "catalogue_cases", "ci_of", "dataset_cases", "draw_dataset",
           "expected", "feed", "hunt", "model", "negative_cases", "random_configurations", "rebuild", "tail_cases",
           "witness_cases", "work"]


def catalogue_cases(n_datasets: int, entries=CATALOGUE, flags: tuple = ("edge",)) -> Iterator[Case]:
    """Every entry's cases: its own data sets, or n drawn ones (base seed 0; zero points at the ends: the four
    corners)."""
    for name in entries:
        ci, sets = fixed(name, entries)
        ci = replace(ci, what=name)
        if sets is None:
            yield from ci_cases(ci, max(n_datasets, 5) if ci.data == "ends" else n_datasets, 0, list(flags))
        else:
            yield from dataset_cases(ci, sets, 0, list(flags))


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the probes and negatives, the witnesses, the axes, the random ones."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]
    n = opts["datasets"]

    def others() -> Iterator[Case]:
        yield from catalogue_cases(1, PROBES, ("probe",))
        yield from negative_cases(0)

    def randoms() -> Iterator[Case]:
        for ci in random_configurations(opts["random"], seed):
            yield from ci_cases(ci, n, seed, ["random"])

    return [lambda: catalogue_cases(n), others, witness_cases, tail_cases, lambda: boundary_cases(max_opset, n)] + \
        ([randoms] if opts["random"] else [])
