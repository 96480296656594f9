"""The QLinearConv family (ONNX QLinearConv-10): quantized 1-D, 2-D and 3-D convolution.

One Conv per case (test_qlinearconv_<what>; the fixed ones are CATALOGUE's functions, the probes PROBES'):
a model, and data sets drawn for it (inputs uniform over their types unless the entry says otherwise; scales
log-uniform, y_scale set from the accumulator so outputs spread over the output range). Every listed
attribute is its own case:
  padding      pads absent / zero / symmetric / asymmetric, auto_pad NOTSET / VALID, SAME_UPPER and
               SAME_LOWER with odd and even total padding, strides 1 and 2, dilations 1 and 2
  kernel       kernel_shape given, 1x1, even, odd, as large as the padded input
  channels     group 2, depthwise, depthwise with a channel multiplier, batch 3; 1-D and 3-D
  quantization per-output-channel w_scale (and w_zero_point, distinct per channel), in 2-D and 3-D (output
               depth M, 1 and neither; C / group == M or not); every x / w / y type pair with zero points
               at both ends of their ranges; x_zero_point != 0 with padding
  bias         present, negative, large enough to saturate; outputs saturating at both ends
  rounding     exact requantization ties (power-of-two scales; and a multiplier 1/6 that is no float)
               and random scales
  config_<i>_random   configurations from seeded PCG64 draws (generator.sampling; the only cases --seed changes)
  explicit_defaults    the explicit-defaults axis: auto_pad "NOTSET", group 1, strides / dilations 1, pads 0 and
               kernel_shape written with their default values
  vector_tail  the vector-tail axis: one 1-D model of symbolic width and channel count, a tie or a saturating
               accumulation at the last output position, widths 1..17, 31..33, 63..65 and channel counts around 8, 16
  pads_symmetric_opset<n>   the opset-boundary axis: opset 11 and the newest (both QLinearConv-10)
  witness_<class>  one case per configuration class of qlinear_conv_faults.group_key: data sets on which the
               fault models differ from the reference, from the committed catalogue (generator/witness/catalogue/);
               witness_<class>_1d, _3d, _stride_over_kernel and _u8_s8: the faults that need a configuration of
               their own
  negative_*   (negative/) models the spec rules out; the backend must refuse them at prepare
  *_probe      (probe/) data whose result the spec leaves undefined: acc beyond int32, bad scales

hunt(max_opset) is the strategy of `opconform hunt` (generator/hunting.py): tiny configurations and one data
set each, drawn by hypothesis toward the fault models' boundaries, built into cases by the same functions
(dataset_cases, the negative builders); rebuild(args) builds a drawn example again.

Every judged case carries case.json "reading" (the text writes no formula for y: reference READING_*).
Expected values come from generator.reference.qlinear_conv only.

The family is a package, one module per concern: conv (Conv, the model, the reference's outcome, the node and
probe cases of data sets), data (drawn data sets, the random configurations), entries (CATALOGUE, PROBES),
negatives, axes_cases (opset boundaries, vector tails), witnesses (the catalogue's cases; its JSON form is
generator/catalogue/qlinear_conv.py) and hunt (hunt, rebuild; the requantization ties are
generator/requant_hunt.py's). This module is the family's face (generator/family.py): work() and the names the
rest of the project reads.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

from generator import axes
from generator.case import Case
from generator.families.qlinear_conv.axes_cases import (TAIL_CHANNELS, TAIL_SATURATE_WIDTHS, TAIL_WIDTHS,
                                                        boundary_cases, boundary_opsets, tail_cases)
from generator.families.qlinear_conv.conv import (CLAUSE, COMPARE, FAMILY, NAMES, OPSET, PROFILES, Conv,
                                                  dataset_cases, expected, geometry, model)
from generator.families.qlinear_conv.data import conv_cases, draw_dataset, random_configurations
from generator.families.qlinear_conv.entries import CATALOGUE, PROBES, catalogue
from generator.families.qlinear_conv.hunt import hunt, rebuild
from generator.families.qlinear_conv.negatives import negative_cases
from generator.families.qlinear_conv.witnesses import witness_cases, witness_conv, witness_inputs

__all__ = ["CATALOGUE", "CLAUSE", "COMPARE", "FAMILY", "NAMES", "OPSET", "PROBES", "PROFILES", "TAIL_CHANNELS",
           "TAIL_SATURATE_WIDTHS", "TAIL_WIDTHS", "Conv", "boundary_cases", "boundary_opsets", "catalogue",
           "conv_cases", "dataset_cases", "draw_dataset", "expected", "geometry", "hunt", "model", "negative_cases",
           "random_configurations", "rebuild", "replace", "tail_cases", "witness_cases", "witness_conv",
           "witness_inputs", "work"]


def work(profile: str = "default", seed: int = 0, max_opset: int = OPSET) -> list[Callable[[], Iterator[Case]]]:
    """Units of generation: the catalogue, the probes and negatives, the random configurations."""
    if max_opset < OPSET:
        return []
    opts = PROFILES[profile]
    n = opts["datasets"]

    # the catalogue's data are drawn once (base seed 0): --seed changes only the random configurations
    def fixed() -> Iterator[Case]:
        for conv in catalogue():
            yield from conv_cases(conv, max(n, 5) if conv.zero_points == "ends" else n, 0, ["edge"])

    def others() -> Iterator[Case]:
        for conv in catalogue(PROBES):
            yield from conv_cases(conv, len(axes.nan_values("float")[0]) if conv.scales == "nan" else 5, 0, ["probe"])
        yield from negative_cases(0)

    def randoms() -> Iterator[Case]:
        for conv in random_configurations(opts["random"], seed):
            yield from conv_cases(conv, n, seed, ["random"])

    return [fixed, others, witness_cases, tail_cases, lambda: boundary_cases(max_opset, n)] + \
        ([randoms] if opts["random"] else [])
