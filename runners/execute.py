"""Run one data set of one case on a backend and return its verdict.

This is the one place that decides a verdict from what a backend does (docs/design.md, "Verdicts"):

  node / graph  pass | fail (wrong output) | error (the backend raised) | unsupported; the outputs are
                judged in every tier, the verdict is the selected tier's, and `tiers_met` lists the
                tiers whose comparison passes (empty where the backend raised or did not run); a
                fail names the fault models that reproduce its outputs (`diagnosis`, runners/diagnose.py),
                an error (at prepare or run) or a refusal at prepare those that refuse the same model,
                where any does
  negative      pass if the backend refuses the model at the phase case.json names
                ("prepare": prepare must raise; "run": prepare or run may raise), else fail
  probe         always "probe": what the backend returned (values and bit patterns) or the text of
                what it raised, recorded for the report; never a failure. Unsupported stays
                "unsupported" (the backend does not implement it: nothing to compare across backends)

A backend runs ONNX models unless it says otherwise with `model_format` (e.g. "tflite"): it is then handed
the case's twin in that format (LoadedCase.twin: model bytes, its own data sets and expected outputs), and
a case without such a twin is unsupported on it. A converter pipeline takes the model of one format and
the data sets (inputs, expected outputs) of the other: it says so with `data_format`.

A run may build the model otherwise than the case wrote it (runners/input_modes.py: weights as initializers,
every input constant, dynamic shapes, a newest opset): each data set then runs on the model of its mode (one
prepared model per distinct set of baked values), judged against the same expected outputs; a case that cannot
run that way (a twin, an opset past --max-opset) is unsupported with the reason.

The function is pure apart from the backend calls and the prepared-model cache it is handed, so it
runs the same in the pytest process and in an isolated worker process (crash / timeout verdicts are
the worker's to give). It never lets a backend exception escape, and whatever a backend returns gets a
verdict (None, a bare array, a number: "returned None" fails like a wrong output). An exception in
opconform's own code is an `error` whose message says so (an opconform bug, not the backend's), never a crash
charged to the backend nor a record lost; only MemoryError escapes (the worker charges it to the cap).
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from collections.abc import MutableMapping

import numpy as np
import onnx

from generator import dot_bound
from generator.serialize import CaseError, LoadedCase
# _probe_output: imported from here by tests/test_backends.py
from runners.backend_output import _probe_output, _probe_outputs, describe_exception, returned  # noqa: F401
from runners.backends.base import Unsupported
from runners.compare import TIERS, compare_outputs, tier_independent
from runners.input_modes import (DEFAULT, RunMode, baked_tensors, build_model, constant_only, fed_inputs, model_key,
                                 opset_refusal, weight_inputs)
from runners.results import ERROR, FAIL, INVALID_CASE, PASS, PROBE, UNSUPPORTED, Result, jsonable

MAX_SHOWN = 10  # mismatching elements kept in a record and shown in a message


class PreparedCache(MutableMapping):
    """Prepared models by (backend, case directory), least recently used dropped past `size`.

    Runners go through a suite case by case (every data set of a case in a row), so a few entries
    are enough and compiled sessions of a large suite do not pile up in memory. A plain dict works
    too (unbounded)."""

    def __init__(self, size: int = 8):
        self.size = size
        self._d: OrderedDict = OrderedDict()

    def __getitem__(self, key):
        self._d.move_to_end(key)
        return self._d[key]

    def __setitem__(self, key, value) -> None:
        self._d[key] = value
        self._d.move_to_end(key)
        while len(self._d) > self.size:
            self._d.popitem(last=False)

    def __delitem__(self, key) -> None:
        del self._d[key]

    def __iter__(self):
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)


class _Prepared:
    """What prepare gave for one case: the prepared model, or what it raised (as text, so no
    traceback and its frames are kept alive)."""

    __slots__ = ("value", "error", "unsupported", "seconds", "placement", "shown")

    def __init__(self, value=None, error: str | None = None, unsupported: bool = False, seconds: float = 0.0,
                 placement: dict | None = None):
        self.value = value
        self.error = error
        self.unsupported = unsupported
        self.seconds = seconds
        self.placement = placement
        self.shown = None  # the placement as the records give it (jsonable, worked out once per prepare)


def unsupported_reason(error: str | None) -> str:
    """The backend's own words from the `error` of an unsupported Result."""
    return (error or "").removeprefix(f"{Unsupported.__name__}: ") or "unsupported"


