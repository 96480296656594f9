"""Mutant backends: the opconform interpreter with exactly one fault model swapped in.

    pytest SUITE --backend fault:<fault name>        e.g. --backend fault:cast.<what>

A fault name is "<family>.<what>" (generator/faults.py); the family's catalogue
(generator/reference/<family>_faults.py) holds it. On a case of that family the backend outputs what
generator.faults.fault_outputs says a backend with that fault outputs, and it refuses at prepare the models
the fault's own checks refuse (`validate` / `validate_shapes` of the fault's node function; where it has none,
the reference's); every other case runs the project's references, as the `opconform` backend does. So a suite that kills the fault fails such a backend, and
the failures' diagnosis names the fault: a demonstration of both, with no faulty runtime installed.

Mutants are not listed by `opconform backends` (there are as many as fault models); docs/usage.md's backends
table gives the syntax.
"""

from __future__ import annotations

import numpy as np
import onnx

from generator import faults as fault_models
from generator.faults import Fault
from generator.interpret import NoFunction, compile_model, domain_of
from generator.reference import lookup as reference_lookup
from runners.backends.base import UnknownBackend, Unsupported, as_declared, io_types
from runners.backends.opconform import OpconformBackend, one_element_read

PREFIX = "fault:"


def find_fault(name: str) -> Fault:
    """The fault model named `name`; UnknownBackend (one line) naming what exists when there is none."""
    family = name.split(".", 1)[0]
    try:
        known = fault_models.by_name(family) if family else {}
    except Exception as exc:  # noqa: BLE001 - a broken fault module: say which
        raise UnknownBackend(f"backend '{PREFIX}{name}': the fault models of {family!r} cannot be loaded "
                             f"({type(exc).__name__}: {exc})") from None
    if name in known:
        return known[name]
    if not known:
        raise UnknownBackend(f"backend '{PREFIX}{name}': no fault models for family {family!r} "
                             f"(a fault name is <family>.<what>, e.g. cast.<what>; see generator/faults.py)")
    raise UnknownBackend(f"backend '{PREFIX}{name}': no fault {name!r}; {family} has: {', '.join(sorted(known))}")


class MutantBackend(OpconformBackend):
    """The opconform backend with one fault model in place of its family's reference."""

    def __init__(self, fault: Fault):
        self.fault = fault
        self.family = fault.name.split(".", 1)[0]
        self.name = PREFIX + fault.name

    def settings(self) -> dict:
        return {"fault": self.fault.name, "what": self.fault.what}

    def prepare(self, model: onnx.ModelProto, case):
        meta = getattr(case, "meta", None) or {}
        if meta.get("family") != self.family or "op" not in meta:
            return ("reference", None, None, super().prepare(model, case))
        io_types(model)
        model = one_element_read(model, case)
        faulty = (domain_of(meta.get("domain", "")), meta["op"])
        checked = _with_checks(self.fault.fn, reference_lookup(*faulty))

        def lookup(d: str, o: str):
            return checked if (d, o) == faulty else reference_lookup(d, o)

        try:
            program = compile_model(model, lookup, validate=True)  # what the fault refuses, it refuses here
        except NoFunction as exc:
            raise Unsupported(f"{self.name} has {exc}") from None
        return ("fault", model, meta, program)

    def run(self, prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        how, model, meta, program = prepared
        if how == "reference":
            return super().run(program, inputs)
        outputs = fault_models.fault_outputs(self.fault, model, list(inputs), meta)
        return [as_declared(y, t) for y, (_, t) in zip(outputs, program.outputs)]


def _with_checks(fn, reference):
    """fn with prepare-time checks: its own `validate` / `validate_shapes`, else the reference's."""
    def checked(*args):
        return fn(*args)

    for attr in ("validate", "validate_shapes"):
        check = getattr(fn, attr, None) or getattr(reference, attr, None)
        if check is not None:
            setattr(checked, attr, check)
    return checked


def mutant(spec: str) -> MutantBackend:
    """The backend named "fault:<fault name>"."""
    return MutantBackend(find_fault(spec[len(PREFIX):]))
