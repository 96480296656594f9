"""`opconform repro --script FILE.mjs` for onnxruntime-node and onnxruntime-web: a standalone JavaScript module
(runners/repro.py writes it), run with `node FILE.mjs [DIR]`.

JavaScript, not a Python script driving Node: the maintainers of onnxruntime's JS builds work in Node, and a
reproducer they can run with `npm install onnxruntime-node` and `node repro.mjs` (no Python, numpy or onnx) is
one they can paste into an issue as it is. The package is loaded from DIR, else $OPCONFORM_JS_DIR, else the
script's own folder (node_modules there or above, as Node resolves it), else the folder `opconform js-install`
installs into (runners/backends/js_packages.py). The session options are the adapter's own
(`_session_options()`: what runners/backends/js/driver.mjs passes to InferenceSession.create), as JSON.

The model, each tensor's bytes and every name are base64 literals; what the script says of the item is in `// `
comments, each line escaped (repro._comment). Tensors go in and come back as raw little-endian bytes in the
element type the JS API names (int4 / uint4 packed two to a byte, the first element in the low nibble, as
onnxruntime holds them); outputs are compared bit for bit (a NaN matches a NaN), strings as text.
"""

from __future__ import annotations

import base64
import json
import re

from generator.dtypes import DType
from runners.backends.onnxruntime_js import js_type

BACKENDS = ("onnxruntime-node", "onnxruntime-web")
JS_TYPES = ("bool", "int4", "uint4", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
            "float16", "float32", "float64", "string")  # the JS Tensor API's element types


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode("utf-8") if isinstance(data, str) else data).decode("ascii")


def _tensor(name: str, t: DType, x) -> dict:
    import numpy as np

    x = np.asarray(x, dtype=object if t.kind == "string" else t.np_dtype)
    spec = {"name": _b64(name), "type": js_type(t), "dims": [int(d) for d in x.shape]}
    if t.kind == "string":
        spec["strings"] = [_b64(s if isinstance(s, (str, bytes)) else str(s)) for s in x.ravel()]
    else:
        spec["data"] = _b64(t.to_raw(x))
    return spec


def script(backend, model, inputs: list, expected: list, mark: str, about: list[str]) -> str:
    """The .mjs text: inputs and expected are [((name, DType), array)], mark the line that says who wrote it,
    about the comment lines. ValueError (one line) for an element type the JS Tensor API has not."""
    for (name, t), _ in inputs + expected:
        if js_type(t) not in JS_TYPES:
            raise ValueError(f"--script: the JS Tensor API has no {t.name} element type (graph input / output "
                             f"{ascii(name)}): {backend.name} can neither feed nor read it")
    version = backend.version()
    pinned = f"{backend.package}@{version}" if re.fullmatch(r"[0-9][0-9A-Za-z.+-]*", version) else backend.package
    values = {"PACKAGE": backend.package, "RUN_VERSION": version,
              "OPTIONS": backend._session_options(),
              "MODEL": _b64(model.SerializeToString()),
              "INPUTS": [_tensor(n, t, x) for (n, t), x in inputs],
              "EXPECTED": [_tensor(n, t, x) for (n, t), x in expected]}
    consts = "".join(f"const {k} = {json.dumps(v, ensure_ascii=True)};\n" for k, v in values.items())
    return (f"#!/usr/bin/env node\n// {mark}\n"
            f"// Reproduces one item of a conformance suite (the comments below say which), standalone: needs Node 18\n"
            f"// or later and the npm package {backend.package} (npm install {pinned}: the version the run had).\n"
            f"//   node FILE.mjs [DIR]   DIR: a folder holding node_modules/{backend.package} (default: "
            "$OPCONFORM_JS_DIR, else\n//   this script's folder, else where `opconform js-install` installs: "
            "$XDG_CACHE_HOME/opconform/js or ~/.cache/opconform/js)\n"
            "// It compares bits (a NaN matches a NaN) and prints the elements that differ; exit status 1 when any "
            "does.\n" + "\n".join(about) + "\n" + _IMPORTS + consts + _BODY)


_IMPORTS = """import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

"""