def model_format(backend) -> str:
    """The model format a backend runs: "onnx" unless its `model_format` names a twin's format."""
    return getattr(backend, "model_format", "onnx") or "onnx"


def data_format(backend) -> str:
    """The format whose data sets a backend takes: its `data_format`, else its model format."""
    return getattr(backend, "data_format", None) or model_format(backend)


def _twin(backend, case: LoadedCase, fmt: str | None = None):
    """The case's twin in format `fmt` (default: the backend's data format), None for "onnx".
    Raises Unsupported if the case has no such twin."""
    fmt = fmt or data_format(backend)
    if fmt == "onnx":
        return None
    if case.twin is None or case.twin.format != fmt:
        raise Unsupported(f"the case has no {fmt} model (only the layout family's graph cases have one)")
    return case.twin


def _native(backend, case: LoadedCase) -> None:
    """Raises Unsupported when case.json "native" names ops only a native implementation can judge (e.g. a
    negative case whose model-local function body cannot refuse the model) and the backend's `native_ops`
    lacks one."""
    need = (case.meta or {}).get("native") or {}
    missing = [op for op in need.get("ops", []) if op not in (getattr(backend, "native_ops", None) or ())]
    if missing:
        raise Unsupported(f"not applicable: needs a native {', '.join(missing)} ({need.get('reason', '')})")


def _inputs(backend, case: LoadedCase, i: int, mode: RunMode = DEFAULT) -> list:
    twin = _twin(backend, case)
    if twin is None and mode.inputs not in ("auto", "fed"):  # the rest were baked in (runners/input_modes.py)
        return fed_inputs(case.model, list(case.inputs[i]), mode)
    return list((twin or case).inputs[i])


def _mode_refusal(backend, case: LoadedCase, mode: RunMode) -> str | None:
    """Why this case cannot run the way the run asks: an opset past --max-opset; a twin (not an ONNX model, or
    data sets of another layout) with inputs baked in or dynamic shapes."""
    why = opset_refusal(case.model, mode)
    if why is not None:
        return why
    if mode.rebuilds and (_twin(backend, case, model_format(backend)) is not None or _twin(backend, case) is not None):
        asked = ", ".join(f"--{k} {v}" for k, v in mode.settings().items() if k in ("inputs", "shapes"))
        return f"the case runs on its {case.twin.format} twin, with fed inputs and static shapes only ({asked})"
    return None


def _model_for(case: LoadedCase, i: int, mode: RunMode) -> tuple[onnx.ModelProto, str]:
    """The model data set `i` runs on in `mode`, and what tells it apart from the other data sets' ("" when
    every data set shares the case's model)."""
    if not mode.rebuilds:
        return case.model, ""
    has_data = 0 <= i < case.n_datasets  # a negative case without data sets has nothing to bake in
    baked = baked_tensors(case.model, list(case.inputs[i]), mode) if has_data else {}
    dynamic = mode.shapes == "dynamic" and case.kind != "negative"  # a refusal may rest on declared shapes
    key = f"{mode.inputs}/{mode.shapes}/{model_key(baked)}"
    return build_model(case.model, baked, dynamic), key


def _prepare(backend, case: LoadedCase, cache: MutableMapping, i: int = 0,
             mode: RunMode = DEFAULT) -> tuple[_Prepared, bool]:
    """(prepared entry, whether this call paid for prepare)."""
    key = (backend.name, str(case.dir))
    if mode.rebuilds:  # each distinct set of baked values is a model of its own
        model, variant = _model_for(case, i, mode)
        key = (*key, variant)
    else:
        model = case.model
    entry = cache.get(key)
    if entry is not None:
        return entry, False
    t0 = time.perf_counter()
    try:
        twin = _twin(backend, case, model_format(backend))
        entry = _Prepared(value=backend.prepare(model if twin is None else twin.model, case))
    except Unsupported as exc:
        entry = _Prepared(error=describe_exception(exc), unsupported=True,
                          placement=getattr(exc, "placement", None))
    except Exception as exc:  # noqa: BLE001 - any backend exception is a verdict, never a crash of ours
        entry = _Prepared(error=describe_exception(exc))
    entry.seconds = time.perf_counter() - t0
    cache[key] = entry
    return entry, True


def _placement(entry: _Prepared, r: Result) -> None:
    """Where the node(s) ran, as the prepared model's `placement` says (a dict), into the record; an
    Unsupported raised at prepare may carry it too (a node that fell back to another provider)."""
    if entry.shown is None:
        placement = getattr(entry.value, "placement", None) if entry.value is not None else entry.placement
        entry.shown = jsonable(placement) if isinstance(placement, dict) else False
    if entry.shown is not False:
        r.placement = entry.shown


