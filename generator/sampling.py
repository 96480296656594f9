"""Seeded, derandomized draws from hypothesis strategies, for writing suites.

Suites must be byte-identical for the same options, so hypothesis runs with an explicit seed,
no example database and the generate phase only (no shrinking). The values depend on the
hypothesis version too: .ci/constraints.txt pins the version the committed suite was made with.
"""

from __future__ import annotations

import zlib

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st


def case_seed(base_seed: int, name: str) -> int:
    """A per-case seed that is stable across runs and Python versions (no hash())."""
    return (base_seed * 1_000_003 + zlib.crc32(name.encode())) % (2**32)


def draw(strategy: st.SearchStrategy, n: int, seed: int) -> list:
    """n examples of `strategy` (fewer if hypothesis exhausts a small space), deterministically."""
    out: list = []

    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), derandomize=False)
    @hypothesis_seed(seed)
    @given(strategy)
    def collect(x):
        out.append(x)

    collect()
    return out[:n]
