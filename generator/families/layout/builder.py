"""A TFLite-form graph under construction (_B), for the patterns: inputs, weights, operators whose output shapes
come from the kernels, and the text that describes sizes."""

from __future__ import annotations

import numpy as np

from generator import sampling
from generator.families.layout.dims import Dims
from generator.reference import layout as L
from generator.reference.layout_graph import new_graph


class _B:
    """A TFLite-form graph under construction; output shapes come from running the kernels on zeros."""

    def __init__(self, rng: sampling.Stream, d: Dims | None = None):
        self.g = new_graph("tflite")
        self.rng = rng
        self.d = d if d is not None else Dims()

    def input(self, name: str, shape) -> str:
        self.g.add(name, shape)
        self.g.inputs.append(name)
        return name

    def const(self, name: str, shape) -> str:
        return self.g.const(name, self.rng.uniform(-1.0, 1.5, size=shape).astype(np.float32))

    def shape(self, name: str) -> tuple:
        return tuple(self.g.tensors[name].shape)

    def op(self, type_: str, inputs: list[str], outputs, **attrs) -> str | list[str]:
        names = [outputs] if isinstance(outputs, str) else list(outputs)
        probe = L.Op(type_, inputs, names, attrs)
        vals = [self.g.tensors[n].data if self.g.tensors[n].data is not None
                else np.zeros(self.g.tensors[n].shape, np.float32) for n in inputs]
        shapes = [r.shape for r in L.run_op(probe, vals, "tflite")]
        self.g.op(type_, inputs, [(n, s) for n, s in zip(names, shapes)], **attrs)
        return outputs

    def image(self, n: int = 2, h: int = 5, w: int = 7, c: int = 3, name: str = "x") -> str:
        """The NHWC graph input most patterns start from."""
        d = self.d
        return self.input(name, (d.size("N", n, 1, 3), d.size("H", h, 1, 9), d.size("W", w, 1, 9),
                                 d.size("C", c, 1, 8)))

    def conv(self, x: str, cout: int, name: str, k=(3, 3), padding="SAME", strides=(1, 1),
             vary_padding: bool = True) -> str:
        cin = self.g.tensors[x].shape[-1]
        k, padding, strides = self.d.window(name, self.shape(x)[1:-1], k, padding, strides, vary_padding,
                                            vary_padding)
        w = self.const(f"{name}_weights", (cout,) + tuple(k) + (cin,))
        b = self.const(f"{name}_bias", (cout,))
        return self.op("conv", [x, w, b], name, padding=padding, strides=list(strides), dilations=[1] * len(k))

    def image_conv(self, n: int = 2, h: int = 5, w: int = 7, c: int = 3, cout: int = 11, cout_min: int = 1,
                   padding: str = "SAME") -> str:
        """image -> conv: the NCHW region most patterns work in."""
        x = self.image(n, h, w, c)
        return self.conv(x, self.d.size("CO", cout, cout_min, 13), "conv", padding=padding)

    def done(self, *outputs: str) -> L.Graph:
        self.g.outputs = list(outputs)
        return self.g


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _window_text(values) -> str:
    return "x".join(str(v) for v in values)


def _stride_text(strides) -> str:
    return str(strides[0]) if len(set(strides)) == 1 else _window_text(strides)
