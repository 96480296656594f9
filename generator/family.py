"""The family contract: what a family module declares, and the helpers that make its cases.

A family is one module, generator/families/<name>.py, found by its file name (no central table). It has

    FAMILY = Family(name, op, spec_file, ...)   what it tests; stamps every case's metadata (Family.meta)
    PROFILES                                    the profile names it knows (quick, default, exhaustive)
    MIN_OPSET (or OPSET for a one-opset family) the lowest ai.onnx opset of any of its cases (gen-cases
                                                refuses a --max-opset below every family's)
    work(profile, seed, max_opset) -> [unit]    units of generation, each a callable yielding Cases
    CATALOGUE                                   its named case functions (Catalogue), one per thing checked
    hunt(max_opset), rebuild(args) (optional)   live hunting (generator/hunting.py)
    extra_files(profile, seed, max_opset)       (optional) files written beside the cases

and its reference, generator/reference/<name>.py, returns an Outcome (generator/outcome.py) per data set.
`split` turns data sets and their outcomes into the node case of the defined ones and the probe case of the
others, so no family sorts data sets itself: given the node case's metadata (Family.meta), it derives the
probe's (probe_meta). Family.negative makes a negative case (a model the backend must refuse).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import numpy as np

from generator.case import Case, case_meta
from generator.outcome import Outcome

# what a probe case's compare says: it is never judged
PROBE_COMPARE = {"mode": "none", "reason": "the spec defines no result"}
# what a negative case's compare says: the backend must refuse its model (Family.negative)
NEGATIVE_COMPARE = {"mode": "none", "reason": "the backend must refuse the model"}


@dataclass(frozen=True)
class Family:
    name: str  # the module's name: "dynamic_quantize_linear"
    op: str  # the operator: "DynamicQuantizeLinear"
    spec_file: str  # the default text, as case.json "spec" names it (docs/specs.md); a case may name another
    domain: str = ""  # "" is ai.onnx
    name_prefix: str = ""  # case names start with it; "" for test_<op in lower case>
    ops: tuple = ()  # a family of several operators (qlinear_ops): each case named test_<its op in lower case>_...

    @property
    def prefix(self) -> str:
        """What every case name of the family starts with."""
        return self.name_prefix or f"test_{self.op.lower()}"

    @property
    def case_prefixes(self) -> tuple[str, ...]:
        """What a case name starts with, before its "_<what>": the family's prefix, or one per operator it holds."""
        return tuple(f"test_{op.lower()}" for op in self.ops) or (self.prefix,)

    def meta(self, *, opset: int, clause: str, compare: dict, flags: list[str], seed: int, params: dict,
             spec_file: str | None = None, reading: str | None = None, op: str | None = None, **extra) -> dict:
        """The case.json metadata of one case of this family (generator.case.case_meta); op: the operator a case
        names when it is not the family's (a layout graph names its pattern's)."""
        return case_meta(op=op or self.op, domain=self.domain, opset=opset, family=self.name,
                         spec_file=spec_file or self.spec_file, clause=clause, compare=compare, flags=flags,
                         seed=seed, params=params, reading=reading, **extra)

    def negative(self, name: str, model, datasets: list, *, phase: str, **meta) -> Case:
        """The negative case `name`: a model the spec calls invalid, which the backend must refuse (compare
        NEGATIVE_COMPARE) by the end of `phase` ("prepare": when preparing; "run": when preparing or running, before
        any output); datasets: its inputs, if running is to be tried ([] for "prepare"); meta: the rest of its
        metadata as for meta() (opset, clause, flags, seed, params, the error or invalid text, ...)."""
        return Case(name, "negative", model, datasets, None,
                    self.meta(compare=dict(NEGATIVE_COMPARE), phase=phase, **meta))


def probe_name(name: str) -> str:
    return name if name.endswith("_probe") else f"{name}_probe"


def probe_meta(meta: dict, reasons: Iterable[str], flags: Iterable[str] = ("probe",)) -> dict:
    """A probe case's metadata, from its defined (node) case's: flags ["probe"], PROBE_COMPARE, the reasons in
    "undefined"; no "reading" (a probe expects nothing, so it rests on no reading); everything else as meta."""
    probe = {k: v for k, v in meta.items() if k != "reading"}
    probe.update(flags=list(flags), compare=dict(PROBE_COMPARE), undefined=sorted(reasons))
    return probe


def split(name: str, datasets: Iterable[list[np.ndarray]], outcomes: Iterable[Outcome],
          model_of: Callable[[list[np.ndarray]], object], meta: dict, kind: str = "node",
          probe_flags: Iterable[str] = ("probe",)) -> Iterator[Case]:
    """The `kind` case (name) of the data sets whose outcome is defined, and the probe case (<name>_probe) of the
    others, with the reasons in case.json "undefined".

    model_of(inputs of the first data set) builds a case's model. meta is the defined case's metadata
    (Family.meta); the probe's is derived from it (probe_meta, with probe_flags)."""
    defined, outputs, undefined, reasons = [], [], [], set()
    for inputs, outcome in zip(datasets, outcomes, strict=True):
        if outcome.defined:
            defined.append(inputs)
            outputs.append(list(outcome.outputs))
        else:
            undefined.append(inputs)
            reasons.update(outcome.reasons)
    if defined:
        yield Case(name, kind, model_of(defined[0]), defined, outputs, dict(meta))
    if undefined:
        yield Case(probe_name(name), "probe", model_of(undefined[0]), undefined, None,
                   probe_meta(meta, reasons, probe_flags))


def split_elements(x: np.ndarray, outcome: Outcome) -> tuple[np.ndarray, Outcome, np.ndarray, list[str]]:
    """An element-wise operator's one input split by its outcome: (defined x, their outcome, undefined x,
    their reasons). Both parts are flat."""
    bad = outcome.mask()
    ok = ~bad
    kept = Outcome(tuple(np.asarray(y)[ok] for y in outcome.outputs))
    return x[ok], kept, x[bad], outcome.reasons


class Catalogue(dict):
    """A family's named case functions, in the order they are defined: `@CATALOGUE` registers a function under
    prefix + its name, so each case is a short function named for what it checks."""

    def __init__(self, prefix: str = ""):
        super().__init__()
        self.prefix = prefix

    def __call__(self, fn: Callable) -> Callable:
        return self.add(fn.__name__, fn)

    def add(self, name: str, fn: Callable) -> Callable:
        """Register fn under prefix + name: for names no `def` can have ("4d") or entries made in a loop."""
        key = self.prefix + name
        if key in self:
            raise ValueError(f"two catalogue entries named {key}")
        self[key] = fn
        return fn

    def named(self, name: str) -> Callable[[Callable], Callable]:
        """`@CATALOGUE.named("4d")`: the decorator form of add."""
        return lambda fn: self.add(name, fn)
