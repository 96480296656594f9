// The Node side of the onnxruntime-node / onnxruntime-web backends (runners/backends/onnxruntime_js.py).
//
//   node driver.mjs node|web MODULES_DIR IN_FD OUT_FD
//
// One process per worker, started at the first prepare, serving requests one at a time until its input ends.
// MODULES_DIR holds node_modules/ with the npm package (opconform js-install). Requests come on IN_FD and answers
// go out on OUT_FD, not stdin / stdout: whatever the runtime prints (its log, Emscripten's console output) goes
// to fds 1 and 2, the worker's output, and cannot break a frame.
//
// A frame: a 4-byte little-endian length, that many bytes of JSON (the header), then the raw blobs whose byte
// lengths header.sizes lists, in order. Tensors travel as their raw little-endian bytes (int4 / uint4 packed two
// to a byte, first element in the low nibble, as onnxruntime holds them), strings as JSON in the header; nothing
// is converted element by element, so every value comes back bit for bit.
//
// Requests (header.op): hello {candidates} -> {versions, node, types}; create {options} + model bytes ->
// {id, inputs, outputs}; run {id, inputs: [{name, type, dims, strings?}], outputs} + input bytes ->
// {outputs: [{name, type, dims, strings?}]} + output bytes; exit. Any request may carry release: [ids] (sessions
// the Python side dropped). A failure answers {error, name}: the runtime's own words, classified in Python.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';

const [flavor, modulesDir, inFd, outFd] = process.argv.slice(2);
const IN = Number(inFd), OUT = Number(outFd);
const PACKAGE = flavor === 'web' ? 'onnxruntime-web' : 'onnxruntime-node';

function writeFrame(header, blobs = []) {
  header.sizes = blobs.map((b) => b.byteLength);
  const head = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(head.length, 0);
  // one write a frame where the pipe takes it whole: each write wakes the reader
  const frame = Buffer.concat([len, head, ...blobs.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength))]);
  for (let done = 0; done < frame.byteLength;) done += fs.writeSync(OUT, frame, done, frame.byteLength - done);
}

// The runtime's own words, whatever it threw (an Error, a string from the native binding ...).
function failure(e) {
  return { error: e && e.message !== undefined ? String(e.message) : String(e), name: e && e.name ? e.name : typeof e };
}

const require = createRequire(path.join(path.resolve(modulesDir), 'package.json'));
let ort, loadError = null;
try {
  ort = require(PACKAGE);
} catch (e) {
  loadError = e; // every request is answered with it (exiting now would race the first request's write)
}
const sessions = new Map();
let nextId = 1;

function numberOption(value, name) {
  if (value !== undefined && !Number.isInteger(value)) throw new Error(`${name}: not an integer: ${value}`);
  return value;
}

async function create(header, blobs) {
  const o = header.options || {};
  if (flavor === 'web' && o.numThreads !== undefined) {
    ort.env.wasm.numThreads = numberOption(o.numThreads, 'numThreads');
    ort.env.wasm.proxy = false;
  }
  const options = {
    executionProviders: o.executionProviders,
    graphOptimizationLevel: o.graphOptimizationLevel,
    executionMode: 'sequential',
    logSeverityLevel: 3, // failures come back as exceptions; warnings would fill the worker's output
  };
  if (o.intraOpNumThreads !== undefined) options.intraOpNumThreads = numberOption(o.intraOpNumThreads, 'threads');
  if (o.interOpNumThreads !== undefined) options.interOpNumThreads = numberOption(o.interOpNumThreads, 'threads');
  if (o.extra) options.extra = o.extra;
  const session = await ort.InferenceSession.create(new Uint8Array(blobs[0]), options);
  const id = nextId++;
  sessions.set(id, session);
  return [{ id, inputs: session.inputNames, outputs: session.outputNames }, []];
}

