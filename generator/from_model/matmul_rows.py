"""The activation of a quantized matmul built row by row for chosen sums: the helper of the from-model adapters of
QLinearMatMul and MatMulInteger (generator/from_model/qlinear_matmul.py, matmul_integer.py).

The weights are the model's, so an edge of the output (a requantization tie at the model's scales, saturation, an
int16 / int32 boundary of the sum) is reached through a: one row r of a (a's shape without K, flattened) is given
differences d = a - a_zero_point such that one output column's sum

    acc[r, n] = sum_k d[k] * (b[k, n] - b_zero_point[n])

is a target value exactly (Rows.solve). Rows of a matmul are independent, so one data set holds as many targets as a
has rows (pack)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generator.dtypes import DType

SOLVE_STEPS = 64  # greedy steps of Rows.solve before the exact finish
FINISH_FIRST = 12  # coordinates of smallest |w| tried as the first of a two-coordinate finish


@dataclass
class Rows:
    """a's rows against b: per row of a, the weights of the b batch it meets first (numpy.matmul's broadcast),
    its zero point, and the bounds a's type puts on d."""
    a_shape: tuple  # a's shape as the model declares it (rank >= 1)
    a_type: DType
    w: np.ndarray  # [nb, K, N] int64: b - b_zero_point of each batch of b
    raw: np.ndarray  # [nb, K, N] int64: b as stored
    b_of_row: np.ndarray  # [R]: the batch of b each row of a meets first
    az: np.ndarray  # [R] int64: a_zero_point of each row

    @property
    def R(self) -> int:
        return int(self.az.size)

    @property
    def K(self) -> int:
        return int(self.w.shape[1])

    @property
    def N(self) -> int:
        return int(self.w.shape[2])

    def column(self, r: int, n: int) -> np.ndarray:
        return self.w[self.b_of_row[r], :, n]

    def bounds(self, r: int) -> tuple[int, int]:
        """The range of d = a - a_zero_point in row r."""
        return self.a_type.int_min - int(self.az[r]), self.a_type.int_max - int(self.az[r])

    def reach(self, r: int, n: int) -> tuple[int, int]:
        """The least and greatest acc[r, n] any a gives."""
        w = self.column(r, n)
        lo, hi = self.bounds(r)
        return int(np.minimum(w * lo, w * hi).sum()), int(np.maximum(w * lo, w * hi).sum())

    def zero(self) -> np.ndarray:
        """d of a = a_zero_point everywhere: every acc 0."""
        return np.zeros((self.R, self.K), np.int64)

    def ends(self, top: bool) -> np.ndarray:
        """d of a at the bottom (or top) of its type everywhere."""
        return np.stack([np.full(self.K, self.bounds(r)[1 if top else 0], np.int64) for r in range(self.R)]) \
            if self.R else self.zero()

    def uniform(self, stream, lo: int | None = None, hi: int | None = None) -> np.ndarray:
        """d of a uniform over [lo, hi] (a's type where None), clipped to the type."""
        t = self.a_type
        lo, hi = max(t.int_min, t.int_min if lo is None else lo), min(t.int_max, t.int_max if hi is None else hi)
        a = stream.integers(lo, hi, (self.R, self.K)) if self.R * self.K else np.zeros((self.R, self.K), np.int64)
        return np.asarray(a, np.int64) - self.az[:, None]

    def extreme(self, r: int, n: int, sign: int, start: np.ndarray) -> np.ndarray:
        """Row r's d with acc[r, n] at its greatest (sign +1) or least (-1): each d[k] at the end of its range that
        w[k] * d[k] has that sign at (start where w[k] is 0)."""
        w = self.column(r, n)
        lo, hi = self.bounds(r)
        return np.where(sign * w > 0, hi, np.where(sign * w < 0, lo, start)).astype(np.int64)

    def pair_start(self, r: int, n: int, start: np.ndarray, b_shift: int = 0) -> tuple[np.ndarray, np.ndarray] | None:
        """Row r's d with a at its type's top on the adjacent K pair (2j, 2j + 1) whose stored b values (less b_shift:
        a kernel that shifts b into int8) have the largest same-sign sum in column n: the raw products a * b of that
        pair at their largest (an x86 VPMADDUBSW pair sum beyond int16); and the mask of the two (frozen)."""
        k2 = self.K - self.K % 2
        if k2 < 2:
            return None
        b = self.raw[self.b_of_row[r], :k2, n] - b_shift
        b0, b1 = b[0::2], b[1::2]
        same = np.sign(b0) * np.sign(b1) > 0
        if not same.any():
            return None
        j = int(np.argmax(np.where(same, np.abs(b0 + b1), -1)))
        d = start.copy()
        top = self.bounds(r)[1]
        d[2 * j], d[2 * j + 1] = top, top
        frozen = np.zeros(self.K, bool)
        frozen[2 * j:2 * j + 2] = True
        return d, frozen

    def solve(self, r: int, n: int, target: int, start: np.ndarray, frozen: np.ndarray | None = None
              ) -> np.ndarray | None:
        """Row r's d, start changed in few places, with acc[r, n] == target exactly (None where not found): greedy
        steps on the coordinate that brings the sum nearest the target, then an exact finish by one or two
        coordinates."""
        w = self.column(r, n)
        lo, hi = self.bounds(r)
        d = np.asarray(start, np.int64).copy()
        movable = w != 0
        if frozen is not None:
            movable &= ~frozen
        res = int(target) - int(w @ d)
        if res:  # far off: whole coordinates to the bound that moves the sum toward the target, largest |w| first
            sign = 1 if res > 0 else -1
            gain = np.where(movable, np.where(sign * w > 0, w * (hi - d), w * (lo - d)) * sign, 0)
            order = np.argsort(-np.abs(w), kind="stable")
            full = order[:int(np.searchsorted(np.cumsum(gain[order]), abs(res), side="right"))]
            full = full[gain[full] > 0]  # frozen and zero-weight coordinates stay
            if full.size:
                moved = np.where(sign * w[full] > 0, hi, lo)
                res -= int(w[full] @ (moved - d[full]))
                d[full] = moved
        safe = np.where(w == 0, 1, w)
        for _ in range(SOLVE_STEPS):
            if res == 0:
                return d
            want = np.where(movable, np.trunc(res / safe), 0.0)
            step = np.where(want > 0, np.minimum(want, hi - d), np.maximum(want, lo - d)).astype(np.int64)
            gain = np.abs(w * step)
            k = int(np.argmax(gain))
            if gain[k] == 0:
                break
            d[k] += step[k]
            res -= int(w[k] * step[k])
        if res == 0:
            return d
        return self._finish(w, d, res, lo, hi, movable)

    @staticmethod
    def _finish(w, d, res, lo, hi, movable) -> np.ndarray | None:
        """d with res taken up exactly by one coordinate, or by a small step of one and an exact one of another."""
        def one(res_left: int, skip: int = -1) -> int | None:
            ok = movable & (w != 0)
            if skip >= 0:
                ok = ok.copy()
                ok[skip] = False
            safe = np.where(w == 0, 1, w)
            q = res_left // safe
            ok &= (res_left % safe == 0) & (d + q >= lo) & (d + q <= hi)
            hits = np.flatnonzero(ok)
            return int(hits[0]) if hits.size else None

        k = one(res)
        if k is not None:
            d[k] += res // int(w[k])
            return d
        order = np.argsort(np.where(movable & (w != 0), np.abs(w), np.iinfo(np.int64).max), kind="stable")
        for k1 in order[:FINISH_FIRST].tolist():
            if not movable[k1] or w[k1] == 0:
                break
            for s in (1, -1, 2, -2, 3, -3):
                if not lo <= d[k1] + s <= hi:
                    continue
                left = res - int(w[k1]) * s
                k2 = one(left, skip=k1)
                if k2 is not None:
                    d[k1] += s
                    d[k2] += left // int(w[k2])
                    return d
        return None

    def sums(self, d: np.ndarray) -> np.ndarray:
        """acc [R, N] of rows d."""
        return np.einsum("rk,rkn->rn", d, self.w[self.b_of_row])

    def array(self, d: np.ndarray) -> np.ndarray:
        """a = a_zero_point + d in a's shape and type."""
        a = (np.asarray(d, np.int64) + self.az[:, None]).reshape(self.a_shape)
        return a.astype(self.a_type.np_dtype)


