"""Apache TVM: ONNX models through the Relax ONNX frontend (tvm.relax.frontend.onnx.from_onnx), compiled by
tvm.compile for a target (default llvm, the host CPU) and run on the Relax virtual machine.

- Model-local functions are inlined (onnx.inliner) first: the frontend converts nodes by op_type only and has no
  converter for a function's op (ConvertPromoteTypes would be "not supported" whatever its body).
- The frontend runs onnx.checker itself but only warns when it fails (a model the spec says must be refused is
  then converted anyway): the warning is not an error here either; negative cases judge what TVM does.
- Inputs go in with tvm.runtime.tensor and outputs come back with Tensor.numpy(): both copy the raw buffer for
  every element type of a byte or more (bfloat16 as its uint16 bits, float8 / e8m0 as ml_dtypes arrays), so
  values are bit-exact in the declared type. Elements narrower than a byte are not: the runtime holds them packed
  (two per byte) while the kernels TVM generates index one byte per element (measured: a uint4 input of bytes
  21 43 f5 is read as 1, 3, 5 and then past the buffer), and the VM refuses to allocate them as outputs. TVM says
  so itself (a size mismatch at copy, a failed check at allocation), and that is unsupported, never a value; a
  float4e2m1 input, which TVM's copy packs without complaint, is unsupported before it reaches a kernel
  (PACKED_UNREAD). An input of one element (or none) is copied as its one byte, which is what the kernels read:
  such inputs run.
- --backend-option target / opt_level (OPTIONS) choose the target and the PassContext opt_level; each is checked
  by compiling and running a one-node model, and recorded in the settings.

What TVM says when it does not implement something is UNSUPPORTED (docs/backends_tvm.md); anything else raised
where the spec requires a result is an error.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from dataclasses import dataclass

import numpy as np
import onnx
import onnx.inliner
import tvm
from tvm import relax
from tvm.relax.frontend.onnx import from_onnx

from generator.dtypes import DType
from runners.backends.base import (Backend, BackendOptionError, Unsupported, UnsupportedTable, as_declared, choice,
                                   io_types, relu_model)

TARGET = "llvm"
OPT_LEVEL = "2"  # tvm.transform.PassContext's own default (what tvm.compile uses without a context)
OPT_LEVELS = ("0", "1", "2", "3")

# TVM's words for "not implemented here", at conversion, compilation, copy or run (docs/backends_tvm.md).
UNSUPPORTED = UnsupportedTable(
    # the frontend has no converter for an op (tvm.error.OpNotImplemented, a NotImplementedError: "The following
    # operators are not supported for frontend ONNX"), or a converter does not implement a rank, mode or version
    types=(NotImplementedError,),
    text=(
        r"unknown dtype .object.",  # a string tensor: TVM has no string element type
        r"TensorCopyFromBytes: size mismatch",  # the runtime's host copy has no packing for this sub-byte type
        r"Check failed: dtype\.bits % 8 == 0",  # the VM's memory manager allocates no sub-byte element type
        r"from\.MatchesCode\(DLDataTypeCode::kDLFloat\) && to\.MatchesCode\(DLDataTypeCode::kDLFloat\)",
        # ^ the LLVM code generator has no conversion for this float type (float4e2m1, float6)
        r"not supported for finiteness ops",  # isfinite / isnan of a float type other than float16/32/64
        # the frontend's Quantize / DequantizeLinear converters: types, blocks, saturate=0, precision they lack
        r"Unsupported (input|output) datatype",
        r"param datatype should be one of",
        r"is not supported yet",
    ))


# Input element types TVM's host copy packs without complaint while its kernels read them unpacked: a run would
# read past the input's buffer, and its verdict would be chance (measured: test_cast_float4e2m1_to_bool_witness
# passed, _edge failed). The other sub-byte types are refused by TVM's own copy (TensorCopyFromBytes).
PACKED_UNREAD = frozenset({"float4e2m1"})


def _one_line(exc: BaseException) -> str:
    """TVM's message without its trace: the first lines that say what failed, in one line."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.startswith(("File ", "Traceback", "^"))] or lines
    return " ".join(keep[:3])[:500] if keep else type(exc).__name__


def _classified(exc: BaseException, where: str) -> Exception:
    """Unsupported where TVM says it does not implement it, else the error in one line naming the phase."""
    if UNSUPPORTED.matches(exc):
        return Unsupported(f"tvm {where}: {type(exc).__name__}: {_one_line(exc)}")
    return RuntimeError(f"tvm {where}: {type(exc).__name__}: {_one_line(exc)}")


@dataclass
class Prepared:
    vm: relax.VirtualMachine
    device: object
    inputs: list[tuple[str, DType]]
    outputs: list[tuple[str, DType]]


