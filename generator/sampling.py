"""Seeded random draws for writing suites: numpy's PCG64 raw words, mapped to values by this module.

Why: a written suite must be byte-identical for the same options on any machine and with any version
of the libraries that do not serialize it. Hypothesis (what gen-cases used before) changes its draws
from one version to the next; numpy's ``Generator`` methods (``integers``, ``uniform``, ``normal``...)
and the legacy ``RandomState`` carry no promise across numpy versions either, and transcendental
functions (``2.0 ** x``, ``log``, ``exp``) may round differently with the CPU's SIMD paths. What numpy
does promise (NEP 19, "Compatibility policy" of numpy.random) is the raw output of a BitGenerator:
``np.random.PCG64(seed).random_raw(n)`` gives the same 64-bit words for the same integer seed
(seeded through SeedSequence, whose algorithm is fixed too) in every numpy version.

So every seeded draw of gen-cases goes through `Stream`, which reads PCG64 raw words in order and maps
them to values with this module's own code: Python-int / uint64 integer arithmetic and exactly rounded
float64 operations (+, -, *, exact powers of two), nothing else. What a `Stream` returns is therefore
a function of the seed and of this file only. tests/test_sampling.py pins the first values of the
mappings; changing a mapping changes the written suites (regenerate cases/ in the same commit).

The mappings (each value consumes whole words, in stream order):
  bits(k)            the top k bits of one word (1 <= k <= 64)
  integers(lo, hi)   uniform on [lo, hi], inclusive, any Python-int bounds (int64 / uint64 full range and
                     wider): rejection sampling, unbiased. With r = hi - lo + 1 and k = bit_length(r - 1),
                     a candidate is the top k bits of one word (of ceil(k / 64) words, most significant
                     first, when k > 64); candidates >= r are skipped; the value is lo + candidate
                     (a range of one value consumes no word)
  log_integers(lo, hi)  spread over magnitudes: k = integers(0, bit length of max(|lo|, |hi|)), then
                     integers(max(lo, -2**k), min(hi, 2**k))
  random()           [0, 1): the top 53 bits of one word times 2**-53 (exact)
  uniform(lo, hi)    lo + (hi - lo) * random(), in float64 (one rounding each; can round to hi)
  octaves(lo, hi)    2**e * m: e = integers(lo, hi - 1), then m = 1 + random() (exact): log-uniform over
                     the octaves, uniform within one
  choice(seq)        seq[integers(0, len(seq) - 1)]
  sample(seq, k)     k distinct elements: a partial Fisher-Yates shuffle with integers(i, len - 1)

Arrays (size given) draw their elements in C order, the same values as that many scalar draws (octaves:
the exponents of all elements, then their mantissas).
`case_seed` makes per-case seeds so that cases do not shift each other's draws.
"""

from __future__ import annotations

import zlib
from typing import Sequence, TypeVar

import numpy as np

T = TypeVar("T")

_U64 = np.uint64
_TWO64 = 1 << 64
_INT64 = (-(1 << 63), (1 << 63) - 1)


def case_seed(base_seed: int, name: str) -> int:
    """A per-case seed that is stable across runs and Python versions (no hash())."""
    return (base_seed * 1_000_003 + zlib.crc32(name.encode())) % (2**32)


def distinct(values) -> np.ndarray:
    """The distinct values of a float array, sorted, with one zero: +0.

    np.unique keeps whichever zero its sort puts first, and which one that is depends on the CPU: numpy
    sorts with SIMD kernels (x86-simd-sort on AVX-512 machines) that order the equal +0 and -0 differently
    from the scalar sort. A written suite must be the same on every machine, so the zero is chosen here;
    callers that want -0 add it themselves."""
    v = np.unique(np.asarray(values, dtype=np.float64))
    return np.where(v == 0, 0.0, v)


def _count(size) -> int:
    return int(np.prod(size, dtype=np.int64)) if isinstance(size, tuple) else int(size)