def rows_of(a_shape: tuple, a_type: DType, az: np.ndarray, b: np.ndarray, bz: np.ndarray) -> Rows:
    """The Rows of a (shape, type, its zero point broadcast against a's rows: [..., M, 1] or a scalar) against b
    (as stored, any rank >= 1) with b's zero point broadcast against it ([..., 1, N] or a scalar)."""
    a_shape = tuple(a_shape)
    a2 = (1,) + a_shape if len(a_shape) == 1 else a_shape
    b = np.asarray(b, np.int64)
    b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    zb = np.asarray(bz, np.int64)
    zb = zb.reshape(zb.shape + (1,)) if b.ndim == 1 and zb.ndim == 1 else zb
    w2 = b2 - zb
    k, n = b2.shape[-2:]
    ab, bb = a2[:-2], b2.shape[:-2]
    ob = np.broadcast_shapes(ab, bb)
    ia = np.broadcast_to(np.arange(int(np.prod(ab, dtype=np.int64))).reshape(ab), ob).ravel()
    ib = np.broadcast_to(np.arange(int(np.prod(bb, dtype=np.int64))).reshape(bb), ob).ravel()
    first: dict[int, int] = {}
    for x, y in zip(ia.tolist(), ib.tolist()):
        first.setdefault(x, y)
    m = a2[-2]
    b_of_row = np.repeat(np.array([first.get(i, 0) for i in range(int(np.prod(ab, dtype=np.int64)))], np.int64), m)
    rows = np.broadcast_to(np.asarray(az, np.int64), a2[:-1] + (1,)).reshape(-1)
    return Rows(a_shape, a_type, w2.reshape(-1, k, n).astype(np.int64), b2.reshape(-1, k, n), b_of_row,
                rows.astype(np.int64))


def pack(specs: list, rows: int, most: int) -> list[list]:
    """Row specs in data sets of `rows` rows each (the last filled with None), at most `most` sets."""
    if rows <= 0:
        return []
    sets = [specs[i:i + rows] for i in range(0, len(specs), rows)][:most]
    if sets and len(sets[-1]) < rows:
        sets[-1] = sets[-1] + [None] * (rows - len(sets[-1]))
    return sets


def columns(n: int, most: int = 4) -> list[int]:
    """The output columns targeted first: the last (in every vector tail), the first, and a few between."""
    if n <= 0:
        return []
    picks = [n - 1, 0] + [int(round(x)) for x in np.linspace(0, n - 1, most + 1)[1:-1]]
    out: list[int] = []
    for p in picks:
        if p not in out:
            out.append(p)
    return out[:most]
