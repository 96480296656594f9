"""Backends by name: the built-ins, entry point group "opconform.backends", and "module:attr".

The built-ins are also registered as entry points in pyproject.toml; the table below makes them work
even when the installed entry points are stale (an editable install made before they were added).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import sys

from runners.backends.base import Backend, BackendNotInstalled, UnknownBackend, configure_backend

GROUP = "opconform.backends"

# name -> (module, class, package the backend needs or None, pip extra)
BUILTINS: dict[str, tuple[str, str, str | None, str | None]] = {
    "onnxruntime": ("runners.backends.onnxruntime", "OnnxRuntimeBackend", "onnxruntime", "onnxruntime"),
    "onnx-reference": ("runners.backends.onnx_reference", "OnnxReferenceBackend", None, None),
    "opconform": ("runners.backends.opconform", "OpconformBackend", None, None),
    "openvino": ("runners.backends.openvino", "OpenVinoBackend", "openvino", "openvino"),
    "opconform-tflite": ("runners.backends.opconform", "OpconformTfliteBackend", None, None),
    "litert": ("runners.backends.litert", "LiteRTBackend", "ai_edge_litert", "litert"),
    "openvino-tflite": ("runners.backends.openvino_tflite", "OpenVinoTfliteBackend", "openvino", "openvino"),
    "tflite2onnx+onnxruntime": ("runners.backends.pipelines", "Tflite2OnnxOnnxRuntime", None, "tflite2onnx"),
    "onnx2tf+litert": ("runners.backends.pipelines", "Onnx2TfLiteRT", None, "onnx2tf"),
    "tvm": ("runners.backends.tvm", "TvmBackend", "tvm", "tvm"),
    "torch": ("runners.backends.torch_backend", "TorchBackend", "torch", "torch"),
    "jax": ("runners.backends.jax_backend", "JaxBackend", "jax", "jax"),
    "tract": ("runners.backends.tract_backend", "TractBackend", "tract", "tract"),
    # npm packages, not Python ones: the backend itself says what to run when they are missing (opconform js-install)
    "onnxruntime-node": ("runners.backends.onnxruntime_js", "OnnxRuntimeNodeBackend", None, None),
    "onnxruntime-web": ("runners.backends.onnxruntime_js", "OnnxRuntimeWebBackend", None, None),
    "tinygrad": ("runners.backends.tinygrad_backend", "TinygradBackend", "tinygrad", "tinygrad"),
    "iree": ("runners.backends.iree_backend", "IreeBackend", "iree", "iree"),
}


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=GROUP) if ep.name not in BUILTINS}


def _available() -> list[str]:
    return sorted(set(BUILTINS) | set(_entry_points()))


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{exc.__class__.__name__}: {text[0]}" if text else exc.__class__.__name__


def _missing(exc: ImportError, needed: str | None) -> bool:
    """True when the import failed because `needed` (the backend's own package) is absent."""
    return needed is not None and isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == needed


def _builtin(name: str) -> Backend:
    module, cls, needed, extra = BUILTINS[name]
    try:
        return getattr(importlib.import_module(module), cls)()
    except ImportError as exc:
        if _missing(exc, needed):
            raise BackendNotInstalled(
                f"backend {name!r} is not installed: pip install 'opconform[{extra}]'") from None
        raise


def _from_entry_point(ep: importlib.metadata.EntryPoint) -> Backend:
    from runners.backends.onnx_backend_adapter import adapt

    try:
        target = ep.load()
    except ImportError as exc:
        raise BackendNotInstalled(
            f"backend {ep.name!r} ({ep.value}) cannot be imported: {_one_line(exc)}") from None
    return adapt(ep.name, target, ep.value.split(":")[0])


def _from_path(spec: str) -> Backend:
    """"module:attr" or a plain module path."""
    from runners.backends.onnx_backend_adapter import adapt

    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UnknownBackend(f"backend {spec!r}: cannot import module {module_name!r} ({_one_line(exc)}); "
                             f"available: {', '.join(_available())}") from None
    target = module
    for part in filter(None, attr.split(".")):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise UnknownBackend(f"backend {spec!r}: module {module_name!r} has no attribute {attr!r}") from None
    try:
        return adapt(spec, target, module_name)
    except TypeError as exc:
        raise UnknownBackend(str(exc).splitlines()[0]) from None


def get_backend(spec: str, options: dict[str, str] | None = None) -> Backend:
    """A backend by name ("onnxruntime", "onnx-reference", "opconform", an entry point name) or by
    "module:attr" / "module.path", or "fault:<fault name>" (a mutant: runners/backends/mutant.py),
    configured with `options` (--backend-option KEY=VALUE; the keys each backend takes are its OPTIONS).
    Raises UnknownBackend (BackendNotInstalled, BackendOptionError) with a one-line message."""
    return configure_backend(_find(spec), options)


def _find(spec: str) -> Backend:
    if spec.startswith("fault:"):
        from runners.backends.mutant import mutant

        return mutant(spec)
    if spec in BUILTINS:
        return _builtin(spec)
    eps = _entry_points()
    if spec in eps:
        return _from_entry_point(eps[spec])
    if ":" in spec or "." in spec:
        return _from_path(spec)
    raise UnknownBackend(f"unknown backend {spec!r}; available: {', '.join(_available())} "
                         f"(or module:attr for an onnx.backend.base.Backend, fault:<fault name> for a mutant)")


def list_backends() -> list[dict]:
    """The built-ins and entry-point backends: name, version (None if not installed), installed, detail,
    options (the --backend-option keys it takes -> help). A backend that loads but lacks a converter it needs
    (Backend.not_installed) is not installed."""
    return [_row(name) for name in list(BUILTINS) + sorted(_entry_points())]


def _row(name: str) -> dict:
    try:
        backend = get_backend(name)
        missing = getattr(backend, "not_installed", lambda: None)()
        if missing:
            return {"name": name, "version": None, "installed": False, "detail": missing}
        version = backend.version()
        settings = backend.settings()
    except UnknownBackend as exc:
        return {"name": name, "version": None, "installed": False, "detail": str(exc)}
    except Exception as exc:  # a broken third-party backend must not break the listing
        return {"name": name, "version": None, "installed": False, "detail": _one_line(exc)}
    doc = (sys.modules[type(backend).__module__].__doc__ or "").strip().splitlines()
    detail = ", ".join(f"{k}={v}" for k, v in settings.items()) if settings else (doc[0] if doc else "")
    return {"name": name, "version": version, "installed": True, "detail": detail,
            "options": dict(getattr(backend, "OPTIONS", None) or {})}