def _negative_phase(case: LoadedCase) -> str:
    """The phase at which the backend must refuse the model: "prepare" or "run" (default: either)."""
    meta = case.meta or {}
    phase = meta.get("phase")
    if phase is None and isinstance(meta.get("negative"), dict):
        phase = meta["negative"].get("phase")
    return phase if phase in ("prepare", "run") else "run"


_IDENTITY: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def backend_identity(backend) -> tuple[str, str, dict]:
    """(name, version, settings) of a backend, asked once per backend object (finding a package's
    version can take a scan of the installed distributions); a backend that cannot say gets
    "unknown" / {}."""
    try:
        return _IDENTITY[backend]
    except (KeyError, TypeError):
        pass
    identity = _ask_identity(backend)
    try:
        _IDENTITY[backend] = identity
    except TypeError:  # not weak-referenceable: ask every time
        pass
    return identity


def _ask_identity(backend) -> tuple[str, str, dict]:
    try:
        version = str(backend.version())
    except Exception as exc:  # noqa: BLE001
        version = f"unknown ({describe_exception(exc)})"
    try:
        settings = dict(backend.settings())
    except Exception:  # noqa: BLE001
        settings = {}
    return backend.name, version, jsonable(settings)


def run_case_dataset(backend, case: LoadedCase, i: int, tier: str,
                     prepared_cache: MutableMapping, mode: RunMode = DEFAULT) -> Result:
    """The verdict of data set `i` of `case` on `backend`, comparing in `tier` ("strict" / "tolerant").

    prepared_cache: a mapping kept across calls (PreparedCache or dict) so each case is prepared
    once per backend and every data set runs on the same prepared model (in a mode that bakes inputs in,
    once per distinct set of baked values). mode: how the model is built (runners/input_modes.py); a mode
    other than the default is recorded in the settings."""
    name, version, settings = backend_identity(backend)
    settings = {**settings, **mode.settings()}
    meta = case.meta or {}
    result = Result(case=case.name, dataset=i, kind=case.kind, verdict=ERROR, message="", backend=name,
                    backend_version=version, tier=tier, settings=settings, op=meta.get("op"),
                    family=meta.get("family"), params=meta.get("params"), content=case.content,
                    opset=meta.get("opset") if type(meta.get("opset")) is int else None,
                    reading=_reading(case))
    if case.kind in ("node", "graph"):
        result.tiers_met = []  # filled by the comparison; a data set that errs meets no tier
    t0 = time.perf_counter()
    try:
        _judge(backend, case, i, tier, prepared_cache, result, mode)
        if (mode.inputs == "auto" and result.verdict == UNSUPPORTED and constant_only(backend, result.error)
                and weight_inputs(case.model)):
            result = _with_weights_constant(backend, case, i, tier, prepared_cache, result, mode)
    except MemoryError:
        raise  # the worker names the cap (runners/worker.py)
    except Exception as exc:  # noqa: BLE001 - our own bug: a verdict that says so, never the backend's crash
        result.verdict = ERROR
        result.message = (f"{case.name}[{i}]: opconform's own code raised {describe_exception(exc)} while "
                          "judging what the backend did (an opconform bug, not the backend's)")
    finally:
        result.duration = time.perf_counter() - t0
    return result


def _with_weights_constant(backend, case: LoadedCase, i: int, tier: str, cache: MutableMapping, fed: Result,
                           mode: RunMode) -> Result:
    """--inputs auto: the backend refused a weight fed at run time, in its own words; the item's verdict is the one
    it gets with its weights as initializers, and the record says so (`inputs`), under the run's settings."""
    again = run_case_dataset(backend, case, i, tier, cache, mode.fallback())
    again.settings, again.inputs = fed.settings, "initializers"
    first, _, rest = again.message.partition("\n")  # the note after the first line, the diagnosis stays last
    note = ("(--inputs auto: judged with the weights as initializers; fed, the backend refused them: "
            f"{unsupported_reason(fed.error)})")
    again.message = "\n".join(p for p in (first, note, rest) if p)
    return again


def _reading(case: LoadedCase) -> str | None:
    """case.json "reading" of a judged case (node / graph): what its expectation reads where no sentence of the
    texts states it; None for other kinds (nothing judged against it) and where it rests on sentences only."""
    reading = (case.meta or {}).get("reading")
    return reading if case.kind in ("node", "graph") and isinstance(reading, str) and reading else None


