"""A model's com.microsoft MatMulNBits node as a case (generator/from_model/plan.py), as onnxruntime's
matmul_nbits_quantizer writes it: A [..., K] an activation, B [N, k_blocks, blob_size], scales and the optional
packed (uint8) or typed zero points, g_idx and bias the model's constants, kept bit for bit.

The weights are fixed, so every data set is a choice of A made for the model's own dequantized W [N, K] (the
family's data kinds, generator/families/matmul_nbits/config.py, rebuilt with A as the only freedom). Each row r of A
serves one output column n_r (a "target"), its signs those of W[n_r] where the kind needs the errors of one sign:
    zeros      A = 0: Y = bias (or +0) exactly (bias_ignored)
    ones       A = 1: Y = the row sums of W (the zero-point faults move every term of a block the same way)
    unit       one-hot rows at k = 0, 1, block_size - 1, block_size, K - 1 ...: Y[r, n] = W[n, k] within a bound of
               |W[n, k]| (0 where the code is the zero point: exact), so each code, zero point and scale is read alone
    alternate  +1, -1 along K: the two codes of a byte cancel (their order)
    coherent   sign(W[n_r]): every term adds (the largest sum of a row)
    int8       per block of A (block_size along K): the block's max 127 steps over its smallest |w|, the others
               (q + 3/4) steps of W's sign: int8 rounding loses 1/4 step a term, truncation 3/4 (the bound of
               accuracy_level 4 allows 1/2; the others none)
    int8_rows  accuracy_level 4, k_blocks > 1: one element of 127 in the block of least sum |w| (the rest of it 0),
               31/64 elsewhere: one int8 scale a row rounds every 31/64 to 0
    overflow   float16 A: one block of A of M * sign(code - zero point), M a power of 2 with M * sum |q| beyond
               65504 and the scaled sum small: a float16 block sum before the scale overflows
    swamp      accuracy_level finer than A's type: 2**(mantissa bits + 3) over the largest |w|, then 1s: a sum in
               A's type drops every later term
The edges are these rows packed R (A's rows) to a data set, zeros and ones first, the last set filled with one-hot
rows spread over K: rows are independent sums, and each data set costs every fault model a run (a model's W can be
large). The witness search's candidates draw each row's kind, target, block steps and positions at random, or sparse
random multiples of 1/16. Random data: uniform in A's calibrated range, else in [-2, 2] (DEFAULT_RANGE), rounded
to A's type.

Inputs another node computes (or graph inputs without a default) other than A get one fixed set of plausible
values for the whole case (random codes, positive scales (1 + j / 8) * 2**-e, zero-point codes, g_idx k //
block_size, bias in eighths), seeded by the node's name, and A is chosen for them as for constants.
"""

from __future__ import annotations

import numpy as np

from generator import dot_bound, dtypes
from generator.families.matmul_nbits.config import CLAUSE, FAMILY, REASON
from generator.from_model.model_source import Site
from generator.from_model.plan import Context, Plan
from generator.interpret import decode_attribute
from generator.reference import matmul_nbits as ref
from generator.sampling import Stream, case_seed

OPS = ((ref.DOMAIN, "MatMulNBits"),)
DEFAULT_RANGE = (-2.0, 2.0)  # A's random data where no calibration gives its range: a normalized activation's
F16_MAX = 65504.0