function tensorOf(spec, blob) {
  if (spec.type === 'string') return new ort.Tensor('string', spec.strings, spec.dims);
  const size = spec.dims.reduce((a, b) => a * b, 1);
  // a copy of its own: aligned for the wider typed arrays, not a view into the frame's buffer
  const buffer = new ArrayBuffer(blob.byteLength);
  new Uint8Array(buffer).set(blob);
  const Ctor = { float32: Float32Array, float64: Float64Array, int32: Int32Array, uint32: Uint32Array,
    int16: Int16Array, uint16: Uint16Array, float16: Uint16Array, int8: Int8Array, int64: BigInt64Array,
    uint64: BigUint64Array }[spec.type] || Uint8Array; // bool, uint8, int4, uint4 (packed) as bytes
  const data = new Ctor(buffer, 0, Ctor === Uint8Array ? blob.byteLength : size);
  return new ort.Tensor(spec.type, data, spec.dims);
}

async function run(header, blobs) {
  const session = sessions.get(header.id);
  if (!session) throw new Error(`no session ${header.id}`);
  const feeds = {};
  let b = 0;
  for (const spec of header.inputs) feeds[spec.name] = tensorOf(spec, spec.type === 'string' ? null : blobs[b++]);
  const results = await session.run(feeds, header.outputs);
  const outputs = [], out = [];
  for (const name of header.outputs) {
    const t = results[name];
    if (t.type === 'string') {
      outputs.push({ name, type: t.type, dims: Array.from(t.dims), strings: Array.from(t.data) });
    } else {
      outputs.push({ name, type: t.type, dims: Array.from(t.dims) });
      out.push(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    }
  }
  for (const t of Object.values(results)) if (t.dispose) t.dispose();
  return [{ outputs }, out];
}

// What the JS Tensor API says of each candidate element type: null where it takes the type, else its words
// ("Unsupported tensor type: bfloat16."). A tensor of no elements is made from a plain array; the types it wants
// a typed array for (float16, int4 ...) are retried with one of bytes.
function tensorTypes(candidates) {
  const said = {};
  for (const type of candidates) {
    said[type] = null;
    for (const data of [[], new Uint8Array(0), new Uint16Array(0), new Int8Array(0)]) {
      try {
        new ort.Tensor(type, data, [0]);
        said[type] = null;
        break;
      } catch (e) {
        if (said[type] === null) said[type] = failure(e).error; // the first words, the plain array's
      }
    }
  }
  return said;
}

async function answer(header, blobs) {
  if (header.op === 'exit') process.exit(0);
  if (loadError) throw loadError;
  for (const id of header.release || []) {
    const s = sessions.get(id);
    sessions.delete(id);
    if (s) await s.release();
  }
  switch (header.op) {
    case 'hello':
      return [{ versions: { ...ort.env.versions }, node: process.version, platform: process.platform,
        arch: process.arch, types: tensorTypes(header.candidates || []) }, []];
    case 'create': return create(header, blobs);
    case 'run': return run(header, blobs);
    case 'release': return [{ sessions: sessions.size }, []];
    default: throw new Error(`unknown request ${header.op}`);
  }
}

// Frames in: bytes gathered until a whole frame is there, requests answered in order.
let pending = Buffer.alloc(0);
let queue = Promise.resolve();
// a socket on the pipe: read as the event loop sees data (fs streams read through the thread pool: ~0.5 ms a frame)
const stream = new net.Socket({ fd: IN, readable: true, writable: false });
stream.on('data', (chunk) => {
  pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  for (;;) {
    if (pending.length < 4) return;
    const headLength = pending.readUInt32LE(0);
    if (pending.length < 4 + headLength) return;
    const header = JSON.parse(pending.subarray(4, 4 + headLength).toString('utf8'));
    const total = (header.sizes || []).reduce((a, b) => a + b, 0);
    if (pending.length < 4 + headLength + total) return;
    const blobs = [];
    let at = 4 + headLength;
    for (const size of header.sizes || []) {
      blobs.push(pending.subarray(at, at + size));
      at += size;
    }
    pending = pending.subarray(at);
    queue = queue.then(async () => {
      let reply;
      try {
        reply = await answer(header, blobs);
      } catch (e) {
        reply = [failure(e), []];
      }
      writeFrame(...reply);
    });
  }
});
stream.on('end', () => queue.then(() => process.exit(0))); // the worker is gone: so are we