class TvmBackend(Backend):
    name = "tvm"
    OPTIONS = {
        "target": f"the TVM target to compile for, a target string or its JSON dict form (default {TARGET}: the "
                  "host CPU); its device must be present",
        "opt_level": f"tvm.transform.PassContext opt_level, {' | '.join(OPT_LEVELS)} (default {OPT_LEVEL}, TVM's own)",
    }

    def __init__(self):
        self.target_text = TARGET
        self.target = tvm.target.Target(TARGET)
        self.opt_level = OPT_LEVEL

    def configure(self, options: dict[str, str]) -> None:
        if "opt_level" in options:
            self.opt_level = choice(self, "opt_level", options["opt_level"], {v: v for v in OPT_LEVELS})
        if "target" in options:
            value = options["target"]
            try:
                spec = json.loads(value) if value.lstrip().startswith("{") else value
                self.target = tvm.target.Target(spec)
            except Exception as exc:  # noqa: BLE001 - whatever TVM says about the target
                raise BackendOptionError(f"backend {self.name!r}: --backend-option target={value}: TVM refuses "
                                         f"it: {_one_line(exc)}") from None
            self.target_text = value
        self._check()

    def _device(self):
        return tvm.runtime.device(self.target.get_target_device_type(), 0)

    def _check(self) -> None:
        """A target TVM cannot compile for, or whose device is absent, is one usage error now, not an error per
        case: a one-node model is compiled and run with the options."""
        try:
            device = self._device()
            if not device.exist:
                raise RuntimeError(f"device {device} is not present")
            prepared = self._compile(relu_model(), [], [])
            prepared.vm["main"](tvm.runtime.tensor(np.array([-1.0, 2.0], np.float32), device=prepared.device))
        except Exception as exc:  # noqa: BLE001
            raise BackendOptionError(f"backend {self.name!r}: TVM cannot run with target={self.target_text} "
                                     f"opt_level={self.opt_level}: {_one_line(exc)}") from None

    def version(self) -> str:
        return tvm.__version__

    def settings(self) -> dict:
        return {"target": str(self.target), "opt_level": int(self.opt_level), "device": str(self._device()),
                "executor": "relax.VirtualMachine", "pipelines": "relax default, tir default",
                "onnx_local_functions": "inlined (onnx.inliner)"}

    def prepare(self, model: onnx.ModelProto, case) -> Prepared:
        ins, outs = io_types(model)
        for name, t in ins:
            if t.name in PACKED_UNREAD:
                raise Unsupported(f"tvm: {t.name} input {name!r}: TVM's runtime packs it two elements to a byte, "
                                  "its generated kernels read one byte per element (past the end of the buffer)")
        if model.functions:
            model = onnx.inliner.inline_local_functions(model)
        return self._compile(model, ins, outs)

    def _compile(self, model: onnx.ModelProto, ins, outs) -> Prepared:
        try:
            # the frontend prints "Error converting operator ..." before it raises, and warns for a model that
            # fails onnx.checker: the exception says what failed
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                mod = from_onnx(model)
        except Exception as exc:  # noqa: BLE001 - the frontend raises TVM's, Python's and numpy's exceptions
            raise _classified(exc, "ONNX frontend") from None
        try:
            with tvm.transform.PassContext(opt_level=int(self.opt_level)):
                executable = tvm.compile(mod, target=self.target)
            device = self._device()
            vm = relax.VirtualMachine(executable, device)
        except Exception as exc:  # noqa: BLE001
            raise _classified(exc, "compile") from None
        return Prepared(vm, device, ins, outs)

    def run(self, prepared: Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(prepared.inputs):
            raise ValueError(f"the model has {len(prepared.inputs)} inputs, {len(inputs)} given")
        try:
            # (np.require, not np.ascontiguousarray: that one makes a 0-d array 1-d)
            args = [tvm.runtime.tensor(np.require(x, dtype=t.np_dtype, requirements="C"), device=prepared.device)
                    for (_, t), x in zip(prepared.inputs, inputs)]
        except Exception as exc:  # noqa: BLE001
            raise _classified(exc, "input") from None
        try:
            result = prepared.vm["main"](*args)
        except Exception as exc:  # noqa: BLE001
            raise _classified(exc, "run") from None
        values = [result] if isinstance(result, tvm.runtime.Tensor) else list(result)
        if len(values) != len(prepared.outputs):
            raise RuntimeError(f"tvm returned {len(values)} outputs, the model has {len(prepared.outputs)}")
        return [self._to_numpy(v, t) for v, (_, t) in zip(values, prepared.outputs)]

    @staticmethod
    def _to_numpy(value, declared: DType) -> np.ndarray:
        """A returned tensor in the element type TVM says it holds, bit for bit (compare checks it is the
        declared one)."""
        if not isinstance(value, tvm.runtime.Tensor):
            raise RuntimeError(f"tvm returned a {type(value).__name__}, not a tensor")
        return as_declared(value.numpy(), declared)
