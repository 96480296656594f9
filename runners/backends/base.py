"""The backend interface every adapter implements (docs/design.md, "Runners").

A backend turns a model into something runnable (`prepare`) and runs it on one data set (`run`).
Outputs come back as numpy / ml_dtypes arrays of the declared output element types, bit-exact; string
outputs as object arrays of str. A backend that does not implement an op / type / attribute raises
Unsupported (reported apart from failures); any other exception is an error of the backend. Each adapter
tells the two apart with one table of what its runtime says when it does not implement something
(`UnsupportedTable`, docs/backends.md).

A backend declares the --backend-option keys it takes in `OPTIONS` (key -> one-line help) and applies them
in `configure`; `configure_backend` refuses an unknown key with the list of known ones. `settings()` reports
the options in force, so results of runs with different options are kept apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import onnx

from generator import dtypes
from generator.dtypes import DType
from generator.serialize import graph_io_types
from runners.compare import text_array


class Unsupported(Exception):
    """the backend says it does not implement this op / type / attribute"""


class UnknownBackend(Exception):
    """str() is ONE line naming the bad name and listing available backends"""


class BackendNotInstalled(UnknownBackend):
    """A known backend whose package is missing; str() says how to install it."""


class BackendOptionError(UnknownBackend):
    """A --backend-option refused: a key the backend does not take (str() lists the ones it takes) or a value
    it does not accept (str() says what it expects). One line."""


class Backend:
    name: str = "?"
    # The runtime's words for "this input must be a constant" (an UnsupportedTable): --inputs auto, the default,
    # runs an item it refuses so again with its weights as initializers (runners/input_modes.py). None: never.
    CONSTANT_ONLY = None
    # The --backend-option keys this backend takes -> one line of help (values, default, meaning). A key
    # "prefix.<what>" stands for every key "prefix.<anything>". Empty: the backend takes no options.
    OPTIONS: dict[str, str] = {}

    def configure(self, options: dict[str, str]) -> None:
        """Apply options (their keys already checked against OPTIONS by configure_backend): parse and check
        each value, refusing a bad one with refuse_option. Called at most once, before anything else."""
        if options:
            raise NotImplementedError(f"{type(self).__name__} declares OPTIONS but does not configure them")

    def not_installed(self) -> str | None:
        """Why this backend cannot run anything here (a converter it needs is missing), or None."""
        return None

    def version(self) -> str:
        raise NotImplementedError

    def settings(self) -> dict:
        """Settings that change results, recorded in reports (e.g. precision hints), options included."""
        return {}

    def build(self) -> str | None:
        """Optional: the build of the runtime beyond its version (a commit, build flags), recorded with the
        machine in results files and baselines (runners/machine.py)."""
        return None

    def prepare(self, model: onnx.ModelProto, case) -> object:
        """case: generator.serialize.LoadedCase or None. May raise Unsupported."""
        raise NotImplementedError

    def run(self, prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """One data set: inputs in graph-input order (initializers excluded). May raise Unsupported."""
        raise NotImplementedError


# ---- --backend-option ---------------------------------------------------------------------------
def parse_options(pairs: list[str]) -> dict[str, str]:
    """--backend-option KEY=VALUE ... as a dict; ValueError (one line) for a pair without "=" or a key given
    twice with different values. The backend checks the keys and values (configure)."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"--backend-option {pair}: expected KEY=VALUE")
        if key in options and options[key] != value:
            raise ValueError(f"--backend-option {key}: given twice ({options[key]!r} and {value!r})")
        options[key] = value
    return options


def option_pattern(options: dict[str, str], key: str) -> str | None:
    """The entry of an OPTIONS table that `key` is: itself, or "prefix.<what>" for "prefix.anything"."""
    if key in options and "<" not in key:
        return key
    for pattern in options:
        prefix = pattern.split("<", 1)[0]
        if "<" in pattern and key.startswith(prefix) and len(key) > len(prefix):
            return pattern
    return None


