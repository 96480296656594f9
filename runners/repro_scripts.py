"""The run blocks of `opconform repro --script` (runners/repro.py): for each backend a script is written for, the
Python that runs the script's model on that runtime alone, with the settings the backend records, the way its
adapter does it, in the runtime's public API.

A block defines `run(inputs)` (inputs: TensorProtos, bit for bit in their declared types) returning the outputs as
numpy arrays in the types the runtime computed; the script's frame (repro.SCRIPT) compares them with the expected
ones. What a block says of the run (its settings) is assignments of ascii() literals above its code, never text
pasted into code: an option's value (IREE flags, an OpenVINO property) is a user's string. The JavaScript
backends' scripts are JavaScript (runners/repro_js.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import onnx

from generator import dtypes


@dataclass
class Block:
    needs: str  # the packages the script needs, for its docstring
    run: str  # the block's Python: settings assignments, then run(inputs)


def block(backend, model: onnx.ModelProto) -> Block:
    """The run block for `backend` (configured as the run was), running `model` (the script's)."""
    return BLOCKS[backend.name](backend, model)


def _assign(**values) -> str:
    return "".join(f"{name} = {ascii(value)}\n" for name, value in values.items())


# ---- onnxruntime and onnx's reference evaluator -------------------------------------------------------

def _onnx_reference(backend, model) -> Block:
    return Block("numpy and onnx", _REFERENCE_RUN)


_REFERENCE_RUN = '''
def run(inputs):
    from onnx.reference import ReferenceEvaluator

    session = ReferenceEvaluator(onnx.load_from_string(MODEL))
    return session.run(None, {t.name: numpy_helper.to_array(t) for t in inputs})
'''


def _onnxruntime(backend, model) -> Block:
    s = backend.settings()
    settings = _assign(PROVIDERS=[str(p) for p in s.get("providers") or ["CPUExecutionProvider"]],
                       OPTIMIZATION=str(s.get("graph_optimization_level", "ORT_DISABLE_ALL")),
                       THREADS=int(s.get("intra_op_num_threads", 1)),
                       SPINNING="1" if s.get("allow_spinning") else "0")
    return Block("numpy, onnx and onnxruntime", "\n" + settings + _ORT_RUN)


_ORT_RUN = '''NUMPY_TYPES = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}  # onnxruntime feeds these as numpy arrays
NUMPY_OUTPUTS = {f"tensor({n})" for n in ("float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
                                         "bool", "float16", "double", "uint32", "uint64")}


def run(inputs):
    import ctypes

    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = getattr(ort.GraphOptimizationLevel, OPTIMIZATION)
    so.intra_op_num_threads = THREADS
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", SPINNING)
    session = ort.InferenceSession(MODEL, so, providers=PROVIDERS)
    names = [o.name for o in session.get_outputs()]
    if all(t.data_type in NUMPY_TYPES for t in inputs) and all(o.type in NUMPY_OUTPUTS
                                                               for o in session.get_outputs()):
        return session.run(names, {t.name: numpy_helper.to_array(t) for t in inputs})
    else:  # float 8, bfloat16, int4 ...: the packed bytes ONNX and onnxruntime share
        feed = {}
        for t in inputs:
            if t.data_type in NUMPY_TYPES:
                feed[t.name] = ort.OrtValue.ortvalue_from_numpy(numpy_helper.to_array(t))
                continue
            value = ort.OrtValue.ortvalue_from_shape_and_type(list(t.dims), t.data_type)
            ctypes.memmove(value.data_ptr(), t.raw_data, len(t.raw_data))
            feed[t.name] = value
        values = session.run_with_ort_values(names, feed)
    out = []
    for v in values:
        if v.element_type() in NUMPY_TYPES:
            out.append(v.numpy())
            continue
        raw = ctypes.string_at(v.data_ptr(), v.tensor_size_in_bytes())
        out.append(declared(v.element_type(), v.shape(), raw))
    return out
'''


# ---- tract ------------------------------------------------------------------------------------------

def _tract(backend, model) -> Block:
    from runners.backends.tract_backend import DATUM_TYPES

    s = backend.settings()
    settings = _assign(RUNTIME=backend.runtime_name if backend.runtime else None, INPUT_FACTS=backend.input_facts,
                       ENVIRONMENT=dict(s.get("environment") or {}),
                       FACT_TYPES={dtypes.get(n).onnx: fact for n, (_, fact, _) in DATUM_TYPES.items()})
    return Block("numpy, onnx and tract (pip install tract)", "\n" + settings + _TRACT_RUN)


_TRACT_RUN = '''

def run(inputs):  # tract's own Python API (pip tract), as opconform's tract adapter uses it
    import os
    import tempfile

    import onnx.inliner

    os.environ.update(ENVIRONMENT)  # tract's own TRACT_* variables, as the run had them
    import tract

    model = onnx.load_from_string(MODEL)
    if model.functions:  # tract's ONNX reader has no model-local functions: inlined as the ONNX spec defines them
        model = onnx.inliner.inline_local_functions(model)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        inference = tract.onnx().load(path)
    if INPUT_FACTS == "data":  # each input's shape and type as fed, not the model's
        for i, t in enumerate(inputs):
            inference.set_input_fact(i, ",".join([*map(str, t.dims), FACT_TYPES[t.data_type]]))
    typed = inference.into_model()
    runnable = tract.runtime_for_name(RUNTIME).prepare(typed) if RUNTIME else typed.into_runnable()
    values = runnable.run([tract.Tensor.from_numpy(numpy_helper.to_array(t)) for t in inputs])  # (raw bytes)
    return [v.to_numpy() for v in values]
'''


# ---- tinygrad ---------------------------------------------------------------------------------------

def _tinygrad(backend, model) -> Block:
    s = backend.settings()
    env = dict(s.get("tinygrad_env") or {})
    cc = str(s.get("compiler", "")).split(" (", 1)[0]
    if cc and cc != "clang":  # the C compiler of the CPU device's kernels ($CC)
        env["CC"] = cc
    settings = _assign(DEVICE=backend.device, ENVIRONMENT=env)
    return Block("numpy, onnx and tinygrad (pip install tinygrad)", "\n" + settings + _TINYGRAD_RUN)


_TINYGRAD_RUN = '''BFLOAT16 = onnx.TensorProto.BFLOAT16


def run(inputs):  # tinygrad's own ONNX runner (tinygrad.nn.onnx.OnnxRunner), as opconform's tinygrad adapter uses it
    import os

    import onnx.inliner

    os.environ.update(ENVIRONMENT)  # tinygrad's variables as the run had them (BEAM, NOOPT, CC ...)
    os.environ["DEV"] = DEVICE  # before tinygrad's import: importing its ONNX runner opens the default device
    from tinygrad import Tensor, dtypes
    from tinygrad.nn.onnx import OnnxRunner

    model = onnx.load_from_string(MODEL)
    if model.functions:  # the runner reads no model-local functions: inlined as the ONNX spec defines them
        model = onnx.inliner.inline_local_functions(model)
    used = {n.domain for n in model.graph.node} | {""}  # the runner refuses a domain it does not know, used or not
    keep = [o for o in model.opset_import if o.domain in used]
    del model.opset_import[:]
    model.opset_import.extend(keep)
    runner = OnnxRunner(Tensor(model.SerializeToString()))
    feeds = {}
    for t in inputs:
        a = numpy_helper.to_array(t)
        feeds[t.name] = Tensor(a.view(np.uint16)).bitcast(dtypes.bfloat16) if t.data_type == BFLOAT16 else Tensor(a)
    result = runner(feeds)
    out = []
    for e in map(tensor, EXPECTED):
        v = result[e.name]
        if v.dtype == dtypes.bfloat16:  # numpy() would convert it to float32: its bits instead
            out.append(declared(BFLOAT16, v.shape, v.bitcast(dtypes.uint16).numpy().tobytes()))
        else:
            out.append(v.numpy())
    return out
'''


# ---- IREE -------------------------------------------------------------------------------------------

def _iree(backend, model) -> Block:
    from runners.backends.iree_tensors import _HAL

    settings = _assign(FLAGS=list(backend.flags()), DEVICE=backend.device(), CHECKER=bool(backend.checker),
                       HAL_TYPES={dtypes.get(n).onnx: hal for n, hal in _HAL.items()})
    return Block("numpy, onnx, iree-base-compiler and iree-base-runtime (pip install iree-base-compiler "
                 "iree-base-runtime)", "\n" + settings + _IREE_RUN)


_IREE_RUN = '''

def run(inputs):  # IREE's ONNX importer (what iree-import-onnx runs), iree-compile, IREE's runtime
    import os
    import subprocess
    import tempfile

    import iree.runtime as rt
    import onnx.inliner
    from iree.compiler.extras import onnx_importer
    from iree.compiler.ir import Context
    from iree.compiler.tools.binaries import find_tool

    model = onnx.load_from_string(MODEL)
    if model.functions:  # the importer converts nodes by op type only: inlined as the ONNX spec defines them
        model = onnx.inliner.inline_local_functions(model)
    if CHECKER:
        onnx.checker.check_model(model)
    model = onnx.shape_inference.infer_shapes(model, data_prop=True)  # as iree-import-onnx does
    model.graph.name = "repro"
    info = onnx_importer.ModelInfo(model)
    module = info.create_module(context=Context()).operation
    onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
    module.verify()
    with tempfile.TemporaryDirectory() as tmp:
        mlir, vmfb = os.path.join(tmp, "model.mlir"), os.path.join(tmp, "model.vmfb")
        with open(mlir, "w") as f:
            f.write(module.get_asm(enable_debug_info=False))
        print("iree-compile", " ".join(FLAGS), "model.mlir -o model.vmfb")
        subprocess.run([find_tool("iree-compile"), *FLAGS, mlir, "-o", vmfb], check=True)
        with open(vmfb, "rb") as f:
            compiled = f.read()
    device = rt.get_device(DEVICE)
    instance = rt.VmInstance()
    vm_module = rt.VmModule.copy_buffer(instance, compiled)
    context = rt.VmContext(instance, modules=[rt.create_hal_module(instance, device), vm_module])
    args = rt.VmVariantList(len(inputs))
    for t in inputs:  # IREE's ABI is signless: each tensor is its raw bytes (int4 packed, low nibble first)
        raw = np.frombuffer(t.raw_data or b"\\0", np.uint8)  # (no empty buffer: the view says 0 elements)
        buffer = device.allocator.allocate_buffer_copy(memory_type=rt.MemoryType.DEVICE_LOCAL,
                                                       allowed_usage=rt.BufferUsage.DEFAULT, device=device,
                                                       buffer=raw, element_type=None)
        args.push_ref(rt.HalBufferView(buffer, list(t.dims), getattr(rt.HalElementType, HAL_TYPES[t.data_type])))
    results = rt.VmVariantList(len(EXPECTED))
    context.invoke(vm_module.lookup_function("repro"), args, results)
    out = []
    for j, e in enumerate(map(tensor, EXPECTED)):  # each output's bytes read in its declared type
        view = results.get_as_object(j, rt.HalBufferView)
        said = rt.HalElementType(view.element_type).name
        if said.lstrip("SU") != HAL_TYPES[e.data_type]:
            print(f"  output {j}: IREE returned element type {said}, the model declares {HAL_TYPES[e.data_type]}")
            out.append(np.zeros(0, np.uint8))
            continue
        size = view.byte_length
        raw = bytes(view.map().asarray([size], np.dtype(np.uint8))) if size else b""
        out.append(declared(e.data_type, list(view.shape), raw))
    return out
'''


# ---- OpenVINO ---------------------------------------------------------------------------------------

def _openvino(backend, model) -> Block:
    from generator.reference.convert_promote_types import element_name
    from runners.backends.openvino import _is_native

    native = _is_native(model)
    settings = _assign(DEVICE=backend.config.device, PROPERTIES=dict(backend.config.properties),
                       OV_TYPES={d.onnx: element_name(d) for d in dtypes.all_dtypes() if element_name(d)})
    code = _OV_NATIVE if native else _OV_READ
    return Block("numpy, onnx and openvino (pip install openvino)", "\n" + settings + code + _OV_RUN)


_OV_READ = '''

def ov_model(core, model):
    import io

    import onnx.inliner

    if model.functions:  # the ONNX frontend takes no model-local functions: inlined as the ONNX spec defines them
        model = onnx.inliner.inline_local_functions(model)
    return core.read_model(io.BytesIO(model.SerializeToString()))
'''

_OV_NATIVE = '''

def ov_model(core, model):  # OpenVINO operators (org.openvinotoolkit) built natively with openvino.opset14, as
    # opconform's adapter does (never through the node's function body)
    import openvino as ov
    from openvino import opset14

    def shape(v):
        t = v.type.tensor_type
        return ov.PartialShape([d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]) \\
            if t.HasField("shape") else ov.PartialShape.dynamic()

    inits = {i.name for i in model.graph.initializer}
    params = [opset14.parameter(shape(v), getattr(ov.Type, OV_TYPES[v.type.tensor_type.elem_type]), name=v.name)
              for v in model.graph.input if v.name not in inits]
    values = {p.get_friendly_name(): p.output(0) for p in params}
    for init in model.graph.initializer:
        values[init.name] = opset14.constant(ov_tensor(init)).output(0)
    for node in model.graph.node:  # ConvertPromoteTypes: only the attributes the node carries
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        kw = {k: bool(attrs[k]) for k in ("promote_unsafe", "pytorch_scalar_promotion") if k in attrs}
        if "u64_integer_promotion_target" in attrs:
            kw["u64_integer_promotion_target"] = attrs["u64_integer_promotion_target"].decode()
        made = opset14.convert_promote_types(values[node.input[0]], values[node.input[1]], **kw)
        values.update(zip(node.output, [made.output(0), made.output(1)]))
    results = [values[o.name] for o in model.graph.output]
    for o, r in zip(model.graph.output, results):
        r.get_tensor().set_names({o.name})
    return ov.Model(results, params, "repro")
'''

_OV_RUN = '''

def ov_tensor(t):  # an openvino.Tensor holding the TensorProto's elements bit for bit
    import openvino as ov

    if t.data_type == onnx.TensorProto.STRING:
        return ov.Tensor(np.array([s.decode() for s in t.string_data], dtype=str).reshape(list(t.dims)))
    out = ov.Tensor(getattr(ov.Type, OV_TYPES[t.data_type]), ov.Shape(list(t.dims)))
    if t.raw_data:  # sub-byte types packed as ONNX packs them, the first element in the low bits
        out.data.reshape(-1).view(np.uint8)[:] = np.frombuffer(t.raw_data, np.uint8)
    return out


def run(inputs):  # OpenVINO's ONNX frontend and its CPU plugin, as opconform's openvino adapter uses them
    import openvino as ov

    core = ov.Core()
    compiled = core.compile_model(ov_model(core, onnx.load_from_string(MODEL)), DEVICE, PROPERTIES)
    request = compiled.create_infer_request()
    read = {n for port in compiled.inputs for n in port.get_names()}
    for t in inputs:  # an input the compiled model does not read has no port: nothing to feed
        if t.name in read:
            request.set_tensor(compiled.input(t.name), ov_tensor(t))
    request.infer()
    onnx_types = {name: number for number, name in OV_TYPES.items()}
    out = []
    for e in map(tensor, EXPECTED):
        got = request.get_tensor(compiled.output(e.name))
        name = got.element_type.get_type_name()
        if name == "string":
            out.append(np.array(got.str_data, dtype=object).reshape(tuple(got.shape)))
        elif name not in onnx_types:
            raise RuntimeError(f"OpenVINO returned element type {name}, which no ONNX element type represents")
        else:
            raw = got.data.reshape(-1).view(np.uint8).tobytes()[:got.byte_size] if got.byte_size else b""
            out.append(declared(onnx_types[name], list(got.shape), raw))
    return out
'''

BLOCKS = {"onnxruntime": _onnxruntime, "onnx-reference": _onnx_reference, "tract": _tract, "tinygrad": _tinygrad,
          "iree": _iree, "openvino": _openvino}