def _judge(backend, case: LoadedCase, i: int, tier: str, cache: MutableMapping, r: Result,
           mode: RunMode = DEFAULT) -> None:
    label = f"{case.name}[{i}]"
    if not 0 <= i < case.n_datasets and not (case.kind == "negative" and case.n_datasets == 0 and i == 0):
        r.verdict = INVALID_CASE
        r.message = f"{label}: {case.dir}: no test_data_set_{i} (the case has {case.n_datasets} data sets)"
        return
    try:
        _twin(backend, case, model_format(backend))
        _twin(backend, case)
        _native(backend, case)
    except Unsupported as exc:  # another model format without a twin; a case only a native op can judge
        r.verdict, r.error = UNSUPPORTED, describe_exception(exc)
        r.message = f"{label}: unsupported: {unsupported_reason(r.error)}"
        return
    why = _mode_refusal(backend, case, mode)
    if why is not None:
        r.verdict, r.error = UNSUPPORTED, why
        r.message = f"{label}: unsupported: {why}"
        return
    entry, _ = _prepare(backend, case, cache, i, mode)

    _placement(entry, r)
    if case.kind == "negative":
        phase = _negative_phase(case)
        if entry.unsupported:
            # the node ran elsewhere than asked (an Unsupported carrying placement: the adapter's placement check),
            # or the backend says it does not implement the model (an unknown op, a type it lacks): either way it
            # never checked what the negative case is about, so its refusal shows nothing
            r.verdict, r.error = UNSUPPORTED, entry.error
            r.message = f"{label}: unsupported at prepare: {unsupported_reason(entry.error)}"
            if entry.placement is None:
                r.message += " (a backend that does not implement the model cannot show the refusal required)"
            return
        if entry.error is not None:
            r.verdict, r.error = PASS, entry.error
            r.message = f"{label}: refused at prepare as required ({entry.error})"
            return
        if case.n_datasets == 0:
            r.verdict = FAIL
            r.message = f"{label}: the backend accepted a model it must refuse (prepare did not raise)"
            _explain_acceptance(r, case)
            return
        try:
            value = backend.run(entry.value, _inputs(backend, case, i, mode))
        except Unsupported as exc:  # as at prepare: not implementing the model shows no refusal
            r.verdict, r.error = UNSUPPORTED, describe_exception(exc)
            r.message = f"{label}: unsupported at run: {unsupported_reason(r.error)}"
            return
        except Exception as exc:  # noqa: BLE001
            r.error = describe_exception(exc)
            if phase == "run":
                r.verdict = PASS
                r.message = f"{label}: refused at run as required ({r.error})"
            else:
                r.verdict = FAIL
                r.message = (f"{label}: the model must be refused at prepare; prepare accepted it and run "
                             f"raised ({r.error})")
            return
        outputs, what = returned(value)
        r.verdict = FAIL
        r.message = f"{label}: the backend accepted a model it must refuse (phase {phase}) and returned {what}"
        r.outputs = _probe_outputs(case, outputs or [])
        _explain_acceptance(r, case)
        return

    if entry.unsupported:
        r.verdict, r.error = UNSUPPORTED, entry.error
        r.message = f"{label}: unsupported at prepare: {unsupported_reason(entry.error)}"
        if entry.placement is None:  # the backend refused the model (not the adapter's placement check)
            _explain_refusal(r, case, i)
        return
    if entry.error is not None:
        r.error = entry.error
        if case.kind == "probe":
            r.verdict, r.message = PROBE, f"{label}: prepare raised {entry.error}"
        else:
            r.verdict, r.message = ERROR, f"{label}: prepare raised {entry.error}"
            _explain_refusal(r, case, i)
        return
    try:
        value = backend.run(entry.value, _inputs(backend, case, i, mode))
    except Unsupported as exc:  # not explained by a refusing fault: the model was accepted at prepare
        r.verdict, r.error = UNSUPPORTED, describe_exception(exc)
        r.message = f"{label}: unsupported at run: {unsupported_reason(r.error)}"
        return
    except Exception as exc:  # noqa: BLE001
        r.error = describe_exception(exc)
        r.verdict = PROBE if case.kind == "probe" else ERROR
        r.message = f"{label}: run raised {r.error}"
        _explain_refusal(r, case, i)
        return

    outputs, what = returned(value)
    if outputs is None:  # nothing to compare: the wrong output of every kind
        r.verdict = PROBE if case.kind == "probe" else FAIL
        r.message = f"{label}: the backend returned {what}"
        if case.kind == "probe":
            r.outputs = []
        else:
            expected = case.outputs[i] if _twin(backend, case) is None else _twin(backend, case).outputs[i]
            r.n_total = sum(int(np.asarray(e).size) for e in expected)
            r.n_mismatch, r.tiers_met = r.n_total, []
            r.message += f", expected {len(expected)} output(s)"
        return

    if case.kind == "probe":
        r.verdict = PROBE
        r.outputs = _probe_outputs(case, outputs)
        r.message = f"{label}: recorded {len(r.outputs)} output(s)"
        return

    twin = _twin(backend, case)
    _compare(case, i, tier, outputs, r, twin)
    if r.verdict == FAIL:  # which fault models reproduce these outputs (runners/diagnose.py)
        from runners.diagnose import annotate

        annotate(r, case, i, outputs, twin)