def plan(site: Site, ctx: Context) -> Plan | str:
    """The node's case: the family's params, clause and dot bound, A's data for the node's own weights; or why not
    (an input of unknown type or shape, weights prepacked for CUDA, a node the family's validator refuses)."""
    ops = list(site.inputs) + [None] * (len(ref.INPUTS) - len(site.inputs))
    ops = [None if op is None or op.origin == "absent" else op for op in ops]
    a = ops[0]
    attrs = {x.name: decode_attribute(x) for x in site.node.attribute}
    if a is None:
        return "A is omitted"
    for j, op in enumerate(ops):
        if op is not None and (op.type is None or op.shape is None):
            return f"{ref.INPUTS[j]}'s element type or shape is unknown"
    if attrs.get("weight_prepacked", 0) in (1, 2):
        return f"weight_prepacked = {attrs['weight_prepacked']}: B is in a CUDA layout the reference does not read"
    try:
        ref.validate(attrs, site.opset or 1, [op and op.type for op in ops], [op and len(op.shape) for op in ops])
        ref.validate_shapes([op and op.shape for op in ops], attrs, site.opset or 1)
    except ValueError as exc:
        return _invalid(exc, ops, attrs)
    except KeyError as exc:
        return f"the model's node is invalid: attribute {exc} missing"
    t1 = a.type
    generated = [j for j, op in enumerate(ops) if op is not None and not op.constant]
    values = _values(site, ops, attrs, generated)
    slots = _slots(ops, generated)
    params = _params(ops, attrs, t1)
    compare = dot_bound.spec_of(attrs, slots, params["t1"], REASON)
    readings = tuple(x for x in [ref.readings(attrs, ops[4] is not None)] if x)

    def outcome(args):
        return ref.matmul_nbits(list(args), attrs), readings

    fixed = [values[j] for j in generated if j != 0]  # the generated weights: the same in every data set

    def dataset(x: np.ndarray | None) -> list:
        return ([np.asarray(x).reshape(a.shape).astype(t1.np_dtype)] if 0 in generated else []) + fixed

    if 0 not in generated:  # A is a constant of the model: one data set, of the generated weights (if any)
        return Plan(FAMILY.name, params, CLAUSE, compare, generated, [dataset(None)], None, None, outcome)
    shape = _rows_shape(a.shape)
    w = _weights(values, attrs)
    kinds = Kinds(w, shape, attrs, t1, params, values)
    lo, hi, note = _range(ctx, a.name)

    def random(stream: Stream) -> list:
        return dataset(lo + (hi - lo) * stream.random(shape))

    def draw(stream: Stream) -> list:
        return dataset(kinds.drawn(stream))

    return Plan(FAMILY.name, params, CLAUSE, compare, generated, [dataset(x) for x in kinds.edges()], draw, random,
                outcome, range_note=note)


def _invalid(exc: ValueError, ops: list, attrs: dict) -> str:
    """The validator's words; a flat scales tensor ([N * k_blocks], older onnxruntime quantizers) named as such."""
    s = ops[2]
    kb = ref.k_blocks(attrs.get("K", 0), attrs.get("block_size", 1) or 1)
    if s is not None and len(s.shape) == 1 and s.shape[0] == attrs.get("N", 0) * kb:
        return (f"the model's node is invalid: scales is flat [N * k_blocks = {s.shape[0]}] (older onnxruntime "
                f"quantizers' layout), the text gives (N, k_blocks) ({exc})")
    return f"the model's node is invalid: {exc}"


def _slots(ops: list, generated: list[int]) -> list[str]:
    """The dot bound's slots: the node input of each graph input of the case (generated ones, and constants fed
    with their default), then of each initializer, both in node input order (node_cases.build's order)."""
    fed = [j for j, op in enumerate(ops) if op is not None and (j in generated or op.default)]
    held = [j for j, op in enumerate(ops) if op is not None and j not in fed]
    return [ref.INPUTS[j] for j in fed + held]


def _params(ops: list, attrs: dict, t1: dtypes.DType) -> dict:
    """case.json "params" as the family's Config.params writes them (the fault module's group_key reads them)."""
    zp = ops[3]
    p = {"what": "model", "t1": "float32" if t1.name == "float" else t1.name,
         "bits": int(attrs.get("bits", ref.DEFAULT_BITS)), "block_size": int(attrs["block_size"]),
         "K": int(attrs["K"]), "N": int(attrs["N"]),
         "zero_points": "none" if zp is None else "packed" if zp.type.name == "uint8" else "typed",
         "g_idx": ops[4] is not None, "bias": ops[5] is not None, "accuracy_level": int(attrs.get("accuracy_level", 0))}
    b = ops[1].shape
    if 0 in b:
        p["b_omitted"] = [i for i, d in enumerate(b) if d == 0]
    return p