_BODY = r"""
const text = (b64) => Buffer.from(b64, 'base64').toString('utf8');
// names and strings from the model, their control and bidi characters escaped as they are printed
const shown = (s) => s.replace(/[\p{C}\p{Z}]/gu, (c) => (c === ' ' ? c : `\\u{${c.codePointAt(0).toString(16)}}`));

function load() {
  // as opconform runs it: onnxruntime-node's Linux build otherwise writes /tmp/mat-debug-<pid>.log and tries telemetry
  // uploads (its own variable, read when the native library loads; a value of the caller's own is kept)
  process.env.ORT_DISABLE_TELEMETRY ??= '1';
  const here = path.dirname(fileURLToPath(import.meta.url));
  const installed = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'opconform', 'js');
  const dirs = [process.argv[2], process.env.OPCONFORM_JS_DIR, here, installed].filter(Boolean);
  for (const dir of dirs) {
    const require = createRequire(path.join(path.resolve(dir), 'package.json'));
    try {
      require.resolve(PACKAGE);
    } catch {
      continue;
    }
    return [require(PACKAGE), dir];
  }
  console.error(`${PACKAGE} is in none of ${dirs.join(', ')}: npm install ${PACKAGE}, or name its folder: ` +
    `node ${process.argv[1]} DIR`);
  process.exit(2);
}

const WIDTH = { bool: 1, int8: 1, uint8: 1, int16: 2, uint16: 2, float16: 2, int32: 4, uint32: 4, float32: 4,
  int64: 8, uint64: 8, float64: 8 }; // bytes an element (int4 / uint4: half)
const ARRAYS = { float32: Float32Array, float64: Float64Array, int32: Int32Array, uint32: Uint32Array,
  int16: Int16Array, uint16: Uint16Array, float16: Uint16Array, int8: Int8Array, int64: BigInt64Array,
  uint64: BigUint64Array }; // bool, uint8, int4, uint4 (packed): bytes

function bytesOf(b64) { // a copy of its own: aligned for the wider typed arrays
  const raw = Buffer.from(b64, 'base64');
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  out.set(raw);
  return out;
}

function feed(ort, spec) {
  if (spec.type === 'string') return new ort.Tensor('string', spec.strings.map(text), spec.dims);
  const bytes = bytesOf(spec.data);
  const Ctor = ARRAYS[spec.type] || Uint8Array;
  const data = Ctor === Uint8Array ? bytes : new Ctor(bytes.buffer, 0, bytes.length / Ctor.BYTES_PER_ELEMENT);
  return new ort.Tensor(spec.type, data, spec.dims);
}

function half(b) { // float16 bits -> number
  const e = (b >> 10) & 31, m = b & 1023, s = b & 0x8000 ? -1 : 1;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (e ? (1 + m / 1024) * 2 ** (e - 15) : (m / 1024) * 2 ** -14);
}

// element k of raw little-endian bytes of a type: [its bits (a BigInt), its value, whether it is a NaN]
function element(type, bytes, k) {
  if (type === 'int4' || type === 'uint4') {
    const v = (bytes[k >> 1] >> ((k & 1) * 4)) & 15;
    return [BigInt(v), type === 'int4' && v >= 8 ? v - 16 : v, false];
  }
  const w = WIDTH[type], view = new DataView(bytes.buffer, bytes.byteOffset + k * w, w);
  const bits = w === 8 ? view.getBigUint64(0, true) : BigInt(w === 4 ? view.getUint32(0, true) :
    w === 2 ? view.getUint16(0, true) : view.getUint8(0));
  const value = {
    float32: () => view.getFloat32(0, true), float64: () => view.getFloat64(0, true), float16: () => half(Number(bits)),
    int8: () => view.getInt8(0), int16: () => view.getInt16(0, true), int32: () => view.getInt32(0, true),
    int64: () => view.getBigInt64(0, true), bool: () => bits !== 0n,
  }[type];
  const v = value ? value() : bits;
  return [bits, v, typeof v === 'number' && Number.isNaN(v)];
}

const count = (dims) => dims.reduce((a, b) => a * b, 1);
const elements = (spec, bytes) => Array.from({ length: count(spec.dims) }, (_, k) => element(spec.type, bytes, k));
const item = (v) => (typeof v === 'string' ? JSON.stringify(shown(v)) : String(v));
const listed = (values) => `[${values.map(item).join(', ')}]`;

function index(k, dims) { // flat index -> [i, j, ...]
  const out = [];
  for (let d = dims.length - 1; d >= 0; d--) {
    out.unshift(k % dims[d]);
    k = Math.floor(k / dims[d]);
  }
  return `[${out.join(', ')}]`;
}

const [ort, dir] = load();
console.log(`${PACKAGE} ${ort.env.versions?.node || ort.env.versions?.web || ort.env.versions?.common || '?'} ` +
  `from ${dir} (the run: ${RUN_VERSION})`);
if (OPTIONS.numThreads !== undefined) { // onnxruntime-web: its WebAssembly threads, set before a session
  ort.env.wasm.numThreads = OPTIONS.numThreads;
  ort.env.wasm.proxy = false;
}
const options = { executionProviders: OPTIONS.executionProviders,
  graphOptimizationLevel: OPTIONS.graphOptimizationLevel, executionMode: 'sequential' };
if (OPTIONS.intraOpNumThreads !== undefined) options.intraOpNumThreads = OPTIONS.intraOpNumThreads;
if (OPTIONS.interOpNumThreads !== undefined) options.interOpNumThreads = OPTIONS.interOpNumThreads;
if (OPTIONS.extra) options.extra = OPTIONS.extra;
console.log(`session options: ${JSON.stringify(options)}` +
  (OPTIONS.numThreads !== undefined ? `; env.wasm.numThreads = ${OPTIONS.numThreads}` : ''));
const session = await ort.InferenceSession.create(bytesOf(MODEL), options);
const feeds = {};
for (const spec of INPUTS) {
  feeds[text(spec.name)] = feed(ort, spec);
  const values = spec.type === 'string' ? spec.strings.map(text) : elements(spec, bytesOf(spec.data)).map((e) => e[1]);
  console.log(`input ${shown(text(spec.name))}: ${spec.type}[${spec.dims}] ${listed(values)}`);
}
const results = await session.run(feeds, EXPECTED.map((e) => text(e.name)));
let differ = 0;
for (const want of EXPECTED) {
  const name = text(want.name), got = results[name];
  const dims = Array.from(got.dims, Number);
  const strings = want.type === 'string';
  const expected = strings ? want.strings.map(text) : elements(want, bytesOf(want.data));
  const sameType = got.type === want.type;
  const gotBytes = strings ? null : new Uint8Array(got.data.buffer, got.data.byteOffset, got.data.byteLength);
  const actual = !sameType ? [] : strings ? Array.from(got.data) : elements({ type: got.type, dims }, gotBytes);
  const values = (list) => (strings ? list : list.map((e) => e[1]));
  console.log(`output ${shown(name)}: expected ${want.type}[${want.dims}] ${listed(values(expected))}`);
  console.log(`output ${shown(name)}: actual   ${got.type}[${dims}] ${listed(sameType ? values(actual) : [])}`);
  if (!sameType) {
    console.log(`  element type ${got.type}, expected ${want.type}`);
    differ += Math.max(count(want.dims), 1);
    continue;
  }
  if (dims.join() !== want.dims.join() || dims.length !== want.dims.length) {
    console.log(`  shape [${dims}], expected [${want.dims}]`);
    differ += 1;
    continue;
  }
  let shownDiffs = 0;
  expected.forEach((e, k) => {
    const a = actual[k];
    const same = strings ? e === a : e[0] === a[0] || (e[2] && a[2]);
    if (same) return;
    differ += 1;
    if (shownDiffs++ < 10) {
      const show = (x) => item(strings ? x : x[1]);
      console.log(`  ${index(k, want.dims)} expected ${show(e)} actual ${show(a)}`);
    }
  });
}
console.log(`${differ} element(s) differ`);
process.exit(differ ? 1 : 0);
"""