def _explain_refusal(r: Result, case: LoadedCase, i: int) -> None:
    """The backend raised on a node / graph data set: the fault models that refuse the same model, if any
    (runners/diagnose.py)."""
    from runners.diagnose import annotate_refusal

    annotate_refusal(r, case, i)


def _explain_acceptance(r: Result, case: LoadedCase) -> None:
    """The backend accepted a negative case's model: the fault models that accept it too, where the family's
    faults model acceptance (runners/diagnose.py)."""
    from runners.diagnose import annotate_acceptance

    annotate_acceptance(r, case)


def _compare(case: LoadedCase, i: int, tier: str, outputs, r: Result, twin=None) -> None:
    """twin: the case's twin when the backend ran it (its expected outputs, names and types are used)."""
    label = f"{case.name}[{i}]"
    expected = case.outputs[i] if twin is None else twin.outputs[i]
    try:
        _, outs = case.io_types
    except KeyError as exc:
        r.verdict = INVALID_CASE
        r.message = f"{label}: invalid case: {case.dir / 'model.onnx'}: {exc.args[0]}"
        return
    if twin is not None:
        outs = list(zip(twin.output_names, twin.output_types))
    names = [n for n, _ in outs][: len(expected)]
    types = [t for _, t in outs][: len(expected)]
    outputs = list(outputs) if outputs is not None else []
    spec = case.meta.get("compare") if case.meta else None
    # a bound of mode "dot" is worked out from the data set's inputs (and the case model's initializers)
    inputs = list((twin or case).inputs[i]) if twin is not None else dot_bound.operands(case.model, case.inputs[i])
    try:
        outcome = compare_outputs(expected, outputs, names, types, spec, tier, inputs=inputs, max_shown=MAX_SHOWN)
        # judged in every tier, so that a report can say which tiers a backend meets (the verdict is `tier`'s)
        if tier_independent(spec, names):
            met = dict.fromkeys(TIERS, outcome.ok)
        else:
            met = {t: compare_outputs(expected, outputs, names, types, spec, t, inputs=inputs, max_shown=0).ok
                   for t in TIERS if t != tier}
            met[tier] = outcome.ok
    except ValueError as exc:  # compare_outputs: a bad compare spec in case.json (or a bad tier)
        r.verdict = INVALID_CASE
        r.message = f"{label}: invalid case: {case.dir / 'case.json'}: {exc}"
        return
    except Exception as exc:  # noqa: BLE001 - keep the run going; the message says it is ours
        r.verdict = ERROR
        r.message = f"{label}: comparing the outputs raised {describe_exception(exc)} (an opconform bug)"
        return
    r.n_mismatch, r.n_total = int(outcome.n_mismatch), int(outcome.n_total)
    r.mismatches = [jsonable(m) for m in outcome.mismatches[:MAX_SHOWN]]
    r.tiers_met = [t for t in TIERS if met[t]]
    if outcome.ok:
        r.verdict = PASS
        r.message = f"{label}: {outcome.message}" if outcome.message else f"{label}: pass"
    else:
        r.verdict = FAIL
        r.message = f"{label}: {outcome.message}"


def invalid_case_result(name: str, i: int, kind: str, error: CaseError | str, backend, tier: str,
                        mode: RunMode = DEFAULT) -> Result:
    """The record of a data set whose case cannot be read: names the file and the problem."""
    bname, version, settings = backend_identity(backend)
    return Result(case=name, dataset=i, kind=kind, verdict=INVALID_CASE, message=f"{name}[{i}]: invalid case: {error}",
                  backend=bname, backend_version=version, tier=tier, settings={**settings, **mode.settings()})
