"""ONNX models to one MLIR module of many functions (the IREE backend, runners/backends/iree_backend.py).

Each model goes through what `iree-import-onnx` does with a file (shape inference with data propagation, then
iree.compiler.extras.onnx_importer; onnx.checker first only with the adapter's checker=1: the tool runs it, the
importer module does not, and it refuses 37 node cases of the committed suite whose outputs declare no shape),
after one step of ours: model-local functions are inlined (onnx.inliner), as the ONNX spec defines them; the
importer converts nodes by op type only and would leave a function's op (ConvertPromoteTypes) unconverted. Every model of a batch becomes one function of one module, named
for its cache key, so that one compiler invocation compiles them all (runners/backends/iree_compile.py).

A model the importer refuses (an element type it lacks, a checker failure) gets its exception here, kept as text,
and no function: the others of the batch still compile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import onnx
import onnx.inliner

# one function a line in the printed module: `  func.func @k0123...(` at the module's top level
_TOP_FUNC = re.compile(r"^  func\.func (?:private )?@(\"[^\"]+\"|[\w.$]+)")


@dataclass
class Module:
    """The module text of a batch, where each function's lines are, and the models the importer refused."""

    text: str = ""
    lines: dict[str, tuple[int, int]] = field(default_factory=dict)  # function -> (first line, last line), 1-based
    refused: dict[str, str] = field(default_factory=dict)  # function -> "ExceptionType: message"
    helpers: bool = False  # the importer added functions of its own (an expanded ONNX function): lines shared


def function_name(key: str) -> str:
    return f"k{key[:24]}"


def prepared_model(model: onnx.ModelProto, checker: bool = False) -> onnx.ModelProto:
    """The model as the importer gets it: local functions inlined, checked if `checker`, shapes inferred (what
    iree-import-onnx does: onnx.checker.check_model, then onnx.shape_inference with data propagation)."""
    if model.functions:
        model = onnx.inliner.inline_local_functions(model)
    if checker:
        onnx.checker.check_model(model)
    return onnx.shape_inference.infer_shapes(model, data_prop=True)


def import_models(models: dict[str, onnx.ModelProto], checker: bool = False) -> Module:
    """One module holding a function per model (name -> model, names from function_name)."""
    from iree.compiler.extras import onnx_importer
    from iree.compiler.ir import Context

    out = Module()
    context = Context()
    module = None
    cache = None
    for name, model in models.items():
        try:
            model = prepared_model(model, checker)
            model.graph.name = name
            info = onnx_importer.ModelInfo(model)
            if module is None:
                module = info.create_module(context=context).operation
                cache = onnx_importer.ModuleCache(module, onnx_importer.ContextCache(context))
            importer = onnx_importer.NodeImporter.define_function(info.main_graph, module,
                                                                  module_cache=cache)
            importer.import_all()
            importer._p.verify()  # (the function op: a failure is this model's, not the batch's)
        except Exception as exc:  # noqa: BLE001 - the importer raises its own, onnx's and MLIR's exceptions
            out.refused[name] = f"{type(exc).__name__}: {_first_lines(exc)}"
            if module is not None:
                _erase(module, name)
    if module is None or set(out.refused) == set(models):
        return out
    out.text = module.get_asm(enable_debug_info=False)
    _locate(out, set(models) - set(out.refused))
    return out


def _erase(module, name: str) -> None:
    """Drop what a failed import left of function `name` in the module."""
    for op in list(module.regions[0].blocks[0].operations):
        if "sym_name" in op.attributes and op.attributes["sym_name"].value == name:
            op.erase()


def _locate(out: Module, names: set[str]) -> None:
    """Each function's line range in the printed module (1-based, what the compiler's diagnostics name): from its
    `func.func` line to the line before the next top-level function or the module's closing brace."""
    starts = []
    lines = out.text.splitlines()
    close = next((n for n, line in enumerate(lines, start=1) if line == "}"), len(lines) + 1)
    for n, line in enumerate(lines[:close - 1], start=1):
        m = _TOP_FUNC.match(line)
        if m:
            starts.append((n, m.group(1).strip('"')))
    for k, (n, name) in enumerate(starts):
        end = starts[k + 1][0] - 1 if k + 1 < len(starts) else close - 1
        if name in names:
            out.lines[name] = (n, end)
        else:
            out.helpers = True


def _first_lines(exc: BaseException) -> str:
    """The exception's message in one line (the importer's can be a whole TypeProto)."""
    text = " ".join(ln.strip() for ln in str(exc).splitlines() if ln.strip())
    return text[:400] or type(exc).__name__