def _values(site: Site, ops: list, attrs: dict, generated: list[int]) -> list:
    """Every input's value: the model's constants, plausible fixed values for the generated weights (A: None)."""
    K, N, bs = int(attrs["K"]), int(attrs["N"]), int(attrs["block_size"])
    bits = int(attrs.get("bits", ref.DEFAULT_BITS))
    top, kb = (1 << bits) - 1, ref.k_blocks(K, bs)
    s = Stream(case_seed(0, f"{site.name}/weights"))
    out = []
    for j, op in enumerate(ops):
        if op is None or j == 0:
            out.append(None if op is None or j in generated else op.value())
            continue
        if j not in generated:
            out.append(op.value())
            continue
        shape, t = op.shape, op.type.np_dtype
        if j == 1:
            v = ref.pack(s.integers(0, top, (N, kb, bs)), bits) if 0 not in shape else np.zeros(shape, np.uint8)
        elif j == 2:
            v = (1 + s.integers(0, 7, shape) / 8) * 2.0 ** -s.integers(4, 7, shape).astype(np.float64)
        elif j == 3 and op.type.name == "uint8":
            v = ref.pack(s.integers(0, top, (shape[0], shape[1] * (8 // bits))), bits)
        elif j == 3:
            v = s.integers(0, 2 * top, shape) / 2
        elif j == 4:
            v = np.arange(shape[0]) // bs
        else:
            v = s.integers(-32, 31, shape) / 8
        out.append(np.asarray(v).reshape(shape).astype(t))
    return out


def _weights(values: list, attrs: dict) -> np.ndarray:
    """The dequantized W [N, K] in float64 (zeros for an omitted projection); g_idx clamped as the reference
    clamps it where it names no block (that data is a probe)."""
    b, s, zp, g = values[1:5]
    if ref.omitted(b, attrs):
        return np.zeros((int(attrs["N"]), int(attrs["K"])))
    if g is not None:
        g = np.clip(g, 0, ref.k_blocks(attrs["K"], attrs["block_size"]) - 1)
    return ref.weights(b, s, zp, g, attrs)


def _rows_shape(a_shape: tuple) -> tuple[int, int]:
    """A as [rows, K]: its leading dims flattened (a 1-D A is one row)."""
    return int(np.prod(a_shape[:-1], dtype=np.int64)), int(a_shape[-1])


def _range(ctx: Context, name: str) -> tuple[float, float, str]:
    given = ctx.range(name)
    if given is not None:
        return float(given[0]), float(given[1]), "calibration"
    return (*DEFAULT_RANGE, f"[{DEFAULT_RANGE[0]:g}, {DEFAULT_RANGE[1]:g}]: the adapter's default for an "
            "activation (no calibration given)")


def _sign(x: np.ndarray) -> np.ndarray:
    return np.where(np.asarray(x) < 0, -1.0, 1.0)


class Kinds:
    """A's data kinds for one node's fixed weights (the module docstring), one row of A each: the edges (the kinds'
    rows packed R to a data set: rows are independent sums, so one data set holds several kinds), and the
    search's draws (each row a kind with a random target)."""

    def __init__(self, w: np.ndarray, shape: tuple[int, int], attrs: dict, t1: dtypes.DType, params: dict,
                 values: list):
        self.w, (self.R, self.K), self.N = w, shape, w.shape[0]
        self.bs, self.t1, self.params, self.values = int(attrs["block_size"]), t1, params, values
        self.kb = ref.k_blocks(self.K, self.bs)
        self.empty = 0 in (self.R, self.K, self.N) or "b_omitted" in params
        self._q: np.ndarray | None = None

    def names(self) -> list[str]:
        """The kinds aimed at an output column that this configuration needs."""
        level, t1 = self.params["accuracy_level"], self.params["t1"]
        names = ["coherent", "int8"]
        if level == 4 and self.kb > 1:
            names.append("int8_rows")
        if t1 == "float16":
            names.append("overflow")
        if dtypes.get(dot_bound.accumulation(t1, level)).mantissa_bits > self.t1.mantissa_bits:
            names.append("swamp")
        return names

    def edges(self) -> list[np.ndarray]:
        """zeros, ones, one-hot rows, alternating signs, then each kind for its best targets; R rows a data set
        (the last filled with one-hot rows spread over K)."""
        if self.empty:
            return [np.zeros((self.R, self.K))]
        few = min(self.R, 2)
        rows = [np.zeros(self.K), np.ones(self.K)] + [self.unit(k) for k in self._unit_positions()[:max(2, 2 * self.R)]]
        rows += [self.alternate(i) for i in range(few)]
        for name in self.names():
            count = 1 if name in ("int8_rows", "swamp") else few
            made = (getattr(self, name)(n, None) for n in self._targets(name)[:count])
            rows += [x for x in made if x is not None]
        sets = -(-len(rows) // self.R)
        spread = np.linspace(0, self.K - 1, max(1, sets * self.R - len(rows)) + 2).round().astype(int)[1:-1]
        rows += [self.unit(int(k)) for k in spread[:sets * self.R - len(rows)]]
        return [np.stack(rows[i * self.R:(i + 1) * self.R]) for i in range(sets)]

    def drawn(self, s: Stream) -> np.ndarray:
        """One candidate: each row a kind with a random target and positions, or sparse random values."""
        if self.empty:
            return s.integers(-32, 32, (self.R, self.K)) / 16
        rows = []
        for _ in range(self.R):
            name = s.choice(self.names() + ["unit", "alternate", "sparse", "sparse"])
            if name == "sparse":  # a few random multiples of 1/16, the rest 0 (small bounds, exact products)
                x = np.where(s.integers(0, 7, self.K) == 0, s.integers(-32, 32, self.K) / 16, 0.0)
            elif name == "unit":
                x = self.unit(s.integers(0, self.K - 1))
            elif name == "alternate":
                x = self.alternate(s.integers(0, 1), s)
            else:
                x = getattr(self, name)(s.integers(0, self.N - 1), s)
            rows.append(np.zeros(self.K) if x is None else x)
        return np.stack(rows)

    # ---- where the kinds aim ---------------------------------------------------------------------------
    def _unit_positions(self) -> list[int]:
        """One-hot positions: a byte's two codes, the ends of the first blocks and of the last, K's tail."""
        bs, K, last = self.bs, self.K, (self.kb - 1) * self.bs
        want = [0, 1, bs - 1, bs, K - 1, K - 2, 2, 3, bs + 1, last, last + 1]
        return list(dict.fromkeys(k for k in want if 0 <= k < K))

    def _targets(self, name: str) -> list[int]:
        """Output columns, best first: where the kind's error is largest beside the bound."""
        absw = np.abs(self.w)
        if name == "int8_rows":  # the rest of the row against its least block sum
            sums = self._block_sums(absw)
            least = sums.min(axis=1)
            score = (sums.sum(axis=1) - least) / np.maximum(least, 1e-300)
        elif name == "overflow":  # the smallest scaled block sum that overflows
            score = -self._overflow_table()[0].min(axis=1)
        else:  # the largest sum |w|: every kind's error grows with it
            score = absw.sum(axis=1)
        return [int(n) for n in np.argsort(-score, kind="stable")]

    def _block_sums(self, x: np.ndarray) -> np.ndarray:
        pad = np.zeros(x.shape[:-1] + (self.kb * self.bs,))
        pad[..., :self.K] = x
        return pad.reshape(x.shape[:-1] + (self.kb, self.bs)).sum(axis=-1)

    def _block(self, b: int) -> slice:
        return slice(b * self.bs, min(self.K, (b + 1) * self.bs))

    # ---- the kinds: one row [K] float64, every value exact in A's type (None: not possible here) --------
    def unit(self, k: int) -> np.ndarray:
        x = np.zeros(self.K)
        x[k] = 1.0
        return x

    def alternate(self, flip: int, s: Stream | None = None) -> np.ndarray:
        """+1, -1 along K (flip: -1, +1); drawn: a random sign for each pair."""
        row = np.where(np.arange(self.K) % 2 == flip, 1.0, -1.0)
        if s is not None:
            row = row * np.repeat(np.where(s.booleans(-(-self.K // 2)), 1.0, -1.0), 2)[:self.K]
        return row

    def coherent(self, n: int, s: Stream | None) -> np.ndarray:
        return _sign(self.w[n])

    def int8(self, n: int, s: Stream | None) -> np.ndarray:
        """Per block: 127 steps over n's smallest |w| there, (q + 3/4) steps of w's sign elsewhere (q in 0 .. 3)."""
        k = np.arange(self.K)
        lift = 0 if s is None else s.integers(0, 2)
        step = 2.0 ** -(1 + lift + (k // self.bs) % 3)
        q = (k % 4 if s is None else s.integers(0, 3, self.K)) + 0.75
        x = _sign(self.w[n]) * q * step
        for b in range(self.kb):
            p = b * self.bs + int(np.argmin(np.abs(self.w[n, self._block(b)])))
            x[p] = 127 * step[p]
        return x

    def int8_rows(self, n: int, s: Stream | None) -> np.ndarray:
        """127 at n's smallest |w| in its block of least sum |w| (the rest of that block 0), 31/64 of w's sign
        elsewhere: one int8 step for the whole row is 1, which rounds each 31/64 to 0."""
        b = int(np.argmin(self._block_sums(np.abs(self.w[n])))) if s is None else s.integers(0, self.kb - 1)
        x = _sign(self.w[n]) * 31 / 64
        x[self._block(b)] = 0.0
        x[b * self.bs + int(np.argmin(np.abs(self.w[n, self._block(b)])))] = 127.0
        return x

    def _codes(self) -> np.ndarray:
        """|code - zero point| [N, K] (float64), of each k's block."""
        if self._q is None:
            b, _, zp, g = self.values[1:5]
            K, N, bs, bits = self.K, self.N, self.bs, self.params["bits"]
            codes = ref.unpack(np.asarray(b).reshape(N, self.kb, -1), bits, bs).reshape(N, self.kb * bs)[:, :K]
            blk = ref.block_of(K, bs, None if g is None else np.clip(g, 0, self.kb - 1))
            self._q = codes - ref.zero_points(zp, N, K, bs, bits)[:, blk]
        return self._q

    def _overflow_table(self) -> tuple[np.ndarray, np.ndarray]:
        """Per (column, block): the scaled sum |a * w| of an overflowing block (inf where none can be) and its M: M
        a power of 2 with M * sum |q| >= 2 * 65504, M * max |q| <= 65504 (each float16 product finite) and the
        scaled sum inside float16 with the bound's growth."""
        if not hasattr(self, "_table"):
            q = np.abs(self._codes())
            qs, aw = self._block_sums(q), self._block_sums(np.abs(self.w))
            pad = np.zeros((self.N, self.kb * self.bs))
            pad[:, :self.K] = q
            qmax = pad.reshape(self.N, self.kb, self.bs).max(axis=-1)
            with np.errstate(divide="ignore"):
                m = 2.0 ** np.ceil(np.log2(2 * F16_MAX / np.where(qs > 0, qs, 1.0)))
            limit = F16_MAX / (1 + 2 * (self.K + 1) * 2.0 ** -11) / 2
            ok = (qs > 0) & (m * qmax <= F16_MAX) & (m * aw < limit)
            self._table = (np.where(ok, m * aw, np.inf), m)
        return self._table

    def _overflow_pick(self, n: int, s: Stream | None = None) -> tuple[int, float, float]:
        """(block, its scaled sum, M) for column n: the least scaled sum, or a random block (inf: none)."""
        size, m = self._overflow_table()
        b = int(np.argmin(size[n])) if s is None else s.integers(0, self.kb - 1)
        return b, float(size[n, b]), float(m[n, b])

    def overflow(self, n: int, s: Stream | None) -> np.ndarray | None:
        """One block of M * sign(code - zero point) for column n, the rest 0."""
        b, size, m = self._overflow_pick(n, s)
        if not np.isfinite(size):
            return None
        x = np.zeros(self.K)
        x[self._block(b)] = m * _sign(self._codes()[n, self._block(b)])
        return x

    def swamp(self, n: int, s: Stream | None) -> np.ndarray | None:
        """2**(mantissa bits + 3) of w's sign over n's largest |w|, then sign(w): each later term is below half an
        ulp of the first product in A's type."""
        k0 = int(np.argmax(np.abs(self.w[n])))
        w0, big = self.w[n, k0], 2.0 ** (self.t1.mantissa_bits + 3)
        if w0 == 0 or big * abs(w0) * 4 > float(self.t1.finite_max):
            return None
        x = _sign(self.w[n])
        x[k0] = big * _sign(w0)
        return x