class Stream:
    """The draws of one seed: PCG64 raw words, read in order, mapped by this module (see above)."""

    def __init__(self, seed: int):
        if not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
        self.seed = int(seed)
        self._bg = np.random.PCG64(self.seed)
        self.words_used = 0

    # ---- raw -----------------------------------------------------------------------------
    def words(self, n: int) -> np.ndarray:
        """The next n raw 64-bit words (uint64)."""
        if n <= 0:
            return np.zeros(0, dtype=_U64)
        self.words_used += n
        return np.asarray(self._bg.random_raw(n), dtype=_U64)

    def bits(self, nbits: int, size=None):
        """Values of nbits (1..64) random bits: the top nbits of one word each (uint64 array, or int)."""
        if not 1 <= nbits <= 64:
            raise ValueError(f"nbits must be in 1..64, not {nbits}")
        n = 1 if size is None else _count(size)
        w = self.words(n) >> _U64(64 - nbits)
        return int(w[0]) if size is None else w.reshape(size)

    # ---- integers ----------------------------------------------------------------------------
    def _below(self, r: int, n: int) -> np.ndarray:
        """n uniform values in [0, r) for 1 <= r <= 2**64 (uint64): the first n accepted candidates."""
        if r == 1:
            return np.zeros(n, dtype=_U64)
        shift = _U64(64 - (r - 1).bit_length())
        out = np.empty(n, dtype=_U64)
        filled = 0
        while filled < n:  # draw as many words as values still missing: never a word past the last value
            c = self.words(n - filled) >> shift
            if r < _TWO64:
                c = c[c < _U64(r)]
            out[filled:filled + c.size] = c
            filled += c.size
        return out

    def _below_wide(self, r: int) -> int:
        """One uniform value in [0, r) for r > 2**64: candidates of ceil(k / 64) words."""
        k = (r - 1).bit_length()
        nw = -(-k // 64)
        while True:
            v = 0
            for w in self.words(nw).tolist():
                v = (v << 64) | int(w)
            v >>= 64 * nw - k
            if v < r:
                return v

    def integers(self, lo: int, hi: int, size=None, dtype=None):
        """Uniform integers in [lo, hi] (both included). size None: one Python int. Otherwise an array
        of that shape: of `dtype` if given (the values must fit it), else int64 when [lo, hi] fits int64,
        uint64 when it fits uint64, object (Python ints) otherwise."""
        lo, hi = int(lo), int(hi)
        if hi < lo:
            raise ValueError(f"empty range [{lo}, {hi}]")
        r = hi - lo + 1
        if size is None and r <= _TWO64:  # the same mapping as _below, one word at a time
            if r == 1:
                return lo
            shift = 64 - (r - 1).bit_length()
            while True:
                self.words_used += 1
                c = self._bg.random_raw() >> shift
                if c < r:
                    return lo + c
        n = 1 if size is None else _count(size)
        if r <= _TWO64:
            off = self._below(r, n)
            if size is None:
                return lo + int(off[0])
            if _INT64[0] <= lo and hi <= _INT64[1]:  # two's complement wrap-around gives the exact sum
                out = (off + _U64(lo % _TWO64)).view(np.int64)
            elif lo >= 0 and hi < _TWO64:
                out = off + _U64(lo)
            else:
                out = np.array([lo + int(v) for v in off.tolist()], dtype=object)
        else:
            vals = [lo + self._below_wide(r) for _ in range(n)]
            if size is None:
                return vals[0]
            out = np.array(vals, dtype=object)
        out = out.reshape(size)
        if dtype is not None:
            if out.dtype == object:
                return np.array(out.tolist(), dtype=dtype).reshape(size)
            return out.astype(dtype)
        return out

    def log_integers(self, lo: int, hi: int, size=None):
        """Integers of [lo, hi] spread over magnitudes: k = integers(0, K) with K the bit length of
        max(|lo|, |hi|), then integers(max(lo, -2**k), min(hi, 2**k)) (integers(lo, hi) when that is
        empty). Small and large values alike, as uniform draws over a wide range are nearly all huge.
        size None: one Python int; else an array as `integers` makes it (values drawn one by one)."""
        lo, hi = int(lo), int(hi)
        if hi < lo:
            raise ValueError(f"empty range [{lo}, {hi}]")
        top = max(abs(lo), abs(hi)).bit_length()
        vals = []
        for _ in range(1 if size is None else _count(size)):
            k = self.integers(0, top)
            a, b = max(lo, -(1 << k)), min(hi, 1 << k)
            vals.append(self.integers(a, b) if a <= b else self.integers(lo, hi))
        if size is None:
            return vals[0]
        if _INT64[0] <= lo and hi <= _INT64[1]:
            return np.array(vals, dtype=np.int64).reshape(size)
        if lo >= 0 and hi < _TWO64:
            return np.array(vals, dtype=_U64).reshape(size)
        return np.array(vals, dtype=object).reshape(size)

    def booleans(self, size=None):
        """Fair coin flips: the top bit of one word each."""
        b = self.bits(1, size)
        return bool(b) if size is None else b.astype(bool)

    # ---- floats ----------------------------------------------------------------------------
    def random(self, size=None):
        """Uniform float64 in [0, 1): the top 53 bits of a word times 2**-53 (exact)."""
        u = self.bits(53, 1 if size is None else size).astype(np.float64) * 2.0**-53
        return float(u.reshape(-1)[0]) if size is None else u

    def uniform(self, lo: float, hi: float, size=None):
        """lo + (hi - lo) * random() in float64 (rounded once per operation; can reach hi)."""
        u = self.random(1 if size is None else size)
        v = np.float64(lo) + (np.float64(hi) - np.float64(lo)) * u
        return float(v.reshape(-1)[0]) if size is None else v

    def octaves(self, lo: int, hi: int, size=None):
        """2**e * m with e uniform among the integers lo..hi-1 and m = 1 + random(): log-uniform over the
        octaves [2**lo, 2**hi), uniform inside each; exact float64 (no pow / exp)."""
        n = 1 if size is None else _count(size)
        e = self.integers(int(lo), int(hi) - 1, n)
        m = 1.0 + self.random(n)
        v = np.ldexp(m, e.astype(np.int32)).reshape(-1 if size is None else size)
        return float(v[0]) if size is None else v

    # ---- sequences ----------------------------------------------------------------------------
    def choice(self, seq: Sequence[T]) -> T:
        """One element of seq, each index equally likely (repeat an element to weight it)."""
        if len(seq) == 0:
            raise ValueError("choice from an empty sequence")
        return seq[self.integers(0, len(seq) - 1)]

    def choices(self, seq: Sequence[T], n: int) -> list[T]:
        """n independent choices (indices drawn as one array of integers)."""
        if n == 0:
            return []
        if len(seq) == 0:
            raise ValueError("choice from an empty sequence")
        return [seq[i] for i in self.integers(0, len(seq) - 1, n).tolist()]

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """k distinct positions of seq in random order (partial Fisher-Yates: position i swaps with a
        uniform j in [i, len - 1])."""
        pool = list(seq)
        if not 0 <= k <= len(pool):
            raise ValueError(f"cannot sample {k} of {len(pool)}")
        for i in range(k):
            j = self.integers(i, len(pool) - 1)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]