def configure_backend(backend: Backend, options: dict[str, str] | None) -> Backend:
    """The backend with `options` applied; BackendOptionError (one line) for an unknown key or a bad value."""
    if not options:
        return backend
    known = getattr(backend, "OPTIONS", None) or {}
    unknown = sorted(k for k in options if option_pattern(known, k) is None)
    if unknown and not known:
        raise BackendOptionError(f"backend {backend.name!r} takes no --backend-option (given: {', '.join(unknown)})")
    if unknown:
        raise BackendOptionError(f"backend {backend.name!r} has no option {', '.join(unknown)}; "
                                 f"known: {', '.join(known)}")
    backend.configure(dict(options))
    return backend


def refuse_option(backend: Backend, key: str, value: str, why: str) -> BackendOptionError:
    """The error for a value a backend does not accept (raise it)."""
    return BackendOptionError(f"backend {backend.name!r}: --backend-option {key}={value}: {why}")


def choice(backend: Backend, key: str, value: str, choices: dict):
    """choices[value]; refused naming the choices."""
    if value not in choices:
        raise refuse_option(backend, key, value, f"expected one of {', '.join(choices)}")
    return choices[value]


def count(backend: Backend, key: str, value: str, low: int = 0, high: int = 256) -> int:
    """A whole number in [low, high] (a thread count: an unbounded one could start a pool of 100000 threads)."""
    if not re.fullmatch(r"[0-9]+", value) or not low <= int(value) <= high:
        raise refuse_option(backend, key, value, f"expected a whole number from {low} to {high}")
    return int(value)


# ---- unsupported or error ------------------------------------------------------------------------
@dataclass(frozen=True)
class UnsupportedTable:
    """What one runtime says when it does not implement an op / type / attribute. An exception is
    unsupported when it is one of `types`, or when its message matches one of `text` and none of `errors`
    (e.g. a kernel's own check of its inputs, which stays an error whatever words it uses). Patterns are
    regular expressions, matched case-insensitively anywhere in the message. Keep them narrow: everything
    else a backend raises is an error, and a wrong result is never hidden as unsupported."""
    types: tuple[type, ...] = ()
    text: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def matches(self, exc: BaseException) -> bool:
        if self.types and isinstance(exc, self.types):
            return True
        message = str(exc)
        if any(re.search(p, message, re.IGNORECASE) for p in self.errors):
            return False
        return any(re.search(p, message, re.IGNORECASE) for p in self.text)


def io_types(model: onnx.ModelProto) -> tuple[list[tuple[str, DType]], list[tuple[str, DType]]]:
    """(name, element type) of the graph inputs (initializers excluded) and outputs.

    Raises Unsupported for an element type the project does not know."""
    try:
        return graph_io_types(model)
    except KeyError as exc:
        raise Unsupported(f"graph input / output of an unknown element type: {exc.args[0]}") from None


def as_declared(a, t: DType) -> np.ndarray:
    """A backend's output in its declared element type, where that is an exact reinterpretation:
    str / bytes / unicode -> object array of str (an element of any other Python type, a float where a string is
    declared, is kept as it is: compare fails it naming its type; str() would hide it, onnx#4814);
    the bit-pattern dtype of a float type -> that type;
    integers (bool) of another width whose values all fit -> the declared integer type.
    Anything else is returned unchanged, so that compare reports the wrong type; no value is fixed."""
    a = np.asarray(a)
    t = dtypes.get(t)
    if t.kind == "string":
        return text_array(a) if a.dtype.kind in "OUS" else a
    if a.dtype == t.np_dtype:
        return a
    if t.is_float and a.dtype == t.bits_dtype and (t.bits >= 8 or not (a >> t.bits).any()):
        return t.from_bits(a)
    if t.kind in ("int", "uint", "bool") and a.dtype.kind in "iub":
        if a.size == 0 or (t.int_min <= int(a.min()) and int(a.max()) <= t.int_max):
            return a.astype(t.np_dtype)
    return a


def relu_model() -> onnx.ModelProto:
    """A one-node float Relu (opset 13): what an adapter compiles and runs to check its options at the start."""
    from onnx import helper

    x, y = (helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [2]) for n in "xy")
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "options", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=7)
